"""EXIT: exit statuses — 0/1/2 with their meanings, reserved ones agreeing with the error reported, and
task outcomes kept out of the exit code.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from conformance.cli.output import find_error_envelope, shown, state_matches
from conformance.cli.runner import CliResult
from conformance.fixtures.scripted_agent import Refusal, Script, ScriptedAgent, TaskFlow
from conformance.suites.cli.conftest import Cli, card_ref

StartAgent = Callable[..., ScriptedAgent]
RecordCode = Callable[..., None]

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


def allowed_exits(code: str) -> set[int]:
    """Exit statuses that agree with ``code``: its Appendix D status, or 1 in place of a reserved one."""
    mapped = APPENDIX_D_EXIT[code]
    return {mapped, 1} if mapped in RESERVED else {mapped}


def reported_code(r: CliResult, record: RecordCode, note: str) -> str | None:
    """The error code the run reported in its envelope (recorded when it is an A2ACLI_ERR_* code)."""
    env, where = find_error_envelope(r.stdout_text, r.stderr_text)
    code = env.get("code") if env else None
    if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
        record(code, f"{note} ({where})")
    return code if isinstance(code, str) else None


def assert_exit_agrees(r: CliResult, code: str | None) -> None:
    """A reported A2ACLI_ERR_* code and the exit status must say the same thing (§11.6)."""
    if code in APPENDIX_D_EXIT:
        assert r.exit_code in allowed_exits(code), \
            f"reported {code} but exited {r.exit_code} (agrees only with {sorted(allowed_exits(code))}); {shown(r)}"


# ─────────────────────────────── EXIT_001 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.parametrize("case", ["unknown-option", "missing-task-id"])
def test_usage_error_exits_2(cli: Cli, agent: StartAgent, record_error_code: RecordCode, case: str) -> None:
    """An unknown option, or `task get` without its taskId, is a usage error: exit 2 (and, if an
    envelope is printed, it must not claim another condition).

    Catches defect `usage-exit-1`.
    """
    a = agent()
    args = {"unknown-option": ("send", "--text", "x", "--no-such-option-exit1"),
            "missing-task-id": ("task", "get")}[case]
    r = cli.run(*args, *card_ref(a), "-o", "json")
    assert r.exit_code == 2, f"expected exit 2 for a usage error ({case}); {shown(r)}"
    assert_exit_agrees(r, reported_code(r, record_error_code, f"usage error: {case}"))
    assert not a.a2a_requests(), f"a usage error still sent {[q.operation for q in a.a2a_requests()]}"


def closed_loopback_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.requirement("A2ACLI_EXIT_001")
def test_unreachable_agent_exits_3_or_1_with_a_matching_error(cli: Cli, record_error_code: RecordCode) -> None:
    """An agent on a closed loopback port cannot be reached: exit 3 (or 1), and the error reported is
    the unreachable class (A2ACLI_ERR_UNREACHABLE; CARD_NOT_FOUND, the other exit-3 code, is
    tolerated), agreeing with the exit.
    """
    r = cli.run("task", "get", "exit-any", "-a", f"http://127.0.0.1:{closed_loopback_port()}", "-o", "json")
    assert r.exit_code in (3, 1), f"expected exit 3 (or 1) for an unreachable agent; {shown(r)}"
    code = reported_code(r, record_error_code, "unreachable agent (closed loopback port)")
    assert code in ("A2ACLI_ERR_UNREACHABLE", "A2ACLI_ERR_CARD_NOT_FOUND"), \
        f"expected A2ACLI_ERR_UNREACHABLE for a refused connection, got {code!r}; {shown(r)}"
    assert_exit_agrees(r, code)


@pytest.mark.requirement("A2ACLI_EXIT_001")
def test_timeout_exit_agrees_with_the_timeout_error(cli: Cli, agent: StartAgent,
                                                    record_error_code: RecordCode) -> None:
    """`--timeout` expiry reports A2ACLI_ERR_TIMEOUT and exits 5 (or 1) — never a reserved status
    of another meaning.

    Catches defect `timeout-exit-3` (TIMEOUT reported, exit 3).
    """
    a = agent()
    rec = a.add_task(TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 120.0))))
    r = cli.run("task", "get", rec.id, "--wait", *card_ref(a), "--poll-interval", "200ms", "--timeout", "1s",
                "-o", "json", timeout=10.0)
    assert not r.timed_out, f"--timeout 1s did not end the wait; {shown(r)}"
    code = reported_code(r, record_error_code, "--timeout expiry")
    assert code == "A2ACLI_ERR_TIMEOUT", f"expected A2ACLI_ERR_TIMEOUT on --timeout expiry, got {code!r}; {shown(r)}"
    assert_exit_agrees(r, code)


@pytest.mark.requirement("A2ACLI_EXIT_001")
def test_protocol_error_exits_1_and_success_exits_0(cli: Cli, agent: StartAgent) -> None:
    """A completed task exits 0; a GetTask the agent refuses (TaskNotFoundError, none of the reserved
    conditions) exits 1 — not a reserved status, which would claim unreachable, auth or timeout.
    """
    a = agent(Script(refuse={"GetTask": Refusal("TaskNotFoundError")}))
    ok = cli.run("send", "--text", "hello", *card_ref(a))
    assert ok.exit_code == 0, f"expected exit 0 for a completed turn; {shown(ok)}"
    r = cli.run("task", "get", "exit-missing-task", *card_ref(a), "-o", "json")
    assert r.exit_code == 1, f"expected exit 1 for a protocol error (TaskNotFoundError); {shown(r)}"


# ─────────────────────────────── EXIT_002 ───────────────────────────────


OUTCOMES = ["TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]


@pytest.mark.requirement("A2ACLI_EXIT_002")
@pytest.mark.parametrize("state", OUTCOMES)
def test_task_outcome_exits_0_with_a_stderr_warning(cli: Cli, agent: StartAgent, state: str) -> None:
    """A turn that ends FAILED / REJECTED or pauses at INPUT_REQUIRED / AUTH_REQUIRED exits 0, reports the
    state on stdout, and names it in a stderr warning (a SHOULD the tier claim promotes).

    Catches defect `exit-1-on-failed-task`, and a tool that gives no warning.
    """
    steps = ((state, 0.0),) if state == "TASK_STATE_REJECTED" else (("TASK_STATE_WORKING", 0.0), (state, 0.3))
    a = agent(Script(send=TaskFlow(states=steps)))
    r = cli.run("send", "--text", "do it", *card_ref(a))
    assert not r.timed_out, f"send did not return at {state}; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 for a task that ended {state}, got {r.exit_code}; {shown(r)}"
    assert state_matches(r.stdout_text, state), f"stdout does not report the outcome {state}; {shown(r)}"
    assert state_matches(r.stderr_text, state), f"no stderr warning naming the outcome {state}; {shown(r)}"
