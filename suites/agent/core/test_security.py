"""Security considerations an outside peer can observe (§13): what the agent writes to its logs."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.steps import send
from conformance.agentd.footing import lacking
from conformance.evidence import Evidence, SecretSet
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller

#: The shortest piece of a credential that counts as carrying it (the report's redaction uses the same).
FRAGMENT = 8


def _pieces(secret: str) -> set[str]:
    return {secret[i:i + FRAGMENT] for i in range(max(1, len(secret) - FRAGMENT + 1))}


def _carried(log: str, secret: str) -> int | None:
    """The 1-based line of ``log`` holding a piece of ``secret`` (FRAGMENT characters or more), or None."""
    pieces = _pieces(secret)
    for n, line in enumerate(log.splitlines(), 1):
        if any(p in line for p in pieces):
            return n
    return None


@pytest.mark.requirement("A2A_SEC_001")
def test_logs_carry_no_credential(core_agent: CoreAgent, caller: Caller, binding: str, recorder: Recorder,
                                  run_secrets: SecretSet, evidence: Evidence) -> None:
    """The agent is called with the credential it was configured with (if any) and with one it never saw;
    what it wrote to its log meanwhile holds no piece of either (§13.4: logs MUST NOT include credentials).
    A pass needs log lines written while the calls were served. Defect: log-credentials."""
    launched: Any = core_agent.launched
    if launched is None or not hasattr(launched, "logs"):
        lacking("logs")
    before = launched.logs()
    presented = run_secrets.make("logc")
    send(caller, "conformance check: a logged call")
    stranger = Caller(binding, core_agent.interfaces[binding], token=presented, recorder=recorder,
                      timeout=core_agent.call_timeout)
    try:
        send(stranger, "conformance check: a call with a credential the agent never issued")
    finally:
        stranger.close()
    log = launched.logs()
    written = log[len(before):] if log.startswith(before) else log
    evidence.add("the agent's log while the calls were served (redacted)", written[-20_000:])
    credentials = {"the credential it was presented and never issued": presented}
    if core_agent.token:
        credentials["its configured bearer token"] = core_agent.token
    for what, secret in credentials.items():
        line = _carried(log, secret)  # anywhere: a daemon echoing its configuration at start leaks it too
        if line is not None:
            fail(f"the agent's log carries {what} (at least {FRAGMENT} characters of it, line {line} of its log; "
                 "the evidence holds the log redacted)")
    if not written.strip():
        not_measured("the agent wrote nothing to its log while serving two calls, so there is no log to judge "
                     "(a pass needs lines it wrote)")
