"""A stand-in model for an agent image that answers through one (agentd: OpenAI-compatible ``/chat/completions``).

Not part of the harness (contract v2 has no way to start a model beside an image): run by hand on this host's
loopback next to ``benchmarks/agentd_release_image.sh``'s image (``network=host``), and hand the image its URL
with ``--container-env-plain``, so rows that need a task to reach a terminal state can be measured::

    python -m benchmarks.model_stub --port 18080 &
    agentd-conformance agent --family a2a --container agentd-release:2.5.1 \\
        --container-env-plain AGENTD_INTELLIGENCE_ENDPOINTS=http://127.0.0.1:18080/v1

Every request is answered at once with a final assistant turn, except one whose messages contain ``--hold``
(default ``hold-until-canceled``, the image's long-running text): that answer waits until the client goes away or
``--hold-seconds`` pass, so the agent's task stays working until it is canceled.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": "stub",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def make_handler(hold: str, hold_seconds: float, answer: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _send(self, status: int, body: dict[str, Any]) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:  # /v1/models
            self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8", "replace")
            if hold and hold in body:
                done = threading.Event()
                done.wait(hold_seconds)
            self._send(200, completion(answer))

    return Handler


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=18080)
    p.add_argument("--hold", default="hold-until-canceled", help="a request containing this text is held (empty: none)")
    p.add_argument("--hold-seconds", type=float, default=900.0)
    p.add_argument("--answer", default="done")
    a = p.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(a.hold, a.hold_seconds, a.answer))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
