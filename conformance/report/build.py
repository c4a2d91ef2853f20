"""Build the compliance report (:class:`~conformance.report.model.Report`) and render it as YAML."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance import __version__
from conformance.outcome import NOT_MEASURED, PASS
from conformance.provenance import harness_commit
from conformance.registry import FamilyInfo, Registry, Requirement
from conformance.report.model import (
    AdapterInfo,
    Attestation,
    BreakdownRow,
    BundledTarget,
    ErrorCodeRow,
    Harness,
    Identity,
    Report,
    RequirementResult,
    RunTimes,
)
from conformance.report.yamlout import block, flow, scalar
from conformance.verdict import GroupSummary, Verdict, rollup, tier_claimed

SPEC_VERSION = "0.2"
SPEC_REVISION = "2026-08-17"
NOTE_REQUIRED = "<REQUIRED unless status is pass>"


@dataclass
class RunInfo:
    """What the run knows about itself, for the report's identity block."""

    target: str = "unknown"
    tool: str | None = None
    tool_version: str | None = None
    language: str | None = None
    repository: str | None = None
    maintainer: str | None = None
    agent_tested: str | None = None
    agent_tck_conformant: str = "unknown"
    transports_covered: list[str] = field(default_factory=list)
    #: The adapter's identity: the fields of :class:`~conformance.report.model.AdapterInfo`.
    adapter: dict[str, Any] | None = None
    #: The bundled target: the fields of :class:`~conformance.report.model.BundledTarget`.
    bundled_target: dict[str, Any] | None = None
    caveats: list[str] = field(default_factory=list)
    env_given: list[str] = field(default_factory=list)
    started: str | None = None
    finished: str | None = None
    command: str | None = None
    scope: str | None = None
    #: How many test processes the run used, and why (``conformance.command.run.workers``).
    jobs: str | None = None
    environment: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: The signal that stopped the run before it finished (``conformance.interrupts``), if one did.
    interrupted: str | None = None


def _placeholder(value: Any, text: str) -> Any:
    return text if value in (None, "") else value


def claims(family: str, summary: Mapping[str, GroupSummary]) -> dict[str, Any]:
    """What a report claims from its rollup: the highest tier satisfied (a2a-cli), or the levels satisfied."""
    if family == "a2acli":
        return {"tier_claimed": tier_claimed(summary)}
    return {"levels_satisfied": [g.split("_", 1)[1] for g, s in summary.items() if s.satisfied]}


def apply_claims(ident: Identity, summary: Mapping[str, GroupSummary]) -> None:
    """Set ``ident``'s claim (tier claimed, or levels satisfied) from ``summary``."""
    for key, value in claims(ident.family, summary).items():
        setattr(ident, key, value)


def _identity(registry: Registry, family: str, run: RunInfo | None,
              summary: Mapping[str, GroupSummary]) -> Identity:
    info = registry.families[family]
    blank = run is None
    r = run or RunInfo()
    today = _dt.date.today().isoformat()
    ident = Identity(family=family, report_date="<YYYY-MM-DD>" if blank else today,
                     agent_tested=_placeholder(r.agent_tested, "<name or URL>"), a2a_versions=["1.0"],
                     transports_covered=list(r.transports_covered))
    if family == "a2acli":
        ident.tool = _placeholder(r.tool, "<tool-name>")
        ident.tool_version = _placeholder(r.tool_version, "<x.y.z>" if blank else "unknown")
        ident.language = _placeholder(r.language, "<Go | Rust | Python | ...>" if blank else "unknown")
        ident.repository = _placeholder(r.repository, "<url>" if blank else "unknown")
        ident.maintainer = _placeholder(r.maintainer, "<name or org>" if blank else "unknown")
        ident.spec_version = info.spec_version or SPEC_VERSION
        ident.spec_revision = "<YYYY-MM-DD>" if blank else (info.spec_revision or SPEC_REVISION)
        ident.agent_tck_conformant = r.agent_tck_conformant
        ident.tier_claimed = "<1 | 2 | 3>" if blank else None
    else:
        ident.specification, ident.source = info.title, info.source
    if not blank:
        apply_claims(ident, summary)
        ident.interrupted = r.interrupted
        ident.harness = Harness("agentd-conformance", __version__, harness_commit())
        ident.judged_against = list(info.judged_against)
        ident.target = r.target
        ident.bundled_target = BundledTarget(**r.bundled_target) if r.bundled_target else None
        ident.env_given = sorted(r.env_given)
        ident.environment = r.environment or None
        ident.caveats = list(r.caveats)
        ident.adapter_used = r.adapter is not None
        ident.adapter = AdapterInfo(**r.adapter) if r.adapter is not None else None
        ident.run = RunTimes(started=r.started, finished=r.finished, command=r.command, scope=r.scope,
                             jobs=r.jobs)
        ident.extra = dict(r.extra)
    return ident


def _cell(value: Any) -> bool | None:
    return None if value is None else bool(value)


def requirement_row(req: Requirement, verdict: Verdict | None) -> RequirementResult:
    """One requirement's row: the registry's words and the verdict (None: the blank template's row)."""
    row = RequirementResult(area=req.area, spec=req.spec, requirement=req.summary, status=NOT_MEASURED,
                            note=NOTE_REQUIRED, evidence=None, tier=req.tier,
                            level=req.level if req.tier is None else None,
                            condition=req.condition if req.conditional else None)
    if verdict is not None:
        row.status = verdict.status
        row.note = verdict.note if verdict.status != PASS else (verdict.note or None)
        row.evidence = list(verdict.evidence) or None
        row.transports = dict(verdict.transports)
        row.parts = dict(verdict.parts)
    return row


def breakdown_table(info: FamilyInfo, breakdown: Mapping[str, Mapping[str, Any]] | None,
                    blank: bool = False) -> dict[str, BreakdownRow] | None:
    """The DEFAULT_001 table from what its checks recorded (None for a family without one)."""
    rows = info.breakdowns.get("default_001") or {}
    if not rows:
        return None
    bd = breakdown or {}
    # A row no check could measure (or measured only in part) is null — "not measured", never "no".
    table = {key: BreakdownRow(shipped=False if blank else _cell(bd.get(key, {}).get("shipped")),
                               overridable=False if blank else _cell(bd.get(key, {}).get("overridable")),
                               note=bd.get(key, {}).get("note") or (None if blank or key in bd else "not measured"))
             for key in rows}
    if blank:
        for key, note in (info.breakdowns.get("default_001_notes") or {}).items():
            table[key].note = note
    return table


def build_report(registry: Registry, family: str, verdicts: Mapping[str, Verdict] | None,
                 summary: Mapping[str, GroupSummary], run: RunInfo | None = None,
                 breakdown: Mapping[str, Mapping[str, Any]] | None = None,
                 error_codes: Mapping[str, str] | None = None) -> Report:
    """The report, from the verdicts and their rollup (``summary``, computed by the pipeline:
    ``conformance.pipeline``). ``verdicts=None`` builds the blank template."""
    blank = verdicts is None
    requirements = {r.id: requirement_row(r, None if verdicts is None else verdicts[r.id])
                    for r in registry.select(family=family)}
    info = registry.families[family]
    breakdown_rows = breakdown_table(info, breakdown, blank)
    codes_rows: dict[str, ErrorCodeRow] | None = None
    codes = info.breakdowns.get("error_codes") or []
    if codes:
        seen = error_codes or {}
        codes_rows = {c: ErrorCodeRow(emitted=c in seen, note=seen.get(c)) for c in codes}
    attestation = Attestation(
        reported_by="<name, role>" if blank else f"agentd-conformance {__version__} (automated)",
        date="<YYYY-MM-DD>" if blank else _dt.date.today().isoformat(),
        statement="The tier claimed reflects the evidence recorded above.")
    return Report(identity=_identity(registry, family, run, summary), summary=dict(summary),
                  requirements=requirements, attestation=attestation, default_001_breakdown=breakdown_rows,
                  error_codes=codes_rows)


_HEADER = """\
# {title} — compliance report{kind}
#
# Generated by agentd-conformance from its requirement registry ({source}).
# Status vocabulary (closed): pass | partial | fail | not_measured | na | withdrawn.
# Every status other than pass carries a note. Fail-closed: a missing id, an
# unknown status, or an all-not_measured tier never counts as satisfied; only
# pass and a genuine na (on a conditional requirement) satisfy.
"""


def render_report(report: Report, registry: Registry) -> str:
    """YAML text of ``report`` in the template's layout (validated against the template's shape first)."""
    report.validate(registry)
    data = report.to_dict()
    info = registry.families[report.family]
    out = [_HEADER.format(title=info.title, kind=" (blank template)" if report.blank else "", source=info.source)]
    out.append("report:")
    out.extend(block(data["report"], 2))
    out.append("")
    out.append("summary:")
    for g, row in data["summary"].items():
        out.append(f"  {g}: {flow(row)}")
    out.append("")
    out.append("requirements:")
    group = None
    for rid, entry in data["requirements"].items():
        g = f"tier {entry['tier']}" if "tier" in entry else f"level {entry['level']}"
        if g != group:
            out.append("")
            out.append(f"  # ── {g} ──")
            group = g
        out.append(f"  {rid}:")
        out.extend(block(entry, 4))
    for key in ("default_001_breakdown", "error_codes"):
        if key in data:
            out.append("")
            out.append(f"{key}:")
            width = max(len(k) for k in data[key]) + 1
            for k, row in data[key].items():
                out.append(f"  {(k + ':').ljust(width)} {flow(row)}")
    out.append("")
    out.append("attestation:")
    out.extend(block(data["attestation"], 2))
    return "\n".join(out) + "\n"


def blank_template(registry: Registry, family: str = "a2acli") -> str:
    """The blank compliance-report YAML for ``family``, generated from the registry: every row not measured."""
    summary = rollup(registry, family, {r.id: NOT_MEASURED for r in registry.select(family=family)})
    return render_report(build_report(registry, family, None, summary), registry)


__all__ = ["RunInfo", "apply_claims", "blank_template", "breakdown_table", "build_report", "claims", "render_report",
           "requirement_row", "scalar"]
