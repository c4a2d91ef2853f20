"""Security an outside peer can observe: a caller without a credential refused on every binding (§7.4),
and what the agent writes to its logs (§13)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.security import anonymous, refusal, secured_for, separate_callers
from conformance.a2a.steps import GET_ROW, new_task, send
from conformance.a2a.tasks import SEND_ROW
from conformance.agentd.footing import lacking
from conformance.evidence import Evidence, SecretSet
from conformance.judge import blocked_by, in_time, unique
from conformance.judge.errors import error_problem
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


@pytest.mark.requirement("A2A_SEC_002")
def test_every_binding_refuses_a_caller_without_a_credential(core_agent: CoreAgent, binding: str,
                                                             recorder: Recorder) -> None:
    """§7.4: the server MUST authenticate every incoming request against its declared requirements; §5.1
    (and §7.3: credentials go in each binding's headers or metadata): every binding alike. On a card whose
    security requirements every caller must meet (a launched target is started so when it is not), a
    SendMessage carrying no credential at all is refused on this binding (no result: HTTP 401/403, gRPC
    UNAUTHENTICATED, or an error), while the same message with the harness's credential is served, so the
    refusal is the credential's. Each binding is judged on its own (the row's result per transport).
    Defect: grpc-unauthenticated."""
    agent = secured_for(core_agent, binding, required=True)
    if agent.token is None:
        schemes = sorted((agent.card or {}).get("securitySchemes") or {})
        not_measured(f"the card requires a credential of {schemes} and the harness holds none to tell a refusal "
                     "for its lack from any other (give one with --token)")
    with agent.caller(binding, recorder) as authed:
        authed.ready()
        with anonymous(agent, binding, recorder) as stranger:
            anon = send(stranger, "conformance check: a message carrying no credential")
        if anon.timed_out is not None:
            not_measured(f"SendMessage without a credential got no answer over {binding} within {anon.timed_out:g}s")
        if anon.has_result:
            fail(f"over {binding}, SendMessage from a caller carrying no credential was served: {anon.quote(300)}")
        ans = send(authed, "conformance check: the same message with the harness's credential")
    if not ans.ok:
        blocked_by(SEND_ROW, f"SendMessage with the harness's credential was not served over {binding} either "
                             f"({ans.quote(200)}), so the refusal without one ({refusal(anon)}) says nothing of it")


#: Where a caller's own credential is refused rather than a task hidden (HTTP 401/403, gRPC statuses).
_CREDENTIAL_REFUSED = {401, 403, "UNAUTHENTICATED", "PERMISSION_DENIED"}
#: Per operation judged, the row that owns its answer for an id no task has.
_UNKNOWN_ROWS = {"GetTask": "A2A_TASK_002", "CancelTask": "A2A_CANCEL_003"}


@pytest.mark.requirement("A2A_SEC_003")
@pytest.mark.depends_on(*_UNKNOWN_ROWS.values())
def test_another_callers_task_is_not_revealed(core_agent: CoreAgent, binding: str, recorder: Recorder) -> None:
    """§3.3.2: servers MUST NOT reveal the existence of resources the client may not access, and MUST answer a
    not-found error for a resource that does not exist or is not accessible to it (§13.1: GetTask and the
    task operations check the caller's access). On a card declaring a security scheme (a launched target is
    started so), with credentials of two principals (two --token roles, the second not an operator's): a task
    the first makes, named by the second in GetTask and in CancelTask, answers TaskNotFoundError, as an id no
    task has answers the second caller (that answer is first asked for; another one blocks the check by its
    own row, a refused credential leaves it not measured); the task itself or any other error reveals it. The
    maker still gets it afterwards. Defect: get-reveals-others-task."""
    agent, maker, other = separate_callers(core_agent)
    if binding not in agent.interfaces:
        not_measured(f"the card declaring a security scheme offers no {binding} interface")
    with agent.caller(binding, recorder, role=maker) as first, agent.caller(binding, recorder, role=other) as second:
        task = new_task(first, "conformance check: a task of one caller")
        tid = task["id"]
        for op, row in _UNKNOWN_ROWS.items():
            unknown = unique("conformance-unknown")
            base = second.call(op, {"id": unknown})
            problem = error_problem(base, "TaskNotFoundError", f"{op} {unknown} by the {other} caller")
            if problem is not None:
                err = base.error
                if base.status in _CREDENTIAL_REFUSED or (err is not None and err.grpc_status in _CREDENTIAL_REFUSED):
                    not_measured(f"the {other} caller's credential is refused ({refusal(base)}), so what the agent "
                                 "reveals to it cannot be seen")
                blocked_by(row, f"{problem}; a TaskNotFoundError for another caller's task could not be told apart "
                                "from what an id no task has gets")
            ans = second.call(op, {"id": tid})
            what = f"{op} by the {other} caller of task {tid}, made by the {maker} caller"
            in_time(ans, what)
            if ans.has_result:
                fail(f"{what} answered the task ({ans.quote(300)}): another principal's task is revealed "
                     "(§3.3.2, §13.1)")
            problem = error_problem(ans, "TaskNotFoundError", what)
            if problem is not None:
                fail(f"{problem}; an id no task has gets TaskNotFoundError, so this answer reveals that the task "
                     "exists (§3.3.2: not found, not a refusal)")
        mine = first.call("GetTask", {"id": tid})
        in_time(mine, f"GetTask of task {tid} by the caller that made it")
        if not mine.ok:
            blocked_by(GET_ROW, f"GetTask of task {tid} by the {maker} caller that made it got no task "
                                f"({mine.quote(200)}), so its being hidden from the {other} caller shows nothing")
