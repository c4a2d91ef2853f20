"""A CLI under test that hangs, floods, prints binary or crashes is bounded; its checks fail with
evidence and the run goes on to a complete report."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from conformance.registry import default_registry
from tests.killmatrix import run_command

TIER1 = [r.id for r in default_registry().select(family="a2acli", tier=1)]
FEW = ["A2ACLI_SEND_001", "A2ACLI_OUT_002", "A2ACLI_CLI_001"]


def tool(tmp: Path, body: str) -> str:
    path = tmp / "badcli"
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def cli_runs(report_dir: Path) -> list[dict[str, Any]]:
    runs = []
    for path in (report_dir / "evidence").rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))  # every evidence file is valid JSON
        runs += [a["data"] for a in doc["attachments"] if a["name"].startswith("cli run ")]
    return runs


def test_a_cli_that_never_exits_still_gets_a_complete_tier1_report(tmp_path: Path) -> None:
    """Every invocation is cut at --cli-timeout, the identity's ``--version`` probe too: asked for its version,
    the tool leaves a mark after 3 s, which a probe cut at 0.5 s never lets it write."""
    mark = tmp_path / "version-answered"
    exe = tool(tmp_path, f'[ "$1" = --version ] && {{ sleep 3; touch {mark}; }}; exec sleep 600')
    report = run_command(["cli", "--exe", exe, "--cli-timeout", "0.5", "--jobs", "2", "--only", *TIER1],
                         tmp_path / "r", timeout=900)
    reqs = report.requirements
    assert not [rid for rid in TIER1 if reqs[rid].status == "pass"]
    assert all(reqs[rid].note for rid in TIER1)
    runs = cli_runs(tmp_path / "r")
    assert runs and all(r["timed_out"] for r in runs), "every invocation of a hanging CLI must be cut"
    assert not mark.exists(), "the --version probe outlived --cli-timeout"
    assert report.identity.tool_version == "unknown"


@pytest.mark.parametrize(("name", "body"), [
    ("floods stdout", "exec yes flood"),
    ("prints binary", "head -c 200000 /dev/urandom; exit 0"),
    ("crashes", "kill -SEGV $$"),
])
def test_a_misbehaving_cli_fails_with_evidence_and_the_run_goes_on(tmp_path: Path, name: str, body: str) -> None:
    report = run_command(["cli", "--exe", tool(tmp_path, body), "--cli-timeout", "5", "--only", *FEW], tmp_path / "r")
    reqs = report.requirements
    assert {reqs[rid].status for rid in FEW} <= {"fail", "partial"}, {rid: reqs[rid] for rid in FEW}
    runs = cli_runs(tmp_path / "r")
    assert runs, f"no CLI run recorded for a CLI that {name}"
    if name == "floods stdout":
        assert any(r["truncated"] for r in runs)
    if name == "crashes":
        assert any(r["signal"] == 11 for r in runs)
