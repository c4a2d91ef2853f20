"""A loopback HTTP server in the test process that keeps every request a target sends to it.

One job, two uses: the webhook a check registers for push notifications (answered ``204``), and the A2A
peer an agentd ``a2a.send`` step calls (answered by a function of the request:
:func:`conformance.agentd.peer.answer`).

``with Receiver() as hook:`` listens on 127.0.0.1:0 (``Receiver(unix=True)``: only on a unix socket in a
private directory, so whatever it keeps arrived over that socket); ``hook.url`` is what a check hands
the target; ``hook.wait(count, timeout)`` waits for requests with a deadline. It records each request
exactly as received (HTTP version, method, path, every header line, the raw body) and judges nothing.

``Receiver(tls=True)`` serves https instead, with a server certificate for the one address it listens on,
issued by the harness's own CA (:func:`conformance.tls.harness_tls`, the CA a container that serves
TLS is given): for a target that calls back to https URLs only (contract v2's ``callbacks=schemes=https``).
The handshake happens in the connection's own thread; one that fails is kept
(:meth:`Receiver.handshake_failures`), so a check can say why nothing arrived.
"""

from __future__ import annotations

import json
import socket
import socketserver
import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

#: The most of a body kept (a larger one is cut).
MAX_BODY = 1 << 20
#: Seconds a connection may stay idle before the server drops it.
HANDLER_TIMEOUT = 5.0
#: Header lines whose values never go into the evidence.
_SECRET_HEADERS = ("authorization", "x-a2a-notification-token")


@dataclass(frozen=True)
class Received:
    """One request as it arrived. ``transport`` is ``tcp`` or ``unix`` (the socket it came in on)."""

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
    def headers(self) -> dict[str, str]:
        """The headers by lower-case name (a repeated header: its last line)."""
        return {k.lower(): v for k, v in self.header_lines}

    @property
    def json(self) -> Any:
        """The body as JSON; None when it is empty or not JSON."""
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def rpc_method(self) -> Any:
        """The JSON-RPC ``method`` the body names (None when it names none)."""
        body = self.json
        return body.get("method") if isinstance(body, dict) else None

    def to_evidence(self, hide: tuple[str, ...] = ()) -> dict[str, Any]:
        """The request for the evidence file, credentials masked (and every string of ``hide``)."""
        text = self.body.decode("utf-8", "replace")
        for secret in hide:
            text = text.replace(secret, "<redacted>")
        body = self.json
        return {
            "transport": self.transport,
            "request_line": f"{self.method} {self.path} {self.version}",
            "headers": [f"{k}: {'<redacted>' if k.lower() in _SECRET_HEADERS else v}" for k, v in self.header_lines],
            "body": body if body is not None and not hide else text,
        }


#: Status, header lines and body of the answer to one request.
Reply = tuple[int, list[tuple[str, str]], bytes]


def no_content(_req: Received) -> Reply:
    """What a webhook answers: 204, nothing else."""
    return 204, [], b""


class _TlsServer(socketserver.ThreadingTCPServer):
    """A threaded TCP server whose connections are TLS, the handshake left to each connection's thread (a
    client that stalls in it holds only its own thread, never the accept loop)."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 context: ssl.SSLContext) -> None:
        self.context = context
        super().__init__(address, handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = self.socket.accept()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a handshake a client broke off is kept (Receiver.handshake_failures), not printed


class Receiver:
    """A threaded HTTP/1.1 server on 127.0.0.1 (or a private unix socket) that keeps every request."""

    def __init__(self, answer: Callable[[Received], Reply] = no_content, *, path: str = "/hook",
                 unix: bool = False, host: str = "127.0.0.1", tls: bool = False) -> None:
        """``host``: the address to listen on: loopback, or the harness's own address on the internal
        network it made for containers (``Instance.callback_host``); never a wildcard. ``tls``: serve https
        with a certificate for ``host`` issued by the harness's CA (not on a unix socket)."""
        if host in ("", "0.0.0.0", "::"):  # noqa: S104 - refused, not used
            raise ValueError(f"a receiver listens on one address the harness owns, not {host!r}")
        if tls and unix:
            raise ValueError("a receiver on a unix socket serves plain http")
        self.host = host
        self.tls = tls
        self._received: list[Received] = []
        self._handshake_failures: list[str] = []
        self._cond = threading.Condition()
        self._answer = answer
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self.transport = "unix" if unix else "tcp"
        #: ``http://127.0.0.1:<port><path>`` or ``unix://<socket path>``: where the target is to send.
        self.url = ""
        self._server = self._make_server(self._handler(), path)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"receiver-{self.transport}", daemon=True)

    def _make_server(self, handler: type[BaseHTTPRequestHandler], path: str) -> socketserver.BaseServer:
        server: socketserver.ThreadingUnixStreamServer | socketserver.ThreadingTCPServer
        if self.transport == "unix":
            self._tmpdir = tempfile.TemporaryDirectory(prefix="receiver-")
            sock = str(Path(self._tmpdir.name) / "receiver.sock")
            server = socketserver.ThreadingUnixStreamServer(sock, handler)
            self.url = f"unix://{sock}"
        elif self.tls:
            from conformance.tls import harness_tls

            server = _TlsServer((self.host, 0), handler, harness_tls().server_context(self.host))
            self.url = f"https://{self._netloc(server)}{path}"
        else:
            server = socketserver.ThreadingTCPServer((self.host, 0), handler)
            self.url = f"http://{self._netloc(server)}{path}"
        server.daemon_threads = True
        server.block_on_close = False
        return server

    def _netloc(self, server: socketserver.TCPServer) -> str:
        port = server.server_address[1]
        return f"[{self.host}]:{port}" if ":" in self.host else f"{self.host}:{port}"

    def _handshake_failed(self, why: str) -> None:
        with self._cond:
            self._handshake_failures.append(why)
            self._cond.notify_all()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = HANDLER_TIMEOUT

            def setup(self) -> None:
                if isinstance(self.request, ssl.SSLSocket):
                    self.request.settimeout(HANDLER_TIMEOUT)
                    try:
                        self.request.do_handshake()
                    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
                        peer = self.client_address[0] if isinstance(self.client_address, tuple) else "?"
                        receiver._handshake_failed(f"from {peer}: {type(exc).__name__}: {exc}"[:300])
                        raise
                super().setup()

            def _any(self) -> None:
                size = min(int(self.headers.get("content-length") or 0), MAX_BODY)
                req = Received(receiver.transport, self.request_version, self.command, self.path,
                               tuple(self.headers.items()), self.rfile.read(size) if size else b"")
                with receiver._cond:
                    receiver._received.append(req)
                    receiver._cond.notify_all()
                status, headers, body = receiver._answer(req)
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

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if self._tmpdir is not None:
            self._tmpdir.cleanup()

    def handshake_failures(self, timeout: float = 0.0) -> list[str]:
        """Every TLS handshake a client began and did not finish (an https receiver only), oldest first: a
        target that was not given, or ignores, the harness's CA ends here without a request. ``timeout``:
        seconds to wait for the first one."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._handshake_failures), timeout=timeout)
            return list(self._handshake_failures)

    def received(self) -> list[Received]:
        """Every request so far, oldest first."""
        with self._cond:
            return list(self._received)

    def wait(self, count: int = 1, timeout: float = 5.0,
             match: Callable[[Received], bool] | None = None) -> list[Received]:
        """The requests so far (those ``match`` accepts, when given) once there are at least ``count``
        of them, or when ``timeout`` seconds pass (then maybe fewer: the caller judges)."""
        end = time.monotonic() + timeout

        def chosen() -> list[Received]:
            return [r for r in self._received if match is None or match(r)]

        with self._cond:
            while len(chosen()) < count:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return chosen()
