"""The publishable COMPLIANCE.md: every registry id is a row, the glance counts sum to each tier's
total, and the markdown agrees with the YAML row for row — also when rebuilt by ``report render``
from a saved YAML alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS
from conformance.pipeline import summarise
from conformance.registry import default_registry
from conformance.report import RunInfo, build_report, write_report
from conformance.report.compliance_md import MARK
from conformance.verdict import Verdict
from tests.test_command import _env

REG = default_registry()
IDS = [r.id for r in REG.select(family="a2acli")]
CYCLE = (PASS, FAIL, PARTIAL, NOT_MEASURED, NA)


def _verdicts() -> dict[str, Verdict]:
    out = {}
    for i, rid in enumerate(IDS):
        st = CYCLE[i % len(CYCLE)]
        out[rid] = Verdict(rid, st, None if st == PASS else f"note for {rid} | with a pipe")
    return out


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    verdicts = _verdicts()
    run = RunInfo(target="t", tool="mycli", tool_version="1.2.3", transports_covered=["JSON-RPC"])
    write_report(out, build_report(REG, "a2acli", verdicts, summarise(REG, "a2acli", verdicts), run), REG, "a2acli")
    return out


def _rows(md: str) -> dict[str, tuple[str, str]]:
    """id -> (status cell, note cell) of the tier tables."""
    rows = {}
    for line in md.splitlines():
        m = re.match(r"^\| `(A2ACLI_[A-Z_]+_\d{3})` \| (.*) \| (.*?) \| (.+?) \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(4), m.group(5))
    return rows


def test_every_registry_id_is_a_row_and_agrees_with_the_yaml(saved: Path) -> None:
    md = (saved / "COMPLIANCE.md").read_text(encoding="utf-8")
    report: dict[str, Any] = yaml.safe_load((saved / "compliance-report.yaml").read_text(encoding="utf-8"))
    rows = _rows(md)
    assert list(rows) == IDS, "every id once, in the registry's order"
    for rid, entry in report["requirements"].items():
        status, note = rows[rid]
        assert status.startswith(MARK[entry["status"]]), (rid, status, entry["status"])
        if entry["status"] == PASS:
            assert note == ""
        else:
            assert note.replace("\\|", "|") == entry["note"], (rid, note)


def test_glance_counts_sum_to_each_tiers_total(saved: Path) -> None:
    md = (saved / "COMPLIANCE.md").read_text(encoding="utf-8")
    report = yaml.safe_load((saved / "compliance-report.yaml").read_text(encoding="utf-8"))
    glance = [line for line in md.splitlines() if re.match(r"^\| Tier \d — ", line)]
    assert len(glance) == 3
    for line, (group, row) in zip(glance, report["summary"].items(), strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        total, counts, satisfied = int(cells[1]), [int(c) for c in cells[2:7]], cells[7]
        assert total == row["total"] == sum(counts), (group, cells)
        assert counts == [row[s] for s in (PASS, PARTIAL, FAIL, NOT_MEASURED, NA)]
        assert satisfied == ("yes" if row["satisfied"] else "no")


def test_report_render_rebuilds_the_same_files_from_the_yaml(saved: Path, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "report", "render",
                           str(saved / "compliance-report.yaml"), "--out", str(tmp_path)],
                          capture_output=True, text=True, env=_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    for name in ("COMPLIANCE.md", "summary.md"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (saved / name).read_text(encoding="utf-8"), name


@pytest.mark.parametrize(("content", "says"), [("not: [a, report]\n", "is not a compliance report"),
                                               ("report: {}\nsummary: {}\nrequirements: {A2ACLI_NOPE_001: {}}\n",
                                                "ids not in the registry"),
                                               ("{{{\n", "cannot read")])
def test_report_render_refuses_what_is_not_a_report(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "compliance-report.yaml"
    path.write_text(content, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "report", "render", str(tmp_path)],
                          capture_output=True, text=True, env=_env(), timeout=60)
    assert proc.returncode == 2 and says in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
