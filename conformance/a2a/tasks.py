"""Reading tasks and stream events as the checks need them: states, event kinds, history, timestamps."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from conformance.judge.blame import blocked_by
from conformance.wire.quoting import quote

#: The row whose own text demands that SendMessage answers exactly one of a Task or a Message.
SEND_ROW = "A2A_SEND_001"


def task_of(send_result: Any, what: str) -> dict[str, Any] | None:
    """The Task of a SendMessage result, or None when the agent answered a Message.

    Read leniently (the caller's reading; strict typing is the data-model rows' to judge): only a
    result that holds neither or both, or a task that is no object, blocks the check, by
    :data:`SEND_ROW`."""
    members = [k for k in ("task", "message") if isinstance(send_result, dict) and k in send_result]
    if len(members) != 1:
        blocked_by(SEND_ROW, f"{what} holds {' and '.join(members) or 'neither task nor message'}, not exactly one "
                             f"of a Task or a Message: {quote(send_result)}")
    if members == ["message"]:
        return None
    task = send_result["task"]
    if not isinstance(task, dict):
        blocked_by(SEND_ROW, f"{what}: its task is not an object: {quote(task)}")
    return dict(task)


def state_of(task: Any) -> str:
    """The state of a task (or status update) as sent; ``TASK_STATE_UNSPECIFIED`` when it names none."""
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


#: The row whose own text demands that every new task gets an id of its own.
UNIQUE_ID_ROW = "A2A_SEND_003"


def distinct(*tasks: Mapping[str, Any]) -> None:
    """Tasks a check made to tell apart must have ids of their own; when the agent gave two of them the same
    id, the check is blocked by :data:`UNIQUE_ID_ROW` (the id's uniqueness is that row's, not the caller's)."""
    seen = [str(t.get("id")) for t in tasks]
    repeated = sorted({i for i in seen if seen.count(i) > 1})
    if repeated:
        blocked_by(UNIQUE_ID_ROW, f"the agent gave {len(seen)} new tasks the id(s) {repeated}, so they cannot be "
                                  "told apart")
