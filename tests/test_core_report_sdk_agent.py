"""The a2a family against a plain a2a-sdk agent (not agentd): a complete, honest report.

The agent is the SDK's DefaultRequestHandler with a trivial executor on JSON-RPC, HTTP+JSON and gRPC
(fixtures/plain_sdk_agent). Every A2A id must come out with a status; every non-pass carries a
note; the checks that need a task held in a chosen state say the harness cannot steer this target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.registry import default_registry
from conformance.report import Report
from tests.killmatrix import run_command, run_core

A2A = [r.id for r in default_registry().select(family="a2a")]
STATUSES = ("pass", "partial", "fail", "not_measured", "na")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return run_core(tmp_path_factory.mktemp("sdk-report"), "sdk")


def test_every_a2a_id_has_a_status_and_every_non_pass_a_note(report: Report) -> None:
    reqs = report.requirements
    missing = [rid for rid in A2A if rid not in reqs]
    assert not missing, f"ids absent from the report: {missing}"
    bad = {rid: reqs[rid].status for rid in A2A if reqs[rid].status not in STATUSES}
    assert not bad, f"statuses outside the vocabulary: {bad}"
    silent = [rid for rid in A2A if reqs[rid].status != "pass" and not (reqs[rid].note or "").strip()]
    assert not silent, f"non-pass rows without a note: {silent}"
    assert "harness error" not in str(reqs), "a check crashed against the SDK agent"


def test_the_report_identifies_the_sdk_agent_and_counts_every_row(report: Report) -> None:
    assert report.family == "a2a"
    assert report.identity.target == "plain-sdk-agent"
    summary = report.summary
    assert sum(summary[g].total for g in summary) == len(A2A)


def test_checks_ran_on_all_three_bindings(report: Report) -> None:
    transports = report.requirements["A2A_TASK_002"].transports
    assert set(transports) == {"JSONRPC", "HTTP+JSON", "GRPC"}, transports
    assert set(transports.values()) == {"pass"}, transports


def test_states_the_harness_cannot_provoke_are_not_measured_with_the_reason(report: Report) -> None:
    reqs = report.requirements
    for rid in ("A2A_CANCEL_001", "A2A_SUB_001", "A2A_MULTI_001", "A2A_SEND_006", "A2A_SUB_005", "A2A_TASK_005"):
        assert reqs[rid].status == "not_measured", (rid, reqs[rid].status, reqs[rid].note)
        assert "--long-running-text" in (reqs[rid].note or ""), reqs[rid].note
    for rid in ("A2A_SUB_004", "A2A_STREAM_005"):  # a task moved at a chosen moment: no flag gives that
        assert "cannot move this target's tasks" in (reqs[rid].note or ""), reqs[rid].note
    measured = [rid for rid in A2A if reqs[rid].status in ("pass", "fail", "partial")]
    assert len(measured) >= len(A2A) * 3 // 4, f"only {len(measured)} of {len(A2A)} ids measured"


def test_a_media_type_the_card_does_not_declare_is_taken_by_the_sdk_default(report: Report) -> None:
    """The SDK's DefaultRequestHandler holds message parts to the card's input modes only when built with
    ``validate_input_modes=True`` (off by default); the plain agent keeps the default, so the row of §3.1.1's
    ContentTypeNotSupportedError fails on it, on every binding, for taking the part."""
    row = report.requirements["A2A_SEND_007"]
    assert row.status == "fail", (row.status, row.note)
    assert set(row.transports.values()) == {"fail"}, row.transports
    assert "application/x-agentd-" in (row.note or ""), row.note  # the part's media type is named


#: The core checks that need only a task that stays working (never moved by the harness).
WORKING_ONLY = ("A2A_CANCEL_001", "A2A_SUB_001", "A2A_SEND_006", "A2A_SUB_005")


def test_a_long_running_hint_makes_the_working_task_checks_measurable(tmp_path: Path) -> None:
    """Without a hint the checks that need a working task say how to give one; with
    ``--long-running-text`` naming the text the agent holds a task for, they measure and pass. The
    checks that must also move the task say nothing of the hint (it could not help them)."""
    from conformance.fixtures.plain_sdk_agent.executor import LONG_RUNNING_TEXT

    without = run_command(["agent", "--family", "a2a", "--launch", "sdk", "--only", *WORKING_ONLY, "A2A_SUB_004"],
                          tmp_path / "without").requirements
    for rid in WORKING_ONLY:
        assert without[rid].status == "not_measured", (rid, without[rid])
        assert "--long-running-text" in (without[rid].note or ""), without[rid].note
    assert "--long-running-text" not in (without["A2A_SUB_004"].note or ""), without["A2A_SUB_004"].note
    hinted = run_command(["agent", "--family", "a2a", "--launch", "sdk", "--only", *WORKING_ONLY,
                          "--long-running-text", LONG_RUNNING_TEXT], tmp_path / "with").requirements
    for rid in WORKING_ONLY:
        assert hinted[rid].status == "pass", (rid, hinted[rid])


def test_reading_a2a_version_only_from_headers_fails_no_must_row(report: Report) -> None:
    """The SDK reads A2A-Version from the header alone (§9.2/§11.2 carry service parameters in
    headers; the request parameter is a client MAY of §3.6.1). That fails only the MAY row A2A_VER_005's
    ``honoured`` part; how the parameter is judged is not_measured, and the must level is not touched."""
    doc = report.to_dict()
    row = doc["requirements"]["A2A_VER_005"]
    assert row["status"] == "fail", row
    assert row["parts"] == {"honoured": "fail", "judged": "not_measured"}, row
    from conformance.registry import default_registry as registry

    assert registry()["A2A_VER_005"].level == "may"
    # The other MAY it does not do: its card route sends no Last-Modified (A2A_CARD_013, §8.6.1).
    may_fails = {rid for rid, r in doc["requirements"].items() if r["level"] == "may" and r["status"] == "fail"}
    assert may_fails == {"A2A_VER_005", "A2A_CARD_013"}, may_fails
    assert doc["summary"]["level_may"]["fail"] == 2, doc["summary"]


def test_no_note_sends_the_user_to_the_bundled_fixtures(report: Report) -> None:
    """A not_measured note says what the user can do against their own agent (a flag, a fact, a way to
    give it): running the bundled references would measure those, not this agent."""
    sending = {rid: e.note for rid, e in report.requirements.items() if "--launch" in (e.note or "")}
    assert not sending, sending


def test_the_rows_of_two_callers_are_na_for_an_agent_declaring_no_security(report: Report) -> None:
    """The plain SDK agent declares no security scheme and cannot be started declaring one, so no two callers
    of it can be told apart: whether one caller's task is hidden from another does not apply (na), never a fail."""
    for rid in ("A2A_LIST_009", "A2A_SEC_003"):
        row = report.requirements[rid]
        assert row.status == "na", (rid, row.status, row.note)
        assert "declares no security scheme" in (row.note or "") and "two callers" in (row.note or ""), row.note
