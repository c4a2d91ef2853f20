"""Reading task streams the way several core checks need: states, kinds, payloads, the end."""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as pb

from conformance.a2a.messages import text_message
from conformance.a2a.tasks import event_kind, event_state
from conformance.judge import blocked_by
from conformance.outcome import fail
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller, StreamAnswer
from conformance.wire.states import TERMINAL

#: Seconds of silence after which the harness stops waiting for a stream to end.
IDLE = 5.0
DEADLINE = 20.0


#: The StreamResponse payload members, by either spelling a reader accepts (ProtoJSON, proto field name).
PAYLOADS = {f.json_name: f.name for f in pb.StreamResponse.DESCRIPTOR.oneofs_by_name["payload"].fields}


def payloads(frame: Any) -> list[str]:
    """The StreamResponse payload members ``frame`` holds, as it came (either spelling)."""
    if not isinstance(frame, dict):
        return []
    return [k for k in frame if k in PAYLOADS or k in PAYLOADS.values()]


def stream_message(caller: Caller, text: str = "conformance stream") -> StreamAnswer:
    return caller.stream("SendStreamingMessage", {"message": text_message(text)}, deadline=DEADLINE, idle=IDLE)


#: The row whose own text demands that SendStreamingMessage answers a stream.
STREAM_ROW = "A2A_STREAM_001"


def must_stream(ans: StreamAnswer, what: str, owner: str | None = None) -> None:
    """The answer must be a stream with at least one event (its frames are read leniently: their form is
    A2A_STREAM_002's and the DATA rows' to judge). ``owner``: the row whose own text demands the stream
    (e.g. :data:`STREAM_ROW`), for a check of another row that only reads one: no stream is then that row's
    fail, and this check is blocked by it."""
    def end(why: str) -> None:
        if owner is not None:
            blocked_by(owner, why)
        fail(why)

    if ans.transport_error:
        end(f"{what}: {ans.transport_error}")
    if ans.error is not None and not ans.events:
        end(f"{what}: answered an error instead of a stream: {ans.quote()}")
    if not ans.is_stream:
        end(f"{what}: not a stream: {ans.quote()}")
    if not ans.events:
        end(f"{what}: the stream carried no event: {ans.quote()}")


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


def ended_before_followed(ans: StreamAnswer) -> str | None:
    """The terminal state a stream's first event shows (the task had ended before the stream took it), or None."""
    seen = states(ans)
    return seen[0] if seen and seen[0] in TERMINAL else None


def kinds(ans: StreamAnswer) -> list[str]:
    return [event_kind(e) for e in ans.events]
