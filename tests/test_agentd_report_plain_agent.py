"""A target that is not agentd (a plain a2a-sdk agent) gets a complete agentd report whose failures
name the missing declarations — never a crash, a silent gap, or a pass."""

from __future__ import annotations

from pathlib import Path

from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.registry import default_registry
from tests.killmatrix import run_command

AGENTD = [r for r in default_registry().select(family="agentd")]


def test_plain_sdk_agent_gets_a_complete_agentd_report_naming_what_is_missing(tmp_path: Path) -> None:
    with PlainSdkAgent() as agent:
        report = run_command(["agent", "--url", agent.url, "--family", "agentd", "--jobs", "2"], tmp_path / "r")
    reqs = report["requirements"]
    assert set(reqs) == {r.id for r in AGENTD}, "every agentd id must be in the report"
    for rid, e in reqs.items():
        assert e["status"] in ("pass", "fail", "partial", "not_measured", "na"), (rid, e)
        if e["status"] != "pass":
            assert e["note"], f"{rid} is {e['status']} without a note"
    assert reqs["AGENTD_DECL_001"]["status"] == "fail"
    assert "https://agentd.dev/a2a/ext/command" in reqs["AGENTD_DECL_001"]["note"]
    assert report["summary"]["level_must"]["satisfied"] is False
