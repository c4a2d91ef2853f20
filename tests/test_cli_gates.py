"""The readers behind the CLI checks' shared-precondition gates (``conformance/clicheck/gates.py``,
``conformance/clicheck/output.py``): what the agent told the tool, and whether the default output is JSON.
Their run-level effect (a row blocked by the precondition's owner, never failed) is in
``tests/test_blame_owner.py``."""

from __future__ import annotations

import json

import pytest

from conformance.clicheck.gates import told_state, told_states
from conformance.clicheck.output import json_by_default, json_sequence


def _task(state: str) -> dict[str, object]:
    return {"id": "t1", "contextId": "c1", "status": {"state": state, "timestamp": "2026-12-03T10:00:00Z"},
            "history": [{"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize(("body", "state"), [
    ({"jsonrpc": "2.0", "id": 1, "result": {"task": _task("TASK_STATE_WORKING")}}, "TASK_STATE_WORKING"),
    ({"jsonrpc": "2.0", "id": 1, "result": _task("TASK_STATE_COMPLETED")}, "TASK_STATE_COMPLETED"),
    ({"task": _task("TASK_STATE_INPUT_REQUIRED")}, "TASK_STATE_INPUT_REQUIRED"),
    ({"message": {"messageId": "m2", "role": "ROLE_AGENT", "parts": [{"text": "done"}]}}, None),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "no such task"}}, None),
])
def test_the_state_an_answer_told_is_its_tasks_status(body: object, state: str | None) -> None:
    assert told_state(json.dumps(body).encode()) == state


def test_a_body_that_is_not_json_tells_no_state() -> None:
    assert told_state(b'data: {"status": {"state"') is None
    assert told_state(b"\xff\xfe") is None


@pytest.mark.parametrize(("args", "stdout", "json_instead"), [
    (["send", "--text", "hi"], '{\n  "task": {"id": "t1"}\n}\n', True),
    (["send", "--text", "hi"], '{"kind": "status-update"}\n{"kind": "artifact-update"}\n', True),
    (["send", "--text", "hi"], "Task-Id: t1\nState: TASK_STATE_COMPLETED\n", False),
    (["send", "--text", "hi", "-o", "json"], '{"task": {"id": "t1"}}\n', False),
    (["send", "--text", "hi", "--output=json"], '{"task": {"id": "t1"}}\n', False),
    (["send", "--text", "hi"], "{not json at all\n", False),
])
def test_json_where_the_default_output_should_be_text_is_seen_only_without_an_output_flag(
        args: list[str], stdout: str, json_instead: bool) -> None:
    assert (json_by_default(args, stdout) is not None) is json_instead


def test_a_sequence_of_pretty_printed_documents_is_json_throughout_and_a_stray_line_is_not() -> None:
    pretty = '{\n  "a": 1\n}\n{\n  "b": 2\n}\n'
    assert json_sequence(pretty) == [{"a": 1}, {"b": 2}]
    assert json_sequence(pretty + "a2a-cli: stream dropped\n") is None
    assert json_sequence("   \n") is None


def test_every_state_an_answer_told_is_read_with_its_task_from_a_body_or_each_event_of_a_stream() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"task": _task("TASK_STATE_INPUT_REQUIRED")}}).encode()
    assert told_states(body) == [("t1", "TASK_STATE_INPUT_REQUIRED")]
    events = [{"jsonrpc": "2.0", "id": 1, "result": {"task": _task("TASK_STATE_WORKING")}},
              {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {
                  "taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_AUTH_REQUIRED"}}}}]
    stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
    assert told_states(stream) == [("t1", "TASK_STATE_WORKING"), ("t1", "TASK_STATE_AUTH_REQUIRED")]
    assert told_states(b"data: {not json\n\n") == []
    # a status without the task it belongs to tells nothing the gate can follow
    assert told_states(json.dumps({"status": {"state": "TASK_STATE_INPUT_REQUIRED"}}).encode()) == []
