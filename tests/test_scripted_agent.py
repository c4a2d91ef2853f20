"""The scripted agent does on the wire exactly what its script says, on every binding.

Real sockets on 127.0.0.1, real HTTP (httpx), real gRPC, real TLS (trustme), a real
subprocess for the standalone mode. One agent per module serves most tests; each test
sets its own script.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from a2a.types import a2a_pb2 as pb
from a2a.types.a2a_pb2_grpc import A2AServiceStub
from a2a.utils import errors as a2a_errors
from a2a.utils.errors import A2A_ERROR_REASONS

from conformance.fixtures.scripted_agent import (
    ApiKey,
    ArtifactSpec,
    Bearer,
    CardSpec,
    Data,
    ErrorReply,
    Interface,
    MessageReply,
    Raw,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
    TLSConfig,
    Url,
)

BINDINGS = ("JSONRPC", "HTTP+JSON")
V1 = {"A2A-Version": "1.0"}
WORKING_THEN_DONE = TaskFlow(states=[("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 0.6)])
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def agent() -> Iterator[ScriptedAgent]:
    with ScriptedAgent(grpc=True) as a:
        yield a


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10.0, headers=V1) as c:
        yield c


# ----------------------------------------------------------------------------- wire helpers


def message(text: str = "hello", **ids: str) -> dict[str, Any]:
    return {"messageId": f"m-{time.monotonic_ns()}", "role": "ROLE_USER", "parts": [{"text": text}], **ids}


def _rest_request(op: str, params: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None, dict[str, Any]]:
    """(verb, path, json body, query) for an A2A operation over HTTP+JSON."""
    tid = params.get("id", "")
    query = {k: v for k, v in params.items() if k not in ("id", "tenant")}
    table = {
        "SendMessage": ("POST", "/message:send", params, {}),
        "SendStreamingMessage": ("POST", "/message:stream", params, {}),
        "GetTask": ("GET", f"/tasks/{tid}", None, query),
        "CancelTask": ("POST", f"/tasks/{tid}:cancel", {}, {}),
        "SubscribeToTask": ("POST", f"/tasks/{tid}:subscribe", {}, {}),
        "ListTasks": ("GET", "/tasks", None, query),
    }
    return table[op]


def call(
    client: httpx.Client,
    agent: ScriptedAgent,
    binding: str,
    op: str,
    params: dict[str, Any],
    query: dict[str, str] | None = None,
) -> httpx.Response:
    """One unary A2A call over `binding` (`query`: extra URL query parameters)."""
    if binding == "JSONRPC":
        envelope = {"jsonrpc": "2.0", "id": 7, "method": op, "params": params}
        return client.post(agent.jsonrpc_url, json=envelope, params=query)
    verb, path, body, rest_query = _rest_request(op, params)
    prefix = f"/{params['tenant']}" if params.get("tenant") else ""
    return client.request(
        verb, agent.rest_url + prefix + path, json=body, params={**rest_query, **(query or {})}
    )


def result(resp: httpx.Response, binding: str) -> dict[str, Any]:
    assert resp.status_code == 200, f"expected 200, got {resp.status_code}: {resp.text}"
    body = resp.json()
    if binding == "JSONRPC":
        assert "result" in body, f"expected a JSON-RPC result, got {body}"
        return body["result"]
    return body


def error_reason(resp: httpx.Response, binding: str) -> str:
    """The google.rpc.ErrorInfo reason of an A2A error answer."""
    body = resp.json()
    assert "error" in body, f"expected an error, got {resp.status_code} {body}"
    details = body["error"]["data"] if binding == "JSONRPC" else body["error"]["details"]
    return next(d["reason"] for d in details if d.get("@type", "").endswith("ErrorInfo"))


def reason(cls: type[a2a_errors.A2AError]) -> str:
    return A2A_ERROR_REASONS[cls]


def stream(
    client: httpx.Client, agent: ScriptedAgent, binding: str, op: str, params: dict[str, Any]
) -> tuple[list[dict[str, Any]], bool]:
    """(StreamResponse objects received, whether the stream ended cleanly) for a streaming call."""
    if binding == "JSONRPC":
        req = client.build_request(
            "POST", agent.jsonrpc_url, json={"jsonrpc": "2.0", "id": 9, "method": op, "params": params}
        )
    else:
        verb, path, body, _ = _rest_request(op, params)
        req = client.build_request(verb, agent.rest_url + path, json=body)
    events: list[dict[str, Any]] = []
    clean = True
    resp = client.send(req, stream=True)
    try:
        assert resp.headers["content-type"].startswith("text/event-stream"), resp.read()
        for line in resp.iter_lines():
            if line.startswith("data:"):
                data = json.loads(line[5:])
                events.append(data["result"] if binding == "JSONRPC" else data)
    except httpx.RemoteProtocolError:
        clean = False
    finally:
        resp.close()
    return events, clean


def kind(event: dict[str, Any]) -> str:
    (key,) = event.keys()
    return key


# ----------------------------------------------------------------------------- the card


def test_card_lists_interfaces_in_order_with_versions_tenants_and_schemes(
    agent: ScriptedAgent, http: httpx.Client, tmp_path: Path
) -> None:
    card = CardSpec(
        interfaces=(Interface("GRPC"), Interface("HTTP+JSON", tenant="acme"), Interface("JSONRPC", "0.3")),
        streaming=False,
        extended_agent_card=True,
        security=(Bearer("tok"), ApiKey("k", name="X-Key", location="cookie")),
        require_auth=False,
        extra_path="/cards/scripted.json",
    )
    agent.set_script(Script(card=card))
    served = http.get(agent.card_url).json()
    assert [
        (i["protocolBinding"], i["protocolVersion"], i.get("tenant")) for i in served["supportedInterfaces"]
    ] == [
        ("GRPC", "1.0", None),
        ("HTTP+JSON", "1.0", "acme"),
        ("JSONRPC", "0.3", None),
    ]
    assert [i["url"] for i in served["supportedInterfaces"]] == [
        agent.grpc_url,
        agent.rest_url,
        agent.jsonrpc_url,
    ]
    assert served["capabilities"] == {
        "streaming": False,
        "pushNotifications": False,
        "extendedAgentCard": True,
    }
    assert served["securitySchemes"]["bearer"] == {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
    assert served["securitySchemes"]["apiKey"] == {
        "apiKeySecurityScheme": {"location": "cookie", "name": "X-Key"}
    }
    assert http.get(agent.base_url + "/cards/scripted.json").json() == served
    assert json.loads(agent.card_file(tmp_path).read_text()) == served
    pb_card = pb.AgentCard()
    from google.protobuf.json_format import ParseDict

    ParseDict(served, pb_card)  # strict: no unknown fields
    assert agent.requests[-1].binding == "CARD"


# ----------------------------------------------------------------------------- send


@pytest.mark.parametrize("binding", BINDINGS)
def test_blocking_send_waits_for_the_schedule_and_return_immediately_does_not(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script(send=WORKING_THEN_DONE))
    quick = result(
        call(
            http,
            agent,
            binding,
            "SendMessage",
            {"message": message(), "configuration": {"returnImmediately": True}},
        ),
        binding,
    )["task"]
    assert quick["status"]["state"] == "TASK_STATE_WORKING"
    now = result(call(http, agent, binding, "GetTask", {"id": quick["id"]}), binding)
    assert now["status"]["state"] == "TASK_STATE_WORKING"
    blocked = result(call(http, agent, binding, "SendMessage", {"message": message()}), binding)["task"]
    assert blocked["status"]["state"] == "TASK_STATE_COMPLETED"
    # the quick task started earlier, so its schedule has reached the end as well
    later = result(call(http, agent, binding, "GetTask", {"id": quick["id"]}), binding)
    assert later["status"]["state"] == "TASK_STATE_COMPLETED"
    assert {t.id for t in agent.tasks} >= {quick["id"], blocked["id"]}


@pytest.mark.parametrize("binding", BINDINGS)
def test_artifacts_carry_text_data_raw_and_url_parts(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    art = ArtifactSpec(
        name="out",
        parts=[
            Text("plain words"),
            Data({"answer": 42, "list": ["a"]}),
            Raw(b"\x00\x01bytes", filename="blob.bin", media_type="application/octet-stream"),
            Url("https://example.org/report.pdf", filename="report.pdf", media_type="application/pdf"),
        ],
    )
    agent.set_script(Script(send=TaskFlow.single("COMPLETED", art)))
    task = result(call(http, agent, binding, "SendMessage", {"message": message()}), binding)["task"]
    (artifact,) = task["artifacts"]
    assert artifact["name"] == "out"
    text, data, raw, url = artifact["parts"]
    assert text == {"text": "plain words"}
    assert data["data"] == {"answer": 42.0, "list": ["a"]}
    assert base64.b64decode(raw["raw"]) == b"\x00\x01bytes"
    assert (raw["filename"], raw["mediaType"]) == ("blob.bin", "application/octet-stream")
    assert url == {
        "url": "https://example.org/report.pdf",
        "filename": "report.pdf",
        "mediaType": "application/pdf",
    }


@pytest.mark.parametrize("binding", BINDINGS)
def test_message_only_reply_creates_no_task(agent: ScriptedAgent, http: httpx.Client, binding: str) -> None:
    agent.set_script(Script(send=MessageReply([Text("just a message")])))
    before = len(agent.tasks)
    res = result(call(http, agent, binding, "SendMessage", {"message": message(contextId="ctx-1")}), binding)
    assert list(res) == ["message"]
    assert res["message"]["parts"] == [{"text": "just a message"}]
    assert res["message"]["contextId"] == "ctx-1"
    assert len(agent.tasks) == before


# ----------------------------------------------------------------------------- protocol errors


@pytest.mark.parametrize("binding", BINDINGS)
def test_protocol_errors_for_unknown_mismatched_and_terminal_tasks(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script(send=TaskFlow.single("COMPLETED")))
    missing = call(http, agent, binding, "GetTask", {"id": "no-such-task"})
    assert error_reason(missing, binding) == reason(a2a_errors.TaskNotFoundError)
    missing_send = call(http, agent, binding, "SendMessage", {"message": message(taskId="no-such-task")})
    assert error_reason(missing_send, binding) == reason(a2a_errors.TaskNotFoundError)

    agent.set_script(Script(send=TaskFlow.single("INPUT_REQUIRED")))
    task = result(call(http, agent, binding, "SendMessage", {"message": message()}), binding)["task"]
    mismatch = call(
        http,
        agent,
        binding,
        "SendMessage",
        {"message": message(taskId=task["id"], contextId="another-context")},
    )
    assert error_reason(mismatch, binding) == reason(a2a_errors.InvalidParamsError)

    done = agent.add_task(TaskFlow.single("COMPLETED"))
    conflict = call(http, agent, binding, "SendMessage", {"message": message(taskId=done.id)})
    assert error_reason(conflict, binding) == reason(a2a_errors.UnsupportedOperationError)


@pytest.mark.parametrize("binding", BINDINGS)
def test_version_other_than_1_0_is_refused_and_the_asked_version_recorded(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script())
    for asked in ("0.3", None):
        headers = {"A2A-Version": asked} if asked else {}
        with httpx.Client(timeout=10.0, headers=headers) as bare:
            resp = call(bare, agent, binding, "SendMessage", {"message": message(f"asked {asked} {binding}")})
        assert error_reason(resp, binding) == reason(a2a_errors.VersionNotSupportedError)
        (rec,) = agent.wait_for_requests(lambda r, a=asked: f"asked {a} {binding}" in r.body.decode())
        assert rec.a2a_version == asked
    with httpx.Client(timeout=10.0) as bare:  # no header: the query parameter carries the version
        ok = call(
            bare,
            agent,
            binding,
            "SendMessage",
            {"message": message(f"by query {binding}")},
            {"A2A-Version": "1.0"},
        )
    assert result(ok, binding)
    (by_query,) = agent.wait_for_requests(lambda r: f"by query {binding}".encode() in r.body)
    assert "a2a-version" not in by_query.headers and by_query.a2a_version == "1.0"
    agent.set_script(Script(versions=("1.0", "1.1")))
    with httpx.Client(timeout=10.0, headers={"A2A-Version": "1.1"}) as newer:
        assert result(call(newer, agent, binding, "SendMessage", {"message": message()}), binding)


def test_a_0_3_jsonrpc_method_is_judged_on_its_version_before_its_name(agent: ScriptedAgent) -> None:
    """message/send without A2A-Version is a 0.3 request: VersionNotSupportedError, not -32601;
    with 1.0 it is an unknown 1.0 method (-32601); defect 0.3-method-accepted serves it."""
    v03 = {"kind": "message", "messageId": "m-03", "role": "user", "parts": [{"kind": "text", "text": "old"}]}
    envelope = {"jsonrpc": "2.0", "id": 3, "method": "message/send", "params": {"message": v03}}
    agent.set_script(Script())
    with httpx.Client(timeout=10.0) as bare:
        refused = bare.post(agent.jsonrpc_url, json=envelope).json()
        assert refused["error"]["code"] == -32009 and refused["id"] == 3, refused
        assert error_reason(bare.post(agent.jsonrpc_url, json=envelope), "JSONRPC") == reason(
            a2a_errors.VersionNotSupportedError)
        unknown = bare.post(agent.jsonrpc_url, json=envelope, headers=V1).json()
        assert unknown["error"]["code"] == -32601, unknown
        agent.set_script(Script(defects=frozenset({"0.3-method-accepted"})))
        served = bare.post(agent.jsonrpc_url, json=envelope).json()
    assert served["result"]["task"]["id"], served


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize(("defect", "asked"), [("accepts-minor-versions", "1.9"), ("accepts-newer-major", "2.0"),
                                               ("accepts-bare-major", "1"), ("version-0-3-accepted", "0.3")])
def test_a_version_defect_serves_only_its_own_version(
    agent: ScriptedAgent, binding: str, defect: str, asked: str
) -> None:
    others = {"1.9", "2.0", "1", "0.3"} - {asked}
    agent.set_script(Script(defects=frozenset({defect})))
    with httpx.Client(timeout=10.0, headers={"A2A-Version": asked}) as c:
        assert result(call(c, agent, binding, "SendMessage", {"message": message()}), binding)
    for other in sorted(others):
        with httpx.Client(timeout=10.0, headers={"A2A-Version": other}) as c:
            resp = call(c, agent, binding, "SendMessage", {"message": message()})
        assert error_reason(resp, binding) == reason(a2a_errors.VersionNotSupportedError), (defect, other)


@pytest.mark.parametrize("binding", BINDINGS)
def test_ignoring_the_version_query_parameter_reads_it_as_0_3(agent: ScriptedAgent, binding: str) -> None:
    agent.set_script(Script(defects=frozenset({"ignores-version-query-param"})))
    with httpx.Client(timeout=10.0) as bare:
        resp = call(bare, agent, binding, "SendMessage", {"message": message()}, {"A2A-Version": "1.0"})
    assert error_reason(resp, binding) == reason(a2a_errors.VersionNotSupportedError)
    with httpx.Client(timeout=10.0, headers=V1) as by_header:
        assert result(call(by_header, agent, binding, "SendMessage", {"message": message()}), binding)


@pytest.mark.parametrize("binding", BINDINGS)
def test_scripted_refusal_answers_with_the_chosen_error(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script(refuse={"SendMessage": ErrorReply("UnsupportedOperationError", "not today")}))
    resp = call(http, agent, binding, "SendMessage", {"message": message()})
    assert error_reason(resp, binding) == reason(a2a_errors.UnsupportedOperationError)
    assert "not today" in resp.text


# ----------------------------------------------------------------------------- task operations


@pytest.mark.parametrize("binding", BINDINGS)
def test_cancel_is_idempotent_and_refused_on_a_completed_task(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    working = agent.add_task(TaskFlow.single("WORKING"))
    first = result(call(http, agent, binding, "CancelTask", {"id": working.id}), binding)
    assert first["status"]["state"] == "TASK_STATE_CANCELED"
    again = result(call(http, agent, binding, "CancelTask", {"id": working.id}), binding)
    assert again["status"]["state"] == "TASK_STATE_CANCELED"
    assert result(call(http, agent, binding, "GetTask", {"id": working.id}), binding)["status"]["state"] == (
        "TASK_STATE_CANCELED"
    )
    done = agent.add_task(TaskFlow.single("COMPLETED"))
    refused = call(http, agent, binding, "CancelTask", {"id": done.id})
    assert error_reason(refused, binding) == reason(a2a_errors.TaskNotCancelableError)


@pytest.mark.parametrize("binding", BINDINGS)
def test_resume_history_length_and_list_tasks(agent: ScriptedAgent, http: httpx.Client, binding: str) -> None:
    ctx = f"ctx-{binding}-{time.monotonic_ns()}"
    agent.set_script(Script(send=TaskFlow.single("INPUT_REQUIRED", message="need more"), resume=TaskFlow()))
    task = result(
        call(http, agent, binding, "SendMessage", {"message": message("one", contextId=ctx)}), binding
    )
    task = task["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert task["status"]["message"]["parts"] == [{"text": "need more"}]
    resumed = result(
        call(http, agent, binding, "SendMessage", {"message": message("two", taskId=task["id"])}), binding
    )
    assert resumed["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert resumed["task"]["contextId"] == ctx
    full = result(call(http, agent, binding, "GetTask", {"id": task["id"]}), binding)
    # the agent's acknowledgement follows the first message, so a positive historyLength has something to cut
    assert [m["parts"][0]["text"] for m in full["history"]] == ["one", "received", "two"]
    last = result(call(http, agent, binding, "GetTask", {"id": task["id"], "historyLength": 1}), binding)
    assert [m["parts"][0]["text"] for m in last["history"]] == ["two"]
    none = result(call(http, agent, binding, "GetTask", {"id": task["id"], "historyLength": 0}), binding)
    assert "history" not in none
    listed = result(call(http, agent, binding, "ListTasks", {"contextId": ctx}), binding)
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]


# ----------------------------------------------------------------------------- streaming


@pytest.mark.parametrize("binding", BINDINGS)
def test_stream_starts_with_the_task_then_follows_the_schedule(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    art = ArtifactSpec([Text("result")], at=0.1)
    flow = TaskFlow(states=[("WORKING", 0.0), ("COMPLETED", 0.2)], artifacts=[art])
    agent.set_script(Script(send=flow))
    events, clean = stream(http, agent, binding, "SendStreamingMessage", {"message": message()})
    assert clean
    assert [kind(e) for e in events] == ["task", "artifactUpdate", "statusUpdate"]
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    assert events[1]["artifactUpdate"]["artifact"]["parts"] == [{"text": "result"}]
    assert events[2]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


@pytest.mark.parametrize("binding", BINDINGS)
def test_subscribe_replays_the_task_then_the_rest_and_refuses_terminal_tasks(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script())
    rec = agent.add_task(WORKING_THEN_DONE)
    events, clean = stream(http, agent, binding, "SubscribeToTask", {"id": rec.id})
    assert clean and [kind(e) for e in events] == ["task", "statusUpdate"]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    refused = call(http, agent, binding, "SubscribeToTask", {"id": rec.id})
    assert error_reason(refused, binding) == reason(a2a_errors.UnsupportedOperationError)


@pytest.mark.parametrize("binding", BINDINGS)
def test_stream_is_dropped_after_n_events(agent: ScriptedAgent, http: httpx.Client, binding: str) -> None:
    # A cut, whatever sse-starlette makes of the handler's stopped generator (3.7 ends it with the closing chunk).
    flow = TaskFlow(states=[("WORKING", 0.0), ("WORKING", 0.05, "still"), ("COMPLETED", 0.1)])
    agent.set_script(Script(send=flow, drop_stream_after=2))
    events, clean = stream(http, agent, binding, "SendStreamingMessage", {"message": message()})
    assert not clean, "expected the connection to be cut, not a cleanly finished stream"
    assert [kind(e) for e in events] == ["task", "statusUpdate"]
    assert all(
        e.get("statusUpdate", {}).get("status", {}).get("state") != "TASK_STATE_COMPLETED" for e in events
    )


@pytest.mark.parametrize("binding", BINDINGS)
def test_streaming_is_refused_when_the_card_says_no(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script(card=CardSpec(streaming=False)))
    resp = call(http, agent, binding, "SendStreamingMessage", {"message": message()})
    assert resp.headers["content-type"].startswith("application/")
    assert error_reason(resp, binding) == reason(a2a_errors.UnsupportedOperationError)


# ----------------------------------------------------------------------------- UNSPECIFIED on the wire


@pytest.mark.parametrize("binding", BINDINGS)
def test_unspecified_state_is_written_explicitly(
    agent: ScriptedAgent, http: httpx.Client, binding: str
) -> None:
    agent.set_script(Script(send=TaskFlow(states=[("TASK_STATE_UNSPECIFIED", 0.0), ("COMPLETED", 5.0)])))
    sent = call(
        http,
        agent,
        binding,
        "SendMessage",
        {"message": message(), "configuration": {"returnImmediately": True}},
    )
    assert b'"state":"TASK_STATE_UNSPECIFIED"' in sent.content, sent.text
    task_id = result(sent, binding)["task"]["id"]
    rec = agent.wait_for_requests(lambda r: r.operation == "SendMessage" and r.response_status == 200)[-1]
    assert b'"state":"TASK_STATE_UNSPECIFIED"' in rec.response_body
    rec_task = agent.add_task(TaskFlow.single("TASK_STATE_UNSPECIFIED"))
    got = call(http, agent, binding, "GetTask", {"id": rec_task.id})
    assert result(got, binding)["status"]["state"] == "TASK_STATE_UNSPECIFIED"
    agent.set_script(Script(send=TaskFlow(states=[("TASK_STATE_UNSPECIFIED", 0.0), ("COMPLETED", 0.3)])))
    events, _ = stream(http, agent, binding, "SendStreamingMessage", {"message": message()})
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_UNSPECIFIED"
    assert task_id


# ----------------------------------------------------------------------------- recording


def test_requests_are_recorded_with_headers_raw_body_and_tenant(
    agent: ScriptedAgent, http: httpx.Client
) -> None:
    agent.set_script(Script())
    agent.clear_requests()
    raw = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"tenant": "t-rpc", "message": message()},
        }
    ).encode()
    http.post(agent.jsonrpc_url, content=raw, headers={"X-Trace": "abc", "Content-Type": "application/json"})
    call(http, agent, "HTTP+JSON", "SendMessage", {"tenant": "t-rest", "message": message()})
    call(http, agent, "HTTP+JSON", "GetTask", {"id": agent.tasks[-1].id, "historyLength": 2})
    rpc, rest_send, rest_get = agent.wait_for_requests(lambda r: r.binding != "CARD", count=3)
    assert (rpc.binding, rpc.method, rpc.operation, rpc.tenant) == (
        "JSONRPC",
        "SendMessage",
        "SendMessage",
        "t-rpc",
    )
    assert rpc.body == raw and rpc.json["params"]["tenant"] == "t-rpc"
    assert rpc.headers["x-trace"] == "abc" and rpc.headers["a2a-version"] == "1.0"
    assert all(k == k.lower() for k in rpc.headers)
    assert (rest_send.method, rest_send.operation, rest_send.tenant) == (
        "POST /message:send",
        "SendMessage",
        "t-rest",
    )
    assert rest_send.path == "/rest/t-rest/message:send"
    assert rest_get.operation == "GetTask" and rest_get.tenant is None
    assert rest_get.query_params == {"historyLength": ["2"]}
    assert rpc.monotonic <= rest_send.monotonic <= rest_get.monotonic
    assert rest_get.response_status == 200
    with pytest.raises(TimeoutError, match="SendMessage"):
        agent.wait_for_requests(lambda r: r.operation == "DeleteTaskPushNotificationConfig", timeout=0.05)


# ----------------------------------------------------------------------------- credentials


@pytest.mark.parametrize(
    ("cred", "how"),
    [
        (Bearer("s3cret-token"), {"headers": {"Authorization": "Bearer s3cret-token"}}),
        (ApiKey("k-header", name="X-API-Key"), {"headers": {"X-API-Key": "k-header"}}),
        (ApiKey("k-query", name="api_key", location="query"), {"params": {"api_key": "k-query"}}),
        (ApiKey("k-cookie", name="session", location="cookie"), {"headers": {"Cookie": "session=k-cookie"}}),
    ],
    ids=["bearer", "header", "query", "cookie"],
)
def test_declared_credential_is_required(agent: ScriptedAgent, cred: Any, how: dict[str, Any]) -> None:
    agent.set_script(Script(card=CardSpec(security=(cred,))))
    with httpx.Client(timeout=10.0, headers=V1) as c:
        assert c.get(agent.card_url).status_code == 200  # the card stays public
        denied = c.post(
            agent.jsonrpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
        )
        assert denied.status_code == 401
        assert denied.headers["www-authenticate"]
        wrong = c.get(
            agent.rest_url + "/tasks/x", headers={"Authorization": "Bearer nope", "X-API-Key": "nope"}
        )
        assert wrong.status_code == 401
    with httpx.Client(timeout=10.0, headers={**V1, **how.get("headers", {})}) as c:
        ok = c.get(agent.rest_url + "/tasks", params=how.get("params"))
        assert ok.status_code == 200, ok.text


# ----------------------------------------------------------------------------- gRPC


def test_grpc_binding_answers_records_and_checks_credentials(agent: ScriptedAgent) -> None:
    agent.set_script(Script(send=TaskFlow(states=[("WORKING", 0.0), ("COMPLETED", 0.05)])))
    assert agent.grpc_target is not None
    md = (("a2a-version", "1.0"),)
    with grpc.insecure_channel(agent.grpc_target) as channel:
        stub = A2AServiceStub(channel)
        req = pb.SendMessageRequest(
            tenant="t-grpc",
            message=pb.Message(message_id="g1", role=pb.Role.ROLE_USER, parts=[pb.Part(text="hi")]),
        )
        resp = stub.SendMessage(req, metadata=md, timeout=5)
        assert pb.TaskState.Name(resp.task.status.state) == "TASK_STATE_COMPLETED"
        events = list(stub.SendStreamingMessage(req, metadata=md, timeout=5))
        assert [e.WhichOneof("payload") for e in events] == ["task", "status_update"]
        with pytest.raises(grpc.RpcError) as old:
            stub.GetTask(pb.GetTaskRequest(id=resp.task.id), metadata=(("a2a-version", "0.3"),), timeout=5)
        assert old.value.code() != grpc.StatusCode.OK
        rec = agent.wait_for_requests(lambda r: r.binding == "GRPC" and r.operation == "SendMessage")[0]
        assert rec.tenant == "t-grpc" and rec.headers["a2a-version"] == "1.0"
        assert rec.body == req.SerializeToString()
        agent.set_script(Script(card=CardSpec(security=(Bearer("g-token"),))))
        with pytest.raises(grpc.RpcError) as denied:
            stub.GetTask(pb.GetTaskRequest(id=resp.task.id), metadata=md, timeout=5)
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        got = stub.GetTask(
            pb.GetTaskRequest(id=resp.task.id), metadata=(*md, ("authorization", "Bearer g-token")), timeout=5
        )
        assert got.id == resp.task.id


# ----------------------------------------------------------------------------- TLS, unix socket, lifecycle


def test_tls_handshake_needs_the_ca_and_mutual_tls_needs_the_client_cert(tmp_path: Path) -> None:
    tls = TLSConfig.generate(tmp_path / "tls")
    with ScriptedAgent(tls=tls) as a:
        assert a.base_url.startswith("https://127.0.0.1:")
        with httpx.Client(verify=tls.client_context(), timeout=5) as ok:
            assert ok.get(a.card_url).status_code == 200
        with httpx.Client(timeout=5) as untrusting, pytest.raises(httpx.ConnectError):
            untrusting.get(a.card_url)
    with ScriptedAgent(tls=tls, grpc=True) as a:
        assert a.grpc_target is not None
        creds = grpc.ssl_channel_credentials(root_certificates=tls.ca_pem.read_bytes())
        with grpc.secure_channel(a.grpc_target, creds) as channel:
            task = A2AServiceStub(channel).GetTask(
                pb.GetTaskRequest(id=a.add_task().id), metadata=(("a2a-version", "1.0"),), timeout=5
            )
            assert pb.TaskState.Name(task.status.state) == "TASK_STATE_COMPLETED"
    mtls = TLSConfig.generate(tmp_path / "mtls", mutual=True)
    with ScriptedAgent(tls=mtls) as a:
        with httpx.Client(verify=mtls.client_context(), timeout=5) as ok:
            assert ok.get(a.card_url).status_code == 200
        with (
            httpx.Client(verify=mtls.client_context(with_client_cert=False), timeout=5) as anonymous,
            pytest.raises((httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError)),
        ):
            anonymous.get(a.card_url)


def test_unix_socket_serves_the_same_app(tmp_path: Path) -> None:
    path = tmp_path / "agent.sock"
    with ScriptedAgent(uds=path) as a:
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(path)), timeout=5) as c:
            assert c.get("http://localhost/.well-known/agent-card.json").json()["name"] == "scripted-agent"
        assert a.requests[-1].binding == "CARD"
    assert not path.exists()


def test_stop_cuts_open_streams_and_leaves_no_thread_behind() -> None:
    before = set(threading.enumerate())
    long_task = TaskFlow(states=[("WORKING", 0.0), ("COMPLETED", 60.0)])
    with httpx.Client(timeout=10, headers=V1) as c:
        a = ScriptedAgent(Script(send=long_task), grpc=True)
        with a:
            assert any(t.name.startswith("scripted-agent-") for t in threading.enumerate())
            req = c.build_request("POST", a.rest_url + "/message:stream", json={"message": message()})
            resp = c.send(req, stream=True)
            assert next(resp.iter_lines()).startswith("data:")  # the stream is open
            deadline = time.monotonic() + 3.0
        assert time.monotonic() < deadline, "stopping waited for the open stream"
        with pytest.raises(httpx.HTTPError):
            c.get(a.card_url)
        resp.close()
    assert set(threading.enumerate()) - before == set()


def test_standalone_mode_prints_its_url_and_stops_on_sigterm(tmp_path: Path) -> None:
    card_file = tmp_path / "card.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance.fixtures.scripted_agent",
            "--port",
            "0",
            "--card-file",
            str(card_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(timeout=15.0), "no first line within 15 s"
        base_url = proc.stdout.readline().decode().strip()
        assert base_url.startswith("http://127.0.0.1:")
        card = httpx.get(base_url + "/.well-known/agent-card.json", timeout=5).json()
        assert json.loads(card_file.read_text()) == card
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
