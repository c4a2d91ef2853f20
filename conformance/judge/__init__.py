"""The one toolkit checks judge with, and quote with.

- **the blame rule** (:mod:`.blame`): :func:`blocked_by`, :func:`judged_here`, ``DEPENDS_MARKER``;
- **quoting what came back** (:mod:`conformance.wire.quoting`, re-exported here): :func:`quote` (any value),
  :func:`clip` (a text), :func:`shown` (a CLI run: exit status, the start of stdout and stderr);
- **strict reading** (:mod:`.reading`): :func:`strict`, :func:`violations`, the second reader's verdict
  on any A2A object a target sent;
- **expecting a result or an error** (:mod:`.errors`): :func:`in_time`, :func:`succeeded`, :func:`expect_error` (a core
  A2A error on any binding), :func:`expect_refusal` (a row of agentd's error table);
- **unique tags** (:mod:`.tags`): :func:`unique`, values a check can later find by value;
- **findings** (:mod:`.findings`): :class:`Finding`, what a check saw break an ``observed`` row's rule.
"""

from __future__ import annotations

from conformance.judge.blame import DEPENDS_MARKER, Blocked, blame_violation, blocked_by, judged_here
from conformance.judge.errors import (
    SeenRefusal,
    describe_error,
    error_problem,
    expect_error,
    expect_refusal,
    identity_mismatch,
    in_time,
    refusal,
    refusal_problems,
    succeeded,
)
from conformance.judge.findings import Finding
from conformance.judge.reading import strict, violations
from conformance.judge.tags import unique
from conformance.wire.quoting import clip, quote, shown

__all__ = [
    "DEPENDS_MARKER",
    "Blocked",
    "Finding",
    "SeenRefusal",
    "blame_violation",
    "blocked_by",
    "clip",
    "describe_error",
    "error_problem",
    "expect_error",
    "expect_refusal",
    "identity_mismatch",
    "in_time",
    "judged_here",
    "quote",
    "refusal",
    "refusal_problems",
    "shown",
    "strict",
    "succeeded",
    "unique",
    "violations",
]
