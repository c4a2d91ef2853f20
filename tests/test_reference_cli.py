"""Smoke tests of the reference CLI against a real a2a-sdk agent on loopback.

The agent is the SDK's DefaultRequestHandler with a tiny executor, served over JSON-RPC and HTTP+JSON
by uvicorn in a thread on 127.0.0.1:0. The CLI runs as a real subprocess. These tests prove the
basic paths work; the deep, per-requirement checks live in the conformance suites.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "conformance.fixtures.reference_cli"]
RUN_TIMEOUT = 30.0


# ------------------------------------------------------------------ the agent


def _build_app(base: str, *, streaming: bool):  # type: ignore[no-untyped-def]
    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import a2a_pb2 as pb
    from google.protobuf.struct_pb2 import Value
    from starlette.applications import Starlette

    class Executor(AgentExecutor):
        """Completes with a text artifact echoing the input; 'slow' works a while first,
        'fail' fails, 'input' asks for input, 'data' adds a data artifact."""

        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            text = context.get_user_input() if context.message else ""
            task = context.current_task
            if task is None:
                task = new_task_from_user_message(context.message)
                await event_queue.enqueue_event(task)
            up = TaskUpdater(event_queue, task.id, task.context_id)
            await up.start_work()
            if "slow" in text:
                await asyncio.sleep(1.0)
            if "fail" in text:
                await up.failed()
                return
            if "input" in text and not context.current_task:
                await up.requires_input()
                return
            await up.add_artifact([pb.Part(text=f"echo: {text}")], name="echo")
            if "data" in text:
                await up.add_artifact([pb.Part(data=Value(string_value="d"))], name="data")
            await up.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            up = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
            await up.cancel()

    card = pb.AgentCard(
        name="smoke agent",
        description="test agent",
        version="1.0.0",
        supported_interfaces=[
            pb.AgentInterface(url=f"{base}/rpc", protocol_binding="JSONRPC", protocol_version="1.0"),
            pb.AgentInterface(url=f"{base}/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
        ],
        capabilities=pb.AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="Echo", description="echoes", tags=["echo"])],
    )
    handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/rpc"),
        *create_rest_routes(handler, path_prefix="/rest"),
    ]
    return Starlette(routes=routes)


@dataclass
class Agent:
    base: str


def _serve(streaming: bool) -> Iterator[Agent]:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(_build_app(base, streaming=streaming), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "agent did not start within 10 s"
        time.sleep(0.02)
    try:
        yield Agent(base)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    """An agent that does not advertise streaming: blocking sends poll."""
    yield from _serve(streaming=False)


@pytest.fixture(scope="module")
def streaming_agent() -> Iterator[Agent]:
    yield from _serve(streaming=True)


# ------------------------------------------------------------------ running the CLI


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)

    def fields(self) -> dict[str, str]:
        """Field lines `Label: value` before the first block (later duplicates ignored)."""
        out: dict[str, str] = {}
        for line in self.out.splitlines():
            label, sep, value = line.partition(": ")
            if sep and label and " " not in label:
                out.setdefault(label, value)
        return out


def run_cli(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Result:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("A2ACLI_", "REFCLI_"))}
    environ["PYTHONPATH"] = str(REPO)
    environ.update(env or {})
    proc = subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True, env=environ,
                          timeout=RUN_TIMEOUT, cwd=REPO, start_new_session=True)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def closed_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
