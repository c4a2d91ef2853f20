"""Merging a rerun into an earlier report (``--rerun-failed``).

A rerun measures only the rows an earlier report left short of ``pass``/``na``. The merged report
keeps the earlier report's rows that were not rerun (their evidence copied along, so the folder
stands alone), takes the rerun's rows, rolls the merged statuses up again (the pipeline's rollup and
claims), and says in its identity block that it is a merge and of what.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterable
from pathlib import Path

from conformance.interrupts import unfinished
from conformance.outcome import NA, PASS, Outcome
from conformance.registry import Registry
from conformance.report.build import apply_claims
from conformance.report.inputs import VERDICT_INPUTS, InputsError, read_inputs, render_inputs
from conformance.report.model import REPORT_FILE, Merged, Report, ReportError, load_report
from conformance.report.write import OUTCOMES_FILE, render_outcomes, write_readable
from conformance.verdict import rollup

DONE = (PASS, NA)


def latest_report(root: Path) -> Path | None:
    """The newest report folder under ``root`` (``reports/<target>/``) that holds a finished report."""
    if not root.is_dir():
        return None
    done = [p for p in root.iterdir() if (p / REPORT_FILE).is_file()]
    return max(done, key=lambda p: (p / REPORT_FILE).stat().st_mtime) if done else None


def rows_to_rerun(report: Report) -> list[str]:
    """The ids an earlier report did not settle (anything but pass and na)."""
    return [rid for rid, e in report.requirements.items() if e.status not in DONE]


def merge_into(new_dir: Path, previous_dir: Path, rerun: Iterable[str], registry: Registry) -> Report:
    """Rewrite ``new_dir``'s report as the merge of ``previous_dir``'s and the rerun of ``rerun``."""
    rerun = set(rerun)
    prev = load_report(previous_dir, registry)
    new = load_report(new_dir, registry)
    family = new.family
    if prev.family != family:
        raise ReportError(f"{previous_dir} is a {prev.family} report, not {family}")
    for rid, entry in prev.requirements.items():
        if rid in rerun or rid not in new.requirements:
            continue
        new.requirements[rid] = entry
        for ev in entry.evidence or []:
            src, dst = previous_dir / ev, new_dir / ev
            if src.is_file() and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    if "A2ACLI_DEFAULT_001" not in rerun and prev.default_001_breakdown is not None:
        new.default_001_breakdown = prev.default_001_breakdown
    for code, row in (prev.error_codes or {}).items():
        mine = (new.error_codes or {}).get(code)
        if new.error_codes is not None and mine is not None and not mine.emitted and row.emitted:
            new.error_codes[code] = row
    carried = [rid for rid in prev.requirements if rid not in rerun and rid in new.requirements]
    # An earlier stopped run's unfinished rows, when some are carried over (a rerun narrowed by --only),
    # keep the merge incomplete: it says so and claims nothing. Rerun, they leave a complete report.
    left = prev.identity.interrupted if any(unfinished(prev.requirements[r].status, prev.requirements[r].note)
                                            for r in carried) else None
    new.identity.interrupted = new.identity.interrupted or left
    # The pipeline from the rollup on (conformance.pipeline): the merged rows' statuses, rolled up again.
    summary = rollup(registry, family, new.statuses(), bool(new.identity.interrupted))
    new.summary = summary
    apply_claims(new.identity, summary)
    new.identity.merged = Merged(source=str(previous_dir.resolve()), rerun=sorted(rerun),
                                 note="rows not rerun are carried over from the earlier report, with their evidence")
    write_readable(new_dir, new, registry)
    _carry_judgement(new_dir, previous_dir, rerun, carried, left is not None)
    return new


def _carry_judgement(new_dir: Path, previous_dir: Path, rerun: set[str], carried: list[str],
                     still_stopped: bool) -> None:
    """The merged folder's outcomes.jsonl and verdict inputs: the rerun's for the rerun rows, the earlier
    report's for the rows carried over — so every row still re-derives from the folder alone. The earlier
    run's signal stays on its rows only while some of them are unfinished (``still_stopped``); its finished
    rows judge the same either way."""
    keep = set(carried)
    outs = [o for o in _outcomes(new_dir) if o.requirement not in keep]
    outs += [o for o in _outcomes(previous_dir) if o.requirement in keep]
    (new_dir / OUTCOMES_FILE).write_text(render_outcomes(outs), encoding="utf-8")
    try:
        earlier = [s.only(keep) for s in read_inputs(previous_dir)]
        segments = [s.only(rerun) for s in read_inputs(new_dir)] + [
            dataclasses.replace(s, interrupted=s.interrupted if still_stopped else None) for s in earlier]
    except InputsError:  # an earlier report from before the inputs were kept: its rows cannot be re-derived
        (new_dir / VERDICT_INPUTS).unlink(missing_ok=True)
        return
    (new_dir / VERDICT_INPUTS).write_text(render_inputs([s for s in segments if s.rows]), encoding="utf-8")


def _outcomes(folder: Path) -> list[Outcome]:
    try:
        lines = (folder / OUTCOMES_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [Outcome.from_dict(json.loads(line)) for line in lines if line.strip()]
