"""A target that is not agentd (a plain a2a-sdk agent) gets a complete agentd report whose failures
name the missing declarations — never a crash, a silent gap, or a pass."""

from __future__ import annotations

import pytest

from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.registry import default_registry
from conformance.report import Report
from tests.killmatrix import run_command

AGENTD = [r for r in default_registry().select(family="agentd")]


#: The rows whose own text demands what a plain agent lacks: the card's declarations of command and
#: task-annotations. Every other row either holds of any A2A agent (the core protocol without extensions,
#: never -32008, the route table) or is about how a declared extension behaves: not_measured, blocked.
DECLARATION_ROWS = {"AGENTD_DECL_001", "AGENTD_DECL_002"}
#: Rows that would pass only because nothing is declared.
VACUOUS = ("AGENTD_DECL_004", "AGENTD_DECL_007", "AGENTD_DECL_008", "AGENTD_DECL_009", "AGENTD_NEG_003",
           "AGENTD_NEG_004", "AGENTD_NEG_006", "AGENTD_NEG_007", "AGENTD_NEG_010", "AGENTD_CARD_009")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    with PlainSdkAgent() as agent:
        return run_command(["agent", "--url", agent.url, "--family", "agentd", "--jobs", "2"],
                           tmp_path_factory.mktemp("plain") / "r")


def test_plain_sdk_agent_gets_a_complete_agentd_report_naming_what_is_missing(report: Report) -> None:
    reqs = report.requirements
    assert set(reqs) == {r.id for r in AGENTD}, "every agentd id must be in the report"
    for rid, e in reqs.items():
        assert e.status in ("pass", "fail", "partial", "not_measured", "na"), (rid, e)
        if e.status != "pass":
            assert e.note, f"{rid} is {e.status} without a note"
    assert reqs["AGENTD_DECL_001"].status == "fail"
    assert "https://agentd.dev/a2a/ext/command" in (reqs["AGENTD_DECL_001"].note or "")
    assert report.summary["level_must"].satisfied is False


def test_only_the_declaration_rows_fail_and_the_rest_are_blocked_by_them(report: Report) -> None:
    """Blame the right requirement: the plain agent declares none of agentd's extensions, so the
    declaration rows fail naming the missing URIs, and every row about how a declared extension
    behaves is not_measured, blocked by its declaration row (never a repeat of the same fail)."""
    reqs = report.requirements
    failing = {rid for rid, e in reqs.items() if e.status in ("fail", "partial")}
    assert failing == DECLARATION_ROWS, f"rows failing besides the declarations: {sorted(failing - DECLARATION_ROWS)}"
    assert "https://agentd.dev/a2a/ext/task-annotations" in (reqs["AGENTD_DECL_002"].note or "")
    for rid in VACUOUS:
        assert reqs[rid].status == "not_measured", f"{rid} is {reqs[rid].status} on an agent declaring nothing"
    for area in ("CMD", "EVT", "ANN", "NEG", "CARD", "REFUSE"):
        for rid, e in reqs.items():
            if f"_{area}_" in rid and e.status == "not_measured" and not (e.note or "").startswith("needs "):
                assert (e.note or "").startswith("blocked by AGENTD_DECL_00"), (rid, e.note)


def test_no_note_advises_a_fact_the_target_could_not_have(report: Report) -> None:
    """A plain agent has no principals and declares no security scheme: advising ``--fact auth=on`` (or
    any fact about agentd's configuration) could not help; the notes say what is missing instead."""
    advising = {rid: e.note for rid, e in report.requirements.items() if "--fact" in (e.note or "")}
    assert not advising, advising


def test_no_note_sends_the_user_to_the_bundled_reference(report: Report) -> None:
    """A note names what the user can give for their own agent (a flag, a fact, a container image);
    "run with --launch reference" would measure the bundled reference, not their agent."""
    sending = {rid: e.note for rid, e in report.requirements.items() if "--launch" in (e.note or "")}
    assert not sending, sending
