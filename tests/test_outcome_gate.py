"""A check that never reached its subject (a fixture saw it, once the body had run) is blocked, not failed:
:func:`conformance.plugin.outcomes.final` with a gate. The CLI's scripted agent raises one when the tool
never asked any agent for its card (``suites/cli/conftest.py``); ``tests/test_blame_owner.py`` shows it on
a run (defect ``card-no-well-known``)."""

from __future__ import annotations

from conformance.outcome import FAIL, NA, NOT_MEASURED, PASS
from conformance.plugin.outcomes import final
from conformance.plugin.state import Phase

GATE = Phase(NOT_MEASURED, "blocked by A2ACLI_CARD_GET_001: the tool never asked for the card", False,
             "A2ACLI_CARD_GET_001")


def test_a_failed_or_unmeasured_body_is_blocked_by_the_gate() -> None:
    for body in (Phase(FAIL, "expected exit 0"), Phase(NOT_MEASURED, "no stream was opened")):
        assert final({"setup": Phase(PASS, ""), "call": body}, GATE) == GATE


def test_a_body_blocked_by_another_requirement_is_blocked_by_the_gate_its_root() -> None:
    """The tool never asked for the card: a `send` that made no request (blocked by SEND_001) is that, not a
    second cause (seen on defect card-no-well-known: ten rows named SEND_001 or TX_004 instead of the card)."""
    body = Phase(NOT_MEASURED, "blocked by A2ACLI_SEND_001: no task", False, "A2ACLI_SEND_001")
    assert final({"setup": Phase(PASS, ""), "call": body}, GATE) == GATE


def test_a_pass_an_na_or_a_harness_error_stand() -> None:
    for body in (Phase(PASS, ""), Phase(NA, "does not apply"), Phase(FAIL, "call: TypeError", True)):
        assert final({"setup": Phase(PASS, ""), "call": body}, GATE) == body
    assert final({"setup": Phase(PASS, ""), "call": Phase(FAIL, "x")}) == Phase(FAIL, "x")
