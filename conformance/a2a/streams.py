"""Reading task streams the way several core checks need: strict frames, states, the end."""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as pb

from conformance.a2a.messages import text_message
from conformance.a2a.tasks import event_kind, event_state
from conformance.judge import strict
from conformance.outcome import fail
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller, StreamAnswer

#: Seconds of silence after which the harness stops waiting for a stream to end.
IDLE = 5.0
DEADLINE = 20.0


def strict_frames(ans: StreamAnswer, what: str) -> None:
    """Every frame must be a strictly valid StreamResponse; envelope problems fail too."""
    if ans.problems:
        fail(f"{what}: {'; '.join(ans.problems[:5])}")
    for i, ev in enumerate(ans.events):
        strict(ev, pb.StreamResponse, f"{what}, frame {i}")


def stream_message(caller: Caller, text: str = "conformance stream") -> StreamAnswer:
    return caller.stream("SendStreamingMessage", {"message": text_message(text)}, deadline=DEADLINE, idle=IDLE)


def must_stream(ans: StreamAnswer, what: str) -> None:
    """The answer must be a stream with at least one event, every frame strictly valid."""
    if ans.transport_error:
        fail(f"{what}: {ans.transport_error}")
    if ans.error is not None and not ans.events:
        fail(f"{what}: answered an error instead of a stream: {ans.quote()}")
    if not ans.is_stream:
        fail(f"{what}: not a stream: {ans.quote()}")
    if not ans.events:
        fail(f"{what}: the stream carried no event: {ans.quote()}")
    strict_frames(ans, what)


def subscribe_and_move(agent: CoreAgent, caller: Caller, tid: str, to: str) -> StreamAnswer:
    """Subscribe to held task ``tid``; once the first event has arrived, move the task to ``to``;
    read until the server ends the stream (or :data:`IDLE` seconds pass without an event)."""
    ctl = agent.need_control()
    moved: list[bool] = []

    def on_event(event: Any) -> bool:
        if not moved:
            moved.append(True)
            ctl.move(tid, to)
        return False

    return caller.stream("SubscribeToTask", {"id": tid}, deadline=DEADLINE, idle=IDLE, on_event=on_event)


def states(ans: StreamAnswer) -> list[str | None]:
    return [event_state(e) for e in ans.events]


def kinds(ans: StreamAnswer) -> list[str]:
    return [event_kind(e) for e in ans.events]
