"""SubscribeToTask: the first event, terminal and unknown tasks, following a task to its end (§3.1.6), and
several streams of one task at once (§3.5.2)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from conformance.a2a.steps import completed_task, held_task
from conformance.a2a.streams import DEADLINE, IDLE, ended_before_followed, must_stream, states, subscribe_and_move
from conformance.a2a.tasks import event_kind, event_state, state_of
from conformance.judge import blocked_by, expect_error, quote, unique
from conformance.judge.errors import error_problem
from conformance.outcome import fail, na, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller, StreamAnswer
from conformance.wire.states import TERMINAL

#: The row whose own text demands that SubscribeToTask on a working task answers a stream.
SUBSCRIBE_ROW = "A2A_SUB_001"


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
@pytest.mark.depends_on(SUBSCRIBE_ROW)
def test_subscription_to_an_unknown_task_is_task_not_found(core_agent: CoreAgent, caller: Caller) -> None:
    """SubscribeToTask of an id no task has answers TaskNotFoundError. Where it answers UnsupportedOperationError,
    a subscription to a working task is asked too: refused the same way, subscriptions are not served at all
    (A2A_SUB_001's), not a wrong answer about the unknown id. Defect: subscribe-unknown-wrong-error."""
    core_agent.require("streaming")
    tid = unique("conformance-unknown")
    ans = caller.stream("SubscribeToTask", {"id": tid}, deadline=DEADLINE)
    if error_problem(ans, "UnsupportedOperationError", "") is None and ans.error is not None:
        known = held_task(core_agent, caller, "working")
        served = caller.stream("SubscribeToTask", {"id": known}, deadline=DEADLINE, idle=IDLE,
                               on_event=lambda event: True)
        if error_problem(served, "UnsupportedOperationError", "") is None and served.error is not None:
            blocked_by(SUBSCRIBE_ROW, f"SubscribeToTask is refused as unsupported for a working task ({known}) as "
                                      f"for an unknown id: {served.quote(200)}")
    expect_error(ans, "TaskNotFoundError", f"SubscribeToTask {tid}")


@pytest.mark.requirement("A2A_SUB_004")
@pytest.mark.depends_on(SUBSCRIBE_ROW)
def test_subscription_follows_the_task_to_its_end(core_agent: CoreAgent, caller: Caller) -> None:
    """After the Task, the subscription delivers the move to completed and then ends.
    Defect: subscribe-misses-updates."""
    core_agent.require("streaming")
    tid = held_task(core_agent, caller, "working", moved=True)
    ans = subscribe_and_move(core_agent, caller, tid, "completed")
    must_stream(ans, f"SubscribeToTask {tid}", SUBSCRIBE_ROW)
    seen = states(ans)
    if "TASK_STATE_COMPLETED" not in seen[1:]:
        fail(f"the subscription to task {tid} never delivered its completion (states seen {seen}, "
             f"closed by {ans.closed_by})")
    end = seen[1:].index("TASK_STATE_COMPLETED") + 1
    assert end == len(seen) - 1, f"events followed the terminal one: {seen}"
    assert ans.closed_by == "server", (
        f"the subscription stayed open after the task completed (cut by the harness: {ans.closed_by})")
    assert all(s is None or s not in TERMINAL for s in seen[:end]), f"a terminal state came early: {seen}"


#: Streams opened on one task by A2A_SUB_005: one the harness closes early, two that must carry on.
STREAMS = 3


def _signature(event: Any) -> tuple[str, str | None]:
    """What an event says, for comparing streams: its kind and the state or artifact it reports."""
    kind = event_kind(event)
    if kind == "artifactUpdate" and isinstance(event.get(kind), dict):
        art = event[kind].get("artifact")
        return kind, art.get("artifactId") if isinstance(art, dict) else None
    return kind, event_state(event)


@pytest.mark.requirement("A2A_SUB_005")
@pytest.mark.depends_on("A2A_SUB_004", SUBSCRIBE_ROW)
def test_concurrent_subscriptions_each_get_the_tasks_events(
        core_agent: CoreAgent, caller: Caller, recorder: Recorder, binding: str) -> None:
    """Three SubscribeToTask streams of one working task (held by the harness; on an agent it cannot steer,
    the long-running text's task). Once each has its first event the harness closes the first, then ends
    the task (moved to completed, or canceled). The two left open must each deliver the task's end,
    carrying the same events in the same order. An agent serving one stream per task only (a MAY, §3.5.2)
    refuses a later subscription: na. Defect: newest-subscriber-only."""
    core_agent.require("streaming")
    tid = held_task(core_agent, caller, "working")
    ctl = core_agent.control
    callers = [core_agent.caller(binding, recorder) for _ in range(STREAMS)]
    started = [threading.Event() for _ in range(STREAMS)]
    answers: list[StreamAnswer | None] = [None] * STREAMS

    def follow(i: int) -> None:
        def on_event(event: Any) -> bool:
            started[i].set()
            return i == 0  # the first stream is closed by the harness after its first event

        try:
            answers[i] = callers[i].stream("SubscribeToTask", {"id": tid}, deadline=DEADLINE, idle=IDLE,
                                           on_event=on_event)
        finally:
            started[i].set()  # an answer with no event (a refusal) also ends the wait

    threads = [threading.Thread(target=follow, args=(i,), daemon=True) for i in range(STREAMS)]
    ended = False
    try:
        for t in threads:
            t.start()
        for e in started:
            e.wait(DEADLINE)
        threads[0].join(DEADLINE)
        refused = [a for a in answers if a is not None and not a.events]
        if refused and all(a is not None and not a.events for a in answers):
            # Not one stream of the task was served, the first included: subscriptions are A2A_SUB_001's.
            blocked_by(SUBSCRIBE_ROW, f"no SubscribeToTask of task {tid} was served as a stream: "
                                      f"{refused[0].quote(300)}")
        if refused:
            first = refused[0]
            if first.error is not None:
                na(f"the agent refused a further concurrent SubscribeToTask of task {tid} ({first.quote(300)}); "
                   "serving several streams of one task is a MAY (§3.5.2)")
            fail(f"a concurrent SubscribeToTask of task {tid} carried no event: {first.quote(300)}")
        if ctl is not None:
            ctl.move(tid, "completed")
        else:
            caller.call("CancelTask", {"id": tid})
        ended = True
        for t in threads:
            t.join(DEADLINE + IDLE)
    finally:
        if not ended and ctl is None:
            caller.call("CancelTask", {"id": tid})
        for c in callers:
            c.close()
    open_ones = answers[1:]
    over = [s for a in open_ones if a is not None and ctl is None and (s := ended_before_followed(a))]
    if over:
        not_measured(f"the long-running hint's task {tid} had already ended ({over[0]}) when a stream took it, "
                     "before the harness ended it: the agent did not keep it working (the hint, not the agent, "
                     "is in question)")
    missed: list[str] = []
    for i, ans in enumerate(open_ones, start=2):
        if ans is None:
            fail(f"subscription {i} of task {tid} had not ended {DEADLINE + IDLE:g}s after the task did")
        must_stream(ans, f"SubscribeToTask {tid} (stream {i} of {STREAMS})", SUBSCRIBE_ROW)
        seen = states(ans)
        if not any(s in TERMINAL for s in seen[1:]):
            missed.append(f"stream {i} of {STREAMS} on task {tid} never delivered the task's end after stream 1 was "
                          f"closed (states {seen}, closed by {ans.closed_by})")
    if missed and all(len(states(a)) <= 1 for a in open_ones if a is not None):
        # No stream carried any update at all: a subscription's updates are A2A_SUB_004's; this row is about
        # several streams of one task each getting them.
        blocked_by("A2A_SUB_004", f"no SubscribeToTask stream of task {tid} delivered any update after the Task: "
                                  + "; ".join(missed))
    if missed:
        fail("; ".join(missed))
    later = [[_signature(e) for e in ans.events[1:]] for ans in open_ones if ans is not None]
    assert all(s == later[0] for s in later), (
        f"the streams still open on task {tid} carried different events after their first: {later}")
