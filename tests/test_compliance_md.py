"""The publishable COMPLIANCE.md: every registry id is a row, the glance counts sum to each tier's
total, and the markdown agrees with the YAML row for row — also when rebuilt by ``report render``
from a saved YAML alone."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
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
    write_report(out, build_report(REG, "a2acli", verdicts, summarise(REG, "a2acli", verdicts), run), REG)
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


def _edited(saved: Path, change: Callable[[dict[str, Any]], object]) -> str:
    data = yaml.safe_load((saved / "compliance-report.yaml").read_text(encoding="utf-8"))
    change(data)
    return str(yaml.safe_dump(data, sort_keys=False))


#: Files that are not a valid report, each with the words the one-line error must hold.
NOT_REPORTS: list[tuple[str, str | Callable[[dict[str, Any]], object], str]] = [
    ("not-a-report", "not: [a, report]\n", "not a compliance report (it lacks report, summary, requirements"),
    ("unparsable", "{{{\n", "cannot read"),
    ("a-list", "- report\n", "not a compliance report (expected a mapping"),
    ("unknown-id", lambda d: d["requirements"].update(A2ACLI_NOPE_001=d["requirements"]["A2ACLI_SEND_001"]),
     "requirements.A2ACLI_NOPE_001: not a a2acli requirement id"),
    ("agent-id-in-a-cli-report", lambda d: d["requirements"].update(A2A_CARD_001=d["requirements"]["A2ACLI_SEND_001"]),
     "requirements.A2A_CARD_001: not a a2acli requirement id"),
    ("unknown-status", lambda d: d["requirements"]["A2ACLI_SEND_001"].update(status="passed"),
     "requirements.A2ACLI_SEND_001.status: must be one of"),
    ("row-without-status", lambda d: d["requirements"]["A2ACLI_SEND_001"].pop("status"),
     "requirements.A2ACLI_SEND_001: missing status"),
    ("stray-row-field", lambda d: d["requirements"]["A2ACLI_SEND_001"].update(verdict="ok"),
     "requirements.A2ACLI_SEND_001: unknown field(s) verdict"),
    ("numeric-note", lambda d: d["requirements"]["A2ACLI_SEND_002"].update(note=3),
     "requirements.A2ACLI_SEND_002.note: expected a string or null, got 3"),
    ("evidence-not-a-list", lambda d: d["requirements"]["A2ACLI_SEND_001"].update(evidence="x.json"),
     "requirements.A2ACLI_SEND_001.evidence: expected a list of strings"),
    ("tier-as-text", lambda d: d["requirements"]["A2ACLI_SEND_001"].update(tier="1"),
     "requirements.A2ACLI_SEND_001.tier: expected a tier number"),
    ("no-attestation", lambda d: d.pop("attestation"), "it lacks attestation"),
    ("identity-without-tool", lambda d: d["report"].pop("tool"), "report: missing tool"),
    ("tier-claimed-as-text", lambda d: d["report"].update(tier_claimed="3"), "report.tier_claimed: expected a tier"),
    ("satisfied-as-text", lambda d: d["summary"]["tier_1"].update(satisfied="yes"),
     "summary.tier_1.satisfied: expected true or false"),
    ("a-group-missing", lambda d: d["summary"].pop("tier_3"), "summary: expected the groups tier_1, tier_2, tier_3"),
    ("a-count-negative", lambda d: d["summary"]["tier_2"].update(fail=-1), "summary.tier_2.fail: expected a count"),
    ("unknown-error-code", lambda d: d["error_codes"].update(A2ACLI_ERR_NOPE={"emitted": True, "note": None}),
     "error_codes: unknown row(s) A2ACLI_ERR_NOPE"),
    ("breakdown-cell-as-text", lambda d: d["default_001_breakdown"]["detail_level_concise"].update(shipped="yes"),
     "default_001_breakdown.detail_level_concise.shipped: expected true or false or null"),
    ("unknown-section", lambda d: d.update(verdicts={}), "unknown field(s) verdicts"),
    ("unknown-family", lambda d: d["report"].update(family="nope"), "report.family: unknown family 'nope'"),
]


@pytest.mark.parametrize(("content", "says"), [pytest.param(c, s, id=n) for n, c, s in NOT_REPORTS])
def test_report_render_refuses_what_is_not_a_report(saved: Path, tmp_path: Path,
                                                    content: str | Callable[[dict[str, Any]], object],
                                                    says: str) -> None:
    """Exit 2 and one line naming the file and the field, for every way a file is not a report."""
    path = tmp_path / "compliance-report.yaml"
    path.write_text(content if isinstance(content, str) else _edited(saved, content), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "report", "render", str(tmp_path)],
                          capture_output=True, text=True, env=_env(), timeout=60)
    assert proc.returncode == 2 and says in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert str(path) in proc.stderr, proc.stderr
