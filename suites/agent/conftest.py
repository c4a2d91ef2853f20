"""Fixtures of the agent half: the agent under test (``conformance.targets.instances``), in the
configurations the checks need, and the wire recorder. On a container target, each container a check
used goes into its evidence with its state and last log lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.a2a import datamodel
from conformance.context import RunContext
from conformance.evidence import Evidence, SecretSet
from conformance.targets.instances import AgentTargets
from conformance.wire import Recorder


@pytest.fixture(scope="session")
def agent_targets(run_context: RunContext, run_secrets: SecretSet, pytestconfig: pytest.Config
                  ) -> Iterator[AgentTargets]:
    report = pytestconfig.getoption("conformance_report", None)
    targets = AgentTargets.from_context(run_context, run_secrets, Path(report).resolve() if report else None)
    yield targets
    targets.close()


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
