"""Build the compliance report (a plain dict in the template's shape) and render it as YAML."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance import __version__
from conformance.outcome import NOT_MEASURED, PASS
from conformance.registry import Registry
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
    adapter: dict[str, Any] | None = None
    started: str | None = None
    finished: str | None = None
    command: str | None = None
    scope: str | None = None
    environment: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _placeholder(value: Any, text: str) -> Any:
    return text if value in (None, "") else value


def claims(family: str, summary: Mapping[str, GroupSummary]) -> dict[str, Any]:
    """What a report claims from its rollup: the highest tier satisfied (a2a-cli), or the levels satisfied."""
    if family == "a2acli":
        return {"tier_claimed": tier_claimed(summary)}
    return {"levels_satisfied": [g.split("_", 1)[1] for g, s in summary.items() if s.satisfied]}


def summary_block(summary: Mapping[str, GroupSummary]) -> dict[str, Any]:
    """The report's ``summary:`` mapping."""
    return {g: s.to_dict() for g, s in summary.items()}


def _identity(registry: Registry, family: str, run: RunInfo | None,
              summary: Mapping[str, GroupSummary]) -> dict[str, Any]:
    info = registry.families[family]
    blank = run is None
    r = run or RunInfo()
    today = _dt.date.today().isoformat()
    if family == "a2acli":
        ident: dict[str, Any] = {
            "tool": _placeholder(r.tool, "<tool-name>"),
            "tool_version": _placeholder(r.tool_version, "<x.y.z>" if blank else "unknown"),
            "language": _placeholder(r.language, "<Go | Rust | Python | ...>" if blank else "unknown"),
            "repository": _placeholder(r.repository, "<url>" if blank else "unknown"),
            "maintainer": _placeholder(r.maintainer, "<name or org>" if blank else "unknown"),
            "report_date": "<YYYY-MM-DD>" if blank else today,
            "spec_version": info.spec_version or SPEC_VERSION,
            "spec_revision": "<YYYY-MM-DD>" if blank else (info.spec_revision or SPEC_REVISION),
            "a2a_versions": ["1.0"],
            "agent_tested": _placeholder(r.agent_tested, "<name or URL>"),
            "agent_tck_conformant": r.agent_tck_conformant,
            "transports_covered": list(r.transports_covered),
            "tier_claimed": "<1 | 2 | 3>" if blank else claims(family, summary)["tier_claimed"],
        }
    else:
        ident = {
            "family": family,
            "specification": info.title,
            "source": info.source,
            "agent_tested": _placeholder(r.agent_tested, "<name or URL>"),
            "report_date": "<YYYY-MM-DD>" if blank else today,
            "a2a_versions": ["1.0"],
            "transports_covered": list(r.transports_covered),
            "levels_satisfied": [] if blank else claims(family, summary)["levels_satisfied"],
        }
    if not blank:
        ident["harness"] = {"name": "agentd-conformance", "version": __version__}
        ident["target"] = r.target
        if r.environment:
            ident["environment"] = r.environment
        ident["adapter_used"] = r.adapter is not None
        if r.adapter is not None:
            ident["adapter"] = dict(r.adapter)
        run_block = {k: v for k, v in (("started", r.started), ("finished", r.finished),
                                         ("command", r.command), ("scope", r.scope)) if v}
        if run_block:
            ident["run"] = run_block
        ident.update(r.extra)
    return ident


def _cell(value: Any) -> bool | None:
    return None if value is None else bool(value)


def build_report(registry: Registry, family: str, verdicts: Mapping[str, Verdict] | None,
                 summary: Mapping[str, GroupSummary], run: RunInfo | None = None,
                 breakdown: Mapping[str, Mapping[str, Any]] | None = None,
                 error_codes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The report as a dict, from the verdicts and their rollup (``summary``, computed by the pipeline:
    ``conformance.pipeline``). ``verdicts=None`` builds the blank template."""
    blank = verdicts is None
    reqs = registry.select(family=family)
    report: dict[str, Any] = {"report": _identity(registry, family, run, summary)}
    report["summary"] = summary_block(summary)
    requirements: dict[str, Any] = {}
    for r in reqs:
        entry: dict[str, Any] = {}
        if r.tier is not None:
            entry["tier"] = r.tier
        else:
            entry["level"] = r.level
        entry["area"] = r.area
        entry["spec"] = r.spec
        entry["requirement"] = r.summary
        if r.conditional:
            entry["condition"] = r.condition
        if verdicts is None:
            entry["status"] = NOT_MEASURED
            entry["note"] = NOTE_REQUIRED
            entry["evidence"] = None
        else:
            v = verdicts[r.id]
            entry["status"] = v.status
            entry["note"] = v.note if v.status != PASS else (v.note or None)
            entry["evidence"] = list(v.evidence) or None
            if v.transports:
                entry["transports"] = dict(v.transports)
            if v.parts:
                entry["parts"] = dict(v.parts)
        requirements[r.id] = entry
    report["requirements"] = requirements
    info = registry.families[family]
    rows = info.breakdowns.get("default_001") or {}
    if rows:
        bd = breakdown or {}
        # A row no check could measure (or measured only in part) is null — "not measured", never "no".
        report["default_001_breakdown"] = {
            key: {"shipped": False if blank else _cell(bd.get(key, {}).get("shipped")),
                  "overridable": False if blank else _cell(bd.get(key, {}).get("overridable")),
                  "note": bd.get(key, {}).get("note") or (None if blank or key in bd else "not measured")}
            for key in rows
        }
        if blank:
            for key, note in (info.breakdowns.get("default_001_notes") or {}).items():
                report["default_001_breakdown"][key]["note"] = note
    codes = info.breakdowns.get("error_codes") or []
    if codes:
        seen = error_codes or {}
        report["error_codes"] = {c: {"emitted": c in seen, "note": seen.get(c)} for c in codes}
    report["attestation"] = {
        "reported_by": "<name, role>" if blank else f"agentd-conformance {__version__} (automated)",
        "date": "<YYYY-MM-DD>" if blank else _dt.date.today().isoformat(),
        "statement": "The tier claimed reflects the evidence recorded above.",
    }
    return report


_HEADER = """\
# {title} — compliance report{kind}
#
# Generated by agentd-conformance from its requirement registry ({source}).
# Status vocabulary (closed): pass | partial | fail | not_measured | na | withdrawn.
# Every status other than pass carries a note. Fail-closed: a missing id, an
# unknown status, or an all-not_measured tier never counts as satisfied; only
# pass and a genuine na (on a conditional requirement) satisfy.
"""


def render_report(report: dict[str, Any], registry: Registry, family: str, blank: bool = False) -> str:
    """YAML text of ``report`` in the template's layout."""
    info = registry.families[family]
    out = [_HEADER.format(title=info.title, kind=" (blank template)" if blank else "", source=info.source)]
    out.append("report:")
    out.extend(block(report["report"], 2))
    out.append("")
    out.append("summary:")
    for g, row in report["summary"].items():
        out.append(f"  {g}: {flow(row)}")
    out.append("")
    out.append("requirements:")
    group = None
    for rid, entry in report["requirements"].items():
        g = f"tier {entry['tier']}" if "tier" in entry else f"level {entry['level']}"
        if g != group:
            out.append("")
            out.append(f"  # ── {g} ──")
            group = g
        out.append(f"  {rid}:")
        out.extend(block(entry, 4))
    for key in ("default_001_breakdown", "error_codes"):
        if key in report:
            out.append("")
            out.append(f"{key}:")
            width = max(len(k) for k in report[key]) + 1
            for k, row in report[key].items():
                out.append(f"  {(k + ':').ljust(width)} {flow(row)}")
    out.append("")
    out.append("attestation:")
    out.extend(block(report["attestation"], 2))
    return "\n".join(out) + "\n"


def blank_template(registry: Registry, family: str = "a2acli") -> str:
    """The blank compliance-report YAML for ``family``, generated from the registry: every row not measured."""
    summary = rollup(registry, family, {r.id: NOT_MEASURED for r in registry.select(family=family)})
    return render_report(build_report(registry, family, None, summary), registry, family, blank=True)


__all__ = ["RunInfo", "blank_template", "build_report", "claims", "render_report", "scalar", "summary_block"]
