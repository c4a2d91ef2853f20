"""EXIT: exit statuses — 0/1/2 with their meanings, reserved ones agreeing with the error reported, and
task outcomes kept out of the exit code.

EXIT_001 judges exit statuses only. The error the tool reported is read where it is given (an
Appendix B envelope on either stream, or an ``A2ACLI_ERR_*`` code in text); a tool that reports none
is judged on its statuses alone (OUT_004 judges the envelope). Each probe drives the plainest
invocation that reaches its condition.
"""

from __future__ import annotations

import re
import socket

import pytest

from conformance.cli.invocations import AgentMaker, Cli, RecordCode
from conformance.cli.output import find_error_envelope, state_matches
from conformance.cli.runner import CliResult
from conformance.fixtures.scripted_agent import ErrorReply, Script, TaskFlow
from conformance.judge import blocked_by, shown
from conformance.outcome import not_measured
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
TIMEOUT_FLAG, TIMEOUT_S = "1s", 1.0


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


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
@pytest.mark.parametrize("case", ["unknown-option", "missing-task-id"])
def test_usage_error_exits_2(cli: Cli, agent: AgentMaker, record_error_code: RecordCode, case: str) -> None:
    """An unknown option, or `task get` without its taskId, is a usage error: exit 2 (and, if an
    error code is reported, it must not claim another condition).

    Catches defect `usage-exit-1`.
    """
    a = agent()
    args = {"unknown-option": ("send", "--text", "x", "--no-such-option-exit1"),
            "missing-task-id": ("task", "get")}[case]
    r = cli.run(*args, *card_ref(a), usage_error_expected=True)
    cli.require(r, *(("send", "--text") if case == "unknown-option" else ("task get",)))
    assert r.exit_code == 2, f"expected exit 2 for a usage error ({case}), got {r.exit_code}; {shown(r)}"
    assert_exit_agrees(r, reported_code(r, record_error_code, f"usage error: {case}"))
    assert not a.a2a_requests(), f"a usage error still sent {[q.operation for q in a.a2a_requests()]}"


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


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_002", "A2ACLI_SEND_002")
def test_timeout_exit_agrees_with_the_timeout(cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """`send --timeout 1s` on a task that stays WORKING: when the wait gives up it exits 5 (or 1) —
    never 0 (a timeout is a failure), never a reserved status of another meaning — and any error code
    reported agrees. Probed on `send`'s default wait, so `task get --wait` is not needed.

    Catches defect `timeout-exit-3` (TIMEOUT reported, exit 3).
    """
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 120.0)))))
    r = cli.run("send", "--text", "take your time", *card_ref(a), "--timeout", TIMEOUT_FLAG, timeout=10.0)
    if not a.sent_messages():
        blocked_by("A2ACLI_SEND_001", f"`send` delivered no message (exit {r.exit_code})")
    if r.timed_out:
        blocked_by("A2ACLI_TASK_POLL_002", f"--timeout {TIMEOUT_FLAG} did not end the wait (still running at 10 s)")
    if r.duration < TIMEOUT_S * 0.9:
        if r.exit_code == 0:
            blocked_by("A2ACLI_SEND_002", f"`send` returned after {r.duration:.2f}s without waiting, so "
                                          "--timeout never expired")
        not_measured(f"the run failed after {r.duration:.2f}s, before --timeout {TIMEOUT_FLAG} could expire "
                     f"(exit {r.exit_code})")
    code = reported_code(r, record_error_code, "--timeout expiry")
    assert r.exit_code != 0, (f"expected a non-zero exit when --timeout expires before a terminal state, got 0 "
                              f"(success); {shown(r)}")
    assert r.exit_code in (5, 1), (f"expected exit 5 (or 1) for a timeout, got {r.exit_code}, which means "
                                   f"something else; {shown(r)}")
    assert_exit_agrees(r, code)


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_protocol_error_exits_1_and_success_exits_0(cli: Cli, agent: AgentMaker) -> None:
    """A completed task exits 0; a GetTask the agent refuses (TaskNotFoundError, none of the reserved
    conditions) exits 1 — not a reserved status, which would claim unreachable, auth or timeout.
    """
    a = agent(Script(refuse={"GetTask": ErrorReply("TaskNotFoundError")}))
    ok = cli.run("send", "--text", "hello", *card_ref(a))
    if not a.sent_messages():
        blocked_by("A2ACLI_SEND_001", f"`send` delivered no message (exit {ok.exit_code})")
    assert ok.exit_code == 0, f"expected exit 0 for a completed turn, got {ok.exit_code}; {shown(ok)}"
    r = cli.run("task", "get", "exit-missing-task", *card_ref(a))
    if not [q for q in a.a2a_requests() if q.operation == "GetTask"]:
        blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
    assert r.exit_code == 1, f"expected exit 1 for a protocol error (TaskNotFoundError), got {r.exit_code}; {shown(r)}"


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
