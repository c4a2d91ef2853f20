"""Baselines (``--baseline`` / ``--write-baseline``): the exit code means "nothing got worse".

Unit tests pin the order and the three kinds of finding; end-to-end runs of the real command against
the reference CLI prove the exit codes: a written baseline replays to exit 0, a defect is a
regression (exit 1), a row better than its entry is stale (exit 1), a malformed file is exit 2.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.baseline import (
    ORDER,
    BaselineError,
    BaselineFile,
    Expected,
    compare,
    load_baseline,
    render_baseline,
)
from conformance.registry import default_registry
from conformance.report import Report
from tests.reports import report_of
from tests.test_command import _env

REG = default_registry()
IDS = ["A2ACLI_SEND_001", "A2ACLI_OUT_001"]


def _report(**statuses: str) -> Report:
    return report_of(statuses)


def test_order_is_pass_na_partial_not_measured_fail() -> None:
    assert ORDER == ("pass", "na", "partial", "not_measured", "fail")


def test_worse_is_a_regression_better_is_stale_equal_is_a_known_gap() -> None:
    report = _report(A2ACLI_SEND_001="fail", A2ACLI_SEND_002="pass", A2ACLI_SEND_003="partial",
                     A2ACLI_SEND_004="not_measured")
    base = {"A2ACLI_SEND_001": Expected("partial", "known"), "A2ACLI_SEND_002": Expected("fail", "was broken"),
            "A2ACLI_SEND_003": Expected("partial", "half done")}
    cmp = compare(report, base)
    assert [r[0] for r in cmp.regressions] == ["A2ACLI_SEND_001", "A2ACLI_SEND_004"]
    assert [r[0] for r in cmp.stale] == ["A2ACLI_SEND_002"]
    assert cmp.known == [("A2ACLI_SEND_003", "partial", "half done")]
    assert not cmp.ok


def test_a_written_baseline_replays_clean(tmp_path: Path) -> None:
    report = _report(A2ACLI_SEND_001="fail", A2ACLI_SEND_002="pass", A2ACLI_SEND_003="na")
    path = tmp_path / "b.yaml"
    path.write_text(render_baseline(report), encoding="utf-8")
    base = load_baseline(path, REG, "a2acli")
    assert set(base) == {"A2ACLI_SEND_001", "A2ACLI_SEND_003"}
    assert compare(report, base).ok


@pytest.mark.parametrize(("text", "says"), [
    ("A2ACLI_NOPE_001: {status: fail, reason: x}\n", "not a a2acli requirement id"),
    ("AGENTD_DECL_001: {status: fail, reason: x}\n", "not a a2acli requirement id"),
    ("A2ACLI_SEND_001: {status: broken, reason: x}\n", "must be one of"),
    ("A2ACLI_SEND_001: {status: fail}\n", "needs a reason"),
    ("A2ACLI_SEND_001: {status: fail, reason: x, extra: 1}\n", "expected a mapping"),
    ("- A2ACLI_SEND_001\n", "expected a mapping"),
    ("A2ACLI_SEND_001: [\n", "cannot read"),
])
def test_malformed_baselines_are_refused_naming_the_entry(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError, match=says):
        load_baseline(path, REG, "a2acli")


def _cli(tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "conformance.command", "cli", "--only", *IDS, "--report-dir", str(tmp / "r"),
            *extra]
    return subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)


def test_baseline_exit_codes_end_to_end(tmp_path: Path) -> None:
    written = tmp_path / "baseline.yaml"
    first = _cli(tmp_path, "--write-baseline", str(written))
    assert first.returncode == 0, first.stderr
    # Only the two ids ran: the baseline records that selection and expects nothing of the other rows.
    base = yaml.safe_load(written.read_text(encoding="utf-8"))
    assert base == {"selected": IDS}, base

    replay = _cli(tmp_path, "--baseline", str(written))
    assert replay.returncode == 0, replay.stderr
    assert "0 regression(s), 0 stale entries" in replay.stdout
    assert "64 row(s) outside the comparison" in replay.stdout, replay.stdout
    assert "## Baseline" in (tmp_path / "r" / "summary.md").read_text(encoding="utf-8")

    stale = dict(base, A2ACLI_SEND_001={"status": "fail", "reason": "we thought it broken"})
    written.write_text(yaml.safe_dump(stale), encoding="utf-8")
    r = _cli(tmp_path, "--baseline", str(written))
    assert r.returncode == 1 and "stale baseline entry: A2ACLI_SEND_001" in r.stderr, r.stderr

    written.write_text(yaml.safe_dump(base), encoding="utf-8")
    r = _cli(tmp_path, "--baseline", str(written), "--env-plain", "REFCLI_DEFECTS=no-message-id")
    assert r.returncode == 1 and "regression: A2ACLI_SEND_001 expected pass, got fail" in r.stderr, r.stderr


# ── baselines scoped to what was run (issue 18 §6) ──────────────────────────────────────────────────


def test_only_rows_both_runs_selected_are_compared() -> None:
    report = _report(A2ACLI_SEND_001="fail", A2ACLI_SEND_002="not_measured", A2ACLI_SEND_003="pass")
    base = BaselineFile({"A2ACLI_SEND_002": Expected("fail", "was broken"),
                         "A2ACLI_SEND_003": Expected("fail", "was broken")},
                        frozenset({"A2ACLI_SEND_002", "A2ACLI_SEND_003"}))
    cmp = compare(report, base, selected=["A2ACLI_SEND_001", "A2ACLI_SEND_003"])
    assert [r[0] for r in cmp.stale] == ["A2ACLI_SEND_003"] and not cmp.regressions, cmp
    assert cmp.outside == 2, "SEND_001: the baseline's run did not select it; SEND_002: this run did not"


def test_a_written_baseline_records_its_selection_and_expects_nothing_outside_it(tmp_path: Path) -> None:
    report = _report(A2ACLI_SEND_001="fail", A2ACLI_SEND_002="not_measured")
    path = tmp_path / "b.yaml"
    path.write_text(render_baseline(report, ["A2ACLI_SEND_001"]), encoding="utf-8")
    base = load_baseline(path, REG, "a2acli")
    assert base.selected == frozenset({"A2ACLI_SEND_001"}) and set(base) == {"A2ACLI_SEND_001"}
    path.write_text(render_baseline(report), encoding="utf-8")
    assert load_baseline(path, REG, "a2acli").selected is None


def test_a_baseline_written_before_selected_existed_reads_its_not_run_rows_as_unselected(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text("A2ACLI_SEND_001: {status: fail, reason: broken}\n"
                    "A2ACLI_CLI_002: {status: not_measured, reason: 'not run: this run was limited to tier 1 and "
                    "below (--tier 1)'}\n"
                    "A2ACLI_OUT_001: {status: not_measured, reason: not selected for this run (--only)}\n",
                    encoding="utf-8")
    base = load_baseline(path, REG, "a2acli")
    assert set(base) == {"A2ACLI_SEND_001"}
    assert base.selected is not None and "A2ACLI_CLI_002" not in base.selected and "A2ACLI_SEND_001" in base.selected


@pytest.mark.parametrize(("text", "says"), [("selected: everything\n", "must be 'all' or a list"),
                                            ("selected: [A2ACLI_NOPE_001]\n", "not a2acli requirement id")])
def test_a_malformed_selection_is_refused(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError, match=says):
        load_baseline(path, REG, "a2acli")


def _only(tmp: Path, folder: str, ids: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "conformance.command", "cli", "--only", *ids, "--report-dir", str(tmp / folder),
            *extra]
    return subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)


def test_a_baseline_used_on_a_narrower_or_wider_run_compares_only_the_common_rows(tmp_path: Path) -> None:
    """Seen: `--only A B --baseline full.yaml` exited 1 naming every row it did not run. A wide baseline
    (SEND_001 failing by a defect, OUT_001) replays on a narrow run (OUT_001 alone), and a narrow baseline
    on a wide run (SEND_001 now passing): exit 0, the rows one side never ran counted outside; a row both
    ran that got worse is still a regression."""
    wide, narrow = tmp_path / "wide.yaml", tmp_path / "narrow.yaml"
    r = _only(tmp_path, "w", IDS, "--env-plain", "REFCLI_DEFECTS=no-message-id", "--write-baseline", str(wide))
    assert r.returncode == 0, r.stderr
    assert yaml.safe_load(wide.read_text(encoding="utf-8"))["A2ACLI_SEND_001"]["status"] == "fail"

    r = _only(tmp_path, "n", ["A2ACLI_OUT_001"], "--baseline", str(wide), "--write-baseline", str(narrow))
    assert r.returncode == 0, r.stderr
    assert "0 regression(s), 0 stale entries" in r.stdout and "65 row(s) outside the comparison" in r.stdout, r.stdout

    r = _only(tmp_path, "w2", IDS, "--baseline", str(narrow))
    assert r.returncode == 0, r.stderr
    assert "0 regression(s), 0 stale entries" in r.stdout and "65 row(s) outside the comparison" in r.stdout, r.stdout
    assert "65 row(s) were outside the comparison" in (tmp_path / "w2" / "summary.md").read_text(encoding="utf-8")

    r = _only(tmp_path, "w3", ["A2ACLI_OUT_001"], "--baseline", str(narrow),
              "--env-plain", "REFCLI_DEFECTS=mixed-streams")
    assert r.returncode == 1 and "regression: A2ACLI_OUT_001 expected pass" in r.stderr, (r.stdout, r.stderr)


def test_a_malformed_baseline_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    bad = tmp_path / "b.yaml"
    bad.write_text("A2ACLI_SEND_001: {status: maybe, reason: x}\n", encoding="utf-8")
    r = _cli(tmp_path, "--baseline", str(bad))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "must be one of" in r.stderr
    assert not (tmp_path / "r").exists()


def test_rerun_failed_reruns_only_unsettled_rows_and_merges(tmp_path: Path) -> None:
    """A defect fails SEND_001; the rerun without it measures only SEND_001 and carries OUT_001 over."""
    first = _cli(tmp_path, "--env-plain", "REFCLI_DEFECTS=no-message-id")
    assert first.returncode == 0, first.stderr
    before = yaml.safe_load((tmp_path / "r" / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert before["requirements"]["A2ACLI_SEND_001"]["status"] == "fail"
    assert before["requirements"]["A2ACLI_OUT_001"]["status"] == "pass"
    args = [sys.executable, "-m", "conformance.command", "cli", "--only", *IDS, "--report-dir", str(tmp_path / "r2"),
            "--rerun-failed", str(tmp_path / "r")]
    second = subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)
    assert second.returncode == 0, second.stderr
    assert "rerunning 1 row(s)" in second.stderr
    merged = yaml.safe_load((tmp_path / "r2" / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert merged["report"]["merged"]["rerun"] == ["A2ACLI_SEND_001"]
    assert merged["requirements"]["A2ACLI_SEND_001"]["status"] == "pass"
    carried = merged["requirements"]["A2ACLI_OUT_001"]
    assert carried["status"] == "pass" and carried["evidence"]
    assert all((tmp_path / "r2" / ev).is_file() for ev in carried["evidence"]), "carried evidence is copied along"
    junit = (tmp_path / "r2" / "junit.xml").read_text(encoding="utf-8")
    assert "A2ACLI_SEND_001" in junit and "A2ACLI_OUT_001" not in junit, "only the rerun row was run"
    assert "CLI process time:" in second.stdout and "harness overhead" in second.stdout
    again = [*args[:-4], "--report-dir", str(tmp_path / "r3"), "--rerun-failed", str(tmp_path / "r2")]
    third = subprocess.run(again, capture_output=True, text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)
    assert third.returncode == 0 and "nothing to rerun" in third.stdout, (third.stdout, third.stderr)
