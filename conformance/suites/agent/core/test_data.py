"""The data model on the wire: every object strictly typed, timestamps in UTC with Z, JSON-RPC
envelopes (§4, §5.5-§5.7, §9)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a import datamodel
from conformance.a2a.messages import text_message
from conformance.a2a.steps import send
from conformance.a2a.streams import stream_message
from conformance.a2a.tasks import SEND_ROW, timestamps
from conformance.judge import blocked_by, judged_here, succeeded, unique
from conformance.outcome import not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Caller
from conformance.wire.errors import current
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


def media_type_of(binding: str) -> str:
    """The media type ``binding`` labels its answers with: §9.1 (JSON-RPC: application/json for requests and
    responses) and §11.1 (HTTP+JSON: application/a2a+json SHOULD be used, by v1.0.1's text; v1.0.0's had
    application/json — ``--spec-revision``)."""
    return current().rest_media_type if binding == "HTTP+JSON" else "application/json"


def _media_type(content_type: str) -> str:
    """The media type of a Content-Type header, without its parameters (charset), in lower case."""
    return content_type.split(";", 1)[0].strip().lower()


def _labels(caller: Caller) -> None:
    """A result and an error of ``caller``'s binding must both carry the binding's media type."""
    want = media_type_of(caller.binding)
    answers = [("a SendMessage result", send(caller, "content type")),
               ("a GetTask error (unknown id)", caller.call("GetTask", {"id": unique("conformance-unknown")}))]
    wrong = []
    for what, ans in answers:
        if ans.transport_error:
            not_measured(f"{what}: no answer to read the Content-Type of: {ans.transport_error}")
        if _media_type(ans.content_type) != want:
            wrong.append(f"{what} came with Content-Type {ans.content_type!r} (HTTP {ans.status})")
    assert not wrong, f"{caller.binding} answers must be labelled {want}: " + "; ".join(wrong)


@pytest.mark.requirement("A2A_DATA_004")
@pytest.mark.core_bindings("JSONRPC")
def test_jsonrpc_answers_are_labelled_application_json(caller: Caller) -> None:
    """A JSON-RPC result and a JSON-RPC error both come with Content-Type application/json (§9.1).
    Defect: jsonrpc-answers-a2a-json."""
    _labels(caller)


@pytest.mark.requirement("A2A_DATA_005")
@pytest.mark.core_bindings("HTTP+JSON")
def test_http_json_answers_are_labelled_application_a2a_json(caller: Caller) -> None:
    """An HTTP+JSON result and an HTTP+JSON error both come with Content-Type application/a2a+json (§11.1,
    a SHOULD; application/json when judged by v1.0.0's text). Defect: rest-answers-plain-json."""
    _labels(caller)


@pytest.mark.requirement("A2A_DATA_006")
@pytest.mark.core_bindings("JSONRPC", "HTTP+JSON")
def test_unknown_request_members_are_ignored(caller: Caller) -> None:
    """A SendMessage whose request and message carry members no A2A type defines is answered like any
    other (a Task or a Message), not refused (§5.7: unrecognized fields SHOULD be ignored). The same send
    without them is made first: an agent that refuses that one is another row's matter.
    Defect: unknown-fields-refused."""
    plain = send(caller, "unknown members")
    if not plain.ok:
        blocked_by(SEND_ROW, f"a plain SendMessage got no result, so there is nothing to compare with: "
                             f"{plain.quote(300)}")
    message = text_message("unknown members")
    message["conformanceUnknownMember"] = {"note": "no A2A type defines this member"}
    ans = caller.call("SendMessage", {"message": message, "conformanceUnknownField": "ignore me"})
    if ans.error is not None or ans.transport_error:
        raise AssertionError("a SendMessage carrying members no A2A type defines (conformanceUnknownField in "
                             f"the request, conformanceUnknownMember in the message) was refused: {ans.quote(400)}")
    assert ans.ok, f"SendMessage with unknown members got no result: {ans.quote(300)}"
