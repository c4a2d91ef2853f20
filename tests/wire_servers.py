"""Real a2a-sdk servers on loopback (and on a unix socket) for the wire-driver tests.

``ScriptedHandler`` is a tiny ``RequestHandler`` with fixed answers and a few switchable stream
behaviours; :func:`serve_http` runs a Starlette app under uvicorn in a thread (TCP port 0 or a unix
socket); :func:`serve_grpc` runs a ``grpc.aio`` server on 127.0.0.1:0 in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import uvicorn
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import GrpcHandler, RequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.types import a2a_pb2, a2a_pb2_grpc
from a2a.utils.errors import (
    ExtendedAgentCardNotConfiguredError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

START_TIMEOUT = 10.0
KNOWN_TASK = "task-1"


def make_task(task_id: str = KNOWN_TASK, state: a2a_pb2.TaskState = a2a_pb2.TASK_STATE_COMPLETED) -> a2a_pb2.Task:
    return a2a_pb2.Task(id=task_id, context_id="ctx-1", status=a2a_pb2.TaskStatus(state=state))


def make_card(url: str = "http://127.0.0.1/") -> a2a_pb2.AgentCard:
    return a2a_pb2.AgentCard(
        name="wire-test",
        description="agent for the wire driver tests",
        version="0.0.1",
        supported_interfaces=[
            a2a_pb2.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=a2a_pb2.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[a2a_pb2.AgentSkill(id="echo", name="echo", description="echoes", tags=["echo"])],
    )


@dataclass
class ScriptedHandler(RequestHandler):
    """Fixed answers. ``stream_mode``: ``"normal"`` (three events, then close), ``"stall"`` (one
    event, then silence until the client goes), ``"trickle"`` (an event every ``trickle_every``
    seconds forever), ``"error"`` (one event, then TaskNotFoundError mid-stream)."""

    stream_mode: str = "normal"
    trickle_every: float = 0.05
    contexts: list[ServerCallContext] = field(default_factory=list)

    async def on_message_send(self, params: a2a_pb2.SendMessageRequest, context: ServerCallContext) -> Any:
        self.contexts.append(context)
        return make_task()

    async def on_message_send_stream(
        self, params: a2a_pb2.SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        self.contexts.append(context)
        yield make_task(state=a2a_pb2.TASK_STATE_WORKING)
        if self.stream_mode == "stall":
            await asyncio.Event().wait()  # never set: the client must cut the stream
        elif self.stream_mode == "trickle":
            while True:
                await asyncio.sleep(self.trickle_every)
                yield a2a_pb2.TaskStatusUpdateEvent(
                    task_id=KNOWN_TASK,
                    context_id="ctx-1",
                    status=a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_WORKING),
                )
        elif self.stream_mode == "error":
            raise TaskNotFoundError
        else:
            yield a2a_pb2.TaskStatusUpdateEvent(
                task_id=KNOWN_TASK,
                context_id="ctx-1",
                status=a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_WORKING),
            )
            yield make_task()

    async def on_get_task(self, params: a2a_pb2.GetTaskRequest, context: ServerCallContext) -> Any:
        self.contexts.append(context)
        if params.id != KNOWN_TASK:
            raise TaskNotFoundError
        return make_task()

    async def on_list_tasks(self, params: a2a_pb2.ListTasksRequest, context: ServerCallContext) -> Any:
        self.contexts.append(context)
        return a2a_pb2.ListTasksResponse(tasks=[make_task()], page_size=1, total_size=1)

    async def on_cancel_task(self, params: a2a_pb2.CancelTaskRequest, context: ServerCallContext) -> Any:
        self.contexts.append(context)
        raise TaskNotCancelableError

    async def on_subscribe_to_task(
        self, params: a2a_pb2.SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        self.contexts.append(context)
        if params.id != KNOWN_TASK:
            raise TaskNotFoundError
        yield make_task()

    async def on_create_task_push_notification_config(self, params: Any, context: ServerCallContext) -> Any:
        raise PushNotificationNotSupportedError

    async def on_get_task_push_notification_config(self, params: Any, context: ServerCallContext) -> Any:
        raise PushNotificationNotSupportedError

    async def on_list_task_push_notification_configs(self, params: Any, context: ServerCallContext) -> Any:
        raise PushNotificationNotSupportedError

    async def on_delete_task_push_notification_config(self, params: Any, context: ServerCallContext) -> Any:
        raise PushNotificationNotSupportedError

    async def on_get_extended_agent_card(self, params: Any, context: ServerCallContext) -> Any:
        raise ExtendedAgentCardNotConfiguredError


class HeaderLog:
    """ASGI middleware that keeps every request's raw header lines (repeated lines included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[tuple[str, list[tuple[str, str]]]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
            self.requests.append((scope["path"], raw))
        await self.app(scope, receive, send)

    def lines(self, name: str, index: int = -1) -> list[str]:
        """Values of header ``name`` (every line) in request ``index``."""
        return [v for k, v in self.requests[index][1] if k.lower() == name.lower()]


def a2a_app(handler: RequestHandler, *, rpc_url: str = "/a2a") -> HeaderLog:
    """JSON-RPC at ``rpc_url``, REST at the root (``/{tenant}/...`` too), the agent card."""
    routes = [
        *create_agent_card_routes(make_card()),
        *create_jsonrpc_routes(handler, rpc_url),
        *create_rest_routes(handler),
    ]
    return HeaderLog(Starlette(routes=routes))


def raw_sse_app(script: Callable[[], AsyncGenerator[bytes]]) -> Starlette:
    """An app whose ``/sse`` sends exactly the bytes ``script`` yields, as text/event-stream."""

    async def sse(_: Request) -> Response:
        return StreamingResponse(script(), media_type="text/event-stream")

    return Starlette(routes=[Route("/sse", sse, methods=["GET", "POST"])])


@dataclass
class RunningHttp:
    url: str
    uds: str | None
    server: uvicorn.Server
    thread: threading.Thread


@contextlib.contextmanager
def serve_http(app: ASGIApp, *, uds: str | None = None) -> Iterator[RunningHttp]:
    """Run ``app`` under uvicorn in a thread on 127.0.0.1:0 (or on unix socket ``uds``)."""
    kwargs: dict[str, Any] = {"uds": uds} if uds else {"host": "127.0.0.1", "port": 0}
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1, **kwargs)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    _wait(lambda: server.started or not thread.is_alive(), "uvicorn did not start")
    if not server.started:
        raise RuntimeError("uvicorn exited during start-up")
    if uds:
        url = "http://localhost"
    else:
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
    try:
        yield RunningHttp(url, uds, server, thread)
    finally:
        server.should_exit = True
        thread.join(timeout=START_TIMEOUT)


@dataclass
class RunningGrpc:
    target: str
    loop: asyncio.AbstractEventLoop
    server: grpc.aio.Server


@contextlib.contextmanager
def serve_grpc(handler: RequestHandler) -> Iterator[RunningGrpc]:
    """Run the SDK's GrpcHandler around ``handler`` on a grpc.aio server at 127.0.0.1:0."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def start() -> None:
        server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)  # type: ignore[no-untyped-call]
        holder["port"] = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        holder["server"] = server
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.create_task(start())
        loop.run_forever()

    thread = threading.Thread(target=run, name="grpc-test", daemon=True)
    thread.start()
    if not ready.wait(START_TIMEOUT):
        raise RuntimeError("grpc server did not start")
    try:
        yield RunningGrpc(f"127.0.0.1:{holder['port']}", loop, holder["server"])
    finally:
        _call_in(loop, holder["server"].stop(0))
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=START_TIMEOUT)


def _call_in(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]) -> None:
    fut = asyncio.run_coroutine_threadsafe(coro, loop)
    fut.result(timeout=START_TIMEOUT)


def _wait(cond: Callable[[], bool], what: str, timeout: float = START_TIMEOUT) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError(what)
        time.sleep(0.01)


_C = TypeVar("_C")


def entered(context: contextlib.AbstractContextManager[_C]) -> Iterator[_C]:
    """A yield fixture's body: what ``context`` gives, for the fixture's scope, then ``context`` left."""
    with context as value:
        yield value


def normal_stream_client(handler: ScriptedHandler, client: contextlib.AbstractContextManager[_C]) -> Iterator[_C]:
    """A client fixture's body: ``handler`` back to normal streams (a test may have changed them), then
    ``client`` open for the test and closed after it."""
    handler.stream_mode = "normal"
    yield from entered(client)
