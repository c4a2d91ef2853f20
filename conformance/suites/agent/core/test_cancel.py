"""CancelTask: a running task is canceled, a finished one is not cancelable, unknown ids (§3.1.5)."""

from __future__ import annotations

import pytest

from conformance.a2a.steps import completed_task, get_task, held_task
from conformance.a2a.tasks import state_of
from conformance.judge import expect_error, quote, succeeded, unique
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller


@pytest.mark.requirement("A2A_CANCEL_001")
def test_cancel_of_a_working_task_answers_it_canceled(core_agent: CoreAgent, caller: Caller) -> None:
    """CancelTask on a working task answers that task in TASK_STATE_CANCELED, and GetTask agrees.
    Defect: cancel-ignored."""
    tid = held_task(core_agent, caller, "working")
    result = succeeded(caller.call("CancelTask", {"id": tid}), f"CancelTask {tid}")
    assert isinstance(result, dict), f"CancelTask {tid} answered {quote(result)}, not a task"
    assert result.get("id") == tid, f"CancelTask {tid} answered task {result.get('id')!r}"
    assert state_of(result) == "TASK_STATE_CANCELED", f"CancelTask answered the task in {state_of(result)}"
    after = get_task(caller, tid)
    assert state_of(after) == "TASK_STATE_CANCELED", f"after CancelTask, GetTask shows {state_of(after)}"


@pytest.mark.requirement("A2A_CANCEL_002")
def test_cancel_of_a_completed_task_is_not_cancelable(caller: Caller) -> None:
    """CancelTask on a completed task answers TaskNotCancelableError. Defect: cancel-terminal-accepted."""
    task = completed_task(caller)
    expect_error(caller.call("CancelTask", {"id": task["id"]}), "TaskNotCancelableError",
                 f"CancelTask of the completed task {task['id']}")


@pytest.mark.requirement("A2A_CANCEL_003")
def test_cancel_of_an_unknown_id_is_task_not_found(caller: Caller) -> None:
    """CancelTask of an id no task has answers TaskNotFoundError. Defect: cancel-unknown-wrong-error."""
    tid = unique("conformance-unknown")
    expect_error(caller.call("CancelTask", {"id": tid}), "TaskNotFoundError", f"CancelTask {tid}")
