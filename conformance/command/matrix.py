"""``agentd-conformance matrix``: every target of a targets file (``conformance.campaign``), one table;
``matrix merge``: the shards' tables, combined."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conformance.campaign import (
    Entry,
    MergeError,
    PreviousError,
    TargetFileError,
    load_previous,
    load_targets,
    merge_shards,
    run_campaign,
    shard,
)
from conformance.command.agent import run_agent
from conformance.command.cli import run_cli
from conformance.command.errors import EXIT_HARNESS, EXIT_OK, EXIT_UNSATISFIED, UsageFailure
from conformance.command.run import RunOptions, positive, report_dir, scope
from conformance.registry import default_registry
from conformance.report.model import Report, load_report
from conformance.targets.kinds import kind_of
from conformance.targets.model import CliTarget, TargetError


def cmd_matrix(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageFailure("--jobs must be at least 1")
    positive(args.timeout, "--timeout")
    path = Path(args.targets)
    if not path.is_file():
        raise UsageFailure(f"--targets: no such file: {args.targets}")
    try:
        entries = load_targets(path)
        shard_of = None
        if args.shard:
            index, count = _shard_arg(args.shard)
            shard_of = (index, count, [e.name for e in entries])
            entries = shard(entries, index, count)
        out = report_dir(args.report_dir, "matrix")
        _check_entries(path, entries)

        def runner(entry: Entry, folder: Path) -> Report:
            return _run_entry(entry, folder, args.jobs, args.timeout)

        doc = run_campaign(entries, out, Path(args.previous) if args.previous else None, runner, shard_of)
    except (TargetFileError, PreviousError) as exc:
        raise UsageFailure(str(exc)) from exc
    return _exit(doc, out, args.fail_on_regression)


def _check_entries(path: Path, entries: list[Entry]) -> None:
    """What a target of the file cannot be used as (an executable that is not there, a token too short, ids
    of another family, an image the engine does not have) is a usage error naming it, before anything runs.
    An engine that does not answer is left to the runs (each target it fails is an error of the table)."""
    for entry in entries:
        where = f"targets file {path}: {entry.name}"
        try:
            target = entry.target()
            scope(entry.family, entry.only, entry.tier if entry.kind == "cli" else None)
            if not isinstance(target, CliTarget):
                kind_of(target).check_usable()
        except (TargetError, UsageFailure) as exc:
            raise UsageFailure(f"{where}: {exc}") from None


def _run_entry(entry: Entry, folder: Path, jobs: int | None, timeout: float | None) -> Report:
    """One target of the file, run as the ``cli`` / ``agent`` command would run it; its report."""
    try:
        target = entry.target()
    except TargetError as exc:
        raise UsageFailure(str(exc)) from None
    opts = RunOptions(family=entry.family, name=entry.name, only=entry.only, tier=entry.tier, jobs=jobs,
                      report_dir=str(folder), timeout=timeout,
                      schema_source=entry.settings.get("schema_source") or "ours")
    if isinstance(target, CliTarget):
        run_cli(target, opts, {k: entry.settings[k] for k in ("language", "repository", "maintainer")
                               if entry.settings.get(k)})
    else:
        run_agent(target, opts)
    return load_report(folder, default_registry())


def _shard_arg(text: str) -> tuple[int, int]:
    i, sep, n = text.partition("/")
    if not sep or not i.isdigit() or not n.isdigit() or not 1 <= int(i) <= int(n):
        raise UsageFailure(f"--shard: expected I/N with 1 <= I <= N, got {text!r}")
    return int(i), int(n)


def _exit(doc: dict[str, Any], out: Path, fail_on_regression: bool) -> int:
    errors = [n for n, v in doc["targets"].items() if isinstance(v, str) and v.startswith("error:")]
    print(f"Matrix: {out / 'matrix.md'} ({len(doc['targets'])} targets, {len(doc['no_target_passes'])} "
          f"requirement(s) passed by no target, {len(doc['regressions'])} regression(s))")
    for r in doc["regressions"]:
        sys.stderr.write(f"agentd-conformance: regression: {r['requirement']} on {r['target']}: "
                         f"{r['before']} -> {r['now']}\n")
    if errors:
        sys.stderr.write(f"agentd-conformance: target(s) could not run: {', '.join(errors)}\n")
        return EXIT_HARNESS
    if fail_on_regression and doc["regressions"]:
        return EXIT_UNSATISFIED
    return EXIT_OK


def cmd_matrix_merge(args: argparse.Namespace) -> int:
    try:
        previous = load_previous(Path(args.previous)) if args.previous else None
        out = report_dir(args.report_dir, "matrix")
        doc = merge_shards([Path(d) for d in args.dirs], out, previous)
    except (PreviousError, MergeError) as exc:  # the folders given do not make one matrix: the user's to fix
        raise UsageFailure(str(exc)) from exc
    return _exit(doc, out, args.fail_on_regression)
