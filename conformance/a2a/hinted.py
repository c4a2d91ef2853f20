"""A task stream made from the target's long-running hint (``--long-running-text``): on an agent the
harness cannot steer, the one way to watch a task stream end at a state the harness chose.

The hint names a message the agent answers with a task that stays working until canceled. Streamed
with SendStreamingMessage, its first frame is that task; the harness then cancels it, and the stream
must deliver the cancellation (a terminal state) and close. The stream rows judge what came back.
"""

from __future__ import annotations

from typing import Any

from conformance.a2a.messages import hint_send_params
from conformance.a2a.streams import DEADLINE, IDLE
from conformance.a2a.tasks import event_kind
from conformance.outcome import not_measured
from conformance.targets.control import NO_LONG_RUNNING
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller, StreamAnswer


def hint_params(agent: CoreAgent) -> dict[str, Any]:
    """SendMessage params carrying the long-running hint (text and metadata); not_measured without one."""
    hint = agent.long_running
    if not hint:
        not_measured(NO_LONG_RUNNING)
    return hint_send_params(hint)


def canceled_stream(agent: CoreAgent, caller: Caller) -> StreamAnswer:
    """SendStreamingMessage of the hint; once the first frame names a task, CancelTask it; read until
    the server ends the stream (or :data:`IDLE` seconds pass without a frame)."""
    params = hint_params(agent)
    canceled: list[str] = []

    def on_event(event: Any) -> bool:
        if not canceled and event_kind(event) == "task" and isinstance(event["task"], dict):
            tid = str(event["task"].get("id") or "")
            canceled.append(tid)
            caller.call("CancelTask", {"id": tid})
        return False

    return caller.stream("SendStreamingMessage", params, deadline=DEADLINE, idle=IDLE, on_event=on_event)
