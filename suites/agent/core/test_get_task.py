"""GetTask: the named task, unknown ids, and historyLength (§3.1.3, §3.2.4)."""

from __future__ import annotations

import pytest

from conformance.a2a.steps import GET_ROW, get_task, new_task
from conformance.a2a.tasks import history_ids, state_of
from conformance.judge import expect_error, judged_here, quote, unique
from conformance.outcome import not_measured
from conformance.wire.caller import Caller


@pytest.mark.requirement("A2A_TASK_001")
def test_get_task_answers_the_named_task(caller: Caller) -> None:
    """GetTask returns the task SendMessage created: same id and contextId, a status. Defect: get-task-wrong-context."""
    made = new_task(caller)
    with judged_here(GET_ROW):
        got = get_task(caller, made["id"])
    assert got.get("id") == made["id"], f"GetTask {made['id']!r} answered task {got.get('id')!r}"
    assert got.get("contextId") == made["contextId"], (
        f"GetTask answered contextId {got.get('contextId')!r}, the task was created in {made['contextId']!r}")
    assert state_of(got) != "TASK_STATE_UNSPECIFIED", f"GetTask answered no task state: {quote(got)}"


@pytest.mark.requirement("A2A_TASK_002")
def test_get_task_of_an_unknown_id_is_task_not_found(caller: Caller) -> None:
    """GetTask of an id no task has answers TaskNotFoundError. Defect: get-unknown-wrong-error."""
    tid = unique("conformance-unknown")
    expect_error(caller.call("GetTask", {"id": tid}), "TaskNotFoundError", f"GetTask {tid}")


@pytest.mark.requirement("A2A_TASK_003")
def test_get_task_honours_history_length(caller: Caller) -> None:
    """historyLength 0 returns no history; 1 returns at most the most recent message.
    Defect: get-history-length-ignored."""
    made = new_task(caller, "history check")
    full = history_ids(get_task(caller, made["id"]))
    if not full:
        not_measured("the agent keeps no history for its tasks, so there is none for historyLength to bound")
    none = get_task(caller, made["id"], historyLength=0)
    assert not none.get("history"), f"historyLength 0 still returned history {history_ids(none)}"
    one = history_ids(get_task(caller, made["id"], historyLength=1))
    assert len(one) <= 1, f"historyLength 1 returned {len(one)} messages: {one}"
    assert one == full[-1:], f"historyLength 1 returned {one}, the most recent message is {full[-1:]} (of {full})"
