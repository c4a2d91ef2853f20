"""Benchmark: a slow agent's verdicts against a fast one's (issue 22 §1), with the wall time of each.

The real a2a-sdk server (fixtures/plain_sdk_agent) on all three bindings, once answering at once and
once thinking ``--delay`` seconds (default 12, longer than the old fixed 10 s per call) before every
turn; the rows a slow turn used to fail are run against both with the default per-call timeout and
their verdicts compared. Exit 1 when a verdict differs. Usage::

    python -m benchmarks.slow_agent [--delay 12] [--jobs 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.registry import default_registry
from conformance.report import load_report

ROWS = ("A2A_SEND_001", "A2A_SEND_002", "A2A_SEND_003", "A2A_TASK_001", "A2A_VER_001", "A2A_VER_004")


def verdicts(delay: float, jobs: int) -> tuple[dict[str, tuple[str, str]], float]:
    """The rows' (status, note) against the SDK agent with turns of ``delay`` seconds, and the wall time."""
    with tempfile.TemporaryDirectory(prefix="bench-slow-") as tmp, PlainSdkAgent(delay=delay) as agent:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", "--family", "a2a", "--url",
                               agent.url, "--allow-origin", agent.grpc_target, "--only", *ROWS, "--jobs", str(jobs),
                               "--report-dir", str(Path(tmp) / "r")],
                              capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
        reqs = load_report(Path(tmp) / "r", default_registry()).requirements
    return {rid: (reqs[rid].status, reqs[rid].note or "") for rid in ROWS}, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delay", type=float, default=12.0, help="seconds each turn of the slow agent takes")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    fast, fast_wall = verdicts(0.0, args.jobs)
    slow, slow_wall = verdicts(args.delay, args.jobs)
    print(f"no delay: {fast_wall:.1f} s wall; {args.delay:g} s per turn: {slow_wall:.1f} s wall (--jobs {args.jobs})")
    differ = 0
    for rid in ROWS:
        same = fast[rid] == slow[rid]
        differ += not same
        print(f"{rid:<16} {fast[rid][0]:<13} {slow[rid][0]:<13} {'' if same else 'DIFFERS: ' + slow[rid][1][:200]}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
