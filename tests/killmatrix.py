"""What every kill matrix shares: run the command on a bundled target, read back its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

#: Statuses that show a defect was caught (partial: some separable part of the requirement failed).
DETECTED = ("fail", "partial")


def run_command(args: list[str], report_dir: Path, timeout: float = 900) -> dict[str, Any]:
    """Run ``agentd-conformance ARGS --report-dir DIR`` in a child; return the report it wrote."""
    cmd = [sys.executable, "-m", "conformance.command", *args, "--report-dir", str(report_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ),
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"the run itself failed (exit {proc.returncode}): {proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    report = yaml.safe_load((report_dir / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert isinstance(report, dict)
    return report


def outcomes(report_dir: Path) -> list[dict[str, Any]]:
    """The run's per-check outcomes (``outcomes.jsonl`` beside the report)."""
    lines = (report_dir / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def killed(outs: list[dict[str, Any]], target: str) -> bool:
    """True when ``target`` ("ID" or "ID:part") has a failing outcome from an assertion of its own check.

    A harness error is not a kill (the check crashed, it did not judge the target); for a parted row
    named with its part, the failure must be in that part.
    """
    rid, _, part = target.partition(":")
    return any(o["requirement"] == rid and o["status"] == "fail" and not o["harness_error"]
               and (not part or o["part"] == part) for o in outs)


def survivors(report: dict[str, Any], ids: list[str], report_dir: Path) -> dict[str, str]:
    """The ids among ``ids`` (each "ID" or "ID:part") the defect was not caught on, with their status.

    Caught means: the rolled-up status shows it (fail or partial) AND some check of that id (in that
    part) failed on an assertion, not a harness error.
    """
    reqs = report["requirements"]
    outs = outcomes(report_dir)
    out: dict[str, str] = {}
    for target in ids:
        rid = target.partition(":")[0]
        status = reqs[rid]["status"]
        if status not in DETECTED:
            out[target] = status
        elif not killed(outs, target):
            out[target] = f"{status} (no assertion failure{' in that part' if ':' in target else ''})"
    return out
