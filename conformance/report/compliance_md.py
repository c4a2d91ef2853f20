"""The publishable ``COMPLIANCE.md``: the a2a-cli report form, filled in from a finished report.

It follows the official form's sections and fields (§1 identity, §2 legend, §3 results at a glance
with the five marks, §4–§6 tier tables, §4a the DEFAULT_001 breakdown, §7 test evidence, §8 error
code coverage, §9 attestation). Requirement lines are the registry's summaries (our words; SPEC.md
stays normative). Everything is built from the YAML report alone, so ``agentd-conformance report
render`` rebuilds it from a saved ``compliance-report.yaml`` without rerunning, and the two always
agree row for row.
"""

from __future__ import annotations

from typing import Any

from conformance.registry import Registry
from conformance.report.model import AdapterInfo, BundledTarget, Harness, Report, RunTimes

#: The form's marks, by status word (COMPLIANCE.md §2 / Appendix A.2).
MARK = {"pass": "✅", "partial": "◐", "fail": "❌", "not_measured": "⊘", "na": "—", "withdrawn": "⊗"}
WORD = {"pass": "Pass", "partial": "Partial", "fail": "Fail", "not_measured": "Not measured", "na": "N/A",
        "withdrawn": "Withdrawn"}
TIER_TITLE = {1: "Tier 1 — Core (required)", 2: "Tier 2 — Standard", 3: "Tier 3 — Advanced"}
TIER_SHORT = {1: "Tier 1 — Core", 2: "Tier 2 — Standard", 3: "Tier 3 — Advanced"}
SECTION = {1: 4, 2: 5, 3: 6}
NOTE_LIMIT = 300


def _cell(text: Any) -> str:
    return " ".join(str(text if text is not None else "").split()).replace("|", "\\|")


def _short(text: Any, limit: int = NOTE_LIMIT) -> str:
    s = _cell(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _yes(value: Any) -> str:
    return "yes" if value is True else "no"


def describe_adapter(adapter: AdapterInfo) -> str:
    """One line on the adapter a run went through: its file name, schema, tool and content hash, and the
    rewrites that touched the version check (``-v`` → ``-V`` for a tool whose ``-v`` means something else)."""
    facts = [f"schema {adapter.schema}" if adapter.schema else "", f"tool {adapter.tool}" if adapter.tool else "",
             f"sha256 {adapter.sha256}" if adapter.sha256 else ""]
    line = f"{adapter.file} ({', '.join(f for f in facts if f)})" if any(facts) else adapter.file
    rewrites = adapter.version_check
    if rewrites:
        line += "; the version check asked " + ", ".join(f"`{k}` as `{v}`" for k, v in rewrites.items())
    return line


def describe_harness(harness: Harness) -> str:
    """``agentd-conformance 0.1.0 (commit 1a2b…)``: the harness by version and commit."""
    return f"{harness.name} {harness.version} (commit {harness.commit or 'unknown'})"


def describe_bundled(bundled: BundledTarget) -> str:
    """``the bundled reference-cli, defects: no-message-id`` (or "no defect switched on")."""
    defects = ", ".join(bundled.defects) if bundled.defects else "none switched on"
    return f"the bundled {bundled.name} (defects: {defects})"


def status_cell(status: str) -> str:
    """``✅ Pass`` — the mark and its word, as the form's legend spells them."""
    return f"{MARK.get(status, '?')} {WORD.get(status, status)}"


def render_compliance_md(report: Report, registry: Registry) -> str:
    """The filled COMPLIANCE.md of an a2acli report."""
    ident = report.identity
    info = registry.families["a2acli"]
    claimed = ident.tier_claimed
    harness = ident.harness or Harness("agentd-conformance", "")
    run = ident.run or RunTimes()
    judged = "; ".join(ident.judged_against) or "; ".join(info.judged_against)
    out: list[str] = [f"# {ident.tool or 'tool'} — a2a-cli Compliance Report", "",
                      f"Produced by {describe_harness(harness) if harness.version else harness.name}, "
                      f"an automated black-box harness, from `compliance-report.yaml` (the machine-readable "
                      "form of this report; the two agree row for row).", "",
                      f"**Judged against:** {judged}.", ""]
    if ident.caveats:
        out += ["> **What this machine lacked.** " + " ".join(_cell(c) for c in ident.caveats), ""]
    if ident.adapter_used:
        out += ["> **Measured through an adapter.** The tool's own grammar differs from SPEC.md; an adapter file "
                "translated each invocation, so these results measure the tool *as translated*. See §7.", ""]

    out += ["## 1. Summary", "", "| Field | Value |", "| --- | --- |"]
    fields = (("Tool name", ident.tool), ("Tool version", ident.tool_version),
              ("Implementation language", ident.language), ("Repository", ident.repository),
              ("Maintainer / contact", ident.maintainer), ("Report date", ident.report_date),
              ("Specification version targeted", ident.spec_version or info.spec_version),
              ("Specification revision (Last updated)", ident.spec_revision or info.spec_revision),
              ("**Tier claimed**", f"Tier {claimed}" if claimed else "none"),
              ("A2A protocol version(s)", ", ".join(map(str, ident.a2a_versions)) or "unknown"),
              ("Agent exercised against", ident.agent_tested),
              ("That agent is TCK-conformant?", ident.agent_tck_conformant or "unknown"),
              ("Transports covered", " / ".join(ident.transports_covered) or "none"),
              ("Judged against (revisions)", judged))
    out += [f"| {k} | `{_cell(v if v not in (None, '') else 'unknown')}` |" for k, v in fields]

    out += ["", "## 2. Legend", "", "| Mark | Meaning |", "| --- | --- |",
            "| `✅ Pass` | Implemented, and the harness saw it behave as specified |",
            "| `◐ Partial` | Some separable parts behave as specified, others do not (the note names them) |",
            "| `❌ Fail` | Missing, or seen to behave otherwise than specified |",
            "| `⊘ Not measured` | Applies, but the harness could not provoke or observe it (the note says why). "
            "Not a pass: it blocks a tier |",
            "| `— N/A` | Does not apply to this tool (only where the requirement is conditional). Does not block |",
            "| `⊗ Withdrawn` | Retired by the specification; counted neither way |", ""]

    out += ["## 3. Results at a glance", "",
            "| Tier | Requirements | `✅` | `◐` | `❌` | `⊘` | `—` | Tier satisfied? |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for group, row in report.summary.items():
        tier = int(group.split("_")[1])
        c = row.counts
        out.append(f"| {TIER_SHORT.get(tier, group)} | {row.total} | {c['pass']} | {c['partial']} | "
                   f"{c['fail']} | {c['not_measured']} | {c['na']} | {_yes(row.satisfied)} |")

    reqs = report.requirements
    for tier in sorted({e.tier for e in reqs.values() if e.tier is not None}):
        out += ["", f"## {SECTION.get(tier, tier)}. {TIER_TITLE.get(tier, f'Tier {tier}')}", "",
                "| ID | Requirement | Spec § | Status | Notes |", "| --- | --- | --- | --- | --- |"]
        for rid, e in reqs.items():
            if e.tier != tier:
                continue
            text = _cell(e.requirement)
            if e.condition:
                text = f"*(Conditional — {_cell(e.condition)}.)* {text}"
            note = "" if e.status == "pass" else _short(e.note)
            out.append(f"| `{rid}` | {text} | {_cell(e.spec)} | {status_cell(e.status)} | {note} |")
        if tier == 1 and report.default_001_breakdown is not None:
            labels = info.breakdowns.get("default_001") or {}
            out += ["", "### 4a. `A2ACLI_DEFAULT_001` breakdown", "",
                    "| Default (§6.5) | Shipped? (yes/no) | Overridable by flag? (yes/no) | Notes |",
                    "| --- | --- | --- | --- |"]
            for key, bd in report.default_001_breakdown.items():
                out.append(f"| {_cell(labels.get(key, key))} | {_breakdown_cell(bd.shipped)} | "
                           f"{_breakdown_cell(bd.overridable)} | {_short(bd.note)} |")

    failing = [rid for rid, _ in report.rows("fail", "partial")]
    unmeasured = sum(1 for _ in report.rows("not_measured"))
    gaps = ", ".join(f"`{g}`" for g in failing[:20]) + (f" and {len(failing) - 20} more" if len(failing) > 20 else "")
    caveats = "; ".join(x for x in (f"{len(failing)} failing or partial: {gaps}" if failing else "",
                                    f"{unmeasured} not measured (each row's note says why)" if unmeasured else "")
                        if x) or "none"
    if ident.caveats:
        caveats = "; ".join([*map(_cell, ident.caveats), *([caveats] if caveats != "none" else [])])
    out += ["", "## 7. Test evidence", "",
            f"- **How the tool was exercised:** `{_cell(run.command or 'agentd-conformance cli')}` — every "
            "check runs the tool as a subprocess (isolated HOME and XDG folders) against an A2A agent the harness "
            "runs and scripts on loopback, and judges what the agent recorded and what the tool printed.",
            "- **Results / logs:** `compliance-report.yaml`, `summary.md`, `junit.xml`, `outcomes.jsonl` and "
            "`evidence/<ID>/` beside this file (argv, environment, stdout, stderr, exit codes, wire exchanges; "
            "every secret redacted).",
            f"- **Harness:** {_cell(describe_harness(harness))}; judged against {_cell(judged)}; "
            f"run started {_cell(run.started or 'unknown')}, "
            f"finished {_cell(run.finished or 'unknown')}.",
            f"- **Environment:** {_cell(ident.environment or 'unknown')}; agent: "
            f"{_cell(ident.agent_tested or 'unknown')}.",
            *([f"- **Target:** {_cell(describe_bundled(ident.bundled_target))}."] if ident.bundled_target else []),
            "- **Adapter:** " + (f"yes — {_cell(describe_adapter(ident.adapter))}"
                                 if ident.adapter is not None else "none (the tool was driven in SPEC.md's grammar)"),
            f"- **Known gaps / caveats:** {caveats}."]

    if report.error_codes is not None:
        out += ["", "## 8. Error code coverage", "",
                "Which `A2ACLI_ERR_*` codes (SPEC.md Appendix D) the harness saw the tool emit during this run. "
                "`no` means not seen, which is not proof that the tool cannot emit it.", "",
                "| Code | Emitted (yes/no) | Notes |", "| --- | --- | --- |"]
        for code, ec in report.error_codes.items():
            out.append(f"| `{code}` | {_yes(ec.emitted)} | {_short(ec.note)} |")

    att = report.attestation
    out += ["", "## 9. Attestation", "",
            f"Reported by {_cell(att.reported_by)} on {_cell(att.date)}. "
            f"{_cell(att.statement)}", ""]
    return "\n".join(out)


def _breakdown_cell(value: bool | None) -> str:
    """yes / no, or "not measured" for a value no check could establish (null in the YAML)."""
    return "not measured" if value is None else _yes(value)
