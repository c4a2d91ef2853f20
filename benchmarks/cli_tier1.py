"""Benchmark: the Tier 1 CLI suite against the reference CLI.

Prints the run's wall time, the summed wall time of the CLI processes it spawned (from the evidence),
their ratio (the harness's overhead), and the same for ``--jobs 2``. Usage::

    python -m benchmarks.cli_tier1 [--jobs 1 2] [--exe CMD]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.cli.cost import cli_process_seconds
from conformance.registry import default_registry


def run_once(jobs: int, exe: str | None) -> dict[str, float]:
    ids = [r.id for r in default_registry().select(family="a2acli", tier=1)]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        report = Path(tmp) / "report"
        cmd = [sys.executable, "-m", "conformance.command", "cli", "--report-dir", str(report), "--jobs", str(jobs),
               "--only", *ids]
        if exe:
            cmd += ["--exe", exe]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
        cli_total, count = cli_process_seconds(report)
    return {"jobs": jobs, "wall": wall, "cli_seconds": cli_total, "invocations": count,
            "overhead": (wall * jobs - cli_total) / cli_total if cli_total else float("nan")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--exe")
    args = ap.parse_args()
    print(f"{'jobs':>4} {'wall s':>8} {'CLI s':>8} {'runs':>5} {'overhead':>9}")
    for j in args.jobs:
        r = run_once(j, args.exe)
        print(f"{r['jobs']:>4} {r['wall']:>8.1f} {r['cli_seconds']:>8.1f} {r['invocations']:>5} {r['overhead']:>8.0%}")
    print("overhead = (wall x jobs - summed CLI process time) / summed CLI process time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
