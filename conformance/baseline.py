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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class Comparison:
    regressions: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, expected, got, reason
    stale: list[tuple[str, str, str, str]] = field(default_factory=list)
    known: list[tuple[str, str, str]] = field(default_factory=list)  # id, status, reason

    @property
    def ok(self) -> bool:
        return not self.regressions and not self.stale


def load_baseline(path: Path, registry: Registry, family: str) -> dict[str, Expected]:
    """Read and validate a baseline file for ``family``."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BaselineError(f"baseline {path}: cannot read: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BaselineError(f"baseline {path}: expected a mapping of requirement id to {{status, reason}}")
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
    return out


def compare(report: Report, baseline: Mapping[str, Expected]) -> Comparison:
    """Compare a finished report's rows with the baseline (rows absent from it are expected to pass)."""
    result = Comparison()
    for rid, got in report.statuses().items():
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


def render_baseline(report: Report) -> str:
    """A baseline file expecting exactly the report's results (what ``--write-baseline`` writes)."""
    lines = ["# Expected results: rows absent from this file are expected to pass.",
             "# Order: pass > na > partial > not_measured > fail. Each entry keeps the reason it was accepted;",
             "# replace the run's note with your own reason where it helps."]
    for rid, row in report.requirements.items():
        if row.status == PASS:
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
