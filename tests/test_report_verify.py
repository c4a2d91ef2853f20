"""``agentd-conformance report verify DIR`` (issue 18 §4): a fresh report verifies; a tampered evidence
file, an edited status, an edited tier flag, a deleted file and an added file are each caught, naming the
file or row — also when the manifest is re-hashed to match, by re-deriving the verdicts, the rollup and
the claim from outcomes.jsonl. A --rerun-failed merge and a report render keep the folder verifiable."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.report.manifest import MANIFEST_FILE, refresh_manifest
from tests.test_command import _env

IDS = ["A2ACLI_SEND_001", "A2ACLI_OUT_001"]


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", *args], capture_output=True, text=True,
                          env=_env(), timeout=300, stdin=subprocess.DEVNULL)


def _verify(folder: Path) -> subprocess.CompletedProcess[str]:
    return _command("report", "verify", str(folder))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A run with a defect (SEND_001 fails), and its --rerun-failed merge without it."""
    tmp = tmp_path_factory.mktemp("verify")
    first = _command("cli", "--only", *IDS, "--env-plain", "REFCLI_DEFECTS=no-message-id",
                     "--report-dir", str(tmp / "r"))
    assert first.returncode == 0, first.stderr[-2000:]
    merged = _command("cli", "--only", *IDS, "--report-dir", str(tmp / "merged"), "--rerun-failed", str(tmp / "r"))
    assert merged.returncode == 0, merged.stderr[-2000:]
    return tmp / "r", tmp / "merged"


def _copy(src: Path, tmp: Path) -> Path:
    dst = tmp / "copy"
    shutil.copytree(src, dst)
    return dst


def _rehash(folder: Path) -> None:
    """What a forger would do after an edit: bring the manifest's hashes up to date."""
    assert refresh_manifest(folder, [p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST_FILE])


def test_a_fresh_report_verifies(runs: tuple[Path, Path]) -> None:
    r = _verify(runs[0])
    assert r.returncode == 0, r.stderr
    assert "files match the manifest" in r.stdout and "66 rows" in r.stdout, r.stdout
    manifest = json.loads((runs[0] / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["harness"]["commit"] and manifest["target"]["target"] == "reference-cli"
    assert set(manifest["registry"]) == {"a2a", "a2acli", "agentd"}
    assert all(len(v["sha256"]) == 64 for v in manifest["registry"].values())
    assert "evidence/A2ACLI_SEND_001" in " ".join(manifest["files"]) and "pytest.log" in manifest["files"]


def test_a_rerun_merge_verifies_with_rows_from_both_runs(runs: tuple[Path, Path]) -> None:
    r = _verify(runs[1])
    assert r.returncode == 0, r.stderr
    outcomes = (runs[1] / "outcomes.jsonl").read_text(encoding="utf-8")
    assert "A2ACLI_OUT_001" in outcomes, "the carried row's outcomes came along, so it re-derives"


def test_report_render_into_the_folder_keeps_it_verifiable(runs: tuple[Path, Path], tmp_path: Path) -> None:
    folder = _copy(runs[1], tmp_path)
    r = _command("report", "render", str(folder))
    assert r.returncode == 0, r.stderr
    assert (folder / "implementation-report.html").is_file()
    v = _verify(folder)
    assert v.returncode == 0, v.stderr


def _set_status(folder: Path, rid: str, status: str) -> None:
    path = folder / "compliance-report.yaml"
    text = path.read_text(encoding="utf-8")
    edited = re.sub(rf"(  {rid}:\n(?:    .*\n)*?    status: )\w+", rf"\g<1>{status}", text, count=1)
    assert edited != text
    path.write_text(edited, encoding="utf-8")


def _tamper_evidence(folder: Path) -> None:
    path = next((folder / "evidence" / "A2ACLI_SEND_001").glob("*.json"))
    path.write_text(path.read_text(encoding="utf-8").replace('"exit_code": ', '"exit_code": 1', 1), encoding="utf-8")


def _edit_tier_flag(folder: Path) -> None:
    path = folder / "compliance-report.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("tier_1: {total: 39, pass: 1,", "tier_1: {total: 39, pass: 39,", 1)
                    .replace("tier_claimed: null", "tier_claimed: 1", 1), encoding="utf-8")


def _edit_outcome(folder: Path) -> None:
    path = folder / "outcomes.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"status": "fail"', '"status": "pass"'),
                    encoding="utf-8")


def _edit_compliance(folder: Path) -> None:
    path = folder / "COMPLIANCE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("| **Tier claimed** | `none` |",
                                                             "| **Tier claimed** | `Tier 3` |"), encoding="utf-8")


TAMPERS: list[tuple[str, Callable[[Path], object], bool, str]] = [
    # name, edit, re-hash the manifest after it, what the one line must name
    ("evidence-file", _tamper_evidence, False, "evidence/A2ACLI_SEND_001/"),
    ("status", lambda f: _set_status(f, "A2ACLI_SEND_001", "pass"), False, "compliance-report.yaml: its sha256"),
    ("status-rehashed", lambda f: _set_status(f, "A2ACLI_SEND_001", "pass"), True,
     "requirements.A2ACLI_SEND_001.status: the report says 'pass', the outcomes give 'fail'"),
    ("tier-flag", _edit_tier_flag, False, "compliance-report.yaml: its sha256"),
    ("tier-flag-rehashed", _edit_tier_flag, True, "summary.tier_1:"),
    ("deleted-file", lambda f: (f / "junit.xml").unlink(), False, "junit.xml: listed in manifest.json but missing"),
    ("added-file", lambda f: (f / "evidence" / "A2ACLI_SEND_001" / "later.json").write_text("{}"), False,
     "evidence/A2ACLI_SEND_001/later.json: in the folder but not in manifest.json"),
    ("outcome-rehashed", _edit_outcome, True, "requirements.A2ACLI_SEND_001.status: the report says 'fail'"),
    ("compliance-md-rehashed", _edit_compliance, True, "COMPLIANCE.md: does not match compliance-report.yaml"),
    ("manifest-deleted", lambda f: (f / MANIFEST_FILE).unlink(), False, "manifest.json: missing"),
]


@pytest.mark.parametrize(("edit", "rehash", "says"), [pytest.param(e, h, s, id=n) for n, e, h, s in TAMPERS])
def test_a_tampered_report_is_caught_naming_the_file_or_row(runs: tuple[Path, Path], tmp_path: Path,
                                                           edit: Callable[[Path], object], rehash: bool,
                                                           says: str) -> None:
    folder = _copy(runs[0], tmp_path)
    edit(folder)
    if rehash:
        _rehash(folder)
    r = _verify(folder)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and says in r.stderr, r.stderr


@pytest.mark.parametrize("what", ["empty-folder", "a-file", "not-a-report"])
def test_a_folder_that_is_not_a_report_is_exit_2(tmp_path: Path, what: str) -> None:
    target = tmp_path / "x"
    if what == "a-file":
        target.write_text("x", encoding="utf-8")
    else:
        target.mkdir()
        if what == "not-a-report":
            (target / "compliance-report.yaml").write_text("not: [a, report]\n", encoding="utf-8")
    r = _verify(target)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, (r.returncode, r.stderr)


def test_a_report_folder_used_again_holds_only_the_new_run(tmp_path: Path) -> None:
    """A second run into the same ``--report-dir`` replaces the first run's report: none of the first run's
    evidence stays beside the new one (before, it stayed as ``NAME-2.json`` and the new manifest signed it as
    this run's), the folder verifies, and a file the user put there is left alone."""
    folder = tmp_path / "r"
    first = _command("cli", "--only", *IDS, "--env-plain", "REFCLI_DEFECTS=no-message-id", "--report-dir",
                     str(folder))
    assert first.returncode == 0, first.stderr[-2000:]
    before = {p.relative_to(folder).as_posix() for p in (folder / "evidence").rglob("*.json")}
    (folder / "my-notes.txt").write_text("kept\n", encoding="utf-8")
    second = _command("cli", "--only", *IDS, "--report-dir", str(folder))
    assert second.returncode == 0, second.stderr[-2000:]
    report = (folder / "compliance-report.yaml").read_text(encoding="utf-8")
    evidence = {p.relative_to(folder).as_posix() for p in (folder / "evidence").rglob("*.json")}
    cited = set(re.findall(r"evidence/[\w./-]+\.json", report))
    assert evidence == cited and evidence == before, (sorted(evidence), sorted(cited), sorted(before))
    assert (folder / "my-notes.txt").read_text(encoding="utf-8") == "kept\n"
    assert "held an earlier run's report; it is replaced" in second.stderr, second.stderr
    assert _verify(folder).returncode == 0, _verify(folder).stderr
