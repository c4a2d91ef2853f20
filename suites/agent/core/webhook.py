"""A webhook receiver on loopback: records every POST an agent delivers and answers 204.

``with WebhookReceiver() as hook:`` listens on 127.0.0.1:0; ``hook.url`` is what a check registers
as a push notification URL; ``hook.wait(count, timeout)`` waits for deliveries with a deadline.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 1 << 20


@dataclass(frozen=True)
class Delivery:
    """One POST as it arrived: path, headers (lower-case names), raw body and its JSON (or None)."""

    path: str
    headers: dict[str, str]
    body: bytes
    json: Any

    def to_evidence(self, hide: tuple[str, ...] = ()) -> dict[str, Any]:
        headers = {k: ("<redacted>" if k in ("authorization", "x-a2a-notification-token") else v)
                   for k, v in self.headers.items()}
        text = self.body.decode("utf-8", "replace")
        for secret in hide:
            text = text.replace(secret, "<redacted>")
        return {"path": self.path, "headers": headers, "body": text}


class WebhookReceiver:
    """A threaded HTTP server on 127.0.0.1 that keeps every POST it receives."""

    def __init__(self) -> None:
        self._deliveries: list[Delivery] = []
        self._cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = min(int(self.headers.get("content-length") or 0), MAX_BODY)
                body = self.rfile.read(length) if length else b""
                try:
                    parsed = json.loads(body) if body else None
                except ValueError:
                    parsed = None
                receiver._add(Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body, parsed))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default log
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.timeout = 5
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="webhook-receiver", daemon=True)

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/a2a-webhook"

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def _add(self, d: Delivery) -> None:
        with self._cond:
            self._deliveries.append(d)
            self._cond.notify_all()

    @property
    def deliveries(self) -> list[Delivery]:
        with self._cond:
            return list(self._deliveries)

    def wait(self, count: int = 1, timeout: float = 5.0) -> list[Delivery]:
        """Every delivery so far once there are at least ``count`` (fewer if the deadline passes)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._deliveries) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return list(self._deliveries)
