"""SendStreamingMessage and the shape of every task stream (§3.1.2, §3.2.3, §9.4.2, §11.7)."""

from __future__ import annotations

import pytest

from conformance.a2a.hinted import canceled_stream
from conformance.a2a.steps import held_task
from conformance.a2a.streams import (
    IDLE,
    STREAM_ROW,
    kinds,
    must_stream,
    payloads,
    states,
    stream_message,
    subscribe_and_move,
)
from conformance.a2a.tasks import event_kind
from conformance.judge import blocked_by, quote
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller, StreamAnswer
from conformance.wire.states import INTERRUPTED, TERMINAL

#: The row whose own text demands that a subscription delivers the task's later updates.
SUBSCRIBE_ROW = "A2A_SUB_004"


def _streamed(core_agent: CoreAgent, caller: Caller) -> StreamAnswer:
    """The stream of a plain message, on an agent declaring streaming (the check is na otherwise); a call
    that gives no stream blocks the check by :data:`STREAM_ROW`."""
    core_agent.require("streaming")
    ans = stream_message(caller)
    must_stream(ans, "SendStreamingMessage", STREAM_ROW)
    return ans


@pytest.mark.requirement("A2A_STREAM_001")
def test_send_streaming_message_answers_a_stream(core_agent: CoreAgent, caller: Caller) -> None:
    """SendStreamingMessage answers HTTP 200 text/event-stream (gRPC: a server stream) with events.
    Defect: stream-wrong-content-type."""
    core_agent.require("streaming")
    ans = stream_message(caller)
    must_stream(ans, "SendStreamingMessage")
    if caller.binding != "GRPC":
        assert ans.status == 200, f"SendStreamingMessage answered HTTP {ans.status}"
        assert ans.content_type.split(";")[0].strip().lower() == "text/event-stream", (
            f"SendStreamingMessage answered Content-Type {ans.content_type!r}")


@pytest.mark.requirement("A2A_STREAM_002")
@pytest.mark.depends_on(STREAM_ROW)
def test_every_frame_is_a_stream_response(core_agent: CoreAgent, caller: Caller) -> None:
    """Each event of the stream carries one StreamResponse: its data is one JSON object (on JSON-RPC, the
    result of a response) holding exactly one of the four payloads. How the payload is typed and how the
    envelope is formed are A2A_DATA_001's and A2A_DATA_003's. Defect: stream-frame-not-json."""
    ans = _streamed(core_agent, caller)
    assert not ans.framing, f"SendStreamingMessage: {'; '.join(ans.framing[:5])}"
    for i, frame in enumerate(ans.raw_events):
        held = payloads(frame)
        assert len(held) == 1, (
            f"frame {i} holds {held or 'no payload'}, not exactly one StreamResponse payload: {quote(frame)}")


@pytest.mark.requirement("A2A_STREAM_003")
@pytest.mark.depends_on(STREAM_ROW)
def test_stream_begins_with_the_task_or_is_one_message(core_agent: CoreAgent, caller: Caller) -> None:
    """The first frame is the Task, or the stream is exactly one Message and then closes.
    Defect: stream-starts-with-status."""
    ans = _streamed(core_agent, caller)
    first = event_kind(ans.events[0])
    if first == "message":
        assert len(ans.events) == 1, f"a message stream carried {len(ans.events)} events: {kinds(ans)}"
        assert ans.closed_by == "server", f"a message stream was not closed after its Message ({ans.closed_by})"
        return
    assert first == "task", f"the stream begins with a {first}, not the Task: {quote(ans.events[0])}"


def _task_stream(caller: Caller) -> StreamAnswer:
    ans = stream_message(caller)
    must_stream(ans, "SendStreamingMessage", STREAM_ROW)
    if event_kind(ans.events[0]) != "task":
        not_measured(f"the agent streams a {event_kind(ans.events[0])} for a plain message, not a task")
    return ans


#: How a user makes a stream row measurable on an agent whose plain message gives no such stream.
HINT = ("; name a message the agent answers with a task that stays working (--long-running-text TEXT): the "
        "harness streams it, cancels the task and watches the stream end")


def _closing(ans: StreamAnswer) -> str | None:
    """Why the task stream ``ans`` cannot show how a stream ends at a terminal state (None when it can)."""
    if event_kind(ans.events[0]) == "message":
        # A stream of a task (its first event the Task, or a status update of it: the first event's form is
        # A2A_STREAM_003's) shows where it ends; a message answer has no task to end.
        return "the agent answers this message with a message, not a task"
    seen = states(ans)
    if not any(s in TERMINAL for s in seen) and ans.closed_by != "server":
        return f"the task did not reach a terminal state while the harness waited (states {seen}, {ans.closed_by})"
    return None


@pytest.mark.requirement("A2A_STREAM_004")
@pytest.mark.depends_on(STREAM_ROW)
def test_task_stream_closes_at_a_terminal_state(core_agent: CoreAgent, caller: Caller) -> None:
    """The stream of a task ends after its terminal event, nothing following it. Judged on the stream of
    a plain message; where that is no task stream reaching an end, on the stream of the long-running
    hint, canceled by the harness. Defect: stream-open-after-terminal."""
    ans = _streamed(core_agent, caller)
    why = _closing(ans)
    if why is not None and core_agent.long_running:
        ans = canceled_stream(core_agent, caller)
        must_stream(ans, "SendStreamingMessage of the long-running hint", STREAM_ROW)
        why = _closing(ans)
    if why is not None:
        not_measured(why + ("" if core_agent.long_running else HINT))
    seen = states(ans)
    closing = [i for i, s in enumerate(seen) if s in TERMINAL]
    if not closing:
        if seen[-1] in INTERRUPTED:
            not_measured(f"the task stopped at {seen[-1]} rather than a terminal state; see A2A_STREAM_005")
        fail(f"the server closed the stream while the task was {seen[-1]} (states {seen})")
    assert closing[0] == len(seen) - 1, f"events followed the terminal state: {seen} ({kinds(ans)})"
    assert ans.closed_by == "server", (
        f"the stream stayed open {IDLE:g}s after the terminal event (cut by the harness: {ans.closed_by})")


@pytest.mark.requirement("A2A_STREAM_005")
@pytest.mark.depends_on(SUBSCRIBE_ROW, "A2A_SUB_001")
def test_task_stream_closes_at_an_interrupted_state(core_agent: CoreAgent, caller: Caller) -> None:
    """A subscription to a working task ends after the task moves to input-required.
    Defect: stream-open-at-interrupted."""
    core_agent.require("streaming")
    tid = held_task(core_agent, caller, "working", moved=True)
    ans = subscribe_and_move(core_agent, caller, tid, "input-required")
    must_stream(ans, f"SubscribeToTask {tid}", "A2A_SUB_001")
    seen = states(ans)
    if len(seen) <= 1:
        # The subscription delivered no update at all: whether a subscription carries the task's later
        # updates is A2A_SUB_004's; this row is about where such a stream ends.
        blocked_by(SUBSCRIBE_ROW, f"SubscribeToTask {tid} delivered no update after the Task (states {seen}, "
                                  f"closed by {ans.closed_by}), so where the stream ends at input-required is unseen")
    if "TASK_STATE_INPUT_REQUIRED" not in seen[1:]:
        fail(f"the stream never delivered the move to input-required (states {seen}, {ans.closed_by})")
    assert seen[-1] == "TASK_STATE_INPUT_REQUIRED", f"events followed input-required: {seen}"
    assert ans.closed_by == "server", (
        f"the stream stayed open {IDLE:g}s after the task reached input-required ({ans.closed_by})")


@pytest.mark.requirement("A2A_STREAM_006")
@pytest.mark.depends_on(STREAM_ROW)
def test_updates_name_the_streamed_task(core_agent: CoreAgent, caller: Caller) -> None:
    """Every statusUpdate / artifactUpdate carries the Task's taskId and contextId.
    Defect: update-wrong-task-id."""
    checked = 0
    plain = _streamed(core_agent, caller)
    streams = [plain]
    if core_agent.control is not None:
        tid = held_task(core_agent, caller, "working", moved=True)
        streams.append(subscribe_and_move(core_agent, caller, tid, "completed"))
    elif core_agent.long_running:
        streams.append(canceled_stream(core_agent, caller))
    for ans in streams:
        if not ans.events or event_kind(ans.events[0]) != "task":
            continue
        task = ans.events[0]["task"]
        for ev in ans.events[1:]:
            kind = event_kind(ev)
            if kind not in ("statusUpdate", "artifactUpdate"):
                continue
            body = ev[kind]
            assert body.get("taskId") == task.get("id") and body.get("contextId") == task.get("contextId"), (
                f"a {kind} names task {body.get('taskId')!r} / context {body.get('contextId')!r} in the stream of "
                f"task {task.get('id')!r} / context {task.get('contextId')!r}")
            checked += 1
    if not checked:
        not_measured("no stream the harness could open carried a status or artifact update"
                     + ("" if core_agent.long_running or core_agent.control is not None else HINT))
