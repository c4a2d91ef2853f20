"""Baselines: expected results that turn a run's exit code into "nothing got worse".

A baseline file is YAML, one entry per requirement id whose expected status is not ``pass``::

    A2ACLI_TASK_POLL_004:
      status: fail
      reason: "we do not fall back to polling yet (issue #12)"

A row absent from the file is expected to ``pass``. Statuses are ordered
``pass > na > partial > not_measured > fail``. Against a finished report:

* a **regression** is a row worse than its baseline;
* a **stale** entry is a row now better than its baseline (the file should be updated);
* a **known gap** is a non-pass row exactly as the baseline expects it.

Regressions and stale entries make the command exit 1; known gaps do not.

A baseline records the rows its run selected (``selected: all``, or the list a ``--tier`` or ``--only``
run selected), and only rows both runs selected are compared: a row one side never ran is neither a
regression nor a stale entry, and the comparison says how many rows it left out. A file without
``selected:`` (written before it existed) selected every row but those its entries say were not run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS
from conformance.registry import Registry
from conformance.report.model import Report

#: Better first.
ORDER = (PASS, NA, PARTIAL, NOT_MEASURED, FAIL)
_RANK = {s: i for i, s in enumerate(ORDER)}


class BaselineError(ValueError):
    """The baseline file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Expected:
    status: str
    reason: str


#: The key of a baseline file that records the rows its run selected.
SELECTED = "selected"
#: The notes the verdict rules give a row the run did not select (``command.run.scope``): an entry of a
#: baseline written before ``selected:`` existed that says this is a row that run never ran.
_NOT_RUN = ("not selected for this run", "not run: this run was limited to tier")


class BaselineFile(dict[str, Expected]):
    """The expected results (id -> :class:`Expected`), and the rows the baseline's run selected (None:
    every row of the family)."""

    def __init__(self, expected: dict[str, Expected], selected: frozenset[str] | None) -> None:
        super().__init__(expected)
        self.selected = selected


@dataclass
class Comparison:
    regressions: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, expected, got, reason
    stale: list[tuple[str, str, str, str]] = field(default_factory=list)
    known: list[tuple[str, str, str]] = field(default_factory=list)  # id, status, reason
    #: Rows left out of the comparison: one of the two runs did not select them.
    outside: int = 0

    @property
    def ok(self) -> bool:
        return not self.regressions and not self.stale


def load_baseline(path: Path, registry: Registry, family: str) -> BaselineFile:
    """Read and validate a baseline file for ``family``."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BaselineError(f"baseline {path}: cannot read: {exc}") from exc
    if data is None:
        return BaselineFile({}, None)
    if not isinstance(data, dict):
        raise BaselineError(f"baseline {path}: expected a mapping of requirement id to {{status, reason}}")
    data = dict(data)
    legacy = SELECTED not in data
    selected = _selected(path, data.pop(SELECTED, "all"), registry, family)
    out: dict[str, Expected] = {}
    for rid, entry in data.items():
        where = f"baseline {path}: {rid}"
        if not isinstance(rid, str) or rid not in registry or registry[rid].family != family:
            raise BaselineError(f"{where}: not a {family} requirement id")
        if not isinstance(entry, dict) or set(entry) - {"status", "reason"}:
            raise BaselineError(f"{where}: expected a mapping with 'status' and 'reason'")
        status, reason = entry.get("status"), entry.get("reason")
        if status not in _RANK:
            raise BaselineError(f"{where}.status: must be one of {', '.join(ORDER)}, got {status!r}")
        if status != PASS and not (isinstance(reason, str) and reason.strip()):
            raise BaselineError(f"{where}.reason: a non-pass expectation needs a reason")
        out[rid] = Expected(status, str(reason or ""))
    if legacy:
        not_run = {rid for rid, e in out.items() if e.status == NOT_MEASURED and e.reason.startswith(_NOT_RUN)}
        if not_run:
            selected = frozenset(r.id for r in registry.select(family=family) if r.id not in not_run)
            out = {rid: e for rid, e in out.items() if rid not in not_run}
    return BaselineFile(out, selected)


def _selected(path: Path, value: Any, registry: Registry, family: str) -> frozenset[str] | None:
    if value == "all":
        return None
    ids = {r.id for r in registry.select(family=family)}
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise BaselineError(f"baseline {path}: {SELECTED}: must be 'all' or a list of requirement ids")
    unknown = [v for v in value if v not in ids]
    if unknown:
        raise BaselineError(f"baseline {path}: {SELECTED}: not {family} requirement id(s): {', '.join(unknown)}")
    return frozenset(value)


def compare(report: Report, baseline: Mapping[str, Expected], selected: Iterable[str] | None = None) -> Comparison:
    """Compare a finished report's rows with the baseline (rows absent from it are expected to pass), on
    the rows both runs selected: ``selected`` (None: every row) for this run, the file's for the baseline."""
    result = Comparison()
    mine = None if selected is None else set(selected)
    theirs = baseline.selected if isinstance(baseline, BaselineFile) else None
    for rid, got in report.statuses().items():
        if (mine is not None and rid not in mine) or (theirs is not None and rid not in theirs):
            result.outside += 1
            continue
        exp = baseline.get(rid, Expected(PASS, ""))
        if got not in _RANK:  # withdrawn or unknown: never silently fine
            if got != exp.status:
                result.regressions.append((rid, exp.status, str(got), exp.reason))
            continue
        if _RANK[got] > _RANK[exp.status]:
            result.regressions.append((rid, exp.status, got, exp.reason))
        elif _RANK[got] < _RANK[exp.status]:
            result.stale.append((rid, exp.status, got, exp.reason))
        elif got != PASS:
            result.known.append((rid, got, exp.reason))
    return result


def render_baseline(report: Report, selected: Iterable[str] | None = None) -> str:
    """A baseline file expecting exactly the report's results on the rows the run ``selected`` (None:
    every row), and recording that selection (what ``--write-baseline`` writes)."""
    chosen = None if selected is None else set(selected)
    lines = ["# Expected results: rows absent from this file are expected to pass.",
             "# Order: pass > na > partial > not_measured > fail. Each entry keeps the reason it was accepted;",
             "# replace the run's note with your own reason where it helps.",
             "# selected: the rows this run measured; only rows both runs selected are compared."]
    rows = [rid for rid in report.requirements if chosen is None or rid in chosen]
    lines.append(f"{SELECTED}: all" if chosen is None else f"{SELECTED}: [{', '.join(rows)}]")
    for rid, row in report.requirements.items():
        if row.status == PASS or rid not in rows:
            continue
        reason = " ".join(str(row.note or row.status).split())[:200]
        lines.append(f"{rid}:")
        lines.append(f"  status: {row.status}")
        lines.append(f"  reason: {yaml.safe_dump(reason, default_style=chr(34), width=10_000).strip()}")
    return "\n".join(lines) + "\n"


def render_comparison(cmp: Comparison, path: Path) -> str:
    """The summary.md section: regressions, stale entries and known gaps, each listed apart."""
    out = ["", f"## Baseline ({path})", ""]
    if cmp.ok:
        out.append("Nothing got worse than the baseline, and no entry is stale.")
    if cmp.outside:
        out += ["", f"{cmp.outside} row(s) were outside the comparison: this run or the baseline's did not select "
                    "them."]
    sections = (("Regressions (worse than the baseline)", [(r, f"expected {e}, got **{g}**", why)
                                                           for r, e, g, why in cmp.regressions]),
                ("Stale entries (better than the baseline: update the file)",
                 [(r, f"expected {e}, got **{g}**", why) for r, e, g, why in cmp.stale]),
                ("Known gaps (as the baseline expects)", [(r, s, why) for r, s, why in cmp.known]))
    for title, rows in sections:
        out += ["", f"### {title}: {len(rows)}"]
        if rows:
            out += ["", "| ID | Result | Baseline reason |", "| --- | --- | --- |"]
            out += [f"| `{r}` | {res} | {why.replace('|', '/')} |" for r, res, why in rows]
    return "\n".join(out) + "\n"
