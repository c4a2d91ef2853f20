"""``agentd-conformance matrix merge DIR...``: the shards of one many-target run, combined into its one table.

Each shard folder (written by ``matrix --shard I/N``) holds its matrix.yaml (with the shard's index,
count and the targets file's order) and one report folder per target. The merge reads the targets'
own reports back, in the file's order, and builds the table exactly as an unsharded run does; a
missing or duplicated shard, or shards of different files, is an error (a partial table never passes).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from conformance.campaign.table import build_table, write_table
from conformance.registry import default_registry
from conformance.report.model import REPORT_FILE, Report, ReportError, load_report
from conformance.yamldoc import load_mapping


class MergeError(Exception):
    """The shards do not make one whole matrix; the message says why."""


def _load(path: Path) -> dict[str, Any]:
    return load_mapping(path / "matrix.yaml", "shard",
                        lambda exc: MergeError(f"{path}: cannot read matrix.yaml: {exc}"),
                        lambda: MergeError(f"{path}: matrix.yaml is not a shard's (run matrix --shard I/N)"))


def merge_shards(dirs: list[Path], out: Path, previous: dict[str, Any] | None) -> dict[str, Any]:
    """The table of the shards in ``dirs`` (and their targets' report folders), written into ``out``."""
    shards = [(d, _load(d)) for d in dirs]
    count = {doc["shard"]["count"] for _, doc in shards}
    orders = {tuple(doc["shard"]["order"]) for _, doc in shards}
    if len(count) != 1 or len(orders) != 1:
        raise MergeError("the folders are shards of different matrices (shard counts or target lists differ)")
    n, order = count.pop(), list(orders.pop())
    seen: dict[int, Path] = {}
    for d, doc in shards:
        i = doc["shard"]["index"]
        if i in seen:
            raise MergeError(f"shard {i}/{n} given twice: {seen[i]} and {d}")
        seen[i] = d
    missing = sorted(set(range(1, n + 1)) - set(seen))
    if missing:
        raise MergeError(f"shard(s) {', '.join(f'{i}/{n}' for i in missing)} missing: the table would be partial")
    found: dict[str, Report | str] = {}
    registry = default_registry()
    for d, doc in shards:
        errors = doc["shard"].get("errors") or {}
        for name in doc.get("targets", {}):
            if name in errors:
                found[name] = errors[name]
                continue
            try:
                found[name] = load_report(d / name / REPORT_FILE, registry)
            except ReportError as exc:
                found[name] = f"report unreadable in {d}: {exc}"
    absent = [t for t in order if t not in found]
    if absent:
        raise MergeError(f"target(s) {', '.join(absent)} are in no shard's results")
    results = {name: found[name] for name in order}
    out.mkdir(parents=True, exist_ok=True)
    for d, doc in shards:  # the targets' report folders, so the merged folder stands on its own
        for name in doc.get("targets", {}):
            if (d / name).is_dir() and not (out / name).exists():
                shutil.copytree(d / name, out / name)
    doc = build_table(results, previous)
    write_table(out, doc, {"merged_from": [str(d) for d in dirs]}, results)
    return doc
