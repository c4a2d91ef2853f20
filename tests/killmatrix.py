"""What every kill matrix shares: run the command on a bundled target, read back its report."""

from __future__ import annotations

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


def survivors(report: dict[str, Any], ids: list[str]) -> dict[str, str]:
    """The ids among ``ids`` whose status does not show the defect was caught."""
    reqs = report["requirements"]
    return {rid: reqs[rid]["status"] for rid in ids if reqs[rid]["status"] not in DETECTED}
