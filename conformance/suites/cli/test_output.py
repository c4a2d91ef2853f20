"""OUT: what the CLI prints — streams, the json document, JSONL, the error envelope, the text floor, --async.

Identifiers are found by value (the scripted agent's fixed taskId/contextId), states in any spelling,
and every JSON result is also read strictly into the SDK's protobuf type (the second reader).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli, RecordCode
from conformance.clicheck.output import (
    TextDoc,
    control_sequences,
    error_codes,
    error_envelope,
    find_error_envelope,
    json_find,
    json_sequence,
    one_json_document,
    parse_json_document,
    parse_jsonl,
    parse_text_floor,
    state_matches,
)
from conformance.fixtures.scripted_agent import (
    ArtifactSpec,
    Data,
    ErrorReply,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
)
from conformance.judge import blocked_by, shown
from conformance.suites.cli.conftest import card_ref
from conformance.wire.strict import read_strict

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


ARTIFACT_TEXT = "first line of the report\nsecond line of the report"
ARTIFACT_DATA = {"kind": "summary", "count": 3, "tags": ["a", "b"]}
#: A task that stays WORKING longer than any CLI run may last.
FOREVER = 120.0


def flow(task_id: str, context_id: str, end: str = "TASK_STATE_COMPLETED", at: float = 0.6) -> TaskFlow:
    """WORKING, a text and a data artifact, then ``end`` at ``at`` seconds."""
    return TaskFlow(
        states=(("TASK_STATE_WORKING", 0.0), (end, at)),
        artifacts=(ArtifactSpec((Text(ARTIFACT_TEXT),), name="report", at=at / 2),
                   ArtifactSpec((Data(ARTIFACT_DATA),), name="summary", at=at / 2)),
        task_id=task_id, context_id=context_id)


def done(task_id: str, context_id: str, end: str = "TASK_STATE_COMPLETED") -> TaskFlow:
    """A task already in ``end``, with the text and data artifacts of :func:`flow`."""
    return TaskFlow(states=((end, 0.0),),
                    artifacts=(ArtifactSpec((Text(ARTIFACT_TEXT),), name="report", at=0.0),
                               ArtifactSpec((Data(ARTIFACT_DATA),), name="summary", at=0.0)),
                    task_id=task_id, context_id=context_id)


def names_ids_and_state(obj: Any, task_id: str, context_id: str, state: str) -> list[str]:
    """What a JSON object lacks of taskId, contextId and state (empty: it names all three)."""
    missing = []
    if task_id not in json_find(obj, "id") + json_find(obj, "taskId"):
        missing.append(f"taskId {task_id}")
    if context_id not in json_find(obj, "contextId"):
        missing.append(f"contextId {context_id}")
    if state not in json_find(obj, "state"):
        missing.append(f"state {state}")
    return missing


def text_names_ids_and_state(text: str, task_id: str, context_id: str, state: str) -> list[str]:
    """What text output lacks of taskId, contextId (by value) and state (any spelling)."""
    missing = [f"{what} {value}" for what, value in (("taskId", task_id), ("contextId", context_id))
               if value not in text]
    if not state_matches(text, state):
        missing.append(f"state {state}")
    return missing


def strict_problems(obj: Any, message_type: type[Any]) -> str | None:
    """The second reader's complaints about ``obj`` as ``message_type`` (None: it reads cleanly)."""
    res = read_strict(obj, message_type)
    return None if res.ok else res.summary()


# ─────────────────────────────── OUT_001 ───────────────────────────────


MODES: dict[str, tuple[str, ...]] = {"text": (), "json": ("-o", "json"), "jsonl": ("-o", "json", "--stream")}


@pytest.mark.requirement("A2ACLI_OUT_001")
@pytest.mark.depends_on("A2ACLI_OUT_002", "A2ACLI_SEND_003", "A2ACLI_OUT_003")
@pytest.mark.parametrize("mode", list(MODES))
def test_send_names_task_context_and_state_with_diagnostics_on_stderr(
        cli: Cli, agent: AgentMaker, mode: str) -> None:
    """A `send` whose task ends FAILED (so the tool has a warning to give) names taskId, contextId and
    the state in every output mode; in json modes stdout parses completely, nothing else on it.

    Catches defects `mixed-streams` (notices and warnings on stdout) and `no-context-in-output`.
    """
    tid, ctx = f"out1-{mode}-task", f"out1-{mode}-ctx"
    state = "TASK_STATE_FAILED"
    a = agent(Script(send=flow(tid, ctx, state)))
    r = cli.run("send", "--text", "report please", *card_ref(a), *MODES[mode])
    assert not r.timed_out, f"send did not finish; {shown(r)}"
    check_names_and_streams(r, mode, tid, ctx, state)


@pytest.mark.requirement("A2ACLI_OUT_001")
@pytest.mark.depends_on("A2ACLI_OUT_002", "A2ACLI_TASK_GET_001")
@pytest.mark.parametrize("mode", ["text", "json"])
def test_task_get_names_task_context_and_state_with_diagnostics_on_stderr(
        cli: Cli, agent: AgentMaker, mode: str) -> None:
    """`task get` of a completed task names taskId, contextId and state in text and json; json stdout
    is only the Task.

    Catches defects `mixed-streams` and `no-context-in-output`.
    """
    tid, ctx = f"out1g-{mode}-task", f"out1g-{mode}-ctx"
    state = "TASK_STATE_COMPLETED"
    a = agent()
    a.add_task(done(tid, ctx, state))
    r = cli.run("task", "get", tid, *card_ref(a), *MODES[mode])
    if not [q for q in a.a2a_requests() if q.operation == "GetTask"]:
        blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
    assert not r.timed_out, f"expected task get to finish; {shown(r)}"
    check_names_and_streams(r, mode, tid, ctx, state)


def check_names_and_streams(r: CliResult, mode: str, tid: str, ctx: str, state: str) -> None:
    """The assertions OUT_001 makes of one run in ``mode``."""
    if mode == "text":
        missing = text_names_ids_and_state(r.stdout_text, tid, ctx, state)
        assert not missing, \
            f"expected text output naming taskId, contextId and state; it lacks {', '.join(missing)}; {shown(r)}"
        return
    if mode == "json":
        doc, problem = one_json_document(r.stdout_text)
        assert problem is None, f"expected -o json stdout to be one clean JSON document: {problem}; {shown(r)}"
        missing = names_ids_and_state(doc, tid, ctx, state)
        assert not missing, \
            f"expected the -o json document to name ids and state; it lacks {', '.join(missing)}; {shown(r)}"
        return
    objs, problems = parse_jsonl(r.stdout_text)
    if problems and json_sequence(r.stdout_text):
        # nothing but JSON on stdout (this row's question), only not one object per line: OUT_003's framing
        blocked_by("A2ACLI_OUT_003", f"stdout is JSON throughout but not JSONL: {problems[:2]}")
    assert not problems, f"expected -o json --stream stdout to be clean JSONL: {problems[:3]}; {shown(r)}"
    assert objs, f"expected JSONL lines, got none; {shown(r)}"
    missing = names_ids_and_state(objs[-1], tid, ctx, state)
    assert not missing, f"expected the last JSONL line to name ids and state; it lacks {', '.join(missing)}; {shown(r)}"


# ─────────────────────────────── OUT_002 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_OUT_002")
def test_json_send_prints_one_terminal_send_message_response(cli: Cli, agent: AgentMaker) -> None:
    """`send -o json` on a task with several events prints exactly one document: the SendMessageResponse
    with the task in its terminal state (strictly readable by the SDK), not an event log.

    Catches defect `json-event-log` (every event or snapshot printed as its own document).
    """
    tid, ctx = "out2-task", "out2-ctx"
    a = agent(Script(send=flow(tid, ctx)))
    r = cli.run("send", "--text", "report please", *card_ref(a), "-o", "json")
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    doc, problem = parse_json_document(r.stdout_text)
    assert problem is None, f"-o json must print exactly one document: {problem}; {shown(r)}"
    keys = list(doc) if isinstance(doc, dict) else doc
    assert isinstance(doc, dict) and doc and set(doc) <= {"task", "message"}, \
        f"expected a SendMessageResponse ({{'task': ...}}), got top-level {keys!r}"
    assert "task" in doc, f"the agent created a task, but the document carries no 'task': {doc!r}"
    strict = strict_problems(doc, pb.SendMessageResponse)
    if strict is not None:
        _echoed_without_message_id(a, [strict])
    assert strict is None, f"the document is not a strict SendMessageResponse: {strict}"
    assert doc["task"].get("status", {}).get("state") == "TASK_STATE_COMPLETED", \
        f"the document is not the terminal object: task status {doc['task'].get('status')!r}"


@pytest.mark.requirement("A2ACLI_OUT_002")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001", "A2ACLI_TASK_POLL_001", "A2ACLI_TASK_POLL_002")
def test_json_task_get_wait_prints_one_terminal_task(cli: Cli, agent: AgentMaker) -> None:
    """`task get --wait -o json` over several polls prints exactly one document: the terminal Task.

    Catches defect `json-event-log` (each poll snapshot printed).
    """
    tid, ctx = "out2g-task", "out2g-ctx"
    a = agent()
    a.add_task(flow(tid, ctx, at=1.0))
    r = cli.run("task", "get", tid, "--wait", *card_ref(a), "--poll-interval", "200ms", "-o", "json")
    polls = [q for q in a.a2a_requests() if q.operation == "GetTask"]
    if not polls:
        blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
    assert r.exit_code == 0, f"expected exit 0, got {r.exit_code}; {shown(r)}"
    doc, problem = parse_json_document(r.stdout_text)
    assert problem is None, f"expected -o json to print exactly one document: {problem}; {shown(r)}"
    strict = strict_problems(doc, pb.Task)
    assert strict is None, f"expected `task get -o json` to print a bare Task; strict reading says: {strict}"
    state = doc.get("status", {}).get("state")
    if state != "TASK_STATE_COMPLETED" and len(polls) == 1:
        blocked_by("A2ACLI_TASK_POLL_001", f"`task get --wait` read the task once and returned at {state}")
    assert state == "TASK_STATE_COMPLETED", f"expected the terminal Task (COMPLETED), got status {doc.get('status')!r}"


# ─────────────────────────────── OUT_003 ───────────────────────────────


def _echoed_without_message_id(a: ScriptedAgent, problems: list[str]) -> None:
    """The printed protocol objects fail the strict reading only on a missing messageId, and the tool sent its
    own message without one (the agent's answer echoes it into the task's history): the message is SEND_001's
    to get right; what the output does with the answer is not judged on it."""
    sent = a.sent_messages()
    if problems and sent and all("messageId" in p for p in problems) and any(not m.get("messageId") for m in sent):
        blocked_by("A2ACLI_SEND_001", f"the tool sent its message without a messageId and the agent's answer echoes "
                                      f"it: {problems[0][:160]}")


@pytest.mark.requirement("A2ACLI_OUT_003")
def test_json_stream_prints_one_object_per_line_terminal_last(cli: Cli, agent: AgentMaker) -> None:
    """`send -o json --stream` prints JSONL: one StreamResponse per physical line, the terminal event last.

    Catches defect `pretty-jsonl` (objects spread over several lines).
    """
    tid, ctx = "out3-task", "out3-ctx"
    a = agent(Script(send=flow(tid, ctx)))
    r = cli.run("send", "--text", "report please", *card_ref(a), "-o", "json", "--stream")
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    objs, problems = parse_jsonl(r.stdout_text)
    assert not problems, f"stdout is not JSONL: {problems}; {shown(r)}"
    assert len(objs) >= 2, f"a task with several events streamed {len(objs)} line(s); {shown(r)}"
    bad = [f"line {n}: {p}" for n, o in enumerate(objs, 1) if (p := strict_problems(o, pb.StreamResponse))]
    _echoed_without_message_id(a, bad)
    assert not bad, f"lines that are not strict StreamResponse objects: {bad}"
    missing = names_ids_and_state(objs[-1], tid, ctx, "TASK_STATE_COMPLETED")
    assert not missing, f"the last line is not the terminal event (lacks {', '.join(missing)}): {objs[-1]!r}"


@pytest.mark.requirement("A2ACLI_OUT_003")
def test_json_stream_lines_arrive_while_the_stream_is_open(cli: Cli, agent: AgentMaker) -> None:
    """A JSONL line is on stdout while the task is still WORKING (flushed as produced, not at the end).

    Catches a tool that buffers the stream until it ends (here it never ends; the run is interrupted).
    """
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", FOREVER)))))
    r = cli.run("send", "--text", "long one", *card_ref(a), "-o", "json", "--stream", timeout=8.0,
                interrupt_when=lambda out, err: b"\n" in out)
    assert r.interrupted, f"no complete JSONL line reached stdout while the stream was open; {shown(r)}"
    first = r.stdout_text.split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"the first line is not a complete JSON object ({exc}): {first!r}") from None
    assert isinstance(obj, dict), f"the first line is not a JSON object: {first!r}"


@pytest.mark.requirement("A2ACLI_OUT_003")
def test_json_stream_ends_with_an_error_line_when_the_stream_fails(cli: Cli, agent: AgentMaker) -> None:
    """A stream cut after its first event, with every way back refused (GetTask and SubscribeToTask
    answer TaskNotFoundError), ends the JSONL with an error envelope on its own last line.

    Catches defect `stream-error-swallowed`.
    """
    refuse = {m: ErrorReply("TaskNotFoundError") for m in ("GetTask", "SubscribeToTask")}
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 1.0))),
                     drop_stream_after=1, refuse=refuse))
    r = cli.run("send", "--text", "doomed", *card_ref(a), "-o", "json", "--stream")
    assert not r.timed_out, f"the run hung after the stream failed; {shown(r)}"
    assert r.exit_code != 0, f"the run could not reach a terminal state, yet exited 0; {shown(r)}"
    objs, problems = parse_jsonl(r.stdout_text)
    assert not problems, f"stdout is not JSONL: {problems}; {shown(r)}"
    # the envelope's shape is asked here; which name its code has is OUT_004's
    env, env_problems = error_envelope(objs[-1] if objs else None, name_codes=False)
    assert env is not None, f"the last JSONL line is not an error object: {objs[-1] if objs else None!r}; {shown(r)}"
    assert not env_problems, f"the final error line is malformed: {env_problems}; {objs[-1]!r}"


# ─────────────────────────────── OUT_004 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_OUT_004")
@pytest.mark.depends_on("A2ACLI_OUT_002", "A2ACLI_TASK_GET_001", "A2ACLI_TX_002", "A2ACLI_TX_004")
def test_protocol_error_is_named_alike_on_every_transport(
        cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """A GetTask refused with TaskNotFoundError comes out as the envelope with code `TaskNotFoundError`
    over JSON-RPC and over HTTP+JSON alike, with a hint (a SHOULD the tier claim promotes). Judged on
    every binding the tool could be moved to; the comparison needs two.

    Catches defects `renames-protocol-errors` (an invented A2ACLI_ERR_* name) and `no-error-envelope`.
    """
    a = agent(Script(refuse={"GetTask": ErrorReply("TaskNotFoundError", "no such task")}))
    codes: dict[str, Any] = {}
    elsewhere: dict[str, list[str]] = {}
    for binding in ("JSONRPC", "HTTP+JSON"):
        a.clear_requests()
        r = cli.run("task", "get", "out4-missing-task", *card_ref(a), "--transport", binding, "-o", "json")
        used = sorted({q.binding for q in a.a2a_requests()})
        if not used:
            blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
        if used != [binding]:
            elsewhere[binding] = used
            continue
        assert r.exit_code not in (0, None), \
            f"expected a non-zero exit for a refused GetTask over {binding}, got {r.exit_code}; {shown(r)}"
        env, _ = find_error_envelope(r.stdout_text, r.stderr_text)
        assert env is not None, f"expected an Appendix B error envelope over {binding}; none; {shown(r)}"
        _, problems = error_envelope({"error": env})
        assert not problems, f"expected a well-formed envelope over {binding}: {problems}; {env!r}"
        code = env.get("code")
        if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
            record_error_code(code, f"TaskNotFoundError over {binding}")
        assert code == "TaskNotFoundError", \
            f"expected code TaskNotFoundError over {binding}, got {code!r}; {env!r}"
        assert isinstance(env.get("hint"), str) and env["hint"].strip(), \
            f"expected a hint in the envelope over {binding}, got {env.get('hint')!r}"
        codes[binding] = code
    if elsewhere:
        asked = ", ".join(f"--transport {b} went over {u}" for b, u in elsewhere.items())
        blocked_by("A2ACLI_TX_004", f"the error could be compared over one transport only ({asked})")
    assert len(set(codes.values())) == 1, f"expected the same code on every transport, got {codes}"


@pytest.mark.requirement("A2ACLI_OUT_004")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_local_failure_carries_an_appendix_d_code_and_a_hint(
        cli: Cli, agent: AgentMaker, record_error_code: RecordCode) -> None:
    """A malformed flag is a CLI-local failure: the envelope's code is one of Appendix D's
    A2ACLI_ERR_* codes (never a home-made one), and a hint is given.

    Catches defect `no-error-envelope` and invented codes in the A2ACLI_ERR_ namespace.
    """
    a = agent()
    r = cli.run("send", "--text", "x", "--no-such-option-out4", *card_ref(a), "-o", "json",
                usage_error_expected=True)
    cli.require(r, "--output", "send", "--text")
    assert r.exit_code not in (0, None), \
        f"expected a non-zero exit for an unknown option, got {r.exit_code}; {shown(r)}"
    env, _ = find_error_envelope(r.stdout_text, r.stderr_text)
    assert env is not None, f"expected an Appendix B error envelope for a usage error; none; {shown(r)}"
    code = env.get("code")
    if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
        record_error_code(code, "unknown option")
    assert code in error_codes(), f"expected an Appendix D code for a CLI-local failure, got {code!r}; {env!r}"
    assert isinstance(env.get("hint"), str) and env["hint"].strip(), f"expected a hint in the envelope: {env!r}"


# ─────────────────────────────── OUT_005 ───────────────────────────────


def field_label(doc: TextDoc, pred: Callable[[str], bool]) -> str | None:
    """The label of the first field whose value satisfies ``pred``."""
    return next((k for k, v in doc.fields if pred(v)), None)


@pytest.mark.requirement("A2ACLI_OUT_005", part="field_lines")
@pytest.mark.depends_on("A2ACLI_DEFAULT_001")
def test_text_fields_are_label_value_lines_with_stable_labels(cli: Cli, agent: AgentMaker) -> None:
    """Two text `send` runs on different tasks print `Label: value` lines only, without control
    sequences, and use the same labels — and where a run shows the taskId, the contextId or the state as
    a field, the other shows it under the same label. Whether those are shown at all is another row's
    (INTERACT_004, OUT_001), and the exit status EXIT's: neither is judged here.

    Catches defect `color-off-tty` (escape sequences piped) and unstable or missing labels.
    """
    a = agent()
    docs: list[tuple[TextDoc, str, str]] = []
    for n in (1, 2):
        tid, ctx = f"out5-task-{n}", f"out5-ctx-{n}"
        a.set_script(Script(send=flow(tid, ctx)))
        r = cli.run("send", "--text", f"report {n}", *card_ref(a))
        doc = parse_text_floor(cli.default_text(r))
        assert not doc.problems, f"text output breaks the floor: {doc.problems}; {shown(r)}"
        assert doc.fields, f"expected `Label: value` field lines in text output; none; {shown(r)}"
        docs.append((doc, tid, ctx))
    labels = []
    for doc, tid, ctx in docs:
        found = (doc.label_of_value(tid), doc.label_of_value(ctx),
                 field_label(doc, lambda v: state_matches(v, "TASK_STATE_COMPLETED")))
        labels.append((found, sorted(set(doc.labels)), sorted({k for k, _ in doc.blocks})))
    (f1, l1, b1), (f2, l2, b2) = labels
    same_field = [(x, y) for x, y in zip(f1, f2, strict=True) if x is not None and y is not None]
    assert all(x == y for x, y in same_field) and (l1, b1) == (l2, b2), \
        f"labels differ between two runs: {labels[0]} vs {labels[1]}"


@pytest.mark.requirement("A2ACLI_OUT_005", part="block_content")
@pytest.mark.depends_on("A2ACLI_SEND_004", "A2ACLI_DEFAULT_001")
def test_text_artifacts_sit_in_blocks_closed_by_a_blank_line(cli: Cli, agent: AgentMaker) -> None:
    """A multi-line text artifact and a data artifact each come out as a block: a `Label:` line, the
    content exactly, then a blank line — never running into the next block or field.

    Catches defect `block-not-closed`.
    """
    a = agent(Script(send=flow("out5b-task", "out5b-ctx")))
    r = cli.run("send", "--text", "report please", *card_ref(a))
    doc = parse_text_floor(cli.default_text(r))
    assert not doc.problems, f"text output breaks the floor: {doc.problems}; {shown(r)}"
    contents = [c for _, c in doc.blocks]
    assert ARTIFACT_TEXT in contents, \
        f"no block holds exactly the text artifact {ARTIFACT_TEXT!r}; blocks {doc.blocks}; {shown(r)}"

    def is_data(c: str) -> bool:
        try:
            return bool(json.loads(c) == ARTIFACT_DATA)
        except json.JSONDecodeError:
            return False

    if not any(is_data(c) for c in contents) and "summary" not in r.stdout_text:
        # the data artifact is not shown at all: showing every part is SEND_004's; its block is this part's
        blocked_by("A2ACLI_SEND_004", f"the data artifact ({ARTIFACT_DATA}) is not shown at all, so its block "
                                      f"cannot be judged; {shown(r)}")
    assert any(is_data(c) for c in contents), \
        f"no block holds exactly the data artifact as JSON; blocks {doc.blocks}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_OUT_005", part="non_tty_fallback")
@pytest.mark.depends_on("A2ACLI_DEFAULT_001")
def test_text_output_has_no_control_sequences_piped_or_on_a_terminal(cli: Cli, agent: AgentMaker) -> None:
    """Piped, text output carries no terminal control sequences and does not block on input; on a
    pseudo-terminal it keeps the same field labels and still no control sequences (§6.1, §11.2). The
    positive evidence is the text output itself (field lines to judge); which fields it carries (the task
    id: INTERACT_004, OUT_001) and the exit status (EXIT's) are other rows' and not judged here.

    Catches defect `color-off-tty`, and a tool that reshapes or colours its output on a terminal.
    """
    a = agent()
    labels = []
    for pty in (False, True):
        tid = f"out5t-task-{int(pty)}"
        a.set_script(Script(send=flow(tid, f"out5t-ctx-{int(pty)}")))
        r = cli.run("send", "--text", "report please", *card_ref(a), pty=pty)
        where = "on a terminal" if pty else "piped"
        assert not r.timed_out, f"expected the text run {where} to finish; it hung (waiting for input?); {shown(r)}"
        text = cli.default_text(r)
        # positive evidence: the run printed text fields (an empty output carries no control sequence either)
        assert parse_text_floor(text).fields, f"expected text output {where}: no field lines; {shown(r)}"
        ctrl = control_sequences(text)
        assert not ctrl, f"expected no control sequences {where}, found {ctrl[:5]}; {shown(r)}"
        labels.append(sorted(set(parse_text_floor(text).labels)))
    assert labels[0] == labels[1], f"expected the same labels piped and on a terminal: {labels[0]} vs {labels[1]}"


# ─────────────────────────────── OUT_006 ───────────────────────────────


@pytest.mark.requirement("A2ACLI_OUT_006")
@pytest.mark.depends_on("A2ACLI_OUT_002")
@pytest.mark.parametrize("mode", ["text", "json"])
def test_async_prints_task_and_context_ids_without_waiting(cli: Cli, agent: AgentMaker, mode: str) -> None:
    """`send --async` on a task that completes 4 s later returns before that with exit 0 and prints
    the taskId and contextId (text: by value; json: in the result object).

    Catches defects `no-async` (it waits for COMPLETED) and `async-no-ids`.
    """
    tid, ctx = f"out6-{mode}-task", f"out6-{mode}-ctx"
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 4.0)),
                                   task_id=tid, context_id=ctx)))
    r = cli.run("send", "--text", "start it", "--async", *card_ref(a), *MODES[mode])
    assert r.exit_code == 0, f"expected exit 0 from send --async; {shown(r)}"
    assert not state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), \
        f"--async waited for the task to complete; {shown(r)}"
    if mode == "text":
        missing = [x for x in (tid, ctx) if x not in r.stdout_text]
        assert not missing, f"--async text output lacks {missing}; {shown(r)}"
        return
    doc, problem = parse_json_document(r.stdout_text)
    assert problem is None, f"--async -o json: {problem}; {shown(r)}"
    ids = json_find(doc, "id") + json_find(doc, "taskId")
    assert tid in ids and ctx in json_find(doc, "contextId"), \
        f"--async -o json result lacks taskId {tid} / contextId {ctx}: {doc!r}"
