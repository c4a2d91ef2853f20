"""``agentd-conformance report verify DIR``: check a published report folder without rerunning anything.

In order, each step naming the first file or row that does not hold:

1. the folder holds a valid report (else it is not a report: exit 2);
2. ``manifest.json`` lists every file with its sha256, and nothing else is in the folder;
3. the manifest's harness and target are the report's, and its registry hashes are this harness's
   (verdicts judged by another registry revision cannot be re-derived here);
4. every row's verdict (status, note, evidence, per-transport and per-part results) re-derives from
   ``outcomes.jsonl`` and ``verdict-inputs.json`` by the verdict rules (``conformance.verdict``), and the
   DEFAULT_001 table from the breakdown its checks recorded;
5. the rollup and the claim (tier claimed, levels satisfied) re-derive from the rows — none for a run
   that was stopped, whose identity names the signal exactly when its verdict inputs do;
6. every error code the evidence shows the tool stating reads "yes";
7. COMPLIANCE.md and summary.md are what the report renders to (a stopped run's report has no
   COMPLIANCE.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from conformance.outcome import Outcome
from conformance.registry import Registry, judged_by
from conformance.report.build import breakdown_table, claims, requirement_row
from conformance.report.compliance_md import render_compliance_md
from conformance.report.evidence_codes import codes_in_evidence
from conformance.report.inputs import InputsError, read_inputs
from conformance.report.manifest import (
    MANIFEST_FILE,
    read_manifest,
    registry_hashes,
    report_files,
    sha256_file,
    target_identity,
)
from conformance.report.model import REPORT_FILE, Report, ReportError, load_report
from conformance.report.write import OUTCOMES_FILE, publishable, render_summary
from conformance.verdict import DEFAULT_001, rollup, verdicts_for


class NotAReport(ValueError):
    """The folder is not a report folder at all (exit 2)."""


@dataclass
class Verified:
    """What a verification that holds checked."""

    files: int
    rows: int
    outcomes: int


def verify(folder: Path, registry: Registry) -> tuple[Verified | None, list[str]]:
    """Verify the report folder; returns what was checked and the problems (empty when it holds).
    Raises :class:`NotAReport` for a folder that holds no valid report."""
    if not folder.is_dir():
        raise NotAReport(f"{folder}: not a folder")
    if not (folder / REPORT_FILE).is_file():
        raise NotAReport(f"{folder}: no {REPORT_FILE}: not a report folder")
    try:
        report = load_report(folder, registry)
    except ReportError as exc:
        raise NotAReport(str(exc)) from exc
    # A report judged by an older revision of the A2A text is checked against that revision's rows.
    registry = judged_by(registry, report.identity.judged_against)
    problems: list[str] = []
    try:
        manifest = read_manifest(folder)
    except ValueError as exc:
        return None, [str(exc)]
    files = dict(manifest["files"])
    problems += _files(folder, files)
    problems += _provenance(manifest, report, registry)
    outs: list[Outcome] = []
    try:
        outs = [Outcome.from_dict(json.loads(line))
                for line in (folder / OUTCOMES_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError, TypeError) as exc:
        problems.append(f"{OUTCOMES_FILE}: cannot read the outcomes: {exc}")
    problems += list(_verdicts(folder, report, registry, outs))
    problems += list(_rollup(report, registry))
    problems += list(_codes(folder, report))
    problems += list(_renderings(folder, report, registry))
    return Verified(len(files), len(report.requirements), len(outs)), problems


def _files(folder: Path, listed: dict[str, str]) -> list[str]:
    out = []
    present = set(report_files(folder))
    for rel in sorted(set(listed) | present):
        if rel not in present:
            out.append(f"{rel}: listed in {MANIFEST_FILE} but missing from the folder")
        elif rel not in listed:
            out.append(f"{rel}: in the folder but not in {MANIFEST_FILE} (added after the run)")
        elif sha256_file(folder / rel) != listed[rel]:
            out.append(f"{rel}: its sha256 differs from {MANIFEST_FILE} (changed after the run)")
    return out


def _provenance(manifest: dict[str, object], report: Report, registry: Registry) -> list[str]:
    out = []
    harness = report.identity.harness
    if manifest.get("harness") != (harness.to_dict() if harness is not None else None):
        out.append(f"{MANIFEST_FILE}: harness {manifest.get('harness')} is not the report's")
    if manifest.get("family") != report.family:
        out.append(f"{MANIFEST_FILE}: family {manifest.get('family')!r} is not the report's {report.family!r}")
    if manifest.get("target") != target_identity(report):
        out.append(f"{MANIFEST_FILE}: the target's identity differs from the report's")
    ours = registry_hashes(registry).get(report.family)
    theirs = manifest.get("registry")
    judged = theirs.get(report.family) if isinstance(theirs, dict) else None
    if judged != ours:
        out.append(f"{MANIFEST_FILE}: the report was judged by another revision of the {report.family} registry "
                   f"({judged}); this harness has {ours}: verify it with the harness that wrote it "
                   f"({harness.version if harness else '?'}, commit {harness.commit if harness else '?'})")
    return out


def _verdicts(folder: Path, report: Report, registry: Registry, outs: list[Outcome]) -> Iterator[str]:
    try:
        segments = read_inputs(folder)
    except InputsError as exc:
        yield str(exc)
        return
    family = report.family
    covered: dict[str, int] = {}
    for i, seg in enumerate(segments):
        for rid in seg.rows:
            covered[rid] = covered.get(rid, 0) + 1
        verdicts = verdicts_for(registry, family, outs, seg.breakdown, scope=seg.scope,
                                out_of_scope_note=seg.scope_note, provided=seg.provided, interrupted=seg.interrupted,
                                inapplicable=seg.inapplicable)
        for rid in seg.rows:
            if rid not in report.requirements or rid not in verdicts:
                yield f"verdict-inputs.json: segment {i} names {rid}, which the report does not hold"
                continue
            want = requirement_row(registry[rid], verdicts[rid]).to_dict()
            got = report.requirements[rid].to_dict()
            for key in ("status", "note", "evidence", "transports", "parts"):
                if got.get(key) != want.get(key):
                    yield (f"requirements.{rid}.{key}: the report says {got.get(key)!r}, the outcomes give "
                           f"{want.get(key)!r}")
                    break
        if DEFAULT_001 in seg.rows and report.default_001_breakdown is not None:
            table = breakdown_table(registry.families[family], seg.breakdown) or {}
            for key, row in report.default_001_breakdown.items():
                if key in table and row != table[key]:
                    yield (f"default_001_breakdown.{key}: the report says {row.to_dict()}, the breakdown recorded "
                           f"gives {table[key].to_dict()}")
    for rid in report.requirements:
        if covered.get(rid, 0) != 1:
            yield f"requirements.{rid}: judged by {covered.get(rid, 0)} segment(s) of verdict-inputs.json, not one"
    stopped = next((s.interrupted for s in segments if s.interrupted), None)
    if report.identity.interrupted != stopped:
        yield (f"report.interrupted: the report says {report.identity.interrupted!r}, verdict-inputs.json says "
               f"{stopped!r}")


def _rollup(report: Report, registry: Registry) -> Iterator[str]:
    summary = rollup(registry, report.family, report.statuses(), bool(report.identity.interrupted))
    for group, derived in summary.items():
        stated = report.summary.get(group)
        if stated != derived:
            yield (f"summary.{group}: the report says {stated.to_dict() if stated else None}, its rows give "
                   f"{derived.to_dict()}")
    for key, value in claims(report.family, summary).items():
        if getattr(report.identity, key) != value:
            yield f"report.{key}: the report says {getattr(report.identity, key)!r}, its rollup gives {value!r}"


def _codes(folder: Path, report: Report) -> Iterator[str]:
    if report.error_codes is None:
        return
    for code, where in codes_in_evidence(folder, report.error_codes).items():
        if not report.error_codes[code].emitted:
            yield f"error_codes.{code}: the report says not emitted, but {where}"


def _renderings(folder: Path, report: Report, registry: Registry) -> Iterator[str]:
    if report.family == "a2acli":
        path = folder / "COMPLIANCE.md"
        if path.is_file() and not publishable(report):
            yield (f"COMPLIANCE.md: present, but the run was stopped ({report.identity.interrupted}): an incomplete "
                   "report has none")
        elif path.is_file() and path.read_text(encoding="utf-8") != render_compliance_md(report, registry):
            yield "COMPLIANCE.md: does not match compliance-report.yaml (edited, or rendered from another report)"
    path = folder / "summary.md"
    if path.is_file() and not path.read_text(encoding="utf-8").startswith(render_summary(report, registry)):
        yield "summary.md: does not match compliance-report.yaml (edited, or rendered from another report)"
