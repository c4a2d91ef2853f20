"""SendMessage: what it answers, when a blocking send returns, task identity, terminal tasks (§3.1.1)."""

from __future__ import annotations

import base64

import pytest

from conformance.a2a.messages import send_params, takes, text_message
from conformance.a2a.steps import AT_ONCE, ID_ROW, card_of, completed_task, hold_params, new_task, send
from conformance.a2a.tasks import state_of, task_of
from conformance.judge import expect_error, in_time, judged_here, quote, succeeded
from conformance.outcome import fail, na, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller
from conformance.wire.states import INTERRUPTED, TERMINAL


@pytest.mark.requirement("A2A_SEND_001")
def test_send_message_answers_one_task_or_one_message(caller: Caller) -> None:
    """The result is a SendMessageResponse holding exactly one of task / message (read as it came: the
    members' own typing is A2A_DATA_001's). Defect: send-returns-bare-task."""
    ans = send(caller, "hello")
    succeeded(ans, "SendMessage")
    result = ans.raw_result
    assert isinstance(result, dict), f"the SendMessage result is not an object: {quote(result)}"
    members = [k for k in ("task", "message") if k in result]
    assert len(members) == 1, (
        f"the SendMessage result must hold exactly one of task/message, it holds {members}: {quote(result)}")
    assert isinstance(result[members[0]], dict), f"the SendMessage {members[0]} is not an object: {quote(result)}"


@pytest.mark.requirement("A2A_SEND_002")
def test_blocking_send_returns_a_settled_task(caller: Caller) -> None:
    """Without returnImmediately the answer's task is terminal or interrupted. Defect: blocking-returns-early."""
    result = succeeded(send(caller, "blocking"), "SendMessage (blocking)")
    task = task_of(result, "SendMessage result")
    if task is None:
        not_measured("the agent answered a Message, so there is no task whose state a blocking send could settle")
    state = state_of(task)
    assert state in TERMINAL | INTERRUPTED, (
        f"a blocking SendMessage returned task {task.get('id')!r} in {state}, neither terminal nor interrupted")


@pytest.mark.requirement("A2A_SEND_006")
def test_return_immediately_answers_while_the_task_is_still_worked_on(
        core_agent: CoreAgent, caller: Caller, recorder: Recorder) -> None:
    """A message the agent answers with a task it keeps working until canceled (the long-running text: the
    user's ``--long-running-text``, or a launched target's own), sent with returnImmediately true, is
    answered within :data:`AT_ONCE` seconds with that task in a state that is not terminal: the agent
    did not wait for an end that only the harness's CancelTask brings. The task is then canceled.
    Defect: return-immediately-ignored."""
    caller.ready()  # an interface giving no A2A answer blocks first
    params = hold_params(core_agent)
    params["configuration"] = {"returnImmediately": True}
    quick = core_agent.caller(caller.binding, recorder, timeout=AT_ONCE)
    try:
        ans = quick.call("SendMessage", params)
    finally:
        quick.close()
    what = "SendMessage of the long-running text with returnImmediately"
    if ans.timed_out is not None and ans.timed_out >= AT_ONCE:
        fail(f"{what}: no answer within {AT_ONCE:g}s, although the agent keeps that task working until it is "
             f"canceled (returnImmediately asks for the answer once the task is created): {ans.quote(300)}")
    in_time(ans, what)  # a shorter --call-timeout of the user's cut it: not this row's to judge
    task = task_of(succeeded(ans, what), f"the answer to the {what}")
    if task is None:
        not_measured("the agent answered the long-running text with a Message, not a task, and returnImmediately "
                     "has no effect on a Message reply; give a message text it answers with a task that stays "
                     "working (--long-running-text TEXT)")
    tid = task.get("id")
    try:
        state = state_of(task)
        assert state not in TERMINAL, (
            f"{what} answered task {tid!r} in {state}: the answer came only once the task had ended")
    finally:
        if isinstance(tid, str) and tid:
            caller.call("CancelTask", {"id": tid})  # it would otherwise stay working


#: A media type no agent takes: unregistered (an x- subtype), named for this harness alone.
UNTAKEN_MEDIA_TYPE = "application/x-agentd-conformance-never-taken"


@pytest.mark.requirement("A2A_SEND_007")
def test_a_part_of_a_media_type_no_input_mode_takes_is_refused(core_agent: CoreAgent, caller: Caller) -> None:
    """A message of a text part and a file part (inline bytes) of :data:`UNTAKEN_MEDIA_TYPE`, which none of
    the card's input modes takes, answers ContentTypeNotSupportedError (§3.1.1; §3.3.2: servers MUST
    validate input, an unsupported content type among the examples). A card whose modes take it (``*/*``,
    ``application/*``) makes the row na. Defect: unsupported-media-type-accepted."""
    card = card_of(core_agent)
    modes = [m for m in card.get("defaultInputModes") or [] if isinstance(m, str)]
    modes += [m for skill in card.get("skills") or [] if isinstance(skill, dict)
              for m in skill.get("inputModes") or [] if isinstance(m, str)]
    if not modes:
        not_measured("the card declares no input modes (defaultInputModes is empty or absent), so which media "
                     "types the agent takes is not known")
    if takes(modes, UNTAKEN_MEDIA_TYPE):
        na(f"the card's input modes {modes} take every media type of {UNTAKEN_MEDIA_TYPE}'s kind")
    msg = text_message("the attached part is of a media type this agent does not take")
    msg["parts"].append({"raw": base64.b64encode(b"agentd-conformance").decode(), "mediaType": UNTAKEN_MEDIA_TYPE,
                         "filename": "conformance.bin"})
    expect_error(caller.call("SendMessage", send_params(msg)), "ContentTypeNotSupportedError",
                 f"SendMessage with a part of media type {UNTAKEN_MEDIA_TYPE} (the card's input modes: {modes})")


@pytest.mark.requirement("A2A_SEND_003")
def test_new_tasks_get_unique_server_ids_and_a_context(caller: Caller) -> None:
    """Two sends make two tasks, each with a non-empty id and contextId, the ids different.
    Defect: task-id-reused."""
    with judged_here(ID_ROW):
        first, second = new_task(caller, "first"), new_task(caller, "second")
    for t in (first, second):
        assert t.get("id") and t.get("contextId"), f"a new task lacks id or contextId: {quote(t)}"
    assert first["id"] != second["id"], f"two new tasks share the id {first['id']!r}"


@pytest.mark.requirement("A2A_SEND_004")
def test_message_to_a_terminal_task_is_refused(caller: Caller) -> None:
    """A message naming a completed task answers UnsupportedOperationError. Defect: terminal-task-accepts-messages."""
    task = completed_task(caller)
    ans = send(caller, "one more", task_id=task["id"], context_id=task["contextId"])
    expect_error(ans, "UnsupportedOperationError", f"SendMessage to the {state_of(task)} task {task['id']}")


@pytest.mark.requirement("A2A_SEND_005")
def test_send_with_history_length_0_returns_no_history(caller: Caller) -> None:
    """SendMessage with configuration.historyLength 0 answers its task with no history (§3.2.4: "No history
    should be returned; the history field SHOULD be omitted", the same rule as GetTask's, A2A_TASK_004).
    Defect: send-history-zero-ignored."""
    result = succeeded(send(caller, "history zero on send", configuration={"historyLength": 0}),
                       "SendMessage with historyLength 0")
    task = task_of(result, "SendMessage result")
    if task is None:
        not_measured("the agent answered a Message, so there is no task whose history historyLength could bound")
    history = task.get("history")
    assert not history, (f"SendMessage with historyLength 0 answered task {task.get('id')!r} with "
                         f"{len(history) if isinstance(history, list) else quote(history)} history message(s)")
