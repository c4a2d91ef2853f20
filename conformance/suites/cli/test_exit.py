"""EXIT: exit statuses — 0/1/2 with their meanings, reserved ones agreeing with the error reported, and
task outcomes kept out of the exit code.

EXIT_001 judges exit statuses only. Each condition it asks about (a usage error, a timeout, a
protocol error) is reached by the plainest invocation first and, when another row's missing feature
blocks that one, by another row's invocation that provokes the same condition (``by_any_route``):
the evidence is always a run of exactly that condition, so a tool is judged wherever its runs show
the statuses. The error the tool reported is read where it is given (an Appendix B envelope on
either stream, or an ``A2ACLI_ERR_*`` code in text); a tool that reports none is judged on its
statuses alone (OUT_004 judges the envelope). Each probe drives the plainest invocation that reaches
its condition.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from typing import NoReturn

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli, RecordCode
from conformance.clicheck.output import find_error_envelope, state_matches
from conformance.fixtures.scripted_agent import ErrorReply, Script, ScriptedAgent, TaskFlow
from conformance.judge import Blocked, blocked_by, shown
from conformance.outcome import NotMeasured, not_measured
from conformance.suites.cli.conftest import card_ref

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


#: Appendix D: the exit status each CLI-local code maps to where the tool implements that status.
APPENDIX_D_EXIT: dict[str, int] = {
    "A2ACLI_ERR_USAGE": 2,
    "A2ACLI_ERR_CARD_NOT_FOUND": 3,
    "A2ACLI_ERR_CARD_INVALID": 1,
    "A2ACLI_ERR_UNREACHABLE": 3,
    "A2ACLI_ERR_CREDENTIALS_MISSING": 4,
    "A2ACLI_ERR_AUTH_FAILED": 4,
    "A2ACLI_ERR_TIMEOUT": 5,
    "A2ACLI_ERR_INTERNAL": 1,
}
RESERVED = (3, 4, 5)
_CODE_IN_TEXT = re.compile(r"\bA2ACLI_ERR_[A-Z_]+\b")
#: The --timeout the timeout probe gives, as the CLI is told it and in seconds.
TIMEOUT_FLAG, TIMEOUT_S = "3s", 3.0


def waited_since(a: ScriptedAgent, *operations: str) -> float:
    """Seconds from the first of ``operations`` the agent received to now (the run has just ended): how
    long the tool went on after it reached the agent. Its own start-up is not counted, so a slow start
    under load never passes for a wait."""
    first = [q.wall for q in a.a2a_requests() if q.operation in operations]
    return time.time() - min(first) if first else 0.0


def timeout_reached(r: CliResult, waited: float, record_error_code: RecordCode, not_waiting: Callable[[str], None],
                    what: str) -> None:
    """Judge a run whose wait ``--timeout`` was to end. A non-zero exit is the timeout's when the tool
    says so (A2ACLI_ERR_TIMEOUT, or exit 5) or ran at least as long as the timeout; a faster failure says
    nothing about it (not measured). An exit 0 is judged (a timeout reported as success) only when the
    tool demonstrably kept waiting after it reached the agent (60 % of the timeout: a tool whose clock
    starts at launch has spent some of it starting); sooner, it never waited (``not_waiting``)."""
    if r.exit_code != 0:
        code = reported_code(r, record_error_code, "--timeout expiry")
        if code != "A2ACLI_ERR_TIMEOUT" and r.exit_code != 5 and r.duration < TIMEOUT_S * 0.9:
            not_measured(f"{what} failed after {r.duration:.2f}s, before --timeout {TIMEOUT_FLAG} could expire "
                         f"(exit {r.exit_code})")
    elif waited < TIMEOUT_S * 0.6:
        not_waiting(f"{what} returned {waited:.2f}s after reaching the agent, without waiting, so --timeout "
                    "never expired")
    judge_timeout_exit(r, record_error_code)


def allowed_exits(code: str) -> set[int]:
    """Exit statuses that agree with ``code``: its Appendix D status, or 1 in place of a reserved one."""
    mapped = APPENDIX_D_EXIT[code]
    return {mapped, 1} if mapped in RESERVED else {mapped}


def reported_code(r: CliResult, record: RecordCode, note: str) -> str | None:
    """The error code the run reported: an envelope's ``code`` (stdout or stderr), else the first
    ``A2ACLI_ERR_*`` code written in its text; recorded when it is an A2ACLI_ERR_* code."""
    env, where = find_error_envelope(r.stdout_text, r.stderr_text)
    code = env.get("code") if env else None
    if not isinstance(code, str):
        m = _CODE_IN_TEXT.search(r.stderr_text) or _CODE_IN_TEXT.search(r.stdout_text)
        code, where = (m.group(0), "text") if m else (None, "")
    if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
        record(code, f"{note} ({where})")
    return code


def assert_exit_agrees(r: CliResult, code: str | None) -> None:
    """A reported A2ACLI_ERR_* code and the exit status must say the same thing (§11.6)."""
    if code in APPENDIX_D_EXIT:
        assert r.exit_code in allowed_exits(code), (
            f"expected an exit agreeing with the reported {code} ({sorted(allowed_exits(code))}), "
            f"got {r.exit_code}; {shown(r)}")


# ─────────────────────────────── EXIT_001 ───────────────────────────────


def by_any_route(*routes: Callable[[], None]) -> None:
    """Reach one condition EXIT_001 asks about by the first route not blocked by another row's missing
    feature. Each route is an invocation that provokes exactly that condition (a usage error, a timeout,
    a protocol error) and judges the exit status the same way; a route that cannot reach it ends
    ``not_measured`` and the next is tried. A failing judgment ends the check at once. Only when every
    route is unreachable is the check not measured, naming each reason (the first route's blocker
    leads)."""
    ended: list[NotMeasured] = []
    for route in routes:
        try:
            route()
            return
        except NotMeasured as exc:
            ended.append(exc)
    unreached(ended)


def unreached(ended: list[NotMeasured]) -> NoReturn:
    """Not measured, naming why each route failed to reach the condition (the first one's blocker leads)."""
    first = ended[0]
    why = "; then ".join(str(e) for e in ended)
    if isinstance(first, Blocked):
        blocked_by(first.by, why.removeprefix(f"blocked by {first.by}: "))
    not_measured(why)


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_usage_error_exits_2(cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """An unknown option on `send`, and `task get` without its taskId, are usage errors: exit 2 (and, if
    an error code is reported, it must not claim another condition). Both are probes of one clause: a
    probe whose command is missing (another row's) is skipped, but at least one must reach a usage
    error, and every one that does must exit 2.

    Catches defect `usage-exit-1`.
    """
    a = agent()
    probes = {"unknown-option": (("send", "--text", "x", "--no-such-option-exit1"), ("send", "--text")),
              "missing-task-id": (("task", "get"), ("task get",))}
    blocked: list[NotMeasured] = []
    measured = 0
    for case, (args, needs) in probes.items():
        try:
            r = cli.run(*args, *card_ref(a), usage_error_expected=True)
            cli.require(r, *needs)
        except Blocked as exc:
            blocked.append(exc)
            continue
        measured += 1
        assert r.exit_code == 2, f"expected exit 2 for a usage error ({case}), got {r.exit_code}; {shown(r)}"
        assert_exit_agrees(r, reported_code(r, record_error_code, f"usage error: {case}"))
        assert not a.a2a_requests(), f"a usage error still sent {[q.operation for q in a.a2a_requests()]}"
    if not measured:
        unreached(blocked)


def closed_loopback_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.requirement("A2ACLI_EXIT_001")
def test_unreachable_agent_exits_3_or_1_agreeing_with_the_error(cli: Cli, record_error_code: RecordCode) -> None:
    """`send` to an agent on a closed loopback port cannot reach it: exit 3 (unreachable) or 1, and any
    error code reported agrees with that status.
    """
    r = cli.run("send", "--text", "x", "-a", f"http://127.0.0.1:{closed_loopback_port()}")
    assert r.exit_code in (3, 1), f"expected exit 3 (or 1) for an unreachable agent, got {r.exit_code}; {shown(r)}"
    assert_exit_agrees(r, reported_code(r, record_error_code, "unreachable agent (closed loopback port)"))


def judge_timeout_exit(r: CliResult, record_error_code: RecordCode) -> None:
    """A wait that --timeout ended: non-zero, 5 (or 1), agreeing with any code reported."""
    code = reported_code(r, record_error_code, "--timeout expiry")
    assert r.exit_code != 0, (f"expected a non-zero exit when --timeout expires before a terminal state, got 0 "
                              f"(success); {shown(r)}")
    assert r.exit_code in (5, 1), (f"expected exit 5 (or 1) for a timeout, got {r.exit_code}, which means "
                                   f"something else; {shown(r)}")
    assert_exit_agrees(r, code)


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_002", "A2ACLI_SEND_002", "A2ACLI_TASK_POLL_001", "A2ACLI_TASK_GET_001")
def test_timeout_exit_agrees_with_the_timeout(cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """A wait that --timeout 3s ends on a task that stays WORKING exits 5 (or 1) — never 0 (a timeout is
    a failure), never a reserved status of another meaning — and any error code reported agrees.

    Two routes reach the timeout, each judged the same: `send --timeout 3s` (send's default wait,
    SEND_002's), else `task get <id> --wait --timeout 3s` on a held WORKING task (TASK_POLL_001's
    --wait), the invocation the polling rows use. A tool whose `send` does not wait still shows its
    timeout exit through the second; only when neither reaches a timeout is the check not measured.

    Catches defect `timeout-exit-3` (TIMEOUT reported, exit 3) on either route.
    """
    def by_send() -> None:
        a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 120.0)))))
        r = cli.run("send", "--text", "take your time", *card_ref(a), "--timeout", TIMEOUT_FLAG, timeout=12.0)
        waited = waited_since(a, "SendMessage", "SendStreamingMessage")
        if not a.sent_messages():
            blocked_by("A2ACLI_SEND_001", f"`send` delivered no message (exit {r.exit_code})")
        if r.timed_out:
            blocked_by("A2ACLI_TASK_POLL_002", f"--timeout {TIMEOUT_FLAG} did not end the wait (still running at 12 s)")
        timeout_reached(r, waited, record_error_code, lambda why: blocked_by("A2ACLI_SEND_002", why), "`send`")

    def by_task_get_wait() -> None:
        a = agent()
        rec = a.hold_task("WORKING")
        r = cli.run("task", "get", rec.id, "--wait", *card_ref(a), "--timeout", TIMEOUT_FLAG, timeout=12.0)
        waited = waited_since(a, "GetTask")
        if not [q for q in a.a2a_requests() if q.operation == "GetTask"]:
            blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
        if r.timed_out:
            blocked_by("A2ACLI_TASK_POLL_002", f"--timeout {TIMEOUT_FLAG} did not end `task get --wait` "
                                               "(still running at 12 s)")
        timeout_reached(r, waited, record_error_code, lambda why: blocked_by("A2ACLI_TASK_POLL_001", why),
                        "`task get --wait`")

    by_any_route(by_send, by_task_get_wait)


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001", "A2ACLI_TASK_CANCEL_001")
def test_protocol_error_exits_1_and_success_exits_0(cli: Cli, agent: AgentMaker) -> None:
    """A completed task exits 0; a request the agent refuses with TaskNotFoundError (none of the reserved
    conditions) exits 1 — not a reserved status, which would claim unreachable, auth or timeout. The
    refusal is reached by `task get <unknown id>`, else by `task cancel <unknown id>`.

    Catches defect `protocol-error-exit-3`.
    """
    missing = ErrorReply("TaskNotFoundError")
    a = agent(Script(refuse={"GetTask": missing, "CancelTask": missing}))
    ok = cli.run("send", "--text", "hello", *card_ref(a))
    if not a.sent_messages():
        blocked_by("A2ACLI_SEND_001", f"`send` delivered no message (exit {ok.exit_code})")
    assert ok.exit_code == 0, f"expected exit 0 for a completed turn, got {ok.exit_code}; {shown(ok)}"

    def refused(command: tuple[str, ...], operation: str, owner: str) -> Callable[[], None]:
        def route() -> None:
            r = cli.run(*command, "exit-missing-task", *card_ref(a))
            if not [q for q in a.a2a_requests() if q.operation == operation]:
                blocked_by(owner, f"`{' '.join(command)}` sent no {operation} (exit {r.exit_code})")
            assert r.exit_code == 1, (f"expected exit 1 for a protocol error (TaskNotFoundError on {operation}), "
                                      f"got {r.exit_code}; {shown(r)}")
        return route

    by_any_route(refused(("task", "get"), "GetTask", "A2ACLI_TASK_GET_001"),
                 refused(("task", "cancel"), "CancelTask", "A2ACLI_TASK_CANCEL_001"))


# ─────────────────────────────── EXIT_002 ───────────────────────────────


OUTCOMES = ["TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]


@pytest.mark.requirement("A2ACLI_EXIT_002")
@pytest.mark.parametrize("state", OUTCOMES)
def test_task_outcome_exits_0_with_a_stderr_warning(cli: Cli, agent: AgentMaker, state: str) -> None:
    """A turn that ends FAILED / REJECTED or pauses at INPUT_REQUIRED / AUTH_REQUIRED exits 0, reports the
    state on stdout, and names it in a stderr warning (a SHOULD the tier claim promotes).

    Catches defect `exit-1-on-failed-task`, and a tool that gives no warning.
    """
    steps = ((state, 0.0),) if state == "TASK_STATE_REJECTED" else (("TASK_STATE_WORKING", 0.0), (state, 0.3))
    a = agent(Script(send=TaskFlow(states=steps)))
    r = cli.run("send", "--text", "do it", *card_ref(a))
    if not a.sent_messages():
        blocked_by("A2ACLI_SEND_001", f"`send` delivered no message (exit {r.exit_code})")
    assert not r.timed_out, f"expected send to return at {state}; it was still running; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 for a task that ended {state}, got {r.exit_code}; {shown(r)}"
    assert state_matches(r.stdout_text, state), f"expected stdout to report the outcome {state}; {shown(r)}"
    assert state_matches(r.stderr_text, state), f"expected a stderr warning naming {state}; {shown(r)}"
