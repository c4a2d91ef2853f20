"""A recording A2A peer for the outbound-client checks: the other end of an agentd ``a2a.send`` step.

``with RecordingPeer() as peer:`` listens on 127.0.0.1:0; ``RecordingPeer(unix=True)`` listens only on
a unix socket in a private directory, so whatever it records arrived over that socket. It records every
request exactly as received (HTTP version, method, path, every header line, the raw body) and answers a
JSON-RPC send with a small agent Message built from the SDK's types, echoing the command URI when the
request's header named it; anything else gets a JSON-RPC error. It judges nothing: the checks do.
"""

from __future__ import annotations

import json
import socketserver
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageResponse, StreamResponse
from google.protobuf.json_format import MessageToDict

from conformance.agentd_page import COMMAND

SENDS = ("SendMessage", "SendStreamingMessage")
HANDLER_TIMEOUT = 5.0


@dataclass(frozen=True)
class PeerRequest:
    """One request as the peer received it. ``transport`` is ``tcp`` or ``unix`` (the socket it came in on)."""

    transport: str
    version: str
    method: str
    path: str
    header_lines: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> list[str]:
        """Every line of header ``name`` (case-insensitive), in order."""
        return [v for k, v in self.header_lines if k.lower() == name.lower()]

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def rpc_method(self) -> Any:
        body = self.json
        return body.get("method") if isinstance(body, dict) else None

    def to_evidence(self) -> dict[str, Any]:
        return {
            "transport": self.transport,
            "request_line": f"{self.method} {self.path} {self.version}",
            "headers": [f"{k}: {v}" for k, v in self.header_lines],
            "body": self.json if self.json is not None else self.body.decode("utf-8", errors="replace"),
        }


def _answer(req: PeerRequest) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of the peer's answer to ``req``."""
    body = req.json
    rid = body.get("id") if isinstance(body, dict) else None
    if req.method != "POST" or req.rpc_method not in SENDS:
        err = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "this peer answers sends only"}}
        return 200, [("Content-Type", "application/json")], json.dumps(err).encode()
    reply = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_AGENT, parts=[Part(text="received")])
    named = [u.strip() for line in req.header("A2A-Extensions") for u in line.split(",")]
    headers = [("A2A-Extensions", COMMAND)] if COMMAND in named else []
    if req.rpc_method == "SendStreamingMessage":
        frame = {"jsonrpc": "2.0", "id": rid, "result": MessageToDict(StreamResponse(message=reply))}
        return 200, [*headers, ("Content-Type", "text/event-stream")], f"data: {json.dumps(frame)}\n\n".encode()
    result = MessageToDict(SendMessageResponse(message=reply))
    return 200, [*headers, ("Content-Type", "application/json")], json.dumps(
        {"jsonrpc": "2.0", "id": rid, "result": result}).encode()


class RecordingPeer:
    """A loopback (or unix-socket-only) A2A peer that records every request; ``url`` to configure."""

    def __init__(self, *, unix: bool = False) -> None:
        self.requests: list[PeerRequest] = []
        self._cond = threading.Condition()
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self.transport = "unix" if unix else "tcp"
        #: ``http://127.0.0.1:<port>/`` or ``unix:///<path>``: the endpoint to name as the peer.
        self.url = ""
        self._server = self._make_server(self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"recording-peer-{self.transport}", daemon=True)

    def _make_server(self, handler: type[BaseHTTPRequestHandler]) -> socketserver.BaseServer:
        server: socketserver.ThreadingUnixStreamServer | socketserver.ThreadingTCPServer
        if self.transport == "unix":
            self._tmpdir = tempfile.TemporaryDirectory(prefix="peer-")
            path = str(Path(self._tmpdir.name) / "peer.sock")
            server = socketserver.ThreadingUnixStreamServer(path, handler)
            self.url = f"unix://{path}"
        else:
            server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
            self.url = f"http://127.0.0.1:{server.server_address[1]}/"
        server.daemon_threads = True
        server.block_on_close = False
        return server

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = HANDLER_TIMEOUT

            def _any(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                req = PeerRequest(peer.transport, self.request_version, self.command, self.path,
                                  tuple(self.headers.items()), self.rfile.read(size) if size else b"")
                with peer._cond:
                    peer.requests.append(req)
                    peer._cond.notify_all()
                status, headers, body = _answer(req)
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = do_PUT = do_DELETE = _any  # noqa: N815 - http.server's naming

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
                return

        return Handler

    def __enter__(self) -> RecordingPeer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if self._tmpdir is not None:
            self._tmpdir.cleanup()

    def wait_for(self, pred: Callable[[PeerRequest], bool], timeout: float) -> list[PeerRequest]:
        """The requests matching ``pred``, once there is one or ``timeout`` passes (then maybe none)."""
        end = time.monotonic() + timeout
        with self._cond:
            while not any(pred(r) for r in self.requests):
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return [r for r in self.requests if pred(r)]

    def received(self) -> list[PeerRequest]:
        with self._cond:
            return list(self.requests)
