"""``docs/vendors.md`` keeps its word: every ``sh`` command in it runs, in order, as the guide says.

The bundled twin CLI (a tool with a grammar of its own) stands in for ``mycli`` (a shim on ``PATH``),
and the example adapter for ``mycli.adapter.yaml``, in a scratch folder. To keep the time modest, each
``agentd-conformance cli`` command that selects no ids runs two (``--only A2ACLI_SEND_001
A2ACLI_OUT_002``): one the first run shows missing, one it shows blocked; the flow (first run, adapter,
baseline, rerun, render) is the guide's. The installation line is not run (it installs from the package
registry); it is checked against the package's own metadata.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "vendors.md"
WORKFLOW = ROOT / "docs" / "ci" / "cli-vendor.yml"
EXAMPLE = ROOT / "docs" / "examples" / "twin.adapter.yaml"
ONLY = ("A2ACLI_SEND_001", "A2ACLI_OUT_002")


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", GUIDE.read_text(encoding="utf-8"), re.S | re.M)


def commands(block: str) -> list[str]:
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_install_line_names_this_distribution_and_its_command() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    install = commands(blocks("sh")[0])
    assert install == ["python3 -m venv .venv && .venv/bin/pip install agentd-conformance && . .venv/bin/activate"]
    assert meta["name"] == "agentd-conformance" and "agentd-conformance" in meta["scripts"]


def test_the_guides_workflow_steps_are_the_shipped_workflows() -> None:
    """The CI steps the guide shows are a verbatim part of docs/ci/cli-vendor.yml (which actionlint and
    the command's parser check in test_ci_workflows.py)."""
    (shown,) = blocks("yaml")
    assert shown.strip() and shown in WORKFLOW.read_text(encoding="utf-8")


def _report(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((folder / "compliance-report.yaml").read_text(encoding="utf-8"))
    return data


@pytest.mark.slow
@pytest.mark.timeout(1500)  # four short runs of the harness on a shared 2-core machine
def test_every_command_of_the_guide_runs_as_the_guide_says(tmp_path: Path) -> None:
    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir()
    work.mkdir()
    shim = bin_dir / "mycli"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m conformance.fixtures.twin_cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    shutil.copy(EXAMPLE, work / "mycli.adapter.yaml")
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent),
                                                   os.environ.get("PATH", "")])}
    out: dict[str, str] = {}
    ran = []
    for block in blocks("sh")[1:]:
        for cmd in commands(block):
            if cmd.startswith("agentd-conformance cli ") and "--only" not in cmd:
                cmd += " --only " + " ".join(ONLY)
            proc = subprocess.run(["bash", "-euc", cmd], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=900, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, f"{cmd!r} exited {proc.returncode}: {proc.stdout[-1500:]}{proc.stderr[-1500:]}"
            assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
            out[cmd] = proc.stdout
            ran.append(cmd)
    assert len(ran) == 11, ran

    # §2-3: the first run, without an adapter: send is rejected by name, what needs it is blocked
    first = _report(work / "reports" / "first")["requirements"]
    send, out2 = first["A2ACLI_SEND_001"], first["A2ACLI_OUT_002"]
    assert send["status"] == "fail" and "rejected as a usage error" in send["note"], send
    assert "unknown command 'send'" in send["note"], send
    assert out2["status"] == "not_measured" and out2["note"].startswith("blocked by A2ACLI_SEND_001"), out2
    assert any("A2ACLI_SEND_001:" in o and "status: fail" in o for o in out.values())
    assert _report(work / "reports" / "send")["requirements"]["A2ACLI_SEND_001"]["status"] == "fail"

    # §4: the adapter is checked clean, and through it both rows pass; the baseline expects no more
    check = next(o for c, o in out.items() if c.startswith("agentd-conformance adapter check"))
    assert "warnings: none" in check and "-> mycli --card" in check
    adapted = _report(work / "reports" / "adapted")
    assert [adapted["requirements"][i]["status"] for i in ONLY] == ["pass", "pass"]
    assert adapted["report"]["adapter_used"] is True
    baseline = yaml.safe_load((work / "cli-baseline.yaml").read_text(encoding="utf-8"))
    assert not set(ONLY) & set(baseline)

    # §5: the CI run holds against the baseline; the rerun finds nothing unsettled among its rows
    ci = next(o for c, o in out.items() if "--baseline cli-baseline.yaml" in c)
    assert "Baseline cli-baseline.yaml: 0 regression(s), 0 stale entries" in ci, ci
    rerun = next(o for c, o in out.items() if "--rerun-failed" in c)
    assert "nothing to rerun" in rerun

    # §6: the pages are rebuilt and the bundle is made
    assert (work / "reports" / "ci" / "COMPLIANCE.md").is_file()
    verified = next(o for c, o in out.items() if c.startswith("agentd-conformance report verify"))
    assert verified.startswith("verified reports/ci:"), verified
    assert (work / "mycli-a2a-cli-report.tgz").stat().st_size > 0
