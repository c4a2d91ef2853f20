"""The fixtures every check may take: evidence, the run's context and secrets, and the recorders of
what the report carries besides verdicts (DEFAULT_001's breakdown, transports, error codes)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.context import RunContext
from conformance.evidence import Evidence, SecretSet
from conformance.judge import Finding
from conformance.plugin.state import STATE, TRANSPORT_NAMES, item_state


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Attach evidence to the running check; written (redacted) with its outcome."""
    return item_state(request.node).evidence


@pytest.fixture(scope="session")
def run_secrets(pytestconfig: pytest.Config) -> SecretSet:
    """The run's secret set. Register every credential a check makes up before using it."""
    return pytestconfig.stash[STATE].secrets


@pytest.fixture(scope="session")
def run_context(pytestconfig: pytest.Config) -> RunContext:
    """What the command said about the target (executable, adapter, URL, tokens, facts)."""
    return pytestconfig.stash[STATE].context


@pytest.fixture
def record_breakdown(request: pytest.FixtureRequest) -> Any:
    """``record_breakdown(row, shipped=bool|None, overridable=bool|None, note=str)`` for DEFAULT_001's
    table; None: that side could not be measured."""
    st = item_state(request.node)

    def record(row: str, *, shipped: bool | None, overridable: bool | None, note: str | None = None) -> None:
        st.breakdown[row] = {"shipped": None if shipped is None else bool(shipped),
                             "overridable": None if overridable is None else bool(overridable), "note": note}

    return record


@pytest.fixture
def record_transport(request: pytest.FixtureRequest) -> Any:
    """``record_transport(binding)``: a binding the check saw exercised (for ``transports_covered``)."""
    st = item_state(request.node)

    def record(binding: str) -> None:
        if binding in TRANSPORT_NAMES:
            st.transports.add(TRANSPORT_NAMES[binding])

    return record


@pytest.fixture
def record_error_code(request: pytest.FixtureRequest) -> Any:
    """``record_error_code(code, note)``: an ``A2ACLI_ERR_*`` code the tool was seen to emit."""
    st = item_state(request.node)

    def record(code: str, note: str = "") -> None:
        st.error_codes.setdefault(code, note or request.node.name)

    return record


@pytest.fixture
def record_findings(request: pytest.FixtureRequest) -> Any:
    """``record_findings(findings)``: what the check saw break an ``observed`` row's rule; each becomes a
    failing outcome of that row, with this check's evidence (``conformance.judge.findings``)."""
    st = item_state(request.node)

    def record(findings: list[Finding]) -> None:
        st.findings.extend(f for f in findings if f not in st.findings)

    return record
