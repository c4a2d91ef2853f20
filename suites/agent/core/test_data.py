"""The data model on the wire: every object strictly typed, timestamps in UTC with Z, JSON-RPC
envelopes (§4, §5.5-§5.7, §9)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a import datamodel
from conformance.a2a.messages import text_message
from conformance.a2a.steps import send
from conformance.a2a.streams import stream_message
from conformance.a2a.tasks import timestamps
from conformance.judge import judged_here, succeeded, unique
from conformance.outcome import not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller
from conformance.wire.exchange import Read


def _exchange(core_agent: CoreAgent, caller: Caller) -> list[Read]:
    """What a plain exchange brings back, as read (send, get, list, a stream): every result and frame the
    caller read, as it came. Only a send that gives no result stops it; a method the agent does not
    offer (ListTasks answered with an error, no stream) is another row's matter and reads nothing."""
    with judged_here(*OWN):
        sent = succeeded(send(caller, "data model"), "SendMessage")
    if isinstance(sent, dict) and isinstance(sent.get("task"), dict):
        tid = sent["task"].get("id", "")
        caller.call("GetTask", {"id": tid})
        caller.call("ListTasks", {"contextId": sent["task"].get("contextId", ""), "includeArtifacts": True})
    if core_agent.declares("streaming"):
        stream_message(caller)
    return list(caller.recorder.reads)


#: The rows this module judges: a step blocked by one of them is that check's own fail.
OWN = (datamodel.CORE.strict or "", datamodel.CORE.timestamps or "")


@pytest.mark.requirement("A2A_DATA_001")
def test_every_object_parses_strictly(core_agent: CoreAgent, caller: Caller) -> None:
    """Results and stream frames parse strictly into their SDK types: the same reading every other check's
    answers get (their departures are this row's findings). Defects: enum-as-number, enum-lowercase,
    missing-required-field, timestamp-no-zone."""
    found = datamodel.findings_of(_exchange(core_agent, caller), datamodel.Owners(strict=datamodel.CORE.strict))
    assert not found, " | ".join(f.message for f in found)


@pytest.mark.requirement("A2A_DATA_002")
def test_timestamps_are_utc_with_z(core_agent: CoreAgent, caller: Caller) -> None:
    """Every timestamp is ISO 8601 in UTC written with Z. Defects: timestamp-offset, timestamp-no-zone."""
    reads = _exchange(core_agent, caller)
    if not any(True for r in reads for _ in timestamps(r.raw)):
        not_measured("no object the agent sent carried a timestamp (status timestamps are optional)")
    found = datamodel.findings_of(reads, datamodel.Owners(strict=None, timestamps=datamodel.CORE.timestamps))
    assert not found, " | ".join(f.message for f in found)


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
