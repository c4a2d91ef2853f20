"""A long-running hint whose task ends on its own is the hint's problem, not the agent's (seen on agentd 2.5.1:
its hold task failed a few ms after it was made, and A2A_SUB_005 failed 'stream 2 of 3 never delivered the task's
end (states ['TASK_STATE_FAILED'])' although that stream had opened on the already-ended task and shown its end)."""

from __future__ import annotations

from conformance.a2a.streams import ended_before_followed
from conformance.wire.caller import StreamAnswer


def _stream(*states: str) -> StreamAnswer:
    return StreamAnswer("JSONRPC", "SubscribeToTask", events=[
        {"task": {"id": "t-1", "contextId": "c-1", "status": {"state": states[0]}}},
        *({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": s}}} for s in states[1:])])


def test_a_stream_that_opened_on_an_ended_task_says_so() -> None:
    assert ended_before_followed(_stream("TASK_STATE_FAILED")) == "TASK_STATE_FAILED"


def test_a_stream_that_followed_a_working_task_to_its_end_did_not_open_on_an_ended_one() -> None:
    assert ended_before_followed(_stream("TASK_STATE_WORKING", "TASK_STATE_CANCELED")) is None
    assert ended_before_followed(StreamAnswer("JSONRPC", "SubscribeToTask")) is None
