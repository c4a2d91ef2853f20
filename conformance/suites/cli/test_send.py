"""`send` (SPEC.md §10.2, §6.5, §9.2): delivering a message, waiting, streaming, parts, rendering.

Each check drives the CLI only through the spec's grammar against a scripted agent, and judges by
what the agent recorded (the request body as received) and by values found in the CLI's output.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.cli.runner import CliResult
from conformance.clicheck import output
from conformance.clicheck.artifact_probe import RAW_SIZE, all_kinds_artifact, assert_every_part_rendered
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import (
    ArtifactSpec,
    CardSpec,
    MessageReply,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
)
from conformance.judge import blocked_by, shown, unique
from conformance.suites.cli.conftest import card_read
from conformance.wire.strict import read_strict

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

#: A bound for checks where the CLI might wait forever: a hang becomes a fail well before the fixture's.
HANG_BOUND = 10.0
#: The error code of a usage error (§11.4), whatever exit status the tool gives it.
USAGE_ERROR = "A2ACLI_ERR_USAGE"


def _one_message(agent: ScriptedAgent, r: CliResult) -> dict[str, Any]:
    msgs = agent.sent_messages()
    assert len(msgs) == 1, (
        f"expected exactly one SendMessage/SendStreamingMessage, the agent got {len(msgs)}: {msgs!r}; {shown(r)}"
    )
    return msgs[0]


def _part_kind(part: dict[str, Any]) -> str:
    kinds = [k for k in ("text", "data", "raw", "url") if k in part]
    return kinds[0] if len(kinds) == 1 else f"?{sorted(part)}"


# --------------------------------------------------------------------------- SEND_001


@pytest.mark.requirement("A2ACLI_SEND_001")
@pytest.mark.depends_on("A2ACLI_SEND_006")
def test_send_delivers_one_new_message_with_the_text_given(cli: Cli, agent: AgentMaker) -> None:
    """`send --text` delivers one well-formed user message (with a messageId) opening a new task.

    Catches a CLI that sends nothing, sends a message without a messageId, mangles the text, or
    does not report the task the agent created.
    """
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    text = unique("hello")
    r = cli.run("send", "--text", text, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for a completed send; {shown(r)}"
    msg = _one_message(a, r)
    strict = read_strict(msg, pb.Message, path="$.message")
    assert strict.ok, f"the message the CLI sent is not a valid A2A Message: {strict.summary()}; message: {msg!r}"
    assert msg.get("messageId"), f"the message carries no messageId: {msg!r}"
    assert msg.get("role") == "ROLE_USER", f"expected role ROLE_USER, got {msg.get('role')!r}"
    assert [p.get("text") for p in msg.get("parts", [])] == [text], (
        f"expected one text part {text!r}, got {msg.get('parts')!r}"
    )
    assert not msg.get("taskId"), f"a new interaction must not name a task, got taskId {msg.get('taskId')!r}"
    tasks = a.tasks
    assert len(tasks) == 1, f"expected the agent to have created one task, it has {len(tasks)}"
    assert output.has_token(r.stdout_text, tasks[0].id), f"taskId {tasks[0].id} not in stdout; {shown(r)}"


# --------------------------------------------------------------------------- SEND_002


@pytest.mark.requirement("A2ACLI_SEND_002", part="blocking_default")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
@pytest.mark.parametrize("streaming", [True, False], ids=["streaming-card", "polling-card"])
def test_send_waits_for_the_terminal_state_by_default(
    cli: Cli, agent: AgentMaker, streaming: bool
) -> None:
    """Without flags, `send` returns only once the task is COMPLETED (scripted 0.5 s after WORKING).

    The reported state proves it waited: a CLI that returns on the first answer can only know
    WORKING. Checked with and without the streaming capability (stream or poll, the tool's choice).
    """
    flow = TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 0.5)))
    a = agent(Script(send=flow, card=CardSpec(streaming=streaming)))
    r = cli.run("send", "--text", unique("wait"), "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    tasks = a.tasks
    assert len(tasks) == 1, f"expected one task, the agent has {len(tasks)}; {shown(r)}"
    out = r.stdout_text
    assert output.has_token(out, tasks[0].id), f"taskId {tasks[0].id} not in stdout; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_COMPLETED"), (
        f"send returned without the terminal state COMPLETED (it did not wait); {shown(r)}"
    )


@pytest.mark.requirement("A2ACLI_SEND_002", part="async")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_async_returns_identifiers_while_the_task_is_still_working(
    cli: Cli, agent: AgentMaker
) -> None:
    """`send --async` exits 0 at once with taskId, contextId and the WORKING state.

    The task is scripted to complete only after 6 s; a CLI that ignores --async waits for it and
    reports COMPLETED, and the agent's task must still be WORKING when the CLI has returned.
    """
    flow = TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 6.0)))
    a = agent(Script(send=flow))
    r = cli.run("send", "--async", "--text", unique("async"), "-a", a.base_url)
    tasks = a.tasks
    assert len(tasks) == 1, f"expected one task, the agent has {len(tasks)}; {shown(r)}"
    still = tasks[0].state()
    assert r.exit_code == 0, f"expected exit 0 for --async; {shown(r)}"
    assert still == "TASK_STATE_WORKING", f"the CLI returned only after the task left WORKING (now {still}); {shown(r)}"
    out = r.stdout_text
    for what, value in (("taskId", tasks[0].id), ("contextId", tasks[0].context_id)):
        assert output.has_token(out, value), f"--async output lacks the {what} {value}; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_WORKING"), f"--async output does not report WORKING; {shown(r)}"
    assert not output.state_matches(out, "TASK_STATE_COMPLETED"), f"--async reported COMPLETED: it waited; {shown(r)}"


# --------------------------------------------------------------------------- SEND_003


@pytest.mark.requirement("A2ACLI_SEND_003", part="stream_sse")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_stream_follows_the_sse_stream_to_the_terminal_event(cli: Cli, agent: AgentMaker) -> None:
    """`send --stream` on a streaming card opens SendStreamingMessage and follows it to COMPLETED.

    The artifact arrives only as a stream event before the terminal status; it must be rendered.
    Catches a CLI that never streams, or stops reading after the first event.
    """
    art = unique("streamed-artifact")
    flow = TaskFlow(
        states=(("WORKING", 0.0), ("COMPLETED", 0.4)), artifacts=(ArtifactSpec(parts=(Text(art),), at=0.2),)
    )
    a = agent(Script(send=flow, card=CardSpec(streaming=True)))
    r = cli.run("send", "--stream", "--text", unique("stream"), "-a", a.base_url, timeout=HANG_BOUND)
    assert not r.timed_out, f"--stream did not finish within {HANG_BOUND}s; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    ops = [q.operation for q in a.a2a_requests()]
    assert "SendStreamingMessage" in ops, (
        f"--stream on a streaming card never opened SendStreamingMessage; requests: {ops}"
    )
    out = r.stdout_text
    assert art in out, f"the artifact streamed at 0.2 s is missing from the output; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_COMPLETED"), (
        f"the terminal state COMPLETED is not reported; {shown(r)}"
    )


@pytest.mark.requirement("A2ACLI_SEND_003", part="stream_unsupported")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_stream_without_streaming_capability_does_not_hang(cli: Cli, agent: AgentMaker) -> None:
    """`send --stream` against a card without streaming ends: falls back (exit 0 and the result) or
    errors clearly (non-zero with a message saying streaming is not available). A CLI still running at
    the bound is a hang: fail. The evidence must be about streaming being unsupported: the tool must
    have read the card that says so (the agent served it) or sent to the agent; a run that never got
    the card (no request, or only an unrelated one such as a 404 at another path) is not measured —
    reading the card is CARD_GET_001's — and an error about something else is not "a clear error".
    """
    flow = TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 0.3)))
    a = agent(Script(send=flow, card=CardSpec(streaming=False)))
    r = cli.run("send", "--stream", "--text", unique("nostream"), "-a", a.base_url, timeout=HANG_BOUND)
    assert not r.timed_out, \
        f"expected --stream against a non-streaming card to end; it hung ({HANG_BOUND}s); {shown(r)}"
    assert r.exit_code is not None, f"expected an exit status, the CLI was ended by signal {r.term_signal}; {shown(r)}"
    if not card_read(a) and not a.a2a_requests():
        blocked_by("A2ACLI_CARD_GET_001", f"`send --stream` never got the agent's card (requests: "
                                          f"{[q.method for q in a.requests][:4]}; exit {r.exit_code})")
    if r.exit_code == 0:
        assert output.state_matches(r.stdout_text, "TASK_STATE_COMPLETED"), (
            f"exit 0 (fallback) but the task's terminal state COMPLETED is not reported; {shown(r)}"
        )
    else:
        said = r.stderr_text + r.stdout_text
        assert re.search(r"stream|sse", said, re.I), (
            f"exit {r.exit_code} without an error saying streaming is unavailable (not a clear error about "
            f"--stream); {shown(r)}")


@pytest.mark.requirement("A2ACLI_SEND_003", part="message_only_reply")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_stream_ending_with_a_message_only_reply_exits_cleanly(cli: Cli, agent: AgentMaker) -> None:
    """A stream that carries one Message (no task) and closes: exit 0 with the reply shown."""
    reply = unique("message-only-reply")
    a = agent(Script(send=MessageReply(parts=(Text(reply),))))
    r = cli.run("send", "--stream", "--text", unique("hi"), "-a", a.base_url, timeout=HANG_BOUND)
    assert not r.timed_out, f"the CLI did not end after a Message-only stream; {shown(r)}"
    assert r.exit_code == 0, f"a Message-only reply must exit 0, not as an error; {shown(r)}"
    assert reply in r.stdout_text, f"the agent's reply text {reply!r} is not in stdout; {shown(r)}"
    assert not a.tasks, "harness: the agent was scripted to create no task"


# --------------------------------------------------------------------------- SEND_004


@pytest.mark.requirement("A2ACLI_SEND_004")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006", "A2ACLI_DEFAULT_001")
def test_send_renders_every_artifact_part_kind(cli: Cli, agent: AgentMaker) -> None:
    """Text output of a completed send shows the text part, the data part's JSON, and each file
    part's name and media type (plus the inline file's size). Catches a renderer that skips a kind.
    """
    art, v = all_kinds_artifact()
    a = agent(Script(send=TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 0.2)), artifacts=(art,))))
    r = cli.run("send", "--text", unique("render"), "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    assert_every_part_rendered(cli, r, v)


@pytest.mark.requirement("A2ACLI_SEND_004")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006", "A2ACLI_OUT_002")
def test_send_json_output_keeps_every_artifact_part(cli: Cli, agent: AgentMaker) -> None:
    """`-o json` carries the artifact's four parts as the agent sent them (nothing stripped)."""
    art, v = all_kinds_artifact()
    a = agent(Script(send=TaskFlow.single("COMPLETED", art)))
    r = cli.run("send", "--text", unique("render"), "-o", "json", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    doc, problem = output.one_json_document(r.stdout_text)
    assert problem is None, f"{problem}; {shown(r)}"
    parts = [
        p
        for arts in output.json_find(doc, "artifacts")
        if isinstance(arts, list)
        for art_obj in arts
        if isinstance(art_obj, dict)
        for p in art_obj.get("parts", [])
    ]
    kinds = [_part_kind(p) for p in parts]
    assert kinds == ["text", "data", "raw", "url"], f"artifact parts in -o json: {kinds}; {shown(r)}"
    assert parts[0]["text"] == v["text"] and parts[1]["data"] == {v["data_key"]: v["data_value"]}, (
        f"artifact content changed: {parts[:2]!r}"
    )
    assert len(base64.b64decode(parts[2]["raw"])) == RAW_SIZE, f"inline file bytes changed: {parts[2]!r}"


# --------------------------------------------------------------------------- SEND_005 / SEND_006


def _files(tmp_path: Path) -> dict[str, Any]:
    """Local inputs for part flags: a file whose extension lies about its type, and a JSON file."""
    blob = tmp_path / "report.txt"
    blob.write_bytes(b"%PDF-1.4 conformance probe\n")
    data_value = {"probe": unique("data")}
    data = tmp_path / "input.json"
    data.write_text(json.dumps(data_value))
    return {"blob": blob, "data": data, "data_value": data_value}


@pytest.mark.requirement("A2ACLI_SEND_005")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_media_type_binds_to_the_part_flag_before_it(
    cli: Cli, agent: AgentMaker, tmp_path: Path
) -> None:
    """`--media-type` sets the media type of exactly the part flag it follows, over any guess.

    `report.txt` is sent as application/pdf, the JSON data part as a vendor type; the leading text
    part keeps no such type. Catches a type applied to the wrong part, or discarded for a guess.
    """
    f = _files(tmp_path)
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    r = cli.run(
        "send",
        "--text",
        "lead",
        "--file",
        str(f["blob"]),
        "--media-type",
        "application/pdf",
        "--data",
        str(f["data"]),
        "--media-type",
        "application/vnd.conformance+json",
        "-a",
        a.base_url,
    )
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    parts = _one_message(a, r).get("parts", [])
    types = [(_part_kind(p), p.get("mediaType")) for p in parts]
    if len(parts) < 3:
        # three part flags gave fewer parts: the flags are not repeatable (SEND_006's), so there is no
        # second and third part whose media types could be judged
        blocked_by("A2ACLI_SEND_006", f"three part flags (--text, --file, --data) sent {len(parts)} part(s): {types}")
    assert [k for k, _ in types] == ["text", "raw", "data"], f"unexpected parts as received: {types}"
    assert types[1][1] == "application/pdf", f"--file part: expected mediaType application/pdf, got {types}"
    assert types[2][1] == "application/vnd.conformance+json", f"--data part: expected the vendor type, got {types}"
    assert types[0][1] not in ("application/pdf", "application/vnd.conformance+json"), (
        f"a --media-type was applied to the text part it does not follow: {types}"
    )


@pytest.mark.requirement("A2ACLI_SEND_005")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_media_type_without_a_part_flag_is_a_usage_error(cli: Cli, agent: AgentMaker) -> None:
    """`--media-type` before any part flag is refused as a usage error and sends nothing. A usage error is
    shown by exit 2 or by the usage error's code (A2ACLI_ERR_USAGE): which status each error takes is
    EXIT_001's, so a tool reporting A2ACLI_ERR_USAGE under exit 1 (`usage-exit-1`) still refused the flag as
    this row asks."""
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    r = cli.run("send", "--media-type", "text/plain", "--text", "x", "-a", a.base_url, usage_error_expected=True)
    cli.require(r, "send", "--text")
    assert r.exit_code not in (0, None), f"an orphan --media-type was accepted (exit {r.exit_code}); {shown(r)}"
    assert r.exit_code == 2 or USAGE_ERROR in r.stderr_text + r.stdout_text, (
        f"expected an orphan --media-type refused as a usage error (exit 2 or {USAGE_ERROR}); {shown(r)}")
    assert not a.sent_messages(), f"a message was sent despite the usage error: {a.sent_messages()!r}"


@pytest.mark.requirement("A2ACLI_SEND_006")
@pytest.mark.depends_on("A2ACLI_SEND_001")
def test_part_flags_repeat_and_keep_command_line_order(
    cli: Cli, agent: AgentMaker, tmp_path: Path
) -> None:
    """`--text`, `--data`, `--file` (path and URL), `--text` arrive as five parts in that order:
    inline bytes for the path, a URL reference for the URL. Catches parts regrouped by kind or
    only one part kept.
    """
    f = _files(tmp_path)
    first, last = unique("first"), unique("last")
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    ref = f"{a.base_url}/files/{unique('ref')}.pdf"
    r = cli.run(
        "send",
        "--text",
        first,
        "--data",
        str(f["data"]),
        "--file",
        str(f["blob"]),
        "--file",
        ref,
        "--text",
        last,
        "-a",
        a.base_url,
    )
    assert r.exit_code == 0, f"expected exit 0; {shown(r)}"
    parts = _one_message(a, r).get("parts", [])
    kinds = [_part_kind(p) for p in parts]
    assert kinds == ["text", "data", "raw", "url", "text"], f"parts as received: {kinds}; {parts!r}"
    assert parts[0]["text"] == first and parts[4]["text"] == last, f"text parts changed or swapped: {parts!r}"
    assert parts[1]["data"] == f["data_value"], f"data part: expected {f['data_value']!r}, got {parts[1]!r}"
    assert base64.b64decode(parts[2]["raw"]) == f["blob"].read_bytes(), f"file bytes changed: {parts[2]!r}"
    assert parts[3]["url"] == ref, f"URL file part: expected {ref!r}, got {parts[3]!r}"
    fetched = [q.path for q in a.requests if q.binding == "OTHER"]
    assert not fetched, f"the CLI fetched the --file URL itself (it must pass the reference): {fetched}"


@pytest.mark.requirement("A2ACLI_SEND_006")
@pytest.mark.depends_on("A2ACLI_SEND_001")
def test_data_dash_reads_the_value_from_stdin(cli: Cli, agent: AgentMaker) -> None:
    """`--data -` takes the JSON value from stdin, in its place among the parts."""
    value = {"from": "stdin", "probe": unique("stdin")}
    a = agent(Script(send=TaskFlow.single("COMPLETED")))
    r = cli.run("send", "--text", "lead", "--data", "-", "-a", a.base_url, stdin=json.dumps(value))
    assert r.exit_code == 0, f"expected exit 0 with --data -; {shown(r)}"
    parts = _one_message(a, r).get("parts", [])
    assert [_part_kind(p) for p in parts] == ["text", "data"], f"parts as received: {parts!r}"
    assert parts[1]["data"] == value, f"--data - : expected {value!r} from stdin, got {parts[1]!r}"
