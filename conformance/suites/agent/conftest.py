"""Fixtures of the agent half: the agent under test (``conformance.targets.instances``), in the
configurations the checks need, and the wire recorder. On a container target, each container a check
used goes into its evidence with its state and last log lines.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import interrupts
from conformance.a2a import datamodel
from conformance.a2a.ledger import SETTLE_ON_STOP, SETTLE_TIMEOUT, TaskLedger
from conformance.context import RunContext
from conformance.evidence import Evidence, SecretSet
from conformance.targets.instances import AgentTargets
from conformance.targets.kinds import kind_of, targets_for
from conformance.targets.model import AgentTarget
from conformance.wire import Recorder


@pytest.fixture(scope="session")
def agent_targets(run_context: RunContext, run_secrets: SecretSet, pytestconfig: pytest.Config
                  ) -> Iterator[AgentTargets]:
    report = pytestconfig.getoption("conformance_report", None)
    # The run the command described (launch the reference when it described none).
    targets = targets_for(AgentTarget.from_dict(run_context.target), run_secrets,
                          Path(report).resolve() if report else None)
    yield targets
    targets.close()


@pytest.fixture(scope="session", autouse=True)
def _run_leaves_no_task_running(run_context: RunContext, pytestconfig: pytest.Config) -> Iterator[None]:
    """On a target the user runs (``--url``, ``--unix``): the tasks this process made and left running are
    canceled when the run ends, or is interrupted, and waited for (bounded), so the next run finds the
    agent as this one did (``conformance.a2a.ledger``). Launched targets and containers end with the run."""
    if not kind_of(AgentTarget.from_dict(run_context.target)).running:
        yield
        return
    with TaskLedger() as ledger:
        try:
            yield
        finally:
            line = ledger.settle(SETTLE_ON_STOP if interrupts.received() else SETTLE_TIMEOUT).line()
            capture: Any = pytestconfig.pluginmanager.getplugin("capturemanager")
            if line:  # to the user's terminal, not into a check's captured output
                with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
                    sys.stderr.write(line + "\n")


@pytest.fixture(autouse=True)
def _container_evidence(request: pytest.FixtureRequest, evidence: Evidence) -> Iterator[None]:
    """On a container target: each container a check used, its state and last log lines, in the evidence."""
    targets = request.getfixturevalue("agent_targets") if "agent_targets" in request.fixturenames else None
    yield
    if targets is not None and targets.containers is not None:
        for agent in targets.containers.drain_used():
            evidence.add(f"container {agent.name}", agent.evidence())


@pytest.fixture
def recorder(evidence: Evidence, run_secrets: SecretSet, run_context: RunContext, record_transport: Any,
             record_findings: Any) -> Iterator[Recorder]:
    """A wire recorder whose exchanges become the check's evidence (redacted), and whose reads are held
    to the rules of the family's observed rows (the data model: ``conformance.a2a.datamodel``)."""
    rec = Recorder()
    yield rec
    for ex in rec:
        if ex.protocol_answer:  # transports_covered lists only bindings that answered
            record_transport(ex.binding)
    evidence.add("wire exchanges", rec.to_evidence(secrets=tuple(run_secrets.secrets)))
    owners = datamodel.BY_FAMILY.get(run_context.family)
    if owners is not None:
        # The core checks read through the caller (its reads); the agentd checks through the plain JSON-RPC
        # client, whose 1.0 results are read back from the exchanges.
        reads = rec.reads if run_context.family == "a2a" else [*rec.reads, *datamodel.exchange_reads(rec)]
        record_findings(datamodel.findings_of(reads, owners))
