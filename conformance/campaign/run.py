"""One many-target run: every entry of a targets file (or one shard of it), then the one table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.campaign.table import build_table, load_previous, write_table
from conformance.campaign.targets_file import Entry
from conformance.redact import SecretSet
from conformance.report.model import Report

#: Runs one entry with its report folder; returns that report (raises when the target cannot run).
Runner = Callable[[Entry, Path], Report]


def run_campaign(entries: list[Entry], out: Path, previous: Path | None, runner: Runner,
                 shard_of: tuple[int, int, list[str]] | None = None) -> dict[str, Any]:
    """Run every entry into ``out/<name>`` (errors are recorded per target; the run goes on) and write
    the table.

    ``shard_of`` (index, count, every target name of the file in order) marks the folder as one
    shard, for ``matrix merge``.
    """
    prev_doc = load_previous(previous)
    results: dict[str, Report | str] = {}
    for entry in entries:
        try:
            results[entry.name] = runner(entry, out / entry.name)
        except Exception as exc:  # noqa: BLE001 - one target's failure is recorded, the run goes on
            results[entry.name] = SecretSet(_secrets_of(entry)).redact(f"{type(exc).__name__}: {exc}")
    doc = build_table(results, prev_doc)
    extra = None
    if shard_of is not None:
        extra = {"shard": {"index": shard_of[0], "count": shard_of[1], "order": shard_of[2],
                           "errors": {n: r for n, r in results.items() if isinstance(r, str)}}}
    write_table(out, doc, extra, results)
    return doc


def _secrets_of(entry: Entry) -> list[str]:
    """The secrets of ``entry``'s target (its tokens, its secret environment values), kept out of the error
    the table records for it; none when the target cannot even be built (its error names no value)."""
    try:
        return entry.target().secrets()
    except Exception:  # noqa: BLE001 - an entry that cannot be built has no value to hide
        return []
