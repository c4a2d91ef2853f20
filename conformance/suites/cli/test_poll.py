"""TASK_POLL: the polling path — `task get`, `task get --wait`, its controls, and the stream fallback.

Timing claims are read from the times the scripted agent recorded each GetTask, with generous
tolerances: the checks catch a busy loop or an ignored flag, never a few milliseconds of jitter.
"""

from __future__ import annotations

import pytest

from conformance.cli.runner import CliResult
from conformance.cli.trigger import when
from conformance.clicheck.invocations import CLI_TIMEOUT, AgentMaker, Cli, RecordCode
from conformance.clicheck.output import find_error_envelope, state_matches
from conformance.fixtures.scripted_agent import Script, ScriptedAgent, TaskFlow, TaskRecord
from conformance.judge import blocked_by, shown
from conformance.outcome import not_measured
from conformance.suites.cli.conftest import card_ref

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006",
                                    "A2ACLI_TASK_GET_001")

#: The poll interval the checks ask for, as the CLI is told it and in seconds.
POLL_FLAG, POLL_S = "200ms", 0.2
#: A task that stays WORKING longer than any CLI run may last (the fixture bounds runs to 20 s).
FOREVER = 120.0
#: Bound for a run that is expected to end on its own well before the fixture's 20 s bound.
SHORT_RUN = 10.0
#: When the control wait's task completes (see require_a_waiting_wait).
CONTROL_COMPLETES_AFTER = 3.0
TIMEOUT_ERROR = "A2ACLI_ERR_TIMEOUT"


def get_task_times(agent: ScriptedAgent, task_id: str, *, answered: bool = False) -> list[float]:
    """Monotonic arrival times of every GetTask the agent received for ``task_id`` (``answered``: only
    those it has begun to answer, so their state is read)."""
    out = []
    for r in agent.a2a_requests():
        if r.operation != "GetTask" or (answered and r.response_status is None):
            continue
        body = r.params if isinstance(r.params, dict) else {}
        if task_id in (body.get("id"), body.get("name")) or task_id in r.path or task_id in str(body):
            out.append(r.monotonic)
    return out


def gaps(times: list[float]) -> list[float]:
    return [round(b - a, 3) for a, b in zip(times, times[1:], strict=False)]


def working_task(agent: ScriptedAgent, *later: tuple[str, float], from_first_read: bool = False) -> TaskRecord:
    """A task WORKING from now on, then the given (state, at) steps (timed from the tool's first read of
    the task with ``from_first_read``: however slowly the tool starts, it sees WORKING first)."""
    return agent.add_task(TaskFlow(states=(("TASK_STATE_WORKING", 0.0), *later), from_first_read=from_first_read))


def wait_args(agent: ScriptedAgent, task_id: str, *extra: str) -> list[str]:
    return ["task", "get", task_id, "--wait", *card_ref(agent), "--poll-interval", POLL_FLAG, *extra]


def reported_timeout(r: CliResult, record: RecordCode, note: str) -> str | None:
    """The error code the run reported: the envelope's (either stream), else an A2ACLI_ERR_* code in
    its text — the check reads the report wherever the tool gives it (the envelope is OUT_004's)."""
    env, where = find_error_envelope(r.stdout_text, r.stderr_text)
    code = env.get("code") if env else None
    if not isinstance(code, str):
        text = r.stderr_text + "\n" + r.stdout_text
        code, where = (TIMEOUT_ERROR, "text") if TIMEOUT_ERROR in text else (None, "")
    if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
        record(code, f"{note} ({where})")
    return code


def require_a_waiting_wait(cli: Cli, agent: AgentMaker) -> None:
    """On a check's failure path: show that `task get --wait` waits at all (TASK_POLL_001's subject),
    or end the check blocked by TASK_POLL_001. A control wait on a task that completes 3 s later must
    poll more than once and report COMPLETED (3 s: the tool's own start-up on a loaded machine must not
    eat the whole window, or a waiting tool would read the task once, already complete)."""
    a = agent()
    rec = working_task(a, ("TASK_STATE_COMPLETED", CONTROL_COMPLETES_AFTER), from_first_read=True)
    r = cli.run(*wait_args(a, rec.id), timeout=SHORT_RUN)
    polls = get_task_times(a, rec.id)
    if len(polls) < 2 or not state_matches(r.stdout_text, "TASK_STATE_COMPLETED"):
        blocked_by("A2ACLI_TASK_POLL_001", f"`task get --wait` does not wait: on a task completing after "
                                           f"{CONTROL_COMPLETES_AFTER:g} s it "
                                           f"read it {len(polls)} time(s) and returned (exit {r.exit_code})")


# ─────────────────────────────── TASK_POLL_001 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_POLL_001")
def test_task_get_reads_the_task_once_and_returns(cli: Cli, agent: AgentMaker) -> None:
    """`task get <id>` is a one-shot read: it reports a still-WORKING task and returns without waiting.

    Catches a tool without `task get`, or one whose plain `task get` blocks like `--wait`.
    """
    a = agent()
    rec = working_task(a, ("TASK_STATE_COMPLETED", FOREVER))
    r = cli.run("task", "get", rec.id, *card_ref(a), timeout=SHORT_RUN)
    assert not r.timed_out, f"`task get` (no --wait) did not return within {SHORT_RUN}s; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 from a one-shot `task get`; {shown(r)}"
    assert rec.id in r.stdout_text, f"`task get` output does not name task {rec.id}; {shown(r)}"
    assert state_matches(r.stdout_text, "TASK_STATE_WORKING"), f"`task get` does not report WORKING; {shown(r)}"
    assert get_task_times(a, rec.id), "the agent received no GetTask for the task"


@pytest.mark.requirement("A2ACLI_TASK_POLL_001")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_002")
def test_task_get_wait_polls_until_the_task_is_terminal(cli: Cli, agent: AgentMaker) -> None:
    """`task get --wait` keeps polling a WORKING task until it reaches COMPLETED, then reports it.

    Catches `--wait` missing, or a `--wait` that reads the task once and returns (defect
    `no-task-get-wait`).
    """
    a = agent()
    rec = a.hold_task("WORKING")
    # the task completes once the tool has read it WORKING (a condition, not a time: a tool slow to start
    # under load must still see it WORKING first, so one read is never enough)
    with when(lambda: bool(get_task_times(a, rec.id, answered=True)), lambda: a.move_task(rec.id, "COMPLETED"),
              timeout=CLI_TIMEOUT):
        r = cli.run(*wait_args(a, rec.id))
    assert not r.timed_out, f"`task get --wait` never returned; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 once the task completed; {shown(r)}"
    assert state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), \
        f"`task get --wait` returned without the terminal state COMPLETED; {shown(r)}"
    polls = get_task_times(a, rec.id)
    assert len(polls) >= 2, f"`task get --wait` read the task {len(polls)} time(s); a wait must poll again"


# ─────────────────────────────── TASK_POLL_002 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_POLL_002")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_001")
def test_wait_polls_at_the_requested_interval_with_bounded_backoff(cli: Cli, agent: AgentMaker) -> None:
    """With `--poll-interval 200ms`, polls are spaced about that far apart: never a busy loop, never
    much faster than asked, the first gap close to the interval, and backoff that stays bounded.

    Tolerances: a gap may be as short as half the interval; the request count over the wait may not
    exceed what half the interval allows; the first gap is at most 4x the interval + 0.3 s (an ignored
    flag falls back to the 2 s default); no gap exceeds max(10x interval, 2 s), the spec's default.
    Catches defect `busy-poll` and a tool that ignores --poll-interval.
    """
    a = agent()
    window = 2.5
    rec = working_task(a, ("TASK_STATE_COMPLETED", window), from_first_read=True)
    r = cli.run(*wait_args(a, rec.id))
    polls = get_task_times(a, rec.id)
    if len(polls) < 2:
        require_a_waiting_wait(cli, agent)
    assert not r.timed_out and r.exit_code == 0, f"expected the wait to end at COMPLETED with exit 0; {shown(r)}"
    g = gaps(polls)
    assert len(polls) >= 3, f"only {len(polls)} GetTask over a {window}s wait at {POLL_FLAG}; gaps {g}"
    limit = int(r.duration / (POLL_S / 2)) + 2
    assert len(polls) <= limit, (
        f"busy loop: {len(polls)} GetTask requests in {r.duration:.2f}s at --poll-interval {POLL_FLAG} "
        f"(at most {limit} allowed); gaps {g}")
    short = [x for x in g if x < POLL_S / 2]
    assert not short, f"polls closer than half of --poll-interval {POLL_FLAG}: {short}; all gaps {g}"
    assert g[0] <= 4 * POLL_S + 0.3, f"first re-poll after {g[0]}s: --poll-interval {POLL_FLAG} not honoured; gaps {g}"
    bound = max(10 * POLL_S, 2.0)
    assert max(g) <= bound, f"backoff not bounded: a gap of {max(g)}s (bound {bound}s); gaps {g}"


@pytest.mark.requirement("A2ACLI_TASK_POLL_002")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_001")
def test_wait_gives_up_when_timeout_expires(cli: Cli, agent: AgentMaker, record_error_code: RecordCode
                                            ) -> None:
    """`--timeout 1s` on a task that never finishes ends the wait, shown as a timeout: A2ACLI_ERR_TIMEOUT (in
    the envelope or in its text) or exit 5.

    Catches defect `ignores-timeout` (the wait runs on past the deadline).
    """
    a = agent()
    rec = working_task(a, ("TASK_STATE_COMPLETED", FOREVER))
    r = cli.run(*wait_args(a, rec.id, "--timeout", "1s"), timeout=SHORT_RUN)
    if r.exit_code == 0 and len(get_task_times(a, rec.id)) < 2:
        require_a_waiting_wait(cli, agent)
    assert not r.timed_out, f"expected --timeout 1s to end the wait; still waiting after {SHORT_RUN}s; {shown(r)}"
    assert r.exit_code in (5, 1), f"expected exit 5 (or 1) when --timeout expires, got {r.exit_code}; {shown(r)}"
    code = reported_timeout(r, record_error_code, "--timeout expiry")
    # the timeout shown by its code or by its exit status 5 (the code in an envelope is OUT_004's)
    assert code == TIMEOUT_ERROR or r.exit_code == 5, (
        f"expected {TIMEOUT_ERROR} or exit 5 on --timeout expiry, got {code!r}, exit {r.exit_code}; {shown(r)}")
    assert r.duration < 8.0, f"expected the wait to end soon after 1s, it ran {r.duration:.1f}s; {shown(r)}"


@pytest.mark.requirement("A2ACLI_TASK_POLL_002")
def test_interrupting_a_wait_ends_it_with_the_task_id_already_printed(cli: Cli, agent: AgentMaker) -> None:
    """A SIGINT during the default blocking `send`, delivered once the taskId is on screen, ends the run
    promptly; the taskId stays in what was printed.

    Catches a wait that does not print the taskId until it ends (the harness never gets to interrupt),
    or that ignores SIGINT (the run hits the harness bound).
    """
    task_id, ctx = "poll-int-task-7f3a", "poll-int-ctx-7f3a"
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", FOREVER)),
                                   task_id=task_id, context_id=ctx)))
    r = cli.run("send", "--text", "take your time", *card_ref(a), timeout=SHORT_RUN,
                interrupt_when=lambda out, err: task_id.encode() in out + err)
    assert r.interrupted, f"the taskId {task_id} was never printed while the CLI waited; {shown(r)}"
    assert not r.timed_out, f"SIGINT did not end the wait within {SHORT_RUN}s; {shown(r)}"
    assert task_id in r.stdout_text + r.stderr_text, f"the taskId is gone from the output; {shown(r)}"


# ─────────────────────────────── TASK_POLL_003 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_POLL_003", part="interrupted_stops")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_001", "A2ACLI_TASK_POLL_002")
@pytest.mark.parametrize("state", ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"])
def test_wait_stops_at_once_on_an_interrupted_state(cli: Cli, agent: AgentMaker, state: str) -> None:
    """A wait that meets INPUT_REQUIRED / AUTH_REQUIRED returns at once reporting that state,
    instead of polling on until the task moves again (here: COMPLETED 4 s later).

    Catches defect `waits-through-input-required`.
    """
    a = agent()
    later = 4.4
    rec = working_task(a, (state, 0.4), ("TASK_STATE_COMPLETED", later), from_first_read=True)
    r = cli.run(*wait_args(a, rec.id), timeout=SHORT_RUN)
    if not state_matches(r.stdout_text, state) and len(get_task_times(a, rec.id)) < 2:
        require_a_waiting_wait(cli, agent)
    assert not r.timed_out, f"expected the wait to stop at {state}; it was still running; {shown(r)}"
    # the exit status at an interrupted state is EXIT_002's (its own checks run these states); this part
    # judges that the wait stopped there at once and said so
    assert state_matches(r.stdout_text, state), f"expected the output to report {state}; {shown(r)}"
    assert not state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), \
        f"the wait went on past {state} until COMPLETED; {shown(r)}"
    late = [round(t - rec.started, 2) for t in get_task_times(a, rec.id) if t - rec.started >= later - 0.4]
    assert not late, f"GetTask kept coming after the task sat at {state} (at +{late}s)"


@pytest.mark.requirement("A2ACLI_TASK_POLL_003", part="unspecified_keeps_polling")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_001", "A2ACLI_TASK_POLL_002")
def test_unspecified_state_keeps_the_wait_polling_until_timeout(
        cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """A task in TASK_STATE_UNSPECIFIED is neither terminal nor interrupted: the wait polls on and
    ends only at `--timeout`, reporting A2ACLI_ERR_TIMEOUT (or exit 5). The exit status of a timeout is
    TASK_POLL_002's: a tool reporting the timeout under the wrong status (`timeout-exit-3`) still kept polling.

    Catches defect `stops-on-unspecified` (told apart from a `--wait` that never waits by a control
    wait on a WORKING task).
    """
    a = agent()
    rec = a.add_task(TaskFlow(states=(("TASK_STATE_UNSPECIFIED", 0.0),)))
    r = cli.run(*wait_args(a, rec.id, "--timeout", "1500ms"), timeout=SHORT_RUN)
    if r.timed_out:
        blocked_by("A2ACLI_TASK_POLL_002", f"--timeout 1500ms did not end the wait (still running at {SHORT_RUN}s)")
    polls = get_task_times(a, rec.id)
    if len(polls) < 3:
        require_a_waiting_wait(cli, agent)
    assert len(polls) >= 3, (
        f"expected the wait to keep polling TASK_STATE_UNSPECIFIED until --timeout; it stopped after "
        f"{len(polls)} GetTask; {shown(r)}")
    code = reported_timeout(r, record_error_code, "--timeout expiry on UNSPECIFIED")
    # the part's question is that the wait polled on until --timeout, shown by the timeout's report; which exit
    # status a timeout takes is TASK_POLL_002's (and EXIT_001's), judged by their own checks
    assert code == TIMEOUT_ERROR or r.exit_code == 5, (
        f"expected {TIMEOUT_ERROR} or exit 5 once --timeout expired, got {code!r}, exit {r.exit_code}; {shown(r)}")


@pytest.mark.requirement("A2ACLI_TASK_POLL_003", part="unspecified_keeps_polling")
def test_unspecified_state_is_reported_as_received(cli: Cli, agent: AgentMaker) -> None:
    """`task get` on a TASK_STATE_UNSPECIFIED task reports UNSPECIFIED, not a neighbouring state.

    Catches defect `unspecified-mapped` (reported as WORKING).
    """
    a = agent()
    rec = a.add_task(TaskFlow(states=(("TASK_STATE_UNSPECIFIED", 0.0),)))
    r = cli.run("task", "get", rec.id, *card_ref(a), timeout=SHORT_RUN)
    assert r.exit_code == 0, f"expected exit 0 from `task get`; {shown(r)}"
    assert state_matches(r.stdout_text, "TASK_STATE_UNSPECIFIED"), \
        f"the state is not reported as UNSPECIFIED; {shown(r)}"
    mapped = [s for s in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED")
              if state_matches(r.stdout_text, s)]
    assert not mapped, f"UNSPECIFIED was reported as {mapped}; {shown(r)}"


# ─────────────────────────────── TASK_POLL_004 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_POLL_004")
@pytest.mark.depends_on("A2ACLI_SEND_003")
def test_wait_falls_back_to_polling_when_the_stream_drops(cli: Cli, agent: AgentMaker) -> None:
    """A blocking `send` that follows the stream, cut after its first event, polls GetTask and still
    reports COMPLETED with exit 0. If the default wait does not stream, `send --stream` is the
    streaming wait tried instead. No polling control is given: the tool polls at its own pace.

    Catches defect `no-stream-fallback` (the wait fails when the stream drops).
    """
    flow = TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 1.0)))
    a = agent(Script(send=flow, drop_stream_after=1))
    for extra in ((), ("--stream",)):
        a.clear_requests()
        r = cli.run("send", "--text", "stream then drop", *extra, *card_ref(a))
        streamed = [q for q in a.a2a_requests() if q.operation == "SendStreamingMessage"]
        if streamed:
            break
    else:
        not_measured("neither the default `send` wait nor `send --stream` opened a stream "
                     "(no SendStreamingMessage), so no stream could be dropped")
    how = " ".join(("send", *extra))
    assert not r.timed_out, f"`{how}` hung after the stream dropped; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 from `{how}` after falling back to polling; {shown(r)}"
    polled = [q for q in a.a2a_requests() if q.operation == "GetTask" and q.monotonic > streamed[0].monotonic]
    assert polled, f"no GetTask after the stream dropped: `{how}` did not fall back to polling; {shown(r)}"
    assert state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), \
        f"`{how}` did not reach the terminal state COMPLETED after the drop; {shown(r)}"

