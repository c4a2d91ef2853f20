"""Multi-turn: continuing a task by taskId, mismatched contextId, unknown taskId, a contextId the client
chose (§3.4)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.steps import completed_task, get_task, held_task, long_running_task, send
from conformance.a2a.tasks import task_of
from conformance.judge import describe_error, expect_error, in_time, quote, succeeded, unique
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller


@pytest.mark.requirement("A2A_MULTI_001")
def test_task_id_alone_continues_the_task_in_its_context(core_agent: CoreAgent, caller: Caller) -> None:
    """A message naming only the taskId of a task that is not terminal is processed in that task's
    context: an input-required task the harness holds, or, on an agent it cannot steer, the working
    task of the long-running hint (``--long-running-text``; continued with returnImmediately, then
    canceled). Defect: continue-new-context."""
    caller.ready()  # an interface giving no A2A answer blocks first: no task could be held on it
    hinted = core_agent.control is None  # without a hint: not_measured, saying how to give one
    tid = long_running_task(core_agent, caller) if hinted else held_task(core_agent, caller, "input-required")
    # The task's context as the target gave it: from the harness's control where it has one (GetTask's
    # answer is A2A_TASK_001's to judge, not the ground truth of this row), else as GetTask tells it.
    ctl = core_agent.control
    context = ctl.context_of(tid) if ctl is not None else get_task(caller, tid)["contextId"]
    try:
        now: dict[str, Any] = {"configuration": {"returnImmediately": True}} if hinted else {}
        ans = send(caller, "the answer", task_id=tid, **now)
    finally:
        if hinted:
            caller.call("CancelTask", {"id": tid})  # the hint's task would otherwise stay working
    timed_out = ans.transport_error or (ans.error is not None and ans.error.grpc_status == "DEADLINE_EXCEEDED")
    if hinted and timed_out:
        not_measured(f"the agent gave no answer to a message continuing its working task {tid} "
                     f"({ans.quote(200)}), so in which context it continues it cannot be told")
    result = succeeded(ans, f"SendMessage continuing task {tid}")
    task = task_of(result, f"the SendMessage result continuing task {tid}")
    answer = task if task is not None else result["message"]
    if "task" in result:
        assert answer.get("id") == tid, f"continuing task {tid} answered another task {answer.get('id')!r}"
    elif answer.get("taskId") not in (None, tid):
        fail(f"continuing task {tid} answered a message of task {answer.get('taskId')!r}")
    assert answer.get("contextId") == context, (
        f"continuing task {tid} (context {context!r}) answered in context {answer.get('contextId')!r}: {quote(result)}")


@pytest.mark.requirement("A2A_MULTI_002")
def test_mismatched_context_and_task_is_rejected(core_agent: CoreAgent, caller: Caller) -> None:
    """A message naming a task and a contextId not that task's is refused with an error.
    Defect: context-mismatch-accepted."""
    other = unique("conformance-other-context")
    if core_agent.control is not None:
        tid = held_task(core_agent, caller, "input-required")
        ans = send(caller, "wrong context", task_id=tid, context_id=other)
        in_time(ans, f"SendMessage naming task {tid} with another contextId")
        if ans.error is None:
            fail(f"a message naming task {tid} with contextId {other!r} was accepted: {ans.quote()}")
        return
    task = completed_task(caller)
    ans = send(caller, "wrong context", task_id=task["id"], context_id=other)
    in_time(ans, f"SendMessage naming task {task['id']} with another contextId")
    if ans.error is None:
        fail(f"a message naming task {task['id']} with contextId {other!r} was accepted: {ans.quote()}")
    if ans.error.reason == "UNSUPPORTED_OPERATION" or ans.error.code == -32004:
        not_measured("the only task the harness could make is terminal, and the refusal names the terminal "
                     f"state ({describe_error(ans.error)}), so the mismatch itself is not shown to be refused")


@pytest.mark.requirement("A2A_MULTI_003")
def test_unknown_task_id_is_task_not_found(caller: Caller) -> None:
    """A message naming a taskId no task has answers TaskNotFoundError. Defect: unknown-task-id-starts-new-task."""
    tid = unique("conformance-unknown")
    expect_error(send(caller, "to nowhere", task_id=tid), "TaskNotFoundError", f"SendMessage naming task {tid}")


@pytest.mark.requirement("A2A_MULTI_004")
def test_a_client_chosen_context_is_kept_or_refused(caller: Caller) -> None:
    """A new message carrying a contextId no task has yet: the answer (Task or Message) names that contextId
    (the agent took it, a MAY), or it is an error (the agent does not take client contexts: it MUST refuse,
    §3.4.1). An answer in another context is the fail. A refusal counts only where the same message without
    the contextId is accepted (else the refusal is not shown to be about the context).
    Defect: client-context-replaced."""
    chosen = unique("conformance-client-context")
    ans = send(caller, "a context of my own", context_id=chosen)
    in_time(ans, f"SendMessage with the client's contextId {chosen!r}")
    if ans.error is not None:
        plain = send(caller, "a context of my own")
        in_time(plain, "SendMessage without a contextId")
        if plain.error is not None or plain.transport_error:
            not_measured(f"the agent refused the message with contextId {chosen!r} ({describe_error(ans.error)}), "
                         f"but also without one ({plain.quote(200)}), so the refusal is not shown to be the context's")
        return  # refused with an error, as the text asks of an agent that does not take client contexts
    result = succeeded(ans, f"SendMessage with the client's contextId {chosen!r}")
    task = task_of(result, f"the SendMessage result for contextId {chosen!r}")
    answer = task if task is not None else result.get("message")
    assert isinstance(answer, dict), f"the SendMessage result holds neither a task nor a message: {quote(result)}"
    kind = "task" if task is not None else "message"
    assert answer.get("contextId") == chosen, (
        f"a message with the client's contextId {chosen!r} was accepted and answered with a {kind} in context "
        f"{answer.get('contextId')!r}: an agent that does not take it must refuse it with an error (§3.4.1)")
