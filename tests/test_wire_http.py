"""The JSON-RPC (TCP and unix socket) and HTTP+JSON clients against a real a2a-sdk server."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.wire import errors
from conformance.wire.exchange import Recorder
from conformance.wire.httpbase import HttpEndpoint
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.rest import RestClient
from tests.wire_servers import (
    KNOWN_TASK,
    HeaderLog,
    RunningHttp,
    ScriptedHandler,
    a2a_app,
    entered,
    normal_stream_client,
    serve_http,
)

SEND = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


@pytest.fixture(scope="module")
def handler() -> ScriptedHandler:
    return ScriptedHandler()


@pytest.fixture(scope="module")
def app(handler: ScriptedHandler) -> HeaderLog:
    return a2a_app(handler)


@pytest.fixture(scope="module")
def server(app: HeaderLog) -> Iterator[RunningHttp]:
    yield from entered(serve_http(app))


@pytest.fixture
def rpc(server: RunningHttp, handler: ScriptedHandler) -> Iterator[JsonRpcClient]:
    yield from normal_stream_client(handler, JsonRpcClient(server.url + "/a2a", recorder=Recorder()))


@pytest.fixture
def rest(server: RunningHttp, handler: ScriptedHandler) -> Iterator[RestClient]:
    yield from normal_stream_client(handler, RestClient(server.url))


def test_call_returns_result_and_records_the_exchange(rpc: JsonRpcClient) -> None:
    r = rpc.call("SendMessage", SEND, request_id="abc")
    assert r.status == 200 and r.error is None and r.id == "abc"
    assert r.result["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    ex = rpc.recorder.last
    assert ex.binding == "JSONRPC" and ex.rpc_method == "SendMessage" and ex.status == 200
    assert ex.request_body["method"] == "SendMessage" and ex.response_body == r.json
    assert ("A2A-Version", "1.0") in ex.request_headers
    json.dumps(rpc.recorder.to_evidence())


def test_error_reply_is_viewed_through_the_error_table(rpc: JsonRpcClient) -> None:
    r = rpc.call("GetTask", {"id": "missing"})
    assert r.error is not None and r.error.code == -32001
    view = errors.from_jsonrpc(r.json["error"])
    assert view.reason == "TASK_NOT_FOUND" and view.domain == errors.DOMAIN
    assert view.mismatches(errors.BY_NAME["TaskNotFoundError"]) == []
    assert view.mismatches(errors.BY_NAME["TaskNotCancelableError"]) != []


def test_none_removes_a_default_header(rpc: JsonRpcClient, app: HeaderLog) -> None:
    r = rpc.call("GetTask", {"id": KNOWN_TASK}, headers={"A2A-Version": None})
    assert app.lines("a2a-version") == []
    assert r.error is not None and r.error.code == -32009, r.json


def test_extensions_as_repeated_lines_or_one_comma_line(rpc: JsonRpcClient, app: HeaderLog) -> None:
    rpc.call("GetTask", {"id": KNOWN_TASK}, headers={"A2A-Extensions": ["urn:a", "urn:b"]})
    assert app.lines("a2a-extensions") == ["urn:a", "urn:b"]
    rpc.call("GetTask", {"id": KNOWN_TASK}, headers={"a2a-extensions": "urn:a, urn:b"})
    assert app.lines("a2a-extensions") == ["urn:a, urn:b"]


def test_raw_sends_malformed_envelopes_verbatim(rpc: JsonRpcClient) -> None:
    r = rpc.raw(b"{not json")
    assert r.error is not None and r.error.code == -32700
    assert rpc.recorder.last.request_body == "{not json"
    r = rpc.raw({"jsonrpc": "1.0", "id": 1, "method": "GetTask"})
    assert r.error is not None and r.error.code == -32600


def test_stream_collects_every_envelope_and_ends_by_server(rpc: JsonRpcClient) -> None:
    s = rpc.stream("SendStreamingMessage", SEND)
    assert s.is_sse and s.closed_by == "server" and s.errors == []
    assert [next(iter(r)) for r in s.results] == ["task", "statusUpdate", "task"]
    assert rpc.recorder.last.frames is not None and len(rpc.recorder.last.frames) == 3


def test_stream_keeps_error_frames(rpc: JsonRpcClient, handler: ScriptedHandler) -> None:
    handler.stream_mode = "error"
    s = rpc.stream("SendStreamingMessage", SEND)
    assert [e.event for e in s.events] == ["message", "error"]
    assert [e.code for e in s.errors] == [-32001]


def test_stalled_stream_is_cut_and_says_so(rpc: JsonRpcClient, handler: ScriptedHandler) -> None:
    handler.stream_mode = "stall"
    s = rpc.stream("SendStreamingMessage", SEND, deadline=5.0, idle_timeout=0.3)
    assert s.closed_by == "deadline" and len(s.results) == 1
    assert rpc.recorder.last.closed_by == "deadline"


def test_until_stops_reading_early(rpc: JsonRpcClient, handler: ScriptedHandler) -> None:
    handler.stream_mode = "trickle"
    s = rpc.stream("SendStreamingMessage", SEND, deadline=5.0, until=lambda e: "statusUpdate" in e.data)
    assert s.closed_by == "client" and "statusUpdate" in s.results[-1]


def test_secrets_are_redacted_from_evidence(rpc: JsonRpcClient) -> None:
    rpc.call("GetTask", {"id": "tok-s3cret"}, headers={"Authorization": "Bearer s3cret"})
    ev = json.dumps(rpc.recorder.last.to_evidence(secrets=["s3cret"]))
    assert "s3cret" not in ev and "<redacted>" in ev


def test_jsonrpc_over_a_unix_socket(tmp_path: Path, handler: ScriptedHandler) -> None:
    sock = str(tmp_path / "a2a.sock")
    with serve_http(a2a_app(handler), uds=sock), JsonRpcClient("/a2a", uds=sock) as c:
        r = c.call("GetTask", {"id": KNOWN_TASK})
        assert r.result["id"] == KNOWN_TASK
        assert c.recorder.last.binding == "JSONRPC-UNIX"
        s = c.stream("SendStreamingMessage", SEND)
        assert s.closed_by == "server" and len(s.results) == 3


def test_rest_routes_and_error_view(rest: RestClient) -> None:
    assert rest.send_message(SEND).json["task"]["id"] == KNOWN_TASK
    assert rest.get_task(KNOWN_TASK).json["id"] == KNOWN_TASK
    assert rest.list_tasks(params={"pageSize": 1}).json["tasks"][0]["id"] == KNOWN_TASK
    cases = {
        "TaskNotFoundError": rest.get_task("missing"),
        "TaskNotCancelableError": rest.cancel_task(KNOWN_TASK),
        "PushNotificationNotSupportedError": rest.list_push_configs(KNOWN_TASK),
        "ExtendedAgentCardNotConfiguredError": rest.get_extended_card(),
    }
    for name, reply in cases.items():
        view = errors.from_rest(reply.status, reply.json)
        assert view.mismatches(errors.BY_NAME[name]) == [], (name, reply.json)
    assert rest.recorder.last.binding == "HTTP+JSON" and rest.recorder.last.target == "/extendedAgentCard"


def test_rest_push_config_routes_reach_the_handler(rest: RestClient) -> None:
    replies = [
        rest.create_push_config(KNOWN_TASK, {"url": "http://127.0.0.1:9/hook"}),
        rest.get_push_config(KNOWN_TASK, "c1"),
        rest.delete_push_config(KNOWN_TASK, "c1"),
    ]
    for r in replies:
        assert errors.from_rest(r.status, r.json).reason == "PUSH_NOTIFICATION_NOT_SUPPORTED", r.json


def test_rest_tenant_is_a_path_prefix(server: RunningHttp) -> None:
    with RestClient(server.url, tenant="acme") as c:
        r = c.get_task(KNOWN_TASK)
        assert c.recorder.last.target == f"/acme/tasks/{KNOWN_TASK}"
        assert r.status == 200 and r.json["id"] == KNOWN_TASK


def test_rest_streams_and_subscribe(rest: RestClient) -> None:
    s = rest.stream_message(SEND)
    assert s.closed_by == "server" and [next(iter(p)) for p in s.payloads] == ["task", "statusUpdate", "task"]
    sub = rest.subscribe(KNOWN_TASK)
    assert sub.closed_by == "server" and sub.payloads[0]["task"]["id"] == KNOWN_TASK
    gone = rest.subscribe("missing", verb="GET")
    assert not gone.is_sse and errors.from_rest(gone.status, gone.json).reason == "TASK_NOT_FOUND"


def test_rest_request_sends_anything(rest: RestClient) -> None:
    r = rest.request("POST", "/message:send", json=b"{broken")
    assert r.status == 400 and r.is_json, r.body
    r = rest.request("GET", "/no/such/route")
    assert r.status == 404


class _DropsAfter500(threading.Thread):
    """A raw HTTP/1.1 server: the first request on a connection is answered (a 500 for ``/fail``,
    keeping the connection open as HTTP/1.1 allows); a later request on a connection that carried a
    500 is dropped unanswered, as a server does that closes such a connection without saying so."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _serve(conn: socket.socket) -> None:
        failed = False
        with conn:
            while True:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    head += chunk
                if failed:
                    return  # drop the connection, the request unanswered
                failed = head.split(b" ", 2)[1] == b"/fail"
                body = b'{"error": "boom"}' if failed else b'{"ok": true}'
                status = b"500 Internal Server Error" if failed else b"200 OK"
                conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body)


def test_no_connection_is_reused_after_a_server_error() -> None:
    """A connection that carried a 500 is not sent another request: the agent's next answer is its
    own, never a stale keep-alive connection's failure (which would change from run to run)."""
    server = _DropsAfter500()
    server.start()
    endpoint = HttpEndpoint(server.url, binding="HTTP+JSON")
    try:
        assert endpoint.send("GET", "/fail", headers=[]).status == 500
        again = endpoint.send("GET", "/ok", headers=[])
        assert again.status == 200 and again.json == {"ok": True}, again
    finally:
        endpoint.close()
        server.sock.close()
