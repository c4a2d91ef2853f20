"""What a report's verdicts were judged from, besides the outcomes: ``verdict-inputs.json``.

The verdict rules (``conformance.verdict.verdicts_for``) read, beside ``outcomes.jsonl``, which rows the
run selected (``--only``, ``--tier``, a rerun), which registry needs its target provided, and the
DEFAULT_001 breakdown its checks recorded, and, for a run that was stopped, the signal that stopped it
(its unfinished rows are judged "interrupted"). The report folder keeps them, so that ``report verify``
re-derives every verdict without rerunning anything. A ``--rerun-failed`` merge holds two kinds of
rows — the rerun's and the earlier report's — each judged from its own inputs: one *segment* each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

VERDICT_INPUTS = "verdict-inputs.json"


class InputsError(ValueError):
    """``verdict-inputs.json`` is missing or malformed."""


@dataclass
class Segment:
    """Rows judged together: ``verdicts_for(outcomes, breakdown, scope, scope_note, provided)``."""

    rows: list[str]
    scope: list[str] | None = None
    scope_note: str = ""
    provided: list[str] | None = None
    breakdown: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The signal that stopped the run these rows come from (None: it finished).
    interrupted: str | None = None
    #: Why the family does not apply to the target at all (every row na; None: it does).
    inapplicable: str | None = None

    def only(self, rows: Iterable[str]) -> Segment:
        keep = set(rows)
        return Segment([r for r in self.rows if r in keep], self.scope, self.scope_note, self.provided,
                       self.breakdown, self.interrupted, self.inapplicable)


def segment_for(rows: Iterable[str], scope: Iterable[str] | None, scope_note: str, provided: Iterable[str] | None,
                breakdown: Mapping[str, Mapping[str, Any]] | None, interrupted: str | None = None,
                inapplicable: str | None = None) -> Segment:
    return Segment(list(rows), None if scope is None else list(scope), scope_note,
                   None if provided is None else sorted(provided),
                   {k: dict(v) for k, v in (breakdown or {}).items()}, interrupted, inapplicable)


def selected_rows(segments: Iterable[Segment]) -> set[str] | None:
    """The rows the run (or, for a merge, the runs) selected; None when every row was."""
    chosen: set[str] = set()
    every = True
    for seg in segments:
        scope = None if seg.scope is None else set(seg.scope)
        for rid in seg.rows:
            if scope is None or rid in scope:
                chosen.add(rid)
            else:
                every = False
    return None if every else chosen


def render_inputs(segments: Iterable[Segment]) -> str:
    docs = [asdict(s) for s in segments]
    for d in docs:
        for key in ("interrupted", "inapplicable"):
            if d[key] is None:
                del d[key]  # a finished run's inputs read as they always did
    return json.dumps({"segments": docs}, indent=1, sort_keys=True) + "\n"


def read_inputs(folder: Path) -> list[Segment]:
    path = folder / VERDICT_INPUTS
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [Segment(rows=list(s["rows"]), scope=s["scope"], scope_note=str(s["scope_note"]),
                        provided=s["provided"], breakdown=dict(s["breakdown"]),
                        interrupted=_signal(s.get("interrupted")),
                        inapplicable=_text_or_none(s.get("inapplicable"))) for s in doc["segments"]]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise InputsError(f"{VERDICT_INPUTS}: cannot read the verdicts' inputs: {exc}") from exc


def _signal(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"interrupted: expected a signal name or null, got {value!r}")
    return value


def _text_or_none(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"inapplicable must be a string, got {type(value).__name__}")
