"""Benchmark: the CLI suite (all three tiers, 66 ids, by default) against the reference CLI.

For each ``--jobs`` value prints the run's wall time, the summed wall time of the CLI processes it
spawned (from the evidence), and the harness's overhead: wall time minus the CLI's own process time,
as a share of the CLI's process time (meaningful at ``--jobs 1``; at ``--jobs 2`` the wall time is
counted twice, once per process). Budget on a 2-core machine: the whole run under 60 s with
``--jobs 2``; overhead under 10 % at ``--jobs 1``. Usage::

    python -m benchmarks.cli_tiers [--jobs 1 2 auto] [--tier 1 2 3] [--exe CMD] [--repeat N]
                                   [--harness-python PYTHON]

``auto`` gives no ``--jobs`` (the harness's own choice, read back from the report's ``run.jobs``).
``--harness-python`` runs the harness with another interpreter (e.g. a virtualenv made by ``pip install .``,
as the README's main job makes it). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.clock import load_line
from conformance.cli.cost import cli_process_seconds
from conformance.registry import default_registry


def run_once(jobs: str, exe: str | None, tiers: list[int], python: str = sys.executable) -> dict[str, float]:
    ids = [r.id for r in default_registry().select(family="a2acli") if r.tier in tiers]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        report = Path(tmp) / "report"
        given = [] if jobs == "auto" else ["--jobs", jobs]
        cmd = [python, "-P", "-m", "conformance.command", "cli", "--report-dir", str(report), *given, "--only",
               *ids]
        if exe:
            cmd += ["--exe", exe]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
        cli_total, count = cli_process_seconds(report)
        used = re.search(r"jobs: '?(\d+)", (report / "compliance-report.yaml").read_text(encoding="utf-8"))
        n = int(used.group(1)) if used else int(jobs)
    return {"jobs": n, "wall": wall, "cli_seconds": cli_total, "invocations": count,
            "overhead": (wall * n - cli_total) / cli_total if cli_total else float("nan")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", nargs="+", default=["1", "2", "auto"], help="--jobs settings; auto: none given")
    ap.add_argument("--tier", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    ap.add_argument("--exe")
    ap.add_argument("--repeat", type=int, default=1, help="runs per --jobs value (each printed)")
    ap.add_argument("--harness-python", default=sys.executable, help="the interpreter that runs the harness")
    args = ap.parse_args()
    print(load_line("start"), flush=True)
    print(f"tiers {args.tier}; harness {args.harness_python}")
    print(f"{'jobs':>7} {'wall s':>8} {'CLI s':>8} {'runs':>5} {'overhead':>9}")
    for j in args.jobs:
        for _ in range(args.repeat):
            r = run_once(j, args.exe, args.tier, args.harness_python)
            print(f"{j:>4}={r['jobs']:<2} {r['wall']:>8.1f} {r['cli_seconds']:>8.1f} {r['invocations']:>5} "
                  f"{r['overhead']:>8.0%}", flush=True)
    print("overhead = (wall x jobs - summed CLI process time) / summed CLI process time")
    print(load_line("end"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
