"""Findings: what a check saw break another row's rule while it judged its own.

Some rules hold for every answer of a run, not for one exchange a check provokes: every A2A object
strictly typed, every timestamp in UTC, every JSON-RPC envelope well formed. Their rows are marked
``observed`` in the registry. The shared steps read answers leniently (a row is failed only for its
own requirement, DESIGN.md §2.8), so a check that meets a departure from such a rule does not fail
for it: it records a :class:`Finding`, and the plugin turns the finding into a failing outcome of the
observed row, carrying the check's evidence. One defect of the data model then fails the rows that
own it, from wherever it was seen, and no other row.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """``requirement`` (an ``observed`` row) is broken: ``message`` quotes how, seen over ``transport``."""

    requirement: str
    message: str
    transport: str | None = None
