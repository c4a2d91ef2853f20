"""The blame rule.

**Blame the right requirement** (DESIGN.md §2.8). A check for requirement X fails only on X's own
behaviour. When X cannot be reached because a feature that another requirement Y governs is missing
(a command, a flag, an envelope, a declaration), and X's own text does not demand that feature, the
check ends :func:`blocked_by` ``(Y, what was missing)``: X is then ``not_measured`` with the note
``blocked by Y: …`` and Y's own checks carry the fail.

A check names the requirements it may be blocked by with ``@pytest.mark.depends_on("Y", ...)``. The
plugin refuses, as a harness error, a check that claims to be blocked by a requirement it did not
declare, or by one of its own: the list of dependencies is part of the check's contract and is
tested (``tests/test_blame.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

from conformance.outcome import NotMeasured, fail

#: The marker a check uses to declare the requirements whose features it relies on.
DEPENDS_MARKER = "depends_on"


class Blocked(NotMeasured):
    """The check could not reach its subject: requirement ``by`` governs what is missing."""

    def __init__(self, by: str, missing: str) -> None:
        if not by or not missing or not missing.strip():
            raise ValueError("blocked_by needs the blocking requirement id and what was missing")
        super().__init__(f"blocked by {by}: {missing}")
        self.by = by
        self.missing = missing


def blocked_by(requirement: str, missing: str) -> NoReturn:
    """End the check ``not_measured``: ``requirement`` (not this check's) governs a missing feature.

    ``missing`` says what was missing, in a form a vendor can act on: "no `task get --wait` (the
    tool answered exit 2: unknown option)".
    """
    raise Blocked(requirement, missing)


def blame_violation(blocked: Blocked, own: list[str], declared: list[str]) -> str | None:
    """Why ``blocked`` breaks the rule for a check measuring ``own`` that declared ``declared``; None if it holds."""
    if blocked.by in own:
        return (f"the check claims to be blocked by {blocked.by}, which it measures itself: a missing feature of "
                "the requirement under test is its fail, not a block")
    if blocked.by not in declared:
        return (f"the check claims to be blocked by {blocked.by} but does not declare it "
                f"(@pytest.mark.{DEPENDS_MARKER}({blocked.by!r}))")
    return None


@contextmanager
def judged_here(*rows: str) -> Iterator[None]:
    """For a check measuring ``rows`` itself: a block by one of them is this check's fail."""
    try:
        yield
    except Blocked as exc:
        if exc.by in rows:
            fail(exc.missing)
        raise
