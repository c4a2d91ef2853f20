"""Benchmark (a property, too slow for CI in full): every named defect moves only its own rows.

For each reference (the reference CLI, the scripted agent, the reference agentd) it runs the whole family
once clean and once per named defect, and lists every row outside the defect's declared ids whose status
differs from the clean run (DESIGN.md §2.11: a defect moves only its own rows), and every declared id the
defect did not fail. CI runs a sample of it (``tests/test_differential.py``). Usage::

    python -m benchmarks.differential [--reference core agentd cli] [--defect NAME ...] [--jobs 2]
                                      [--record FILE [--skip-recorded]]

``--record FILE`` appends one JSON line per defect run (reference, defect, verdict, the rows moved, the
declared ids missed, seconds, the commit it ran on), so a pass over a family's hundred-odd defects can be
spread over several sittings: ``--skip-recorded`` leaves out the defects whose latest line in FILE says
``ok`` (on whatever commit: a final pass without it confirms the whole table on one commit).

Exit 1 when some defect moved a row it does not own.
"""

from __future__ import annotations

import argparse
import datetime
import json
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
    ap.add_argument("--record", type=Path, help="append one JSON line per defect run to this file")
    ap.add_argument("--skip-recorded", action="store_true",
                    help="leave out defects whose latest line in --record says ok")
    args = ap.parse_args()
    if args.skip_recorded and not args.record:
        ap.error("--skip-recorded needs --record FILE")
    commit = _commit()
    done = _recorded_ok(args.record) if args.skip_recorded else set()
    bad = 0
    for ref in (r for r in REFERENCES if r.key in args.reference):
        with tempfile.TemporaryDirectory(prefix=f"diff-{ref.key}-") as tmp:
            clean_report = ref.run(Path(tmp) / "clean", extra=["--jobs", str(args.jobs)])
            clean = clean_report.statuses()
            names = [n for n in sorted(ref.defects) if (not args.defect or n in args.defect)
                     and (ref.key, n) not in done]
            print(f"{ref.key}: clean run: {sum(s == 'pass' for s in clean.values())}/{len(clean)} pass; "
                  f"{len(names)} defects", flush=True)
            for name in names:
                t0 = time.monotonic()
                try:
                    report = ref.run(Path(tmp) / name, defect=name, extra=["--jobs", str(args.jobs)])
                except (AssertionError, subprocess.SubprocessError) as exc:
                    print(f"  {name:<44} ERROR  {time.monotonic() - t0:5.1f}s: {str(exc)[-300:]}", flush=True)
                    _record(args.record, ref.key, name, "error", {}, [], time.monotonic() - t0, commit,
                            str(exc)[-300:])
                    bad += 1
                    continue
                ids = list(ref.defects[name].ids)
                extra = moved(report, ids, clean)
                missed = [rid for rid in ids if report.requirements[rid.partition(":")[0]].status not in DETECTED]
                verdict = "ok" if not extra and not missed else "MOVED" if extra else "missed"
                print(f"  {name:<44} {verdict:<6} {time.monotonic() - t0:5.1f}s", flush=True)
                _record(args.record, ref.key, name, verdict.lower(), extra, missed, time.monotonic() - t0, commit)
                for rid, what in sorted(extra.items()):
                    print(f"      {rid}: {what[:300]}", flush=True)
                for rid in missed:
                    print(f"      declared {rid} not failed", flush=True)
                bad += bool(extra)
    print(f"{bad} defect(s) moved rows they do not own")
    return 1 if bad else 0


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=Path(__file__).parent, check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True, cwd=Path(__file__).parent, check=False).stdout.strip()
    return (out.stdout.strip() or "unknown") + ("+dirty" if dirty else "")


def _record(path: Path | None, reference: str, defect: str, verdict: str, moved_rows: dict[str, str],
            missed: list[str], seconds: float, commit: str, error: str = "") -> None:
    if path is None:
        return
    line = {"reference": reference, "defect": defect, "verdict": verdict, "moved": moved_rows, "missed": missed,
            "seconds": round(seconds, 1), "commit": commit,
            "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    if error:
        line["error"] = error
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def _recorded_ok(path: Path) -> set[tuple[str, str]]:
    """(reference, defect) pairs whose latest line in ``path`` says ok."""
    latest: dict[tuple[str, str], dict[str, object]] = {}
    if path.exists():
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                line = json.loads(raw)
                latest[(line["reference"], line["defect"])] = line
    return {key for key, line in latest.items() if line["verdict"] == "ok"}


if __name__ == "__main__":
    sys.exit(main())
