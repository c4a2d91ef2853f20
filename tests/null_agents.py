"""HTTP servers that do nothing an A2A agent does, for the null-target invariant (DESIGN.md §2.7).

* :func:`serve_404` answers every request 404 with an HTML body (a web server with no agent);
* :func:`serve_401` answers every request 401 with ``WWW-Authenticate: Bearer realm="x"`` (a gateway
  that wants a credential the run was not given);
* :func:`serve_a2a_nothing` serves a valid minimal agent card (one JSON-RPC interface at ``/rpc``, no
  extensions, no capabilities, no security) and answers every JSON-RPC call at ``/rpc`` with -32601
  (method not found); anything else is 404.

Loopback only, ports bound as 0, one thread each; the context managers yield the server's base URL.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"
CARD_PATH = "/.well-known/agent-card.json"
RPC_PATH = "/rpc"
NOT_FOUND_HTML = b"<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"


class _Base(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer  # the server `serve` makes (its address is a (host, port) pair)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass

    def _drain(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def answer(self) -> None:
        raise NotImplementedError

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.answer()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET  # noqa: N815


class _NotFound(_Base):
    def answer(self) -> None:
        self._drain()
        self._send(404, NOT_FOUND_HTML, "text/html; charset=utf-8")


class _Unauthorized(_Base):
    def answer(self) -> None:
        self._drain()
        self._send(401, b'{"error": "unauthorized"}', "application/json",
                   {"WWW-Authenticate": 'Bearer realm="x"'})


def minimal_card(base: str) -> dict[str, Any]:
    """A valid A2A 1.0 card declaring one JSON-RPC interface and nothing else."""
    return {
        "name": "a2a-shaped-nothing",
        "description": "a card and a JSON-RPC endpoint that knows no method (null target)",
        "version": "0.0.1",
        "supportedInterfaces": [{"url": base + RPC_PATH, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "none", "name": "none", "description": "does nothing", "tags": ["none"]}],
    }


def untagged_card(base: str) -> dict[str, Any]:
    """:func:`minimal_card` with its skill's required ``tags`` left out (as a2a-lite 1.2.1 serves its cards):
    readable JSON, not a strictly valid AgentCard."""
    card = minimal_card(base)
    del card["skills"][0]["tags"]
    return card


class _A2ANothing(_Base):
    card = staticmethod(minimal_card)

    def answer(self) -> None:
        raw = self._drain()
        path = self.path.split("?", 1)[0]
        if self.command == "GET" and path == CARD_PATH:
            host = self.headers.get("Host") or f"{LOOPBACK}:{self.server.server_address[1]}"
            body = json.dumps(self.card(f"http://{host}")).encode()
            self._send(200, body, "application/json")
            return
        if self.command == "POST" and path == RPC_PATH:
            try:
                req = json.loads(raw)
                rid = req.get("id") if isinstance(req, dict) else None
            except ValueError:
                rid = None
            body = json.dumps({"jsonrpc": "2.0", "id": rid,
                               "error": {"code": -32601, "message": "Method not found"}}).encode()
            self._send(200, body, "application/json")
            return
        self._send(404, NOT_FOUND_HTML, "text/html; charset=utf-8")


@contextlib.contextmanager
def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer((LOOPBACK, 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=f"null-{handler.__name__}", daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def serve_404() -> contextlib.AbstractContextManager[str]:
    return _serve(_NotFound)


def serve_401() -> contextlib.AbstractContextManager[str]:
    return _serve(_Unauthorized)


def serve_a2a_nothing() -> contextlib.AbstractContextManager[str]:
    return _serve(_A2ANothing)


class _Untagged(_A2ANothing):
    card = staticmethod(untagged_card)


def serve_untagged_card() -> contextlib.AbstractContextManager[str]:
    """The a2a-shaped nothing behind :func:`untagged_card`."""
    return _serve(_Untagged)


NULL_AGENTS = {"404": serve_404, "401": serve_401, "a2a-nothing": serve_a2a_nothing}


def card_0_3(base: str) -> dict[str, Any]:
    """An A2A 0.3 agent card, in 0.3's shape: one ``url`` with its ``preferredTransport``, a top-level
    ``protocolVersion`` 0.3.0 and no ``supportedInterfaces`` (what an a2a-sdk 0.3 server serves)."""
    return {
        "name": "speaks-0.3",
        "description": "an agent that speaks only A2A 0.3",
        "version": "0.0.1",
        "protocolVersion": "0.3.0",
        "url": base + RPC_PATH,
        "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": False, "pushNotifications": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}],
    }


class _Speaks03(_Base):
    """An agent that speaks only A2A 0.3 on JSON-RPC: the 0.3 method names are served (``tasks/get`` of an
    unknown task is TaskNotFoundError -32001, ``message/send`` answers a completed 0.3 task), the 1.0 names
    are not routed (-32601), as on an a2a-sdk 0.3 server."""

    def answer(self) -> None:
        raw = self._drain()
        path = self.path.split("?", 1)[0]
        if self.command == "GET" and path == CARD_PATH:
            host = self.headers.get("Host") or f"{LOOPBACK}:{self.server.server_address[1]}"
            self._send(200, json.dumps(card_0_3(f"http://{host}")).encode(), "application/json")
            return
        if self.command != "POST" or path != RPC_PATH:
            self._send(404, NOT_FOUND_HTML, "text/html; charset=utf-8")
            return
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        rid = req.get("id") if isinstance(req, dict) else None
        method = req.get("method") if isinstance(req, dict) else None
        out: dict[str, Any]
        if method == "tasks/get":
            out = {"error": {"code": -32001, "message": "Task not found"}}
        elif method == "message/send":
            out = {"result": {"kind": "task", "id": "t-1", "contextId": "c-1",
                              "status": {"state": "completed", "timestamp": "2026-01-01T00:00:00Z"}}}
        else:
            out = {"error": {"code": -32601, "message": "Method not found"}}
        self._send(200, json.dumps({"jsonrpc": "2.0", "id": rid, **out}).encode(), "application/json")


def serve_a2a_0_3() -> contextlib.AbstractContextManager[str]:
    """An agent speaking only A2A 0.3 (:class:`_Speaks03`)."""
    return _serve(_Speaks03)
