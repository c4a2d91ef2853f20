"""Which revision of the A2A text this process judges by (``--spec-revision``).

The harness judges the core family by the newest text it carries, A2A v1.0.1. Where an older revision's
text differs — v1.0.0's error-code table (§5.4: six cells) and its HTTP+JSON media type — a run can be
judged by that text instead. The choice is one per process: the command sets it from the flag, and the
pytest session (and each of its workers) from the run context. :mod:`conformance.wire.errors` reads it
for the error table, :mod:`conformance.registry` for the rows whose text differs.

This module imports nothing of the project's, so every layer may read it.
"""

from __future__ import annotations

from typing import Final

#: The revisions the harness carries, oldest first.
REVISIONS: Final = ("1.0.0", "1.0.1")
NEWEST: Final = REVISIONS[-1]

_selected = NEWEST


class UnknownRevision(ValueError):
    """A revision the harness does not carry; the message lists the ones it does."""


def check(revision: str) -> str:
    """``revision`` when the harness carries it; :class:`UnknownRevision` otherwise."""
    if revision not in REVISIONS:
        raise UnknownRevision(f"unknown A2A revision {revision!r} (known: {', '.join(REVISIONS)})")
    return revision


def use(revision: str | None) -> None:
    """Judge by ``revision`` from now on in this process (None: the newest)."""
    global _selected
    _selected = check(revision or NEWEST)


def selected() -> str:
    """The revision this process judges by."""
    return _selected


def label(revision: str) -> str:
    """How a report names the revision (``judged_against``): ``A2A v1.0.1``."""
    return f"A2A v{revision}"


def of_label(names: list[str] | tuple[str, ...]) -> str | None:
    """The revision a report's ``judged_against`` names, if it names one the harness carries."""
    for name in names:
        for rev in REVISIONS:
            if name.strip() == label(rev):
                return rev
    return None
