"""A report names what was judged, truly (issue 18 §2): the tool by what its ``--version`` prints, the
adapter by file name and hash, the bundled target and its defects, the revisions judged against, the
harness by version and commit, the error codes the evidence shows, and what this machine lacked — with
no placeholder, no "unknown" and no absolute path in the published COMPLIANCE.md."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conformance.command.identity import machine_caveats, public_argv, tool_version, version_line
from conformance.outcome import FAIL, Outcome
from conformance.paths import PACKAGE_DIR
from conformance.pipeline import conclude
from conformance.provenance import BUILD_COMMIT_FILE, UNKNOWN_COMMIT, commit_of, git_commit, harness_commit
from conformance.registry import default_registry
from conformance.report import RunInfo, blank_template, load_report
from conformance.targets.kinds import build_target, kind_of
from tests.killmatrix import run_command
from tests.test_command import _env

REG = default_registry()
TEMPLATE = blank_template(REG)
ROOT = PACKAGE_DIR.parent
#: An absolute path of this machine, as a published file must never show one.
ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:tmp|work|home|root|usr|opt|var|srv|mnt)/")


def _tool(tmp: Path, body: str) -> list[str]:
    script = tmp / "tool"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return [str(script)]


# ── the tool's version ───────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize(("body", "expected"), [
    ('echo "mycli 1.4.2"', "mycli 1.4.2"),
    ('echo "mycli version 2.0.1" >&2', "mycli version 2.0.1"),          # stderr only (Go's flag package)
    ('printf \'{"name": "mycli", "version": "3.1.0"}\\n\'', "mycli 3.1.0"),  # a JSON answer
    ('echo "\033[1mmycli\033[0m 0.9.0"', "mycli 0.9.0"),                 # coloured
    ('echo "mycli 1.0.0"; exit 2', "mycli 1.0.0"),                       # prints its version, then exits 2
    ("exit 0", None),                                                    # says nothing
    ('echo "usage: mycli [options]" >&2; exit 2', None),                 # a usage error is no version
])
def test_the_tool_version_is_what_version_prints(tmp_path: Path, body: str, expected: str | None) -> None:
    assert tool_version(_tool(tmp_path, body)) == expected


def test_the_version_probe_gets_the_environment_the_tool_is_given(tmp_path: Path) -> None:
    """A tool that needs a variable of the user's --env to start answers its version with it."""
    tool = _tool(tmp_path, '[ -n "$MYCLI_HOME" ] || exit 1; echo "mycli 5.0"')
    assert tool_version(tool) is None
    assert tool_version(tool, env={"MYCLI_HOME": "/opt/mycli"}) == "mycli 5.0"


def test_a_json_version_without_a_name_is_its_version() -> None:
    assert version_line('{"version": "0.4.0"}') == "0.4.0"


# ── no path of this machine ──────────────────────────────────────────────────────────────────────

def test_the_command_line_shows_no_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["cli", "--exe", "/opt/vendor/bin/mycli --flag", "--adapter=/home/me/mycli.adapter.yaml",
            "--skill", str(tmp_path / "skills" / "SKILL.md"), "--report-dir", "/var/tmp/r", "--tier", "1"]
    shown = public_argv(argv)
    assert shown == ["cli", "--exe", "mycli --flag", "--adapter=mycli.adapter.yaml", "--skill", "skills/SKILL.md",
                     "--report-dir", "r", "--tier", "1"]


# ── the machine ──────────────────────────────────────────────────────────────────────────────────

def test_a_missing_shell_caps_the_tier_and_is_said(tmp_path: Path) -> None:
    def which(name: str) -> str | None:
        return None if name in ("zsh", "fish") else f"/usr/bin/{name}"

    lines = machine_caveats(REG, None, "a2acli", which)
    assert lines == ["zsh and fish not installed: A2ACLI_CLI_002 (Tier 2) cannot be measured in full, so no tier "
                     "above 1 can be claimed on this machine"]
    assert machine_caveats(REG, ["A2ACLI_SEND_001"], "a2acli", which) == [], "a row the run does not select"
    assert machine_caveats(REG, None, "a2acli", lambda n: f"/usr/bin/{n}") == []


def test_without_zsh_the_run_says_so_before_it_starts_and_in_the_report(tmp_path: Path) -> None:
    """PATH holds everything this machine has but zsh and fish: one stderr line before the checks, the
    report's caveats and COMPLIANCE.md say the same, and CLI_002 is not measured (never a pass)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not Path(folder).is_dir():
            continue
        for exe in Path(folder).iterdir():
            link = bin_dir / exe.name
            if exe.name not in ("zsh", "fish") and not link.exists() and os.access(exe, os.X_OK):
                link.symlink_to(exe)
    env = dict(_env(), PATH=str(bin_dir))
    out = tmp_path / "r"
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "cli", "--only", "A2ACLI_CLI_002",
                           "--report-dir", str(out)], capture_output=True, text=True, env=env, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = proc.stderr.splitlines()[0]
    assert "zsh and fish not installed" in first and "no tier above 1" in first, proc.stderr
    report = load_report(out, REG)
    assert report.identity.caveats and "zsh and fish" in report.identity.caveats[0]
    assert report.requirements["A2ACLI_CLI_002"].status == "not_measured", report.requirements["A2ACLI_CLI_002"]
    assert "zsh and fish not installed" in (out / "COMPLIANCE.md").read_text(encoding="utf-8")


# ── the error-code table ─────────────────────────────────────────────────────────────────────────

def _evidence(folder: Path, rid: str, name: str, *runs: dict[str, object]) -> None:
    path = folder / "evidence" / rid / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"test": name, "attachments": [{"name": f"cli run {i}", "data": run}
                                                              for i, run in enumerate(runs, 1)]}), encoding="utf-8")


def test_a_code_the_evidence_shows_the_tool_stating_reads_yes(tmp_path: Path) -> None:
    """Seen on the reference CLI: CARD_INVALID stated by a failed `card get --validate` read "no" because
    no check recorded it. Only a failed invocation's envelope code or field value counts; a help text
    listing every code does not."""
    _evidence(tmp_path, "A2ACLI_CARD_GET_002", "test_validate",
              {"exit_code": 1, "stdout": "", "stderr": "Error-Code: A2ACLI_ERR_CARD_INVALID\nError-Message: x\n"})
    _evidence(tmp_path, "A2ACLI_OUT_004", "test_json_error",
              {"exit_code": 3, "stdout": '{"error": {"code": "A2ACLI_ERR_UNREACHABLE", "message": "m"}}\n',
               "stderr": ""})
    _evidence(tmp_path, "A2ACLI_CLI_001", "test_help",
              {"exit_code": 0, "stdout": "Errors: A2ACLI_ERR_TIMEOUT\n", "stderr": ""},
              {"exit_code": 2, "stdout": "", "stderr": "see A2ACLI_ERR_INTERNAL in the docs\n"})
    outs = [Outcome("A2ACLI_CARD_GET_002", FAIL, "t::x", message="m")]
    conclude(tmp_path, REG, "a2acli", outs, RunInfo(target="t"), error_codes={"A2ACLI_ERR_USAGE": "test_usage"})
    table = load_report(tmp_path, REG).error_codes or {}
    emitted = {c for c, row in table.items() if row.emitted}
    assert emitted == {"A2ACLI_ERR_USAGE", "A2ACLI_ERR_CARD_INVALID", "A2ACLI_ERR_UNREACHABLE"}, table
    assert "evidence/A2ACLI_CARD_GET_002/test_validate.json" in (table["A2ACLI_ERR_CARD_INVALID"].note or "")
    assert table["A2ACLI_ERR_USAGE"].note == "test_usage", "a check's own note comes first"


# ── targets ──────────────────────────────────────────────────────────────────────────────────────

def test_a_container_report_names_its_image_not_a_placeholder() -> None:
    target = build_target(container={"image": "agentd:ci"})
    target.image_id = "sha256:0123"
    assert kind_of(target).where() == "container image agentd:ci (sha256:0123)"


def test_a_launched_target_with_a_defect_says_so_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report = run_command(["agent", "--family", "a2a", "--launch", "scripted", "--defect", "enum-as-number",
                          "--only", "A2A_CARD_001"], out)
    ident = report.identity
    assert ident.bundled_target is not None
    assert (ident.bundled_target.name, ident.bundled_target.defects) == ("scripted", ["enum-as-number"])
    assert ident.agent_tested == "the bundled scripted agent, launched by the harness"
    assert ident.judged_against == ["A2A v1.0.1"] and ident.specification is not None
    assert "v1.0.1" in ident.specification
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "the bundled scripted (defects: enum-as-number)" in summary and "A2A v1.0.1" in summary


# ── the harness ──────────────────────────────────────────────────────────────────────────────────

def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_from_a_checkout_the_harness_names_its_commit() -> None:
    head = _git("rev-parse", "HEAD")
    assert harness_commit().removesuffix("-dirty") == head
    assert git_commit(ROOT) == harness_commit()


def test_an_installed_copy_reads_the_commit_its_build_recorded(tmp_path: Path) -> None:
    pkg = tmp_path / "site-packages" / "conformance"
    pkg.mkdir(parents=True)
    assert commit_of(pkg) is None, "no git, no record: unknown"
    (pkg / BUILD_COMMIT_FILE).write_text("0123456789abcdef0123456789abcdef01234567\n", encoding="utf-8")
    assert commit_of(pkg) == "0123456789abcdef0123456789abcdef01234567"
    (pkg / BUILD_COMMIT_FILE).write_text("not a commit\n", encoding="utf-8")
    assert commit_of(pkg) is None
    assert "unknown" in UNKNOWN_COMMIT


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_the_wheel_carries_the_commit_it_was_built_from(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(tmp_path.glob("*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        recorded = zf.read(f"conformance/{BUILD_COMMIT_FILE}").decode().strip()
    assert recorded.removesuffix("-dirty") == _git("rev-parse", "HEAD")


# ── the published form ───────────────────────────────────────────────────────────────────────────

def test_the_reference_clis_compliance_md_has_no_unknown_no_placeholder_no_path(tmp_path: Path) -> None:
    out = tmp_path / "r"
    report = run_command(["cli", "--only", "A2ACLI_CLI_001", "A2ACLI_CARD_GET_002"], out)
    md = (out / "COMPLIANCE.md").read_text(encoding="utf-8")
    assert "unknown" not in md.lower(), [ln for ln in md.splitlines() if "unknown" in ln.lower()]
    placeholders = {v for v in re.findall(r"'(<[^']+>)'|: (<[^\n]+>)\n", TEMPLATE) for v in v if v}
    assert placeholders and not [p for p in placeholders if p in md], [p for p in placeholders if p in md]
    assert not ABSOLUTE.search(md), ABSOLUTE.findall(md)
    assert "A2A v1.0.1" in md and "a2a-cli specification v0.2 of 2026-08-17" in md
    assert report.identity.harness is not None and report.identity.harness.commit
    assert report.identity.harness.commit in md
    assert (report.error_codes or {})["A2ACLI_ERR_CARD_INVALID"].emitted is True
    for name in ("compliance-report.yaml", "summary.md"):
        text = (out / name).read_text(encoding="utf-8")
        assert not ABSOLUTE.search(text), (name, ABSOLUTE.findall(text))
