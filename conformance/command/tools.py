"""The commands that run no suite: ``registry``, ``template``, ``spec-diff``, ``report render``,
``image build-reference`` and ``serve-agent``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import yaml

from conformance import revision
from conformance.cli.adapter import AdapterError
from conformance.clicheck.adapter_check import check_adapter
from conformance.clicheck.adapter_check import render as render_adapter_check
from conformance.command.errors import EXIT_OK, EXIT_UNSATISFIED, HarnessFailure, UsageFailure
from conformance.command.parser import CommandParser
from conformance.command.run import folder_arg, positive
from conformance.coverage import (
    coverage_rows,
    render_coverage_md,
    render_tck_md,
    scan_checks,
    scan_defects,
    tck_coverage,
)
from conformance.registry import default_registry, registry_at
from conformance.registry.tck import FAMILY as TCK_FAMILY
from conformance.registry.tck import default_tck
from conformance.report import ReportWriteError, blank_template, render_saved
from conformance.report.manifest import MANIFEST_FILE, refresh_manifest
from conformance.report.model import ReportError, report_path
from conformance.report.verify import NotAReport, verify
from conformance.specdiff import SpecFileError, diff, read_revision, render, revision_date
from conformance.targets.engine import EngineUnavailable
from conformance.targets.image import ImageBuildError, build_reference
from conformance.targets.model import CliTarget, TargetError


def cmd_registry(args: argparse.Namespace) -> int:
    reg = default_registry()
    if args.changed and not args.spec_revision:
        raise UsageFailure("registry --changed: give --spec-revision REV (the revision to compare with the newest)")
    if args.spec_revision:
        try:
            reg = registry_at(revision.check(args.spec_revision))
        except revision.UnknownRevision as exc:
            raise UsageFailure(f"registry --spec-revision: {exc}") from None
    if args.coverage:
        fmt = args.format or "markdown"
        if fmt not in ("markdown", "json"):
            raise UsageFailure("registry --coverage: --format must be markdown or json")
        scanned = scan_checks()
        rows = [r for r in coverage_rows(reg, args.family, scanned)
                if args.tier is None or reg[r["id"]].tier is not None and reg[r["id"]].tier <= args.tier]
        # The official TCK's ids are shown with the family it judges (a2a), or with every family.
        tck = tck_coverage(default_tck(), scanned[0]) if args.family in (None, TCK_FAMILY) and args.tier is None \
            else None
        if fmt == "json":
            sys.stdout.write(json.dumps({"requirements": rows, **({"tck": tck} if tck else {})}, indent=2) + "\n")
        else:
            sys.stdout.write(render_coverage_md(rows) + (render_tck_md(tck) if tck else ""))
        return EXIT_OK
    if args.format == "markdown":
        raise UsageFailure("registry: --format markdown is for --coverage")
    args.format = args.format or "text"
    reqs = reg.select(family=args.family, tier=args.tier)
    if args.changed:
        newest = registry_at(revision.NEWEST)
        reqs = [r for r in reqs if r != newest[r.id]]
    rows = [{"id": r.id, "family": r.family, "tier": r.tier, "level": r.level, "area": r.area, "spec": r.spec,
             "kind": r.kind, "condition": r.condition, "summary": r.summary} for r in reqs]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    elif args.format == "yaml":
        print(yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=120), end="")
    else:
        for r in reqs:
            grp = f"T{r.tier}" if r.tier is not None else (r.level or "").upper()
            cond = " (conditional)" if r.conditional else ""
            print(f"{r.id:<34} {grp:<6} {r.spec:<18} {r.summary}{cond}")
        print(f"{len(reqs)} requirement(s)")
    return EXIT_OK


def cmd_template(args: argparse.Namespace) -> int:
    sys.stdout.write(blank_template(default_registry(), args.family))
    return EXIT_OK


def cmd_spec_diff(args: argparse.Namespace) -> int:
    """Exit 0 when the registry matches the revision, 1 when it differs (its date included), 2 for an
    unreadable file (the exit codes are in the sub-command's ``--help``: ``SPEC_DIFF_EXIT``)."""
    try:
        new = read_revision(Path(args.path))
        against = read_revision(Path(args.against)) if args.against else None
    except SpecFileError as exc:
        raise UsageFailure(f"spec-diff: {exc}") from exc
    d = diff(default_registry(), new, against, revision=revision_date(Path(args.path)))
    checks, _ = scan_checks() if not d.empty else ({}, {})
    defects = scan_defects() if not d.empty else {}
    coverage = {rid: (checks.get(rid, []), defects.get(rid, [])) for rid in d.changed_ids()}
    if args.format == "json":
        doc = dataclasses.asdict(d)
        doc["coverage"] = {rid: {"checks": c, "defects": df} for rid, (c, df) in coverage.items()}
        print(json.dumps(doc, indent=2))
    else:
        sys.stdout.write(render(d, coverage))
    return EXIT_OK if d.empty else EXIT_UNSATISFIED


def cmd_adapter(args: argparse.Namespace) -> int:
    """``adapter check FILE [--exe TOOL]``: exit 0, 1 with --strict when something warns, 2 for a bad file."""
    if args.adapter_command != "check":
        raise UsageFailure("adapter: expected an action: check")
    positive(args.cli_timeout, "--cli-timeout")
    prefix = None
    env: dict[str, str] = {}
    if args.exe:
        try:
            target = CliTarget.build(exe=args.exe)
        except TargetError as exc:
            raise UsageFailure(str(exc)) from None
        prefix, env = list(target.prefix), dict(target.env)
    try:
        result = check_adapter(args.path, prefix, timeout=args.cli_timeout, base_env=env)
    except AdapterError as exc:
        raise UsageFailure(str(exc)) from exc
    sys.stdout.write(render_adapter_check(result))
    return EXIT_UNSATISFIED if args.strict and result.warnings else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    if args.report_command == "verify":
        return cmd_report_verify(Path(args.path))
    if args.report_command != "render":
        raise UsageFailure("report: expected an action: render or verify")
    path = report_path(Path(args.path))
    if not path.is_file():
        raise UsageFailure(f"report render: no such report: {path}")
    folder_arg(args.out, "--out")
    try:
        written = render_saved(path, default_registry(), Path(args.out) if args.out else None)
    except (ReportError, ReportWriteError) as exc:
        raise UsageFailure(f"report render: {exc}") from exc
    try:
        refresh_manifest(path.parent, written)
    except (ValueError, OSError) as exc:
        raise HarnessFailure(f"report render: cannot bring {path.parent / MANIFEST_FILE} up to date: {exc}") from exc
    for w in written:
        print(w)
    return EXIT_OK


def cmd_report_verify(folder: Path) -> int:
    """Exit 0 when the folder holds (files, verdicts, rollup, claim), 1 naming the first thing that does
    not, 2 for a folder that is not a report."""
    try:
        checked, problems = verify(folder, default_registry())
    except NotAReport as exc:
        raise UsageFailure(f"report verify: {exc}") from exc
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        sys.stderr.write(f"agentd-conformance: report verify: {folder}: {problems[0]}{more}\n")
        return EXIT_UNSATISFIED
    assert checked is not None
    print(f"verified {folder}: {checked.files} files match the manifest; {checked.rows} rows, the rollup and the "
          f"claim re-derive from {checked.outcomes} outcomes")
    return EXIT_OK


def cmd_image(args: argparse.Namespace) -> int:
    if args.image_command != "build-reference":
        raise UsageFailure("image: expected an action: build-reference")
    try:
        def log(message: str) -> None:
            sys.stderr.write(f"agentd-conformance: {message}\n")

        built = build_reference(args.tag, mirror=args.mirror, log=log)
    except (EngineUnavailable, ImageBuildError) as exc:
        raise HarnessFailure(str(exc)) from exc
    print(f"{built.tag} {built.image_id} ({'cached' if built.cached else 'built'} in {built.seconds:.1f}s)")
    if args.tag:
        print(args.tag)
    return EXIT_OK


def cmd_serve_agent(args: argparse.Namespace) -> int:
    try:
        from conformance.fixtures.scripted_agent.__main__ import main as serve
    except ImportError as exc:
        raise HarnessFailure(f"the scripted agent is not available: {exc}") from exc
    result: int = serve(args.rest, parser_class=CommandParser, prog="agentd-conformance serve-agent")
    return result
