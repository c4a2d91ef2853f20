"""How a core check judges what came back: strict reading, error identity, and the messages it sends.

Every A2A object a target sends goes through :func:`strict` (the second reader); every departure is
a fail quoting the JSON path and the value. :func:`expect_error` decides whether an answer *is* a
given A2A error on its binding: the JSON-RPC code; on HTTP+JSON and gRPC the status together with
the ``google.rpc.ErrorInfo`` reason (those bindings share statuses between errors, so the reason is
what names the error). The full mapping (domain, details, message) is judged by the ERR checks.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from typing import Any

from a2a.compat.v0_3.conversions import to_compat_send_message_request
from a2a.types import a2a_pb2 as pb
from google.protobuf.json_format import ParseDict
from google.protobuf.message import Message

from conformance.outcome import fail
from conformance.suites.agent.core.caller import Answer, StreamAnswer
from conformance.wire.errors import BY_NAME, ErrorSpec, ErrorView
from conformance.wire.strict import read_strict

TERMINAL = frozenset({"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"})
INTERRUPTED = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})
#: An extension URI no agent declares (the .invalid TLD is reserved, RFC 2606).
UNKNOWN_EXTENSION = "https://extensions.conformance.invalid/never-declared/v1"
#: A protocol version no agent can support.
UNSUPPORTED_VERSION = "99.0"


def short(obj: Any, limit: int = 500) -> str:
    text = obj if isinstance(obj, str) else json.dumps(obj, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: REQUIRED fields whose empty value is itself meaningful (§3.1.4: an empty page, "" on the last page,
#: a total of 0), so the SDK's "required means non-empty" rule does not apply to them.
_EMPTY_ALLOWED = {
    "ListTasksResponse": frozenset({"$.tasks", "$.nextPageToken", "$.pageSize", "$.totalSize"}),
}


def strict(obj: Any, message_type: type[Message], where: str) -> Any:
    """Read ``obj`` strictly as ``message_type``; fail listing every violation. Returns ``obj``."""
    res = read_strict(obj, message_type, path="$")
    allowed = _EMPTY_ALLOWED.get(message_type.DESCRIPTOR.name, frozenset())
    violations = [v for v in res.violations if not (
        v.path in allowed and v.problem.startswith("required field") and v.value in (None, "", 0, []))]
    if res.message is None or violations:
        fail(f"{where}: not a strictly valid {message_type.DESCRIPTOR.name}: "
             + ("; ".join(str(v) for v in violations) or res.summary()))
    return obj


def succeeded(ans: Answer, what: str) -> Any:
    """The result of a call that must have succeeded; fail quoting the answer otherwise."""
    if ans.transport_error:
        fail(f"{what}: {ans.transport_error}")
    if ans.error is not None:
        fail(f"{what}: expected a result, got an error: {describe_error(ans.error)}; {ans.quote()}")
    if ans.problems:
        fail(f"{what}: {'; '.join(ans.problems)}; {ans.quote()}")
    return ans.result


def describe_error(err: ErrorView) -> str:
    parts = []
    if err.code is not None:
        parts.append(f"code {err.code}")
    if err.http_status is not None:
        parts.append(f"HTTP {err.http_status}")
    if err.grpc_status is not None:
        parts.append(f"status {err.grpc_status}")
    parts.append(f"reason {err.reason!r}" if err.reason else "no ErrorInfo")
    if err.message:
        parts.append(f"message {short(err.message, 160)!r}")
    return ", ".join(parts)


def identity_mismatch(err: ErrorView, spec: ErrorSpec) -> str | None:
    """Why ``err`` is not recognisably ``spec`` on its binding (None when it is)."""
    if err.binding == "JSONRPC":
        if err.code != spec.jsonrpc_code:
            return f"JSON-RPC code {err.code!r}, {spec.name} is {spec.jsonrpc_code}"
        return None
    status = err.http_status if err.binding == "HTTP+JSON" else err.grpc_status
    want = spec.http_status if err.binding == "HTTP+JSON" else spec.grpc_status
    if status != want:
        return f"{'HTTP status' if err.binding == 'HTTP+JSON' else 'gRPC status'} {status!r}, {spec.name} is {want}"
    if spec.a2a_specific:
        if err.reason is None:
            return (f"{status} carries no google.rpc.ErrorInfo, so nothing names it {spec.name} "
                    f"(several A2A errors share {status})")
        if err.reason != spec.reason:
            return f"ErrorInfo.reason {err.reason!r}, {spec.name} is {spec.reason!r}"
    return None


def error_problem(ans: Answer | StreamAnswer, name: str, what: str) -> str | None:
    """Why the answer is not the A2A error ``name``, quoting what came instead (None when it is)."""
    if ans.transport_error:
        return f"{what}: expected {name}, got {ans.transport_error}"
    if ans.error is None:
        return f"{what}: expected {name}, got no error: {ans.quote()}"
    why = identity_mismatch(ans.error, BY_NAME[name])
    if why is not None:
        return f"{what}: expected {name}, got {describe_error(ans.error)}: {why}"
    return None


def expect_error(ans: Answer | StreamAnswer, name: str, what: str) -> ErrorView:
    """The answer must be the A2A error ``name``; fail quoting what came instead."""
    problem = error_problem(ans, name, what)
    if problem is not None or ans.error is None:
        fail(problem or f"{what}: expected {name}")
    return ans.error


def text_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> dict[str, Any]:
    """A user message with one text part and a fresh messageId (ProtoJSON)."""
    msg: dict[str, Any] = {"messageId": f"conf-{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id:
        msg["taskId"] = task_id
    if context_id:
        msg["contextId"] = context_id
    return msg


def send_params(text: str, **kw: Any) -> dict[str, Any]:
    config = kw.pop("configuration", None)
    params: dict[str, Any] = {"message": text_message(text, **kw)}
    if config:
        params["configuration"] = config
    return params


def send_params_0_3(text: str) -> dict[str, Any]:
    """The params of an A2A 0.3 JSON-RPC ``message/send`` carrying one text part, shaped by the
    SDK's own 0.3 types (``a2a.compat.v0_3``) from the 1.0 request :func:`send_params` builds."""
    request = ParseDict(send_params(text), pb.SendMessageRequest())
    compat = to_compat_send_message_request(request, request_id=0)
    return dict(compat.params.model_dump(by_alias=True, exclude_none=True, mode="json"))


def task_of(send_result: Any, what: str) -> dict[str, Any] | None:
    """The Task of a strictly valid SendMessageResponse, or None when the agent answered a Message."""
    strict(send_result, pb.SendMessageResponse, what)
    if "task" in send_result:
        return dict(send_result["task"])
    return None


def state_of(task: Any) -> str:
    status = task.get("status") if isinstance(task, dict) else None
    state = status.get("state") if isinstance(status, dict) else None
    return state if isinstance(state, str) else "TASK_STATE_UNSPECIFIED"


def event_kind(event: Any) -> str:
    """Which StreamResponse member a frame carries (task, message, statusUpdate, artifactUpdate)."""
    if isinstance(event, dict):
        for k in ("task", "message", "statusUpdate", "artifactUpdate"):
            if k in event:
                return k
    return "?"


def event_state(event: Any) -> str | None:
    """The task state a frame reports, if it reports one."""
    kind = event_kind(event)
    if kind == "task":
        return state_of(event["task"])
    if kind == "statusUpdate":
        return state_of(event["statusUpdate"])
    return None


def history_ids(task: Any) -> list[str]:
    return [m.get("messageId", "?") for m in task.get("history") or [] if isinstance(m, dict)]


TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")


def timestamps(obj: Any, path: str = "$") -> Iterable[tuple[str, Any]]:
    """Every (path, value) of a ``timestamp`` member anywhere in ``obj``."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            here = f"{path}.{k}"
            if k == "timestamp":
                yield here, v
            else:
                yield from timestamps(v, here)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from timestamps(v, f"{path}[{i}]")
