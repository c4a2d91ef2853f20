"""The one path from a run's outcomes to its report folder.

::

    outcomes ──▶ verdicts ──────────▶ rollup ─────────▶ report ─────────────▶ files
                 verdict.verdicts_for  verdict.rollup    report.build_report   report.write_report

:func:`conclude` is that path as one call. The plugin makes it once, at session end, with every
outcome of the run (``conformance.plugin.session``); the command's pre-flight makes it with none, every
row ``not_measured`` naming why. The rest take the pieces from the rollup on: a rerun's merge
(``conformance.report.merge``) rolls the merged statuses up again and rewrites the readable files,
the blank template rolls up a registry with nothing measured, ``report render`` re-renders a saved
report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from conformance.evidence import SecretSet
from conformance.outcome import Outcome
from conformance.registry import Registry
from conformance.report import Report, ReportWriteError, RunInfo, build_report, write_report
from conformance.report.evidence_codes import codes_in_evidence
from conformance.report.inputs import segment_for
from conformance.report.write import redact_outcomes
from conformance.verdict import GroupSummary, Verdict, rollup, verdicts_for


def summarise(registry: Registry, family: str, verdicts: Mapping[str, Verdict],
              interrupted: bool = False) -> dict[str, GroupSummary]:
    """The rollup of ``verdicts``: per tier or level, the counts and whether it is satisfied (never, for a
    run that was stopped)."""
    return rollup(registry, family, {rid: v.status for rid, v in verdicts.items()}, interrupted)


def conclude(out_dir: Path, registry: Registry, family: str, outcomes: Iterable[Outcome], run: RunInfo,
             secrets: SecretSet | None = None, *, breakdown: Mapping[str, Mapping[str, Any]] | None = None,
             error_codes: Mapping[str, str] | None = None, scope: Iterable[str] | None = None,
             scope_note: str = "", provided: Iterable[str] | None = None, interrupted: str | None = None,
             inapplicable: str | None = None) -> Report:
    """Judge ``outcomes`` and write the report folder ``out_dir``; returns the report as written.

    ``scope`` (None: every row) and ``scope_note`` say which rows the run selected; ``provided`` which
    registry needs its target gives (None: all of them); ``interrupted`` the signal that stopped the run
    before it finished, if one did (its unfinished rows are "interrupted", it claims nothing and it has
    no COMPLIANCE.md); ``inapplicable`` why the family does not apply to the target at all (every row na,
    :func:`~conformance.verdict.verdicts_for`). Raises :class:`ReportWriteError` when the report cannot be
    built or written: the run must then not be taken as a pass.
    """
    # Judged as written: the verdicts re-derive from outcomes.jsonl (report verify), which is redacted.
    outs = redact_outcomes(outcomes, secrets or SecretSet())
    verdicts = verdicts_for(registry, family, outs, breakdown, scope=scope, out_of_scope_note=scope_note,
                            provided=provided, interrupted=interrupted, inapplicable=inapplicable)
    inputs = segment_for([r.id for r in registry.select(family=family)], scope, scope_note, provided, breakdown,
                         interrupted, inapplicable)
    summary = summarise(registry, family, verdicts, interrupted is not None)
    run.interrupted = interrupted
    codes = registry.families[family].breakdowns.get("error_codes") or []
    if codes:
        # The table says what the evidence shows, whichever check saw it: the checks' own notes first.
        error_codes = {**codes_in_evidence(out_dir, codes), **(error_codes or {})}
    try:
        report = build_report(registry, family, verdicts, summary, run, breakdown, error_codes)
    except (ValueError, KeyError) as exc:
        raise ReportWriteError(f"cannot write the report to {out_dir}: {exc}") from exc
    return write_report(out_dir, report, registry, outs, secrets, inputs=[inputs])
