"""Findings through the plugin: what a check saw break an observed row's rule fails that row, not the check.

A check records a finding (``record_findings``); the plugin turns it into a failing outcome of the
observed row, with the check's evidence and the words "seen while checking <its rows>". The check's own
rows keep their own verdict. A finding for a row the registry does not mark observed is a harness
error; one for the check's own row is left to the check's own judgement.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.plugin_runs import run_checks

CHECKS = '''
import pytest
from conformance.judge import Finding


@pytest.mark.requirement("A2A_SEND_001")
def test_sees_a_timestamp_without_a_zone(record_findings, evidence):
    evidence.add("answer", {"status": {"timestamp": "2026-12-01T10:00:00"}})
    record_findings([Finding("A2A_DATA_002", "the GetTask result: $.task.status.timestamp is "
                             "'2026-12-01T10:00:00', not UTC with Z", "JSONRPC")])


@pytest.mark.requirement("A2A_TASK_001")
def test_names_a_row_that_is_not_observed(record_findings):
    record_findings([Finding("A2A_SEND_002", "a blocking send returned early")])


@pytest.mark.requirement("A2A_DATA_001")
def test_finds_on_its_own_row(record_findings):
    record_findings([Finding("A2A_DATA_001", "judged by this check itself")])
'''


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    report = run_checks(pytester, monkeypatch, CHECKS, "a2a")
    data = yaml.safe_load((report / "compliance-report.yaml").read_text(encoding="utf-8"))
    outs = [json.loads(line) for line in (report / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()]
    return data, outs


def test_a_finding_fails_the_observed_row_and_not_the_check_that_saw_it(
        run: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    data, outs = run
    reqs = data["requirements"]
    assert reqs["A2A_SEND_001"]["status"] == "pass"
    ts = reqs["A2A_DATA_002"]
    assert ts["status"] == "fail" and ts["transports"] == {"JSONRPC": "fail"}
    assert "seen while checking A2A_SEND_001" in ts["note"] and "not UTC with Z" in ts["note"]
    assert ts["evidence"] and all(Path(p).parts[:2] == ("evidence", "A2A_SEND_001") for p in ts["evidence"])
    found = [o for o in outs if o["requirement"] == "A2A_DATA_002"]
    assert [o["finding"] for o in found] == [True]


def test_a_finding_for_a_row_that_is_not_observed_is_a_harness_error(
        run: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    data, _ = run
    task = data["requirements"]["A2A_TASK_001"]
    assert task["status"] == "fail" and "not an observed row" in task["note"]
    assert data["requirements"]["A2A_SEND_002"]["status"] == "not_measured"


def test_a_finding_on_the_checks_own_row_is_left_to_the_check(run: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    data, outs = run
    assert data["requirements"]["A2A_DATA_001"]["status"] == "pass"
    assert not [o for o in outs if o["requirement"] == "A2A_DATA_001" and o["finding"]]
