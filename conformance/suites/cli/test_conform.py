"""A2ACLI_CONFORM_001 (SPEC.md §7.1): `conformance` smoke-checks a live agent against the A2A TCK.

Judged on two kinds of agent (``conformance.fixtures.scripted_agent.core``): the well-behaved core
agent, against which the command must report success and exit 0 having exercised the agent (a
SendMessage recorded, not just a card fetch); and, one at a time, the same agent with each protocol
defect of ``CONFORM_DEFECTS`` switched on (a SendMessage answered with a bare Task, interfaces
without their REQUIRED protocolVersion) — which the command must report as a failure with a non-zero
exit that is not the usage status.
"""

from __future__ import annotations

import re

import pytest

from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent.core import core_script
from conformance.fixtures.scripted_agent.defects import CONFORM_DEFECTS
from conformance.judge import blocked_by, shown

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

CONFORM = "A2ACLI_CONFORM_001"
SUCCESS = re.compile(r"\b(pass(ed)?|ok|success(ful)?|succeeded|conformant|compliant)\b", re.I)
FAILURE = re.compile(r"fail|error|invalid|non-?conformant|violat|✗|❌", re.I)
#: Each run exercises a live agent end to end; allow for a slow start of the tool.
TIMEOUT = 30.0


@pytest.mark.requirement(CONFORM)
def test_conformance_reports_success_against_a_conformant_agent(cli: Cli, agent: AgentMaker) -> None:
    """`conformance` against the clean core agent exits 0, says it passed, and sent the agent a message.

    Catches defect `conformance-card-only` (and any tool that fails a conformant agent).
    """
    a = agent(core_script(), grpc=True)
    r = cli.run("conformance", "-a", a.base_url, timeout=TIMEOUT)
    ops = [q.operation for q in a.a2a_requests()]
    assert r.exit_code == 0, f"expected exit 0 against a conformant agent, got {r.exit_code}; {shown(r)}"
    assert SUCCESS.search(r.stdout_text + r.stderr_text), f"expected the report to say the agent passed; {shown(r)}"
    assert any(op in ("SendMessage", "SendStreamingMessage") for op in ops), (
        f"expected the smoke check to exercise the agent with a message; it sent {ops or 'no A2A request'}; "
        f"{shown(r)}")


@pytest.mark.requirement(CONFORM)
@pytest.mark.depends_on("A2ACLI_TX_001")
@pytest.mark.parametrize("protocol_defect", CONFORM_DEFECTS)
def test_conformance_reports_a_protocol_defect_and_exits_non_zero(
        cli: Cli, agent: AgentMaker, protocol_defect: str) -> None:
    """`conformance` against the core agent with one protocol defect exits non-zero (not 2, a usage
    error) and names a failure in its report.

    Catches defect `conformance-always-passes`.
    """
    script = core_script(defects=[protocol_defect])
    a = agent(script, grpc=True)
    r = cli.run("conformance", "-a", a.base_url, timeout=TIMEOUT)
    first = script.card.interfaces[0].binding
    used = sorted({q.binding for q in a.a2a_requests()})
    if r.exit_code == 0 and used and first not in used:
        # the smoke check went over another binding than the card's first, where the defect need not show:
        # which binding a tool picks is A2ACLI_TX_001's
        blocked_by("A2ACLI_TX_001", f"`conformance` checked the agent over {used}, not the card's first binding "
                                    f"{first}, where defect {protocol_defect} shows; {shown(r)}")
    assert r.exit_code not in (0, 2, None), (
        f"expected a non-zero exit (not the usage status) against an agent with defect {protocol_defect}, "
        f"got {r.exit_code}; {shown(r)}")
    assert FAILURE.search(r.stdout_text + r.stderr_text), (
        f"expected the report to name the failure ({protocol_defect}); {shown(r)}")
