"""False fails and wrong blames seen on real agents (issue 17 §2), each shown on the smallest target
that has the behaviour: a scripted-agent defect, the plain a2a-sdk agent, or a small fake."""

from __future__ import annotations

from pathlib import Path

from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.fixtures.plain_sdk_agent.executor import LONG_RUNNING_TEXT
from conformance.registry import default_registry
from tests.killmatrix import run_command, run_core

REGISTRY = default_registry()


def test_history_length_zero_is_judged_at_the_should_level_it_has(tmp_path: Path) -> None:
    """§3.2.4: for historyLength 0 the history "SHOULD be omitted"; a positive n bounds it. An agent
    answering the whole history for 0 fails only the SHOULD rows, and the MUST rows of a positive
    bound still pass on it."""
    rows = ["A2A_TASK_003", "A2A_TASK_004", "A2A_LIST_005", "A2A_LIST_008"]
    for defect, zero_row in (("get-history-zero-ignored", "A2A_TASK_004"), ("list-history-zero-ignored",
                                                                           "A2A_LIST_008")):
        reqs = run_core(tmp_path / defect, "scripted", rows, defect).to_dict()["requirements"]
        assert reqs[zero_row]["status"] == "fail", reqs[zero_row]
        assert REGISTRY[zero_row].level == "should"
        others = {rid: reqs[rid]["status"] for rid in rows if rid != zero_row}
        assert set(others.values()) == {"pass"}, others


def test_grpc_not_found_without_error_info_is_still_task_not_found(tmp_path: Path) -> None:
    """§5.4 maps NOT_FOUND (and HTTP 404) to TaskNotFoundError alone: an agent whose gRPC errors carry
    no ErrorInfo answers an unknown task recognisably, so the unknown-task rows pass and only the
    ErrorInfo row (A2A_ERR_002) fails for the missing detail."""
    rows = ["A2A_TASK_002", "A2A_CANCEL_003", "A2A_SUB_003", "A2A_ERR_002"]
    reqs = run_core(tmp_path, "scripted", rows, "grpc-no-errorinfo").to_dict()["requirements"]
    assert reqs["A2A_ERR_002"]["status"] == "fail", reqs["A2A_ERR_002"]
    for rid in rows[:-1]:
        assert reqs[rid]["status"] == "pass", (rid, reqs[rid])
        assert reqs[rid]["transports"]["GRPC"] == "pass", (rid, reqs[rid])


def test_data_rows_judge_the_objects_an_agent_without_list_support_sends(tmp_path: Path) -> None:
    """ListTasks answered with UnsupportedOperationError (every timestamp correct): the data-model rows
    judge the SendMessage, GetTask and stream objects and pass; ListTasks support is the LIST rows'."""
    rows = ["A2A_DATA_001", "A2A_DATA_002", "A2A_LIST_001"]
    reqs = run_core(tmp_path, "scripted", rows, "list-unsupported").to_dict()["requirements"]
    assert reqs["A2A_LIST_001"]["status"] == "fail", reqs["A2A_LIST_001"]
    for rid in rows[:2]:
        assert reqs[rid]["status"] == "pass", (rid, reqs[rid])


def test_a_long_running_hint_measures_the_stream_rows_on_an_agent_that_replies_with_messages(tmp_path: Path) -> None:
    """An a2a-sdk agent answering plain messages with a Message (a task only for its hold text): its
    plain stream shows no task ending, so STREAM_004 and STREAM_006 name --long-running-text; given it,
    the harness streams the held task, cancels it, and both rows are measured (and pass). Its gRPC port
    is its own (``--allow-origin``)."""
    rows = ["A2A_STREAM_004", "A2A_STREAM_006"]
    with PlainSdkAgent(replies=True) as agent:
        given = ["agent", "--url", agent.url, "--allow-origin", agent.grpc_target, "--family", "a2a", "--only", *rows]
        without = run_command(given, tmp_path / "without").to_dict()["requirements"]
        hinted = run_command([*given, "--long-running-text", LONG_RUNNING_TEXT],
                             tmp_path / "with").to_dict()["requirements"]
    for rid in rows:
        assert without[rid]["status"] == "not_measured", (rid, without[rid])
        assert "--long-running-text" in without[rid]["note"], (rid, without[rid]["note"])
        assert hinted[rid]["status"] == "pass", (rid, hinted[rid])


def test_a_subscription_bug_on_one_binding_fails_only_the_subscription_row(tmp_path: Path) -> None:
    """SubscribeToTask on a finished task answered HTTP 500 without ErrorInfo on HTTP+JSON alone:
    SUB_002 fails there; the error-mapping rows judge the errors that are the provoked ones, and pass."""
    rows = ["A2A_SUB_002", "A2A_ERR_001", "A2A_ERR_002"]
    reqs = run_core(tmp_path, "scripted", rows, "rest-subscribe-terminal-crashes").to_dict()["requirements"]
    assert reqs["A2A_SUB_002"]["status"] == "fail", reqs["A2A_SUB_002"]
    assert reqs["A2A_SUB_002"]["transports"]["HTTP+JSON"] == "fail", reqs["A2A_SUB_002"]
    for rid in rows[1:]:
        assert reqs[rid]["status"] == "pass", (rid, reqs[rid])


def test_a_core_method_failing_with_or_without_extensions_is_not_blamed_on_the_extension_rows(tmp_path: Path) -> None:
    """An agent whose JSON-RPC ListTasks fails with HTTP 500 (no -32008 anywhere, no extension involved):
    AGENTD_DECL_006 ("never -32008") passes, and AGENTD_DECL_005 ("the core works without extensions")
    is blocked by the core row that owns ListTasks, since it fails however extensions are activated."""
    reqs = run_command(["agent", "--family", "agentd", "--launch", "scripted", "--defect", "jsonrpc-list-crashes",
                        "--only", "AGENTD_DECL_005", "AGENTD_DECL_006"],
                       tmp_path / "r").to_dict()["requirements"]
    assert reqs["AGENTD_DECL_006"]["status"] == "pass", reqs["AGENTD_DECL_006"]
    assert reqs["AGENTD_DECL_005"]["status"] == "not_measured", reqs["AGENTD_DECL_005"]
    assert reqs["AGENTD_DECL_005"]["note"].startswith("blocked by A2A_LIST_001"), reqs["AGENTD_DECL_005"]["note"]
