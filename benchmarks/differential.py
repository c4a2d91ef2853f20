"""Benchmark (a property, too slow for CI in full): every named defect moves only its own rows.

For each reference (the reference CLI, the scripted agent, the reference agentd) it runs the whole family
once clean and once per named defect, and lists every row outside the defect's declared ids whose status
differs from the clean run (DESIGN.md §2.11: a defect moves only its own rows), and every declared id the
defect did not fail. CI runs a sample of it (``tests/test_differential.py``). Usage::

    python -m benchmarks.differential [--reference core agentd cli] [--defect NAME ...] [--jobs 2]

Exit 1 when some defect moved a row it does not own.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.killmatrix import DETECTED, REFERENCES, moved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", nargs="+", choices=[r.key for r in REFERENCES], default=["core", "agentd", "cli"])
    ap.add_argument("--defect", nargs="+", help="only these defects")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    bad = 0
    for ref in (r for r in REFERENCES if r.key in args.reference):
        with tempfile.TemporaryDirectory(prefix=f"diff-{ref.key}-") as tmp:
            clean_report = ref.run(Path(tmp) / "clean", extra=["--jobs", str(args.jobs)])
            clean = clean_report.statuses()
            names = [n for n in sorted(ref.defects) if not args.defect or n in args.defect]
            print(f"{ref.key}: clean run: {sum(s == 'pass' for s in clean.values())}/{len(clean)} pass; "
                  f"{len(names)} defects", flush=True)
            for name in names:
                t0 = time.monotonic()
                try:
                    report = ref.run(Path(tmp) / name, defect=name, extra=["--jobs", str(args.jobs)])
                except (AssertionError, subprocess.SubprocessError) as exc:
                    print(f"  {name:<44} ERROR  {time.monotonic() - t0:5.1f}s: {str(exc)[-300:]}", flush=True)
                    bad += 1
                    continue
                ids = list(ref.defects[name].ids)
                extra = moved(report, ids, clean)
                missed = [rid for rid in ids if report.requirements[rid.partition(":")[0]].status not in DETECTED]
                verdict = "ok" if not extra and not missed else "MOVED" if extra else "missed"
                print(f"  {name:<44} {verdict:<6} {time.monotonic() - t0:5.1f}s", flush=True)
                for rid, what in sorted(extra.items()):
                    print(f"      {rid}: {what[:300]}", flush=True)
                for rid in missed:
                    print(f"      declared {rid} not failed", flush=True)
                bad += bool(extra)
    print(f"{bad} defect(s) moved rows they do not own")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
