"""GetTask: the named task, unknown ids, and historyLength (§3.1.3, §3.2.4)."""

from __future__ import annotations

from typing import Any

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


def _history(caller: Caller, text: str) -> tuple[dict[str, Any], list[str]]:
    """A task of this agent and the ids of its whole history (not_measured when it keeps none)."""
    made = new_task(caller, text)
    full = history_ids(get_task(caller, made["id"]))
    if not full:
        not_measured("the agent keeps no history for its tasks, so there is none for historyLength to bound")
    return made, full


@pytest.mark.requirement("A2A_TASK_003")
def test_get_task_bounds_history_to_a_positive_length(caller: Caller) -> None:
    """historyLength 1 returns at most the most recent message (§3.2.4: "> 0: Return at most this many
    recent messages"). A task whose history holds one message cannot show a bound of 1 apart from no
    bound, so that is not_measured. Defect: get-history-length-ignored."""
    made, full = _history(caller, "history check")
    if len(full) < 2:
        not_measured(f"the agent's task holds {len(full)} message of history, so a bound of 1 cannot be told "
                     "apart from no bound")
    one = history_ids(get_task(caller, made["id"], historyLength=1))
    assert len(one) <= 1, f"historyLength 1 returned {len(one)} messages: {one}"
    assert one == full[-1:], f"historyLength 1 returned {one}, the most recent message is {full[-1:]} (of {full})"


@pytest.mark.requirement("A2A_TASK_004")
def test_get_task_with_history_length_0_returns_no_history(caller: Caller) -> None:
    """historyLength 0 returns no history (§3.2.4: "No history should be returned; the history field
    SHOULD be omitted": a SHOULD, so this row is one). Defect: get-history-zero-ignored."""
    made, _ = _history(caller, "history zero check")
    none = get_task(caller, made["id"], historyLength=0)
    assert not none.get("history"), f"historyLength 0 still returned history {history_ids(none)}"
