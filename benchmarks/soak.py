"""Benchmark (a property, too slow for CI): verdicts do not move under load or parallelism.

Runs each family against its clean bundled reference ``--runs`` times at each ``--jobs`` setting while a
bounded load of its own keeps the CPU busy (``--burners`` busy-looping processes, stopped at the end), and
lists every row whose status was not the same in every run, with the notes it had. Usage::

    python -m benchmarks.soak [--family a2a agentd a2acli] [--runs 10] [--jobs 1 2] [--burners 2] [--minutes M]
                              [--keep DIR]

``--keep DIR`` copies the report folder of every run in which a changing row had a status other than ``pass``
(its evidence: what the tool printed, the wire) into DIR before the runs' scratch folder is removed.

Exit 1 when some row's status changed between runs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.killmatrix import REFERENCES


def _burn(stop_at: float) -> None:
    """Keep one core busy until ``stop_at`` (a bound: the load never outlives the soak by much)."""
    x = 0
    while time.time() < stop_at:
        x = (x * 31 + 7) % 1_000_003


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", nargs="+", default=["a2a", "agentd", "a2acli"])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--burners", type=int, default=2, help="busy-looping processes kept running meanwhile")
    ap.add_argument("--hours", type=float, default=8.0, help="upper bound on the load's lifetime")
    ap.add_argument("--minutes", type=float, help="start no further round after this long (per invocation)")
    ap.add_argument("--keep", type=Path, help="copy the report folders of runs where a changing row did not pass here")
    args = ap.parse_args()
    burners = [multiprocessing.Process(target=_burn, args=(time.time() + args.hours * 3600,), daemon=True)
               for _ in range(args.burners)]
    for b in burners:
        b.start()
    unstable = 0
    stop_at = time.monotonic() + args.minutes * 60 if args.minutes else None
    try:
        for ref in (r for r in REFERENCES if r.family in args.family):
            seen: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
            done: dict[int, int] = defaultdict(int)
            folders: dict[str, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
            with tempfile.TemporaryDirectory(prefix=f"soak-{ref.key}-") as tmp:
                # Rounds of every --jobs setting in turn, so a bounded soak has runs of each setting.
                for i in range(args.runs):
                    if stop_at is not None and time.monotonic() > stop_at:
                        print(f"{ref.family}: --minutes {args.minutes:g} reached; no further runs", flush=True)
                        break
                    for jobs in args.jobs:
                        t0 = time.monotonic()
                        report = ref.run(Path(tmp) / f"j{jobs}-{i}", extra=["--jobs", str(jobs)])
                        for rid, e in report.requirements.items():
                            seen[rid][e.status].append(f"jobs {jobs} run {i}: {e.note}")
                            folders[rid][e.status].append(Path(tmp) / f"j{jobs}-{i}")
                        done[jobs] += 1
                        moving_now = sorted(rid for rid, by in seen.items() if len(by) > 1)
                        print(f"{ref.family} --jobs {jobs} run {i + 1}/{args.runs}: {time.monotonic() - t0:.1f}s "
                              f"(load {os.getloadavg()[0]:.1f}); rows changed so far: {moving_now or 'none'}",
                              flush=True)
                if args.keep is not None:
                    _keep(args.keep, ref.key, folders, [rid for rid, by in seen.items() if len(by) > 1])
            moving = {rid: by for rid, by in seen.items() if len(by) > 1}
            runs = ", ".join(f"{n} at --jobs {j}" for j, n in sorted(done.items()))
            print(f"{ref.family}: {len(moving)} row(s) changed status over {runs}")
            for rid, by in sorted(moving.items()):
                print(f"  {rid}: " + ", ".join(f"{s} ×{len(v)}" for s, v in by.items()))
                for s, notes in by.items():
                    if s != "pass":
                        print(f"      {s}: {notes[0][:300]}")
            unstable += len(moving)
    finally:
        for b in burners:
            b.terminate()
    return 1 if unstable else 0


def _keep(into: Path, key: str, folders: dict[str, dict[str, list[Path]]], moving: list[str]) -> None:
    """Copy the report folder of each run where a row of ``moving`` did not pass into ``into/<key>/``."""
    for rid in moving:
        for status, paths in folders[rid].items():
            if status == "pass":
                continue
            for src in paths:
                dst = into / key / src.name
                if not dst.exists():
                    shutil.copytree(src, dst)
                    print(f"  kept {src.name} ({rid} {status}): {dst}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
