"""The CI workflows users copy (docs/ci/) and the project's own: actionlint-clean, and every
``agentd-conformance`` command line in them is one the command accepts, doing what the file says."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.command.parser import build_parser, merge_parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / "docs" / "ci").glob("*.yml")) + [ROOT / ".github" / "workflows" / "ci.yml"]


def _actionlint() -> str:
    exe = shutil.which("actionlint") or str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "actionlint")
    assert Path(exe).exists() or shutil.which(exe), "actionlint is not installed (pip install -e '.[dev]')"
    return exe


def test_every_workflow_is_actionlint_clean() -> None:
    assert len(WORKFLOWS) == 4, WORKFLOWS
    proc = subprocess.run([_actionlint(), "-no-color", *map(str, WORKFLOWS)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, f"actionlint: {proc.stdout}{proc.stderr}"


def _steps(path: Path) -> list[tuple[str, dict[str, str]]]:
    """(run script, the environment the workflow, its job and the step give it) of every run step."""
    doc: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for job in doc["jobs"].values():
        for step in job["steps"]:
            if "run" in step:
                env = {**(doc.get("env") or {}), **(job.get("env") or {}), **(step.get("env") or {})}
                out.append((step["run"], {k: str(v) for k, v in env.items()}))
    return out


def _runs(path: Path) -> list[str]:
    return [run for run, _ in _steps(path)]


def _invocations(path: Path) -> list[list[str]]:
    """Every ``agentd-conformance ...`` command in the file's run steps, as argv (expressions and
    shell variables stood in for by placeholders)."""
    out = []
    for script, env in _steps(path):
        joined = script.replace("\\\n", " ")
        for line in joined.splitlines():
            if "agentd-conformance " not in line or line.strip().startswith("#"):
                continue
            cmd = line[line.index("agentd-conformance "):].split("||")[0]
            cmd = re.sub(r"\$\(\(.*?\)\)", "1", cmd)
            cmd = re.sub(r'"\$\{[a-z]+\[@\]\}"', "", cmd)
            known = {k: v for k, v in env.items() if "${{" not in v}

            def variable(m: re.Match[str], known: dict[str, str] = known) -> str:
                return known.get(m.group(1), "X")

            cmd = re.sub(r"\$(\w+)", variable, cmd)
            cmd = re.sub(r"\$\{\{.*?\}\}", "X", cmd)
            out.append(shlex.split(cmd)[1:])
    return out


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_command_line_parses(path: Path) -> None:
    for argv in _invocations(path):
        if argv[:2] == ["matrix", "merge"]:
            merge_parser().parse_args(argv[2:])
        else:
            build_parser().parse_args(argv)


def _flat(path: Path) -> list[list[str]]:
    return _invocations(path)


def test_agentd_ci_runs_the_container_against_a_baseline_and_uploads_the_report() -> None:
    path = ROOT / "docs" / "ci" / "agentd-ci.yml"
    cmds = _flat(path)
    assert any("--container" in c and "--baseline" in c and c[0] == "agent" for c in cmds), cmds
    text = path.read_text("utf-8")
    assert "docker build" in text and "actions/upload-artifact" in text and "if: always()" in text


def test_nightly_matrix_shards_by_the_job_matrix_and_merges_against_last_night() -> None:
    path = ROOT / "docs" / "ci" / "nightly-matrix.yml"
    doc = yaml.safe_load(path.read_text("utf-8"))
    assert doc["jobs"]["merge"]["needs"] == "shard" and doc["jobs"]["merge"]["if"] == "always()"
    cmds = _flat(path)
    assert any(c[0] == "matrix" and "--shard" in c for c in cmds), cmds
    merge = next(c for c in cmds if c[:2] == ["matrix", "merge"])
    assert "--fail-on-regression" in merge, merge
    assert "--previous" in path.read_text("utf-8") and "strategy.job-total" in path.read_text("utf-8")


def test_cli_vendor_job_requires_its_tier_and_publishes_the_compliance_form() -> None:
    path = ROOT / "docs" / "ci" / "cli-vendor.yml"
    cli = next(c for c in _flat(path) if c[0] == "cli")
    assert "--require-tier" in cli and "--adapter" in cli and "--baseline" in cli, cli
    assert "COMPLIANCE.md" in path.read_text("utf-8")


def test_project_ci_runs_the_tox_environments() -> None:
    doc = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8"))
    runs = " ".join(_runs(ROOT / ".github" / "workflows" / "ci.yml"))
    tox = (ROOT / "tox.ini").read_text("utf-8")
    envs = re.search(r"envlist\s*=\s*(.*)", tox)
    assert envs is not None
    for env in (e.strip() for e in envs.group(1).split(",")):
        assert f"tox -e {env}" in runs, f"tox environment {env} is not run by ci.yml"
    assert set(doc["jobs"]) >= {"lint", "tests", "kill"}
