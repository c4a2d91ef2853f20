"""The tasks a run made on the target, so that a run leaves the target as it found it.

A running agent keeps what a run leaves behind: a task of the long-running hint that a check did not
cancel, a model-backed task still working when the harness stopped waiting. An agent that runs a
bounded number of tasks at once then answers the *next* run slowly or not at all, and that run's
verdicts depend on this one. So every exchange any recorder records is watched
(``conformance.wire.exchange.WATCHERS``): a task a SendMessage or SendStreamingMessage answer names
is the run's, and the last state any answer showed for it is kept. At the end of the run (and on an
interrupt) :meth:`TaskLedger.settle` cancels each of the run's tasks not known to be terminal and waits,
bounded, until they are; tasks the run did not make are never touched.

A task is canceled where and as it was made: over the same binding, at the same interface (tenant and
unix socket included), with the same credential.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import grpc
from a2a.types import a2a_pb2 as pb
from google.protobuf.json_format import MessageToDict

from conformance.wire.exchange import WATCHERS, Exchange
from conformance.wire.grpc import GrpcClient
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.rest import RestClient
from conformance.wire.states import TERMINAL

#: The methods whose answers make tasks (JSON-RPC and gRPC method names; HTTP+JSON routes below).
MAKERS = ("SendMessage", "SendStreamingMessage")
MAKER_ROUTES = ("/message:send", "/message:stream")
#: How long one cancel or look-up may take while settling, and the whole settling at most: at the end
#: of a run, and on a run stopped by a signal (whose clean-up the command bounds: STOP_GRACE).
CALL_TIMEOUT = 5.0
SETTLE_TIMEOUT = 10.0
SETTLE_ON_STOP = 4.0


@dataclass
class Made:
    """One task the run made: where (binding, the maker's URL, socket, tenant), as whom, its last state."""

    task_id: str
    binding: str
    url: str
    uds: str | None
    tenant: str | None
    credential: str | None
    state: str | None = None


@dataclass(frozen=True)
class Settled:
    """What :meth:`TaskLedger.settle` did: tasks canceled, and those still not terminal at its end."""

    canceled: int
    unsettled: tuple[str, ...]
    #: The seconds settling was given.
    budget: float = SETTLE_TIMEOUT

    def line(self) -> str:
        """One line for the user ("" when the run left nothing to cancel)."""
        if not self.canceled and not self.unsettled:
            return ""
        out = f"agentd-conformance: canceled {self.canceled} task(s) this run left running on the target"
        if self.unsettled:
            out += f"; {len(self.unsettled)} not terminal after {self.budget:g}s: {', '.join(self.unsettled[:5])}"
        return out


class TaskLedger:
    """Watches every exchange for the tasks the run makes (see the module docstring)."""

    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], Made] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> TaskLedger:
        WATCHERS.append(self.note)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(ValueError):
            WATCHERS.remove(self.note)

    def note(self, ex: Exchange) -> None:
        """Keep the tasks a maker's answer names, and the state any answer shows of a task already kept."""
        try:
            maker = ex.rpc_method in MAKERS or (ex.binding == "HTTP+JSON" and _route(ex).endswith(MAKER_ROUTES))
            seen = list(_tasks_in(_bodies(ex)))
        except Exception:  # noqa: BLE001 - watching must never disturb a check
            return
        with self._lock:
            for tid, state in seen:
                key = (_where(ex), tid)
                if key not in self.tasks and maker:
                    self.tasks[key] = Made(tid, ex.binding, ex.url, ex.uds, _tenant(ex), _credential(ex))
                if key in self.tasks and state:
                    self.tasks[key].state = state

    def pending(self) -> list[Made]:
        """The run's tasks not known to be terminal."""
        with self._lock:
            return [m for m in self.tasks.values() if m.state not in TERMINAL]

    def settle(self, timeout: float = SETTLE_TIMEOUT) -> Settled:
        """Cancel every task of :meth:`pending` and wait, at most ``timeout`` seconds, until each is terminal."""
        deadline = time.monotonic() + timeout
        pending = self.pending()
        canceled = 0
        for made in pending:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            made.state = _call(made, "CancelTask", min(CALL_TIMEOUT, left)) or made.state
            canceled += 1
        delay = 0.1
        while True:
            pending = [m for m in pending if m.state not in TERMINAL]
            if not pending or time.monotonic() >= deadline:
                break
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
            for made in pending:
                left = deadline - time.monotonic()
                if left > 0:
                    made.state = _call(made, "GetTask", min(CALL_TIMEOUT, left)) or made.state
        return Settled(canceled, tuple(m.task_id for m in pending), timeout)


# ---- reading exchanges ----------------------------------------------------------------------------

def _route(ex: Exchange) -> str:
    return ex.target.split("?", 1)[0]


def _where(ex: Exchange) -> str:
    """The interface an exchange went to, as a key (a task id is unique per agent, not across agents)."""
    parts = urlsplit(ex.url)
    return f"{ex.uds or ''}|{parts.scheme}://{parts.netloc}"


def _bodies(ex: Exchange) -> list[Any]:
    out: list[Any] = [ex.response_body]
    for frame in ex.frames or ():
        with contextlib.suppress(ValueError):
            out.append(frame.json())
    return out


def _tasks_in(value: Any) -> list[tuple[str, str | None]]:
    """Every (task id, state) an answer shows: Task objects (``id`` and ``status``) and status updates
    (``taskId`` and ``status``), at any depth (a JSON-RPC result, a stream frame, a gRPC message)."""
    out: list[tuple[str, str | None]] = []
    if isinstance(value, dict):
        status = value.get("status")
        if isinstance(status, dict):
            tid = value["taskId"] if isinstance(value.get("taskId"), str) else value.get("id")
            state = status.get("state")
            if isinstance(tid, str) and tid:
                out.append((tid, state if isinstance(state, str) else None))
        for v in value.values():
            out.extend(_tasks_in(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(_tasks_in(v))
    return out


def _tenant(ex: Exchange) -> str | None:
    body = ex.request_body
    params = body.get("params") if isinstance(body, dict) and ex.binding != "GRPC" else body
    tenant = params.get("tenant") if isinstance(params, dict) else None
    return tenant if isinstance(tenant, str) and tenant else None


def _credential(ex: Exchange) -> str | None:
    for name, value in ex.request_headers:
        if name.lower() == "authorization":
            return value
    return None


# ---- canceling --------------------------------------------------------------------------------------

def _call(made: Made, method: str, timeout: float) -> str | None:
    """``method`` (CancelTask or GetTask) for the task, where and as it was made; the state answered, or
    None when no task came back (a refusal, a failure: settling goes on)."""
    params: dict[str, Any] = {"id": made.task_id, **({"tenant": made.tenant} if made.tenant else {})}
    try:
        if made.binding in ("JSONRPC", "JSONRPC-UNIX"):
            auth = {"Authorization": made.credential} if made.credential else {}
            url = made.url if not made.uds else "/" + made.url.split("/", 3)[-1]
            with JsonRpcClient(url, uds=made.uds, headers=auth, timeout=timeout) as rpc:
                return _state(rpc.call(method, params).result)
        if made.binding == "HTTP+JSON":
            parts = urlsplit(made.url)
            base = f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/message:', 1)[0]}"
            auth = {"Authorization": made.credential} if made.credential else {}
            path = f"/tasks/{quote(made.task_id, safe='')}"
            with RestClient(base, headers=auth, uds=made.uds, timeout=timeout) as rest:
                reply = (rest.request("POST", path + ":cancel", json={}) if method == "CancelTask"
                         else rest.request("GET", path))
            return _state(reply.json)
        if made.binding == "GRPC":
            md = {"authorization": made.credential} if made.credential else {}
            request = pb.CancelTaskRequest(**params) if method == "CancelTask" else pb.GetTaskRequest(**params)
            parts = urlsplit(made.url)
            tls = grpc.ssl_channel_credentials() if parts.scheme == "grpcs" else None
            with GrpcClient(parts.netloc, metadata=md, timeout=timeout, credentials=tls) as grpc_client:
                answer = grpc_client.call(method, request).response
            return _state(MessageToDict(answer)) if answer is not None else None
    except Exception:  # noqa: BLE001 - a task that cannot be reached stays unsettled
        return None
    return None


def _state(task: Any) -> str | None:
    status = task.get("status") if isinstance(task, dict) else None
    state = status.get("state") if isinstance(status, dict) else None
    return state if isinstance(state, str) else None
