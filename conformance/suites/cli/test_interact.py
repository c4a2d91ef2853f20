"""Interaction state (SPEC.md §8.1, §8.2, §4.1, §6.3): continuing by explicit ids, reporting ids
back, never inventing or remembering them.

The agent assigns fixed, unique identifiers (`TaskFlow(task_id=..., context_id=...)`) or holds a
task placed in it, so every id is found by value in the request bodies and in the CLI's output.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck import output
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import CardSpec, Script, ScriptedAgent, TaskFlow
from conformance.judge import blocked_by, shown, unique

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


def _waiting_task(a: ScriptedAgent) -> Any:
    """A task already waiting for input, whose continuation completes it."""
    a.update_script(resume=TaskFlow.single("COMPLETED"))
    return a.add_task(TaskFlow.single("INPUT_REQUIRED"), context_id=unique("ctx"))


# --------------------------------------------------------------------------- INTERACT_001


@pytest.mark.requirement("A2ACLI_INTERACT_001")
def test_context_id_is_sent_exactly_as_given(cli: Cli, agent: AgentMaker) -> None:
    """`send --context-id <id>` puts that contextId, unchanged, on the message (and no taskId):
    a new task in the existing context. Catches a flag that is accepted but not sent.
    """
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    ctx = unique("ctx")
    r = cli.run("send", "--text", "next turn", "--context-id", ctx, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    msgs = a.sent_messages()
    assert len(msgs) == 1, f"expected one message sent, got {msgs!r}; {shown(r)}"
    assert msgs[0].get("contextId") == ctx, f"expected contextId {ctx!r} on the message, got {msgs[0]!r}"
    assert not msgs[0].get("taskId"), f"--context-id alone must start a new task, got taskId {msgs[0].get('taskId')!r}"
    # reporting the context back is OUT_001's (every output names the context); this row is what is sent


# --------------------------------------------------------------------------- INTERACT_002


@pytest.mark.requirement("A2ACLI_INTERACT_002", part="task_id_alone")
def test_task_id_alone_continues_that_task(cli: Cli, agent: AgentMaker) -> None:
    """`send --task-id <id>` (no --context-id) sends the message against that task; the agent
    resumes it to COMPLETED and no other task is created.
    """
    a = agent(Script())
    rec = _waiting_task(a)
    r = cli.run("send", "--text", "here is the input", "--task-id", rec.id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    msgs = a.sent_messages()
    assert [m.get("taskId") for m in msgs] == [rec.id], f"expected one message with taskId {rec.id}, got {msgs!r}"
    assert msgs[0].get("contextId") in (None, "", rec.context_id), (
        f"the CLI made up a contextId for --task-id alone: {msgs[0].get('contextId')!r}"
    )
    assert len(a.tasks) == 1, f"a new task was created: {[t.id for t in a.tasks]}"
    assert output.state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), f"the resumed state is not shown; {shown(r)}"


@pytest.mark.requirement("A2ACLI_INTERACT_002", part="task_id_with_context_id")
@pytest.mark.depends_on("A2ACLI_INTERACT_001")
def test_task_id_with_its_context_id_continues_that_task(cli: Cli, agent: AgentMaker) -> None:
    """`--task-id` with the task's own `--context-id`: both are sent as given and the task resumes."""
    a = agent(Script())
    rec = _waiting_task(a)
    r = cli.run("send", "--text", "input", "--task-id", rec.id, "--context-id", rec.context_id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    msgs = a.sent_messages()
    got = [(m.get("taskId"), m.get("contextId")) for m in msgs]
    if len(got) == 1 and got[0][0] == rec.id and got[0][1] != rec.context_id:
        _context_id_sent_alone_or_blocked(cli, a)
    assert got == [(rec.id, rec.context_id)], f"expected one message with ({rec.id}, {rec.context_id}), got {got}"
    assert len(a.tasks) == 1, f"a new task was created: {[t.id for t in a.tasks]}"


def _context_id_sent_alone_or_blocked(cli: Cli, a: ScriptedAgent) -> None:
    """--context-id not carried next to --task-id: is it carried at all? A tool that never puts --context-id
    on a message (INTERACT_001's to judge) blocks a check about what goes with it."""
    ctx = unique("alone-ctx")
    before = len(a.sent_messages())
    r = cli.run("send", "--text", "probe", "--context-id", ctx, "-a", a.base_url)
    sent = [m.get("contextId") for m in a.sent_messages()[before:]]
    if sent and ctx not in sent:
        blocked_by("A2ACLI_INTERACT_001", f"`send --context-id {ctx}` alone sent contextId {sent} "
                                          f"(exit {r.exit_code})")


@pytest.mark.requirement("A2ACLI_INTERACT_002", part="task_id_with_context_id")
@pytest.mark.depends_on("A2ACLI_INTERACT_001")
def test_mismatched_context_id_is_sent_not_reconciled(cli: Cli, agent: AgentMaker) -> None:
    """`--task-id` with a `--context-id` of another context: the pair goes out unchanged, the agent
    rejects it, the CLI exits non-zero. Catches a CLI that drops or rewrites one id to make them agree.
    """
    a = agent(Script())
    rec = _waiting_task(a)
    other = unique("other-ctx")
    r = cli.run("send", "--text", "input", "--task-id", rec.id, "--context-id", other, "-a", a.base_url)
    got = [(m.get("taskId"), m.get("contextId")) for m in a.sent_messages()]
    if got and all(t == rec.id and c != other for t, c in got):
        _context_id_sent_alone_or_blocked(cli, a)
    assert got and all(g == (rec.id, other) for g in got), (
        f"expected every message to carry ({rec.id}, {other}) as given, got {got}; {shown(r)}"
    )
    assert r.exit_code not in (0, None), f"the agent rejected the mismatched pair, yet {shown(r)}"
    assert len(a.tasks) == 1, f"a new task was created: {[t.id for t in a.tasks]}"


@pytest.mark.requirement("A2ACLI_INTERACT_002", part="refused_identifier")
@pytest.mark.depends_on("A2ACLI_OUT_004")
@pytest.mark.parametrize("streaming", [True, False], ids=["streaming-card", "polling-card"])
def test_unknown_task_id_fails_without_starting_a_task(
    cli: Cli, agent: AgentMaker, streaming: bool
) -> None:
    """An unknown `--task-id` (agent: TaskNotFoundError) exits non-zero, names TaskNotFoundError,
    points at --debug, and the agent never received a message without that taskId (no new task).
    Tried with and without the streaming capability, since a CLI may send by either method.
    """
    a = agent(Script(send=TaskFlow.single("COMPLETED"), card=CardSpec(streaming=streaming)))
    missing = unique("no-such-task")
    r = cli.run("send", "--text", "reply", "--task-id", missing, "-a", a.base_url)
    assert r.exit_code not in (0, None), f"a refused --task-id must exit non-zero; {shown(r)}"
    msgs = a.sent_messages()
    assert msgs, f"the CLI never sent the message against --task-id {missing}; {shown(r)}"
    strays = [m for m in msgs if m.get("taskId") != missing]
    assert not strays and not a.tasks, (
        f"the CLI sent messages without the refused taskId {strays!r}; tasks now: {[t.id for t in a.tasks]}"
    )
    said = r.stdout_text + r.stderr_text
    if "TaskNotFoundError" not in said and "error" in said.lower():
        # an error is shown, without A2A's name for it: naming protocol errors by that name is OUT_004's
        blocked_by("A2ACLI_OUT_004", f"the refusal is shown without the protocol error's name TaskNotFoundError; "
                                     f"{shown(r)}")
    assert "TaskNotFoundError" in said, f"the protocol error name TaskNotFoundError is not surfaced; {shown(r)}"
    assert "--debug" in said, f"the error does not point the caller at --debug; {shown(r)}"


# --------------------------------------------------------------------------- INTERACT_003


@pytest.mark.requirement("A2ACLI_INTERACT_003")
@pytest.mark.depends_on("A2ACLI_INTERACT_001")
def test_new_send_carries_no_invented_identifiers(cli: Cli, agent: AgentMaker) -> None:
    """A plain `send` carries neither taskId nor contextId: the server assigns both."""
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    r = cli.run("send", "--text", "fresh", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    msgs = a.sent_messages()
    assert len(msgs) == 1, f"expected one message, got {msgs!r}"
    invented = {k: msgs[0][k] for k in ("taskId", "contextId") if msgs[0].get(k)}
    assert not invented, f"the CLI made up server-assigned identifiers: {invented}"


@pytest.mark.requirement("A2ACLI_INTERACT_003")
@pytest.mark.depends_on("A2ACLI_INTERACT_001")
def test_context_id_is_not_treated_as_a_session_with_a_current_task(
    cli: Cli, agent: AgentMaker
) -> None:
    """`send --context-id C` while a task in C waits for input starts a new task: no taskId is
    attached (a context is a grouping, not a chat session with a current task).
    """
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    rec = _waiting_task(a)
    r = cli.run("send", "--text", "another topic", "--context-id", rec.context_id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    msgs = a.sent_messages()
    assert [m.get("taskId") for m in msgs] in ([None], [""]), f"a taskId was attached to --context-id: {msgs!r}"
    if [m.get("contextId") for m in msgs] != [rec.context_id]:  # --context-id sent as given is INTERACT_001's
        blocked_by("A2ACLI_INTERACT_001", f"--context-id {rec.context_id} was not sent as given "
                                          f"({[m.get('contextId') for m in msgs]})")


# --------------------------------------------------------------------------- INTERACT_004


def _assert_ids_reported(r: CliResult, task_id: str, context_id: str, state: str) -> None:
    out = r.stdout_text
    for what, value in (("taskId", task_id), ("contextId", context_id)):
        assert output.has_token(out, value), f"{what} {value} is not in stdout in copy-pasteable form; {shown(r)}"
    assert output.state_matches(out, state), f"the state {state} is not reported on stdout; {shown(r)}"


@pytest.mark.requirement("A2ACLI_INTERACT_004")
def test_completion_reports_task_id_context_id_and_state(cli: Cli, agent: AgentMaker) -> None:
    """A completed send reports the server's taskId and contextId (each selectable alone) and COMPLETED."""
    tid, ctx = unique("task"), unique("ctx")
    a = agent(Script(send=TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 0.3)), task_id=tid, context_id=ctx)))
    r = cli.run("send", "--text", "do it", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    _assert_ids_reported(r, tid, ctx, "TASK_STATE_COMPLETED")


@pytest.mark.requirement("A2ACLI_INTERACT_004")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_json_output_carries_the_ids_in_the_protocol_task(cli: Cli, agent: AgentMaker) -> None:
    """`-o json`: the ids and state sit in the protocol's own Task (task.id, task.contextId,
    task.status.state), not renamed into fields of the tool's own.
    """
    tid, ctx = unique("task"), unique("ctx")
    a = agent(Script(send=TaskFlow(states=(("COMPLETED", 0.0),), task_id=tid, context_id=ctx)))
    r = cli.run("send", "--text", "do it", "-o", "json", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    doc, problem = output.one_json_document(r.stdout_text)
    assert problem is None, f"{problem}; {shown(r)}"
    task = doc.get("task") if isinstance(doc, dict) else None
    assert isinstance(task, dict), f"expected a SendMessageResponse with a 'task' member, got {doc!r}"
    got = (task.get("id"), task.get("contextId"), (task.get("status") or {}).get("state"))
    assert got == (tid, ctx, "TASK_STATE_COMPLETED"), f"task.id/contextId/status.state: {got}"


@pytest.mark.requirement("A2ACLI_INTERACT_004")
def test_interruption_reports_ids_state_and_the_resume_command(cli: Cli, agent: AgentMaker) -> None:
    """On INPUT_REQUIRED, send stops and shows taskId, contextId, the state, and a command that
    resumes: a `send` line naming that taskId. Catches a report without the resume command.
    """
    tid, ctx = unique("task"), unique("ctx")
    flow = TaskFlow(states=(("WORKING", 0.0), ("INPUT_REQUIRED", 0.3, "which colour?")), task_id=tid, context_id=ctx)
    a = agent(Script(send=flow))
    r = cli.run("send", "--text", "paint it", "-a", a.base_url)
    assert not r.timed_out, f"send did not stop on INPUT_REQUIRED; {shown(r)}"
    _assert_ids_reported(r, tid, ctx, "TASK_STATE_INPUT_REQUIRED")
    lines = (r.stdout_text + "\n" + r.stderr_text).splitlines()
    resume = [ln for ln in lines if re.search(r"(?<![\w-])send(?![\w-])", ln) and output.has_token(ln, tid)]
    assert resume, f"no resume command (a `send` line naming taskId {tid}) in the output; {shown(r)}"


# --------------------------------------------------------------------------- INTERACT_005


def _files_mentioning(root: Path, values: tuple[str, ...]) -> list[str]:
    hits = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            try:
                data = p.read_bytes()
            except OSError:
                continue
            found = [v for v in values if v.encode() in data]
            if found:
                hits.append(f"{p.relative_to(root)} holds {found}")
    return hits


@pytest.mark.requirement("A2ACLI_INTERACT_005")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_nothing_of_the_interaction_is_kept_between_runs(cli: Cli, agent: AgentMaker) -> None:
    """Runs sharing one isolated home (HOME, XDG dirs, TMPDIR, working dir) leave no file holding
    the taskId/contextId, and a later plain `send` carries neither id. Catches a CLI that saves the
    last ids and replays them.
    """
    tid, ctx = unique("task"), unique("ctx")
    a = agent(Script(send=TaskFlow(states=(("INPUT_REQUIRED", 0.0),), task_id=tid, context_id=ctx)))
    home = cli.runner.new_home()
    try:
        first = cli.run("send", "--text", "first", "-a", a.base_url, home=home)
        if not a.tasks:
            blocked_by("A2ACLI_SEND_001", f"`send` created no task (exit {first.exit_code}), so no identifier "
                                          "could be kept")
        cli.run("task", "get", tid, "-a", a.base_url, home=home)
        kept = _files_mentioning(home.root, (tid, ctx))
        assert not kept, f"interaction state was written to disk: {kept}"
        first_sent = a.sent_messages()[-1]
        a.update_script(send=TaskFlow.single("COMPLETED"))
        second = cli.run("send", "--text", "unrelated", "-a", a.base_url, home=home)
        assert second.exit_code == 0, f"expected exit 0 for the second plain send; {shown(second)}"
        last = a.sent_messages()[-1]
        # kept = the first exchange's ids (the agent's, or ids the tool put on its first message); a fresh id the
        # tool makes up for each new message is not kept state (putting one there at all is INTERACT_003's)
        earlier = {tid, ctx} | {str(first_sent[k]) for k in ("taskId", "contextId") if first_sent.get(k)}
        replayed = {k: last[k] for k in ("taskId", "contextId") if last.get(k) and str(last[k]) in earlier}
        assert not replayed, f"the second plain send carried identifiers from the first: {replayed}"
        kept = _files_mentioning(home.root, (tid, ctx))
        assert not kept, f"interaction state was written to disk: {kept}"
    finally:
        home.cleanup()


@pytest.mark.requirement("A2ACLI_INTERACT_005")
def test_continue_flag_is_refused_as_a_usage_error(cli: Cli, agent: AgentMaker) -> None:
    """`send --continue` (a resume-where-I-left-off mode) is refused and sends nothing. The row asks that
    there be no such mode; the exit status a refused flag takes (2, a usage error) is EXIT_001's, so a tool
    refusing it under exit 1 (`usage-exit-1`) still has no --continue."""
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    r = cli.run("send", "--continue", "--text", "more", "-a", a.base_url, usage_error_expected=True)
    cli.require(r, "send", "--text")
    assert r.exit_code not in (0, None), f"--continue must be refused (it was accepted: exit {r.exit_code}); {shown(r)}"
    assert not a.sent_messages(), f"a message was sent with --continue: {a.sent_messages()!r}"
