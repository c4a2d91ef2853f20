"""The lenient reading every check gets, and the data-model rows' judgement of what was read.

A row that does not own the data model reads an answer as a tolerant ProtoJSON reader would
(``conformance.wire.strict.lenient``); the observed rows (A2A_DATA_001/002/003, AGENTD_DECL_007) judge
every read afterwards (``conformance.a2a.datamodel.findings_of``). And the summary groups failing rows
whose notes quote the same text (``conformance.report.causes``).
"""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as pb

from conformance.a2a import datamodel
from conformance.report.causes import shared_causes
from conformance.wire.exchange import Read
from conformance.wire.strict import lenient

TASK = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED",
                                                    "timestamp": "2026-12-01T10:00:00.123Z"}}


def test_lenient_reads_enum_numbers_and_other_spellings_as_names() -> None:
    for spelled in (3, "task_state_completed", "completed", "COMPLETED", "Task_State_Completed"):
        got = lenient({"task": {**TASK, "status": {"state": spelled}}}, pb.SendMessageResponse)
        assert got["task"]["status"]["state"] == "TASK_STATE_COMPLETED", spelled
    got = lenient({"statusUpdate": {"status": {"state": "input-required"}}}, pb.StreamResponse)
    assert got["statusUpdate"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"


def test_lenient_reads_proto_field_names_as_protojson_names() -> None:
    got = lenient({"status_update": {"task_id": "t-1", "context_id": "c-1"}}, pb.StreamResponse)
    assert got == {"statusUpdate": {"taskId": "t-1", "contextId": "c-1"}}
    both = lenient({"taskId": "a", "task_id": "b"}, pb.TaskStatusUpdateEvent)
    assert both == {"taskId": "a", "task_id": "b"}, "a field given twice keeps both: the strict reader names it"


def test_lenient_changes_nothing_a_row_may_judge_by_presence_or_value() -> None:
    raw: dict[str, Any] = {"task": {**TASK, "artifacts": [], "extra": {"x": 1}, "history": None,
                    "status": {"state": "no-such-state", "timestamp": "2026-12-01T10:00:00"}}}
    got = lenient(raw, pb.SendMessageResponse)
    assert got["task"]["artifacts"] == [] and got["task"]["extra"] == {"x": 1} and got["task"]["history"] is None
    assert got["task"]["status"] == {"state": "no-such-state", "timestamp": "2026-12-01T10:00:00"}
    assert raw["task"]["status"]["state"] == "no-such-state", "the object as it came is not changed"


def _read(raw: object, problems: tuple[str, ...] = (), binding: str = "JSONRPC") -> Read:
    return Read(binding, "SendMessage", "the SendMessage result", raw, pb.SendMessageResponse, problems)


def test_a_valid_answer_gives_no_finding() -> None:
    assert datamodel.findings_of([_read({"task": TASK})], datamodel.CORE) == []


def test_each_rule_broken_is_its_own_rows_finding() -> None:
    no_zone = {"task": {**TASK, "status": {"state": 3, "timestamp": "2026-12-01T10:00:00.123"}}}
    found = datamodel.findings_of([_read(no_zone, ("id None does not echo the request id 7",))], datamodel.CORE)
    by_row = {f.requirement: f for f in found}
    assert set(by_row) == {"A2A_DATA_001", "A2A_DATA_002", "A2A_DATA_003"}
    assert "given as a number" in by_row["A2A_DATA_001"].message
    assert "'2026-12-01T10:00:00.123'" in by_row["A2A_DATA_002"].message
    assert "does not echo" in by_row["A2A_DATA_003"].message
    assert {f.transport for f in found} == {"JSONRPC"}


def test_an_offset_timestamp_is_only_the_timestamp_rows() -> None:
    offset = {"task": {**TASK, "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-12-01T10:00:00+00:00"}}}
    assert [f.requirement for f in datamodel.findings_of([_read(offset)], datamodel.CORE)] == ["A2A_DATA_002"]


def test_the_agentd_family_judges_typing_only_by_its_own_row() -> None:
    bad = {"task": {**TASK, "status": {"state": "completed"}}}
    found = datamodel.findings_of([_read(bad, ("jsonrpc member is None, not '2.0'",))], datamodel.AGENTD)
    assert [f.requirement for f in found] == ["AGENTD_DECL_007"]


def test_a_read_outside_a_binding_carries_no_transport() -> None:
    found = datamodel.findings_of([_read({"task": {"id": 1}}, binding="webhook")], datamodel.CORE)
    assert found and all(f.transport is None for f in found)
    assert all(not f.message.endswith("over webhook") for f in found)


def test_fails_quoting_the_same_text_are_grouped_and_others_are_not() -> None:
    notes = {
        "A2A_SEND_002": "test_x (over JSONRPC): SendMessage: expected a result, got an error: code -32603, no "
                        "ErrorInfo, message 'database is locked'; evidence: evidence/A2A_SEND_002/x.json",
        "A2A_TASK_001": "test_y: GetTask 0a1b2c3d4e5f6a7b: expected a result, got an error: code -32603, no "
                        "ErrorInfo, message 'database is locked' (+1 more failing check(s)); evidence: e/y.json",
        "A2A_LIST_002": "test_z: ListTasks answered 3 tasks for pageSize 2",
        "A2A_LIST_003": "test_w: ListTasks returned tasks of another context: ['c-2']",
    }
    groups = shared_causes(notes)
    assert groups == [("expected a result, got an error: code -32603, no ErrorInfo, message 'database is locked'",
                       ["A2A_SEND_002", "A2A_TASK_001"])]
