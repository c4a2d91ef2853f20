"""SubscribeToTask: the first event, terminal and unknown tasks, and following a task to its end (§3.1.6)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.steps import completed_task, held_task
from conformance.a2a.streams import DEADLINE, must_stream, states, subscribe_and_move
from conformance.a2a.tasks import event_kind, state_of
from conformance.judge import expect_error, quote, unique
from conformance.outcome import fail
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller
from conformance.wire.states import TERMINAL


@pytest.mark.requirement("A2A_SUB_001")
def test_subscription_begins_with_the_task_in_its_current_state(core_agent: CoreAgent, caller: Caller) -> None:
    """The first event of a subscription to a working task is that Task, in TASK_STATE_WORKING.
    Defect: subscribe-starts-with-status."""
    core_agent.require("streaming")
    tid = held_task(core_agent, caller, "working")

    def first_only(event: Any) -> bool:
        return True

    ans = caller.stream("SubscribeToTask", {"id": tid}, deadline=DEADLINE, on_event=first_only)
    must_stream(ans, f"SubscribeToTask {tid}")
    first = ans.events[0]
    if event_kind(first) != "task":
        fail(f"the first event of SubscribeToTask {tid} is a {event_kind(first)}, not the Task: {quote(first)}")
    assert first["task"].get("id") == tid, f"the first event is task {first['task'].get('id')!r}, not {tid}"
    assert state_of(first["task"]) == "TASK_STATE_WORKING", (
        f"the first event shows the working task in {state_of(first['task'])}")


@pytest.mark.requirement("A2A_SUB_002")
def test_subscription_to_a_terminal_task_is_refused(core_agent: CoreAgent, caller: Caller) -> None:
    """SubscribeToTask on a completed task answers UnsupportedOperationError. Defect: subscribe-terminal-allowed."""
    core_agent.require("streaming")
    task = completed_task(caller)
    ans = caller.stream("SubscribeToTask", {"id": task["id"]}, deadline=DEADLINE)
    expect_error(ans, "UnsupportedOperationError", f"SubscribeToTask on the completed task {task['id']}")


@pytest.mark.requirement("A2A_SUB_003")
def test_subscription_to_an_unknown_task_is_task_not_found(core_agent: CoreAgent, caller: Caller) -> None:
    """SubscribeToTask of an id no task has answers TaskNotFoundError. Defect: subscribe-unknown-wrong-error."""
    core_agent.require("streaming")
    tid = unique("conformance-unknown")
    ans = caller.stream("SubscribeToTask", {"id": tid}, deadline=DEADLINE)
    expect_error(ans, "TaskNotFoundError", f"SubscribeToTask {tid}")


@pytest.mark.requirement("A2A_SUB_004")
def test_subscription_follows_the_task_to_its_end(core_agent: CoreAgent, caller: Caller) -> None:
    """After the Task, the subscription delivers the move to completed and then ends.
    Defect: subscribe-misses-updates."""
    core_agent.require("streaming")
    tid = held_task(core_agent, caller, "working", moved=True)
    ans = subscribe_and_move(core_agent, caller, tid, "completed")
    must_stream(ans, f"SubscribeToTask {tid}")
    seen = states(ans)
    if "TASK_STATE_COMPLETED" not in seen[1:]:
        fail(f"the subscription to task {tid} never delivered its completion (states seen {seen}, "
             f"closed by {ans.closed_by})")
    end = seen[1:].index("TASK_STATE_COMPLETED") + 1
    assert end == len(seen) - 1, f"events followed the terminal one: {seen}"
    assert ans.closed_by == "server", (
        f"the subscription stayed open after the task completed (cut by the harness: {ans.closed_by})")
    assert all(s is None or s not in TERMINAL for s in seen[:end]), f"a terminal state came early: {seen}"
