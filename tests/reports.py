"""Reports for the harness's own tests, built the way a run builds them (``build_report``) from chosen
statuses: one helper, so no test writes a report's shape by hand."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conformance.outcome import PASS
from conformance.pipeline import summarise
from conformance.registry import default_registry
from conformance.report import Report, RunInfo, build_report
from conformance.verdict import Verdict, rollup, verdicts_for

REG = default_registry()


def report_of(statuses: Mapping[str, str], family: str = "a2acli", *, only_these: bool = True,
              note: Callable[[str], str | None] | None = None,
              evidence: Callable[[str], tuple[str, ...]] | None = None) -> Report:
    """A report whose rows ``statuses`` names hold those statuses (with ``note(id)`` and ``evidence(id)``);
    with ``only_these`` the report holds just those rows (as a hand-trimmed file would), else every row of
    the family, the others not measured."""
    verdicts = verdicts_for(REG, family, [])
    for rid, st in statuses.items():
        text = note(rid) if note else (None if st == PASS else f"why {rid}")
        verdicts[rid] = Verdict(rid, st, text, evidence=evidence(rid) if evidence else ())
    report = build_report(REG, family, verdicts, summarise(REG, family, verdicts), RunInfo(target="t"))
    if only_these:
        report.requirements = {rid: e for rid, e in report.requirements.items() if rid in statuses}
        report.summary = rollup(REG, family, report.statuses())
    return report
