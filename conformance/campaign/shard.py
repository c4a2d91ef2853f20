"""Shards of a many-target run: ``--shard I/N`` runs the entries at positions I-1, I-1+N, ... of the
targets file (a deterministic slice; a CI system's job matrix spreads the shards over machines)."""

from __future__ import annotations

from conformance.campaign.targets_file import Entry


def shard(entries: list[Entry], index: int, count: int) -> list[Entry]:
    """Shard ``index`` of ``count`` (1-based): the entries at positions index-1, index-1+count, ..."""
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"--shard: expected I/N with 1 <= I <= N, got {index}/{count}")
    return [t for i, t in enumerate(entries) if i % count == index - 1]
