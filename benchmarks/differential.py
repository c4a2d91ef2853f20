"""Benchmark (a property, too slow for CI in full): every named defect moves only its own rows.

For each reference (the reference CLI, the scripted agent, the reference agentd) it runs the whole family
once clean and once per named defect, and lists every row outside the defect's declared ids whose status
differs from the clean run (DESIGN.md §2.11: a defect moves only its own rows), and every declared id the
defect did not fail. CI runs a sample of it (``tests/test_differential.py``). Usage::

    python -m benchmarks.differential [--reference core agentd cli] [--defect NAME ...] [--jobs 2]
                                      [--record FILE [--skip-recorded]]

``--group N`` screens faster: up to N defects naming rows of different areas run together in one
whole-family run, and a group that moves a row none of its members owns (or leaves a member's id unfailed)
is run again one defect at a time. Grouping can hide a move (one member's blocked row masking another's
change), so the default, and a final pass, run each defect alone.

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

from tests.killmatrix import DETECTED, REFERENCES, Reference, batches, moved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", nargs="+", choices=[r.key for r in REFERENCES], default=["core", "agentd", "cli"])
    ap.add_argument("--defect", nargs="+", help="only these defects")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--group", type=int, default=1, metavar="N",
                    help="screen up to N defects of different areas in one whole-family run; a group that moves "
                         "a row outside its members' ids is run again one defect at a time (default 1: each alone)")
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
            groups = batches(ref, names, args.group) if args.group > 1 else [(n,) for n in names]
            for group in groups:
                bad += _run_group(ref, group, Path(tmp), clean, args, commit)
    print(f"{bad} defect(s) moved rows they do not own")
    return 1 if bad else 0


def _run_group(ref: Reference, group: tuple[str, ...], tmp: Path, clean: dict[str, str], args: argparse.Namespace,
               commit: str) -> int:
    """Run ``group``'s defects together on the whole family; print and record each member's verdict. A group
    that moved a row none of its members owns, or missed a declared id, is run again one member at a time,
    so every "MOVED" is one defect's own. Returns how many defects moved rows they do not own."""
    t0 = time.monotonic()
    label = "+".join(group)
    try:
        report = ref.run(tmp / label[:80], defects=group, extra=["--jobs", str(args.jobs)])
    except (AssertionError, subprocess.SubprocessError) as exc:
        if len(group) > 1:
            return sum(_run_group(ref, (name,), tmp, clean, args, commit) for name in group)
        print(f"  {label:<44} ERROR  {time.monotonic() - t0:5.1f}s: {str(exc)[-300:]}", flush=True)
        _record(args.record, ref.key, label, "error", {}, [], time.monotonic() - t0, commit, str(exc)[-300:])
        return 1
    ids = [rid for name in group for rid in ref.defects[name].ids]
    extra = moved(report, ids, clean)
    missed = {name: [rid for rid in ref.defects[name].ids
                     if report.requirements[rid.partition(":")[0]].status not in DETECTED] for name in group}
    if len(group) > 1 and (extra or any(missed.values())):
        return sum(_run_group(ref, (name,), tmp, clean, args, commit) for name in group)
    seconds = time.monotonic() - t0
    for name in group:
        verdict = "ok" if not extra and not missed[name] else "MOVED" if extra else "missed"
        together = f" (with {len(group) - 1} other{'s' if len(group) > 2 else ''})" if len(group) > 1 else ""
        print(f"  {name:<44} {verdict:<6} {seconds:5.1f}s{together}", flush=True)
        _record(args.record, ref.key, name, verdict.lower(), extra, missed[name], seconds, commit,
                together=list(group) if len(group) > 1 else None)
        for rid, what in sorted(extra.items()):
            print(f"      {rid}: {what[:300]}", flush=True)
        for rid in missed[name]:
            print(f"      declared {rid} not failed", flush=True)
    return int(bool(extra))


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=Path(__file__).parent, check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True, cwd=Path(__file__).parent, check=False).stdout.strip()
    return (out.stdout.strip() or "unknown") + ("+dirty" if dirty else "")


def _record(path: Path | None, reference: str, defect: str, verdict: str, moved_rows: dict[str, str],
            missed: list[str], seconds: float, commit: str, error: str = "",
            together: list[str] | None = None) -> None:
    if path is None:
        return
    line = {"reference": reference, "defect": defect, "verdict": verdict, "moved": moved_rows, "missed": missed,
            "seconds": round(seconds, 1), "commit": commit,
            "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    if error:
        line["error"] = error
    if together:
        line["together"] = together
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
