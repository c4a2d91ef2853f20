"""GetTask: the named task, unknown ids, historyLength (§3.1.3, §3.2.4), and the messages kept in history (§3.7)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.messages import send_params, text_message
from conformance.a2a.steps import AT_ONCE, GET_ROW, get_task, hold_params, new_task
from conformance.a2a.tasks import history_ids, state_of, task_of
from conformance.judge import blocked_by, expect_error, judged_here, quote, succeeded, unique
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller

#: The row whose own text demands that SendMessage with returnImmediately answers at once.
RETURN_IMMEDIATELY_ROW = "A2A_SEND_006"


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


def _as_sent(kept: dict[str, Any], sent: dict[str, Any]) -> str | None:
    """How a message kept in history differs from the one sent (role, parts' texts); None when it does not. A
    role missing altogether is a required field left out, the data-model row's (A2A_DATA_001), not a change."""
    if "role" in kept and kept.get("role") != sent["role"]:
        return f"role {kept.get('role')!r}, sent as {sent['role']!r}"
    texts = [p.get("text") if isinstance(p, dict) else p for p in kept.get("parts") or []]
    want = [p["text"] for p in sent["parts"]]
    if texts != want:
        return f"parts {quote(kept.get('parts'))}, sent as {quote(sent['parts'])}"
    return None


@pytest.mark.requirement("A2A_TASK_005")
@pytest.mark.depends_on(RETURN_IMMEDIATELY_ROW)
def test_history_keeps_the_messages_sent_in_order_and_as_sent(core_agent: CoreAgent, caller: Caller,
                                                               recorder: Recorder) -> None:
    """Two messages to one task: the long-running text (the task it starts stays working) and a second
    naming that task, both with returnImmediately; then GetTask. The messages the history holds (found by
    messageId) must be in the order sent, each with the role and parts sent; keeping neither fails this MAY
    row (§3.7: agents MAY persist the messages). The task is canceled at the end.
    Defect: history-latest-message-first."""
    caller.ready()
    params = hold_params(core_agent)
    params["configuration"] = {"returnImmediately": True}
    first = params["message"]
    opening = core_agent.caller(caller.binding, recorder, timeout=AT_ONCE)
    try:
        opened = opening.call("SendMessage", params)
    finally:
        opening.close()
    if opened.timed_out is not None:  # answering at once is A2A_SEND_006's; this row needs it to go on
        blocked_by(RETURN_IMMEDIATELY_ROW, f"SendMessage of the long-running text with returnImmediately gave no "
                                           f"answer within {opened.timed_out:g}s, so no second message could follow")
    task = task_of(succeeded(opened, "SendMessage of the long-running text"), "the answer to the long-running text")
    if task is None:
        not_measured("the agent answered the long-running text with a Message, so no task holds a history; "
                     "give a message text it answers with a task that stays working (--long-running-text TEXT)")
    tid = str(task.get("id") or "")
    second = text_message("a second message for the history", task_id=tid)
    quick = core_agent.caller(caller.binding, recorder, timeout=AT_ONCE)
    try:
        ans = quick.call("SendMessage", send_params(second, configuration={"returnImmediately": True}))
        if ans.timed_out is not None:  # some agents take no message while they work on the task
            not_measured(f"the agent gave no answer within {ans.timed_out:g}s to a message continuing its working "
                         f"task {tid} (sent with returnImmediately), so no second message reached its history")
        succeeded(ans, f"SendMessage continuing task {tid}")
        history = get_task(caller, tid).get("history") or []
    finally:
        quick.close()
        caller.call("CancelTask", {"id": tid})  # it would otherwise stay working (an error if it ended)
    sent = [first, second]
    ids = history_ids({"history": history})
    kept = [(ids.index(m["messageId"]), m) for m in sent if m["messageId"] in ids]
    if not kept:
        fail(f"the history of task {tid} holds neither message the client sent (messageIds "
             f"{[m['messageId'] for m in sent]}; it holds {ids}); keeping them is what this MAY row (§3.7) asks")
    for at, m in kept:
        differs = _as_sent(history[at], m)
        if differs is not None:
            fail(f"message {m['messageId']} is kept in the history of task {tid} with {differs}")
    if len(kept) < len(sent):
        not_measured(f"the history of task {tid} keeps only {[m['messageId'] for _, m in kept]} of the two "
                     "messages sent (as sent), so their order cannot be told")
    assert kept[0][0] < kept[1][0], (
        f"the history of task {tid} holds the second message sent ({second['messageId']}) before the first "
        f"({first['messageId']}): {ids}")
