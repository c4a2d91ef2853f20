"""The outcome of one check, and the helpers a check uses to end with one.

A check ends in exactly one of four ways:

* it returns normally: ``pass``;
* an ``AssertionError`` (or :func:`fail`): ``fail``, with the message;
* :func:`not_measured`: the harness could not provoke the behaviour (always with a reason);
* :func:`na`: the requirement does not apply to the tool (always with a reason).

Any other exception is a harness error. It is recorded as ``fail`` with ``harness_error`` set, so
a crash in the harness never turns into a pass or disappears from the report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final, NoReturn

PASS: Final = "pass"
PARTIAL: Final = "partial"
FAIL: Final = "fail"
NOT_MEASURED: Final = "not_measured"
NA: Final = "na"
WITHDRAWN: Final = "withdrawn"

#: The closed status vocabulary of COMPLIANCE.md Appendix A.2.
STATUSES: Final = (PASS, PARTIAL, FAIL, NOT_MEASURED, NA, WITHDRAWN)
#: What a single test can end as (partial and withdrawn are requirement-level only).
TEST_OUTCOMES: Final = (PASS, FAIL, NOT_MEASURED, NA)


class CheckEnded(Exception):
    """Base of the exceptions that end a check with a non-pass, non-fail outcome."""

    status: str = ""

    def __init__(self, reason: str) -> None:
        if not reason or not reason.strip():
            raise ValueError(f"{type(self).__name__} needs a reason")
        super().__init__(reason)
        self.reason = reason


class NotMeasured(CheckEnded):
    status = NOT_MEASURED


class NotApplicable(CheckEnded):
    status = NA


class CheckFailed(AssertionError):
    """Raised by :func:`fail`; an ``AssertionError`` so pytest reports it as a failure."""


def not_measured(reason: str) -> NoReturn:
    """End the check as ``not_measured``: the harness could not provoke the behaviour."""
    raise NotMeasured(reason)


def na(reason: str) -> NoReturn:
    """End the check as ``na``: the requirement does not apply to the tool under test."""
    raise NotApplicable(reason)


def fail(message: str) -> NoReturn:
    """End the check as ``fail`` with ``message`` (quote what came back)."""
    raise CheckFailed(message)


@dataclass(frozen=True)
class Outcome:
    """One test's result for one requirement (and one transport, when parametrized by binding)."""

    requirement: str
    status: str
    nodeid: str
    message: str = ""
    transport: str | None = None
    part: str | None = None
    harness_error: bool = False
    evidence: tuple[str, ...] = field(default_factory=tuple)
    duration: float = 0.0
    #: For a ``not_measured`` outcome: the other requirement whose missing feature blocked the check.
    blocked_by: str | None = None
    #: A ``fail`` of an ``observed`` row that another row's check saw on the wire (a finding), not an
    #: outcome of the row's own check.
    finding: bool = False
    #: The check did not finish: the run was stopped (SIGINT, SIGTERM, SIGHUP) before it reported
    #: (``conformance.interrupts``). Always ``not_measured``.
    interrupted: bool = False

    def __post_init__(self) -> None:
        if self.status not in TEST_OUTCOMES:
            raise ValueError(f"unknown test outcome {self.status!r} for {self.nodeid}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["evidence"] = list(self.evidence)
        if not self.interrupted:
            del d["interrupted"]  # outcomes.jsonl of a run that finished reads as it always did
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Outcome:
        d = dict(d)
        d["evidence"] = tuple(d.get("evidence") or ())
        return cls(**d)
