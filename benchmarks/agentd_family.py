"""Benchmark: the agentd family against the launched reference agentd.

Prints the negotiation matrix's cases per second (every core method and the events method × every
subset of {command, events, task-annotations, unknown URI}, feed on and off) and the wall time of
the whole agentd family through the command, against the launched reference or, with
``--container IMAGE``, against an image (one container per configuration). Usage::

    python -m benchmarks.agentd_family [--jobs 1 2] [--repeat 3] [--container IMAGE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.agentd.negotiation_cases import run_negotiation
from conformance.fixtures.reference_agentd import Config, ReferenceAgentd
from conformance.targets.instances import Instance
from conformance.wire import Recorder


def matrix_rate(repeat: int) -> tuple[int, float]:
    cases, seconds = 0, 0.0
    for events in (True, False):
        with ReferenceAgentd(Config(events=events)) as agent:
            inst = Instance(url=agent.url, uds_path=None, tokens={}, facts={}, launched=agent)
            for _ in range(repeat):
                m = run_negotiation(inst, events, Recorder())
                cases += len(m.cases)
                seconds += m.seconds
    return cases, seconds


def family_wall(jobs: int, container: str | None = None) -> float:
    target = ["--container", container] if container else []
    with tempfile.TemporaryDirectory(prefix="bench-agentd-") as tmp:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", *target, "--jobs", str(jobs),
                               "--report-dir", str(Path(tmp) / "r")], capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
    return wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--container", metavar="IMAGE", help="time the family against this image instead")
    args = ap.parse_args()
    cases, seconds = matrix_rate(args.repeat)
    print(f"negotiation matrix: {cases} cases in {seconds:.2f} s = {cases / seconds:.0f} cases/s")
    for j in args.jobs:
        where = f" in containers of {args.container}" if args.container else ""
        print(f"agentd family{where}, --jobs {j}: {family_wall(j, args.container):.1f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
