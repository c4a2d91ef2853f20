"""Lay a report folder out on disk: YAML, summary.md, junit.xml — all redacted."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.evidence import SecretSet, redact_tree
from conformance.interrupts import INTERRUPTED, unfinished
from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS, Outcome
from conformance.registry import Registry, judged_by
from conformance.report.build import render_report
from conformance.report.causes import shared_causes
from conformance.report.compliance_md import (
    describe_adapter,
    describe_bundled,
    describe_harness,
    render_compliance_md,
)
from conformance.report.html import render_implementation_html
from conformance.report.inputs import VERDICT_INPUTS, Segment, render_inputs
from conformance.report.model import REPORT_FILE, Report, RequirementResult, load_report, map_strings, report_path

MARKS = {PASS: "✅ pass", PARTIAL: "◐ partial", FAIL: "❌ fail", NOT_MEASURED: "⊘ not measured", NA: "— n/a"}


class ReportWriteError(RuntimeError):
    """The report could not be written: the run must not be taken as a pass."""


def _md_escape(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _cell_word(value: Any) -> str:
    """A DEFAULT_001 breakdown cell: yes, no, or not measured (a null is never shown as "no")."""
    return "not measured" if value is None else ("yes" if value else "no")


def _group_name(e: RequirementResult) -> str:
    return f"tier {e.tier}" if e.tier is not None else str(e.level or "")


def _requirement_row(rid: str, e: RequirementResult, with_group: bool) -> str:
    group = f" {_group_name(e)} |" if with_group else ""
    note = _md_escape(e.note) if e.status != PASS else ""
    return (f"| `{rid}` |{group} {_md_escape(e.spec)} | {_md_escape(e.requirement)} "
            f"| {MARKS.get(e.status, e.status)} | {note} |")


#: The identity fields summary.md lists, in order.
SUMMARY_FIELDS = ("tool", "tool_version", "target", "agent_tested", "transports_covered", "adapter_used",
                  "skill_given", "skill", "tier_claimed", "levels_satisfied", "report_date", "judged_against",
                  "caveats")


def interrupted_banner(report: Report) -> str:
    """The line at the top of a stopped run's summary: it is incomplete and claims nothing."""
    left = sum(1 for _, e in report.rows() if unfinished(e.status, e.note))
    claim = "no tier" if report.family == "a2acli" else "no level"
    return (f"> **Interrupted ({report.identity.interrupted})**: the run was stopped before it finished. This "
            f"report is incomplete: {left} row(s) it did not finish are not measured (\"{INTERRUPTED}\"), "
            f"it claims {claim}" + (", and no COMPLIANCE.md is written from it." if report.family == "a2acli" else "."))


def render_summary(report: Report, registry: Registry) -> str:
    """The human-readable summary: identity, rollup table, every row that is not a pass (with its note),
    then every requirement with its section and text beside its status."""
    ident = report.identity
    shown = ident.to_dict()
    info = registry.families[report.family]
    lines = [f"# {info.title} — conformance summary", ""]
    if ident.interrupted:
        lines += [interrupted_banner(report), ""]
    for key in SUMMARY_FIELDS:
        if key in shown:
            value = shown[key]
            if isinstance(value, list):
                value = ", ".join(map(str, value)) or "none"
            elif isinstance(value, bool):
                value = "yes" if value else "no"
            lines.append(f"- **{key.replace('_', ' ')}**: {value if value is not None else 'none'}")
            if key == "adapter_used" and ident.adapter:
                lines.append(f"- **adapter**: {_md_escape(describe_adapter(ident.adapter))} — the results "
                             "measure the tool as translated")
            if key == "target" and ident.bundled_target:
                lines.append(f"- **bundled target**: {_md_escape(describe_bundled(ident.bundled_target))}")
    if ident.harness is not None:
        lines.append(f"- **harness**: {_md_escape(describe_harness(ident.harness))}")
    lines += ["", "| Group | Requirements | pass | partial | fail | not measured | n/a | Satisfied |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for g, s in report.summary.items():
        c = s.counts
        lines.append(f"| {g.replace('_', ' ')} | {s.total} | {c[PASS]} | {c[PARTIAL]} | {c[FAIL]} "
                     f"| {c[NOT_MEASURED]} | {c[NA]} | {'yes' if s.satisfied else 'no'} |")
    failing = {rid: str(e.note or "") for rid, e in report.rows(FAIL, PARTIAL)}
    shared = shared_causes(failing)
    if shared:
        lines += ["", f"## Fails that share a cause ({len(shared)})", "",
                  "Rows whose notes quote the same text: most likely one problem, seen by each of them.", ""]
        lines += [f"- {len(rows)} rows ({', '.join(f'`{r}`' for r in rows)}) quote: {_md_escape(text)}"
                  for text, rows in shared]
    head = "| ID | Group | § | Requirement | Status | Note |\n| --- | --- | --- | --- | --- | --- |"
    for title, wanted in (("Failing and partial", (FAIL, PARTIAL)), ("Not measured", (NOT_MEASURED,)),
                          ("Not applicable", (NA,))):
        rows = list(report.rows(*wanted))
        if not rows:
            continue
        lines += ["", f"## {title} ({len(rows)})", "", head]
        lines += [_requirement_row(rid, e, True) for rid, e in rows]
    if report.default_001_breakdown is not None:
        lines += ["", "## DEFAULT_001 breakdown", "", "| Default | Shipped | Overridable | Note |",
                  "| --- | --- | --- | --- |"]
        for k, row in report.default_001_breakdown.items():
            lines.append(f"| {k} | {_cell_word(row.shipped)} | {_cell_word(row.overridable)} "
                         f"| {_md_escape(row.note)} |")
    if report.error_codes is not None:
        seen = [c for c, row in report.error_codes.items() if row.emitted]
        lines += ["", f"Error codes observed: {', '.join(f'`{c}`' for c in seen) or 'none'}"]
    groups: dict[str, list[tuple[str, RequirementResult]]] = {}
    for rid, e in report.requirements.items():
        groups.setdefault(_group_name(e), []).append((rid, e))
    lines += ["", "## Every requirement"]
    for g, rows in groups.items():
        lines += ["", f"### {g.capitalize()}", "", "| ID | § | Requirement | Status | Note |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [_requirement_row(rid, e, False) for rid, e in rows]
    return "\n".join(lines) + "\n"


# Code points XML 1.0 cannot carry at all (not even escaped); a check's message may quote raw terminal output.
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _XML_ILLEGAL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render_junit(outcomes: Iterable[Outcome], family: str) -> str:
    """JUnit XML with one testcase per (test, requirement) outcome."""
    outs = [dataclasses.replace(o, nodeid=_xml_text(o.nodeid), message=_xml_text(o.message),
                                transport=_xml_text(o.transport) if o.transport else o.transport)
            for o in outcomes]
    suite = ET.Element("testsuite", name=f"agentd-conformance.{family}", tests=str(len(outs)),
                       failures=str(sum(o.status == FAIL for o in outs)),
                       skipped=str(sum(o.status in (NOT_MEASURED, NA) for o in outs)))
    for o in outs:
        name = o.nodeid + (f" [{o.transport}]" if o.transport else "")
        case = ET.SubElement(suite, "testcase", classname=o.requirement, name=name, time=f"{o.duration:.3f}")
        if o.status == FAIL:
            el = ET.SubElement(case, "error" if o.harness_error else "failure", message=o.message[:500])
            el.text = o.message
        elif o.status in (NOT_MEASURED, NA):
            ET.SubElement(case, "skipped", message=f"{o.status}: {o.message}"[:500])
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


#: Every check's outcome per requirement, one JSON object a line: what programs (the kill matrix, a CI
#: script) read when the rolled-up status is not enough (which check, which part, harness error or not).
OUTCOMES_FILE = "outcomes.jsonl"


def render_outcomes(outcomes: Iterable[Outcome]) -> str:
    rows = sorted((o.to_dict() for o in outcomes), key=lambda d: (d["requirement"], d["nodeid"],
                                                                  d["transport"] or "", d["part"] or ""))
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_readable(out_dir: Path, report: Report, registry: Registry, secrets: SecretSet | None = None) -> None:
    """The report's own files: ``compliance-report.yaml``, ``summary.md`` and, for the CLI half,
    ``COMPLIANCE.md`` (each swept for ``secrets``)."""
    secrets = secrets or SecretSet()
    _write(out_dir / REPORT_FILE, secrets.redact(render_report(report, registry)))
    _write(out_dir / "summary.md", secrets.redact(render_summary(report, registry)))
    if publishable(report):
        _write(out_dir / "COMPLIANCE.md", secrets.redact(render_compliance_md(report, registry)))
    elif report.family == "a2acli":
        (out_dir / "COMPLIANCE.md").unlink(missing_ok=True)  # an earlier run's, in a reused folder


def publishable(report: Report) -> bool:
    """Whether the report has a COMPLIANCE.md: a CLI run's that finished. A stopped run's has none — the
    file a vendor publishes is never one cut short (a missing file stops a publishing job; a banner on a
    published page could be cropped or overlooked)."""
    return report.family == "a2acli" and not report.identity.interrupted


def redact_outcomes(outcomes: Iterable[Outcome], secrets: SecretSet) -> list[Outcome]:
    """The outcomes with every secret redacted from their text (what outcomes.jsonl holds)."""
    return [dataclasses.replace(o, nodeid=secrets.redact(o.nodeid), message=secrets.redact(o.message),
                                transport=secrets.redact(o.transport) if o.transport else o.transport)
            for o in outcomes]


def write_report(out_dir: Path, report: Report, registry: Registry, outcomes: Iterable[Outcome] = (),
                 secrets: SecretSet | None = None, inputs: Iterable[Segment] | None = None) -> Report:
    """Write the report folder for a built ``report``, the outcomes it was judged from and (``inputs``)
    the rest of what the verdict rules read; returns the report as written (redacted). Raises
    ReportWriteError on any failure."""
    secrets = secrets or SecretSet()
    # Redact before rendering: XML escaping (&quot; &lt; &#10;) would hide a secret from the text sweep.
    outs = redact_outcomes(outcomes, secrets)
    try:
        # Every string value, never a key (ids, field names): a secret that happens to spell a layout word
        # cannot make rendering fail; the rendered text is swept again after.
        report = report.map_text(secrets.redact)
        out_dir.mkdir(parents=True, exist_ok=True)
        write_readable(out_dir, report, registry, secrets)
        _write(out_dir / "junit.xml", secrets.redact(render_junit(outs, report.family)))
        _write(out_dir / OUTCOMES_FILE, secrets.redact(render_outcomes(outs)))
        if inputs is not None:
            # Redacted before rendering, as the outcomes are: JSON escaping would hide a secret from the sweep.
            clean = [dataclasses.replace(s, scope_note=secrets.redact(s.scope_note),
                                         breakdown=map_strings(s.breakdown, secrets.redact)) for s in inputs]
            _write(out_dir / VERDICT_INPUTS, secrets.redact(render_inputs(clean)))
        redact_tree(out_dir, secrets)
    except (OSError, ValueError, KeyError) as exc:
        raise ReportWriteError(f"cannot write the report to {out_dir}: {exc}") from exc
    return report


def render_saved(path: Path, registry: Registry, out_dir: Path | None = None) -> list[Path]:
    """Rebuild the readable files (summary.md, and COMPLIANCE.md for the CLI half) from a saved
    ``compliance-report.yaml`` without rerunning anything. Returns the files written.

    Raises :class:`~conformance.report.model.ReportError` when ``path`` is not a valid report, and
    :class:`ReportWriteError` when the files cannot be written."""
    report = load_report(path, registry)
    registry = judged_by(registry, report.identity.judged_against)  # as the revision it was judged by reads
    path = report_path(path)
    out_dir = out_dir or path.parent
    written = [out_dir / "summary.md", out_dir / "implementation-report.html"]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        _write(out_dir / "summary.md", render_summary(report, registry))
        name = str(report.identity.target or report.identity.tool or "target")
        link = os.path.relpath(path.parent, out_dir)
        _write(out_dir / "implementation-report.html",
               render_implementation_html({name: report}, registry, links={name: link}))
        if publishable(report):
            _write(out_dir / "COMPLIANCE.md", render_compliance_md(report, registry))
            written.append(out_dir / "COMPLIANCE.md")
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise ReportWriteError(f"cannot render {path}: {exc}") from exc
    return written
