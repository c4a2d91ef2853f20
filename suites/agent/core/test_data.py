"""The data model on the wire: every object strictly typed, timestamps in UTC with Z, JSON-RPC
envelopes (§4, §5.5-§5.7, §9)."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.a2a.messages import text_message
from conformance.a2a.steps import send
from conformance.a2a.streams import must_stream, stream_message
from conformance.a2a.tasks import TIMESTAMP, timestamps
from conformance.judge import strict, succeeded, unique
from conformance.outcome import not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller


def _objects(core_agent: CoreAgent, caller: Caller) -> list[tuple[str, Any, type[Any]]]:
    """(what, JSON, type) of the objects a plain exchange brings back: send, get, list, a stream."""
    sent = succeeded(send(caller, "data model"), "SendMessage")
    out: list[tuple[str, Any, type[Any]]] = [("the SendMessage result", sent, pb.SendMessageResponse)]
    if isinstance(sent, dict) and isinstance(sent.get("task"), dict):
        tid = sent["task"].get("id", "")
        out.append(("the GetTask result", succeeded(caller.call("GetTask", {"id": tid}), "GetTask"), pb.Task))
        listed = succeeded(caller.call("ListTasks", {"contextId": sent["task"].get("contextId", ""),
                                                     "includeArtifacts": True}), "ListTasks")
        out.append(("the ListTasks result", listed, pb.ListTasksResponse))
    if core_agent.declares("streaming"):
        ans = stream_message(caller)
        must_stream(ans, "SendStreamingMessage")
        out.extend((f"stream frame {i}", ev, pb.StreamResponse) for i, ev in enumerate(ans.events))
    return out


@pytest.mark.requirement("A2A_DATA_001")
def test_every_object_parses_strictly(core_agent: CoreAgent, caller: Caller) -> None:
    """Results and stream frames parse strictly into their SDK types. Defect: enum-as-number."""
    for what, obj, kind in _objects(core_agent, caller):
        strict(obj, kind, what)


@pytest.mark.requirement("A2A_DATA_002")
def test_timestamps_are_utc_with_z(core_agent: CoreAgent, caller: Caller) -> None:
    """Every timestamp is ISO 8601 in UTC written with Z. Defect: timestamp-offset."""
    seen = 0
    for what, obj, _ in _objects(core_agent, caller):
        for path, value in timestamps(obj):
            seen += 1
            assert isinstance(value, str) and TIMESTAMP.match(value), f"{what} {path} is {value!r}, not UTC with Z"
    if seen == 0:
        not_measured("no object the agent sent carried a timestamp (status timestamps are optional)")


@pytest.mark.requirement("A2A_DATA_003")
@pytest.mark.core_bindings("JSONRPC")
def test_jsonrpc_answers_are_2_0_responses_echoing_the_id(caller: Caller) -> None:
    """Results and errors alike are 2.0 responses echoing a string or a number id, with exactly one of
    result and error. Defect: jsonrpc-id-dropped."""
    cases: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": unique("conf"), "method": "SendMessage",
         "params": {"message": text_message("envelope")}},
        {"jsonrpc": "2.0", "id": 424242, "method": "GetTask", "params": {"id": unique("conformance-unknown")}},
        {"jsonrpc": "2.0", "id": unique("conf"), "method": "ListTasks", "params": {"pageSize": 1}},
    ]
    wrong = []
    for env in cases:
        ans = caller.raw_jsonrpc(env)
        if ans.transport_error or ans.problems:
            wrong.append(f"{env['method']} (id {env['id']!r}): {ans.transport_error or '; '.join(ans.problems)}")
    assert not wrong, " | ".join(wrong)
