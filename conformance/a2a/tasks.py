"""Reading tasks and stream events as the checks need them: states, event kinds, history, timestamps."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from a2a.types import a2a_pb2 as pb

from conformance.judge.reading import strict


def task_of(send_result: Any, what: str) -> dict[str, Any] | None:
    """The Task of a strictly valid SendMessageResponse, or None when the agent answered a Message."""
    strict(send_result, pb.SendMessageResponse, what)
    if "task" in send_result:
        return dict(send_result["task"])
    return None


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
