"""Benchmark: the CLI suite (all three tiers, 66 ids, by default) against the reference CLI.

For each ``--jobs`` value prints the run's wall time, the summed wall time of the CLI processes it
spawned (from the evidence), and the harness's overhead: wall time minus the CLI's own process time,
as a share of the CLI's process time (meaningful at ``--jobs 1``; at ``--jobs 2`` the wall time is
counted twice, once per process). Budget on a 2-core machine: the whole run under 60 s with
``--jobs 2``; overhead under 10 % at ``--jobs 1``. Usage::

    python -m benchmarks.cli_tiers [--jobs 1 2] [--tier 1 2 3] [--exe CMD] [--repeat N]
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


def run_once(jobs: int, exe: str | None, tiers: list[int]) -> dict[str, float]:
    ids = [r.id for r in default_registry().select(family="a2acli") if r.tier in tiers]
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
    ap.add_argument("--tier", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    ap.add_argument("--exe")
    ap.add_argument("--repeat", type=int, default=1, help="runs per --jobs value (each printed)")
    args = ap.parse_args()
    print(f"tiers {args.tier}")
    print(f"{'jobs':>4} {'wall s':>8} {'CLI s':>8} {'runs':>5} {'overhead':>9}")
    for j in args.jobs:
        for _ in range(args.repeat):
            r = run_once(j, args.exe, args.tier)
            print(f"{r['jobs']:>4} {r['wall']:>8.1f} {r['cli_seconds']:>8.1f} {r['invocations']:>5} "
                  f"{r['overhead']:>8.0%}", flush=True)
    print("overhead = (wall x jobs - summed CLI process time) / summed CLI process time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
