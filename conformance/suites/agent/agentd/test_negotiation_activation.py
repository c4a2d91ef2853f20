"""Activation, by focused requests (AGENTD_NEG_001-005, 009): how the ``A2A-Extensions`` header is read
(comma-separated, repeated lines, byte-exact URIs, unknown URIs dropped) and that a refusal echoes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.cards import declared_uris
from conformance.agentd.clients import ext, rpc_client
from conformance.agentd.commands import command_message
from conformance.agentd.echo import UNKNOWN_URI, echo_of, render_echo
from conformance.agentd.footing import (
    CARD_ROW,
    card_of,
    core_answers,
    deps,
    instance_for,
    lists_read,
    require_declared,
)
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    EXTENSIONS,
    HEADER,
)
from conformance.judge import blocked_by, quote, unique
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient

#: What the checks here stand on: the card and its listener, and the declarations of the extensions
#: whose activation they judge (blocked by AGENTD_DECL_001/002/003 when one is not declared).
NEG_DEPS = pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS, EVENTS))
#: The row whose own text says an unknown URI is dropped, the request answered as without it.
UNKNOWN_ROW = "AGENTD_NEG_005"


def _task(client: JsonRpcClient) -> str:
    """A task of the caller's to read with GetTask."""
    reply = client.call("SendMessage", send_params(text_message("negotiation")))
    task = reply.result.get("task") if isinstance(reply.result, dict) else None
    if not isinstance(task, dict) or not isinstance(task.get("id"), str):
        not_measured(f"a plain message did not create a task to read (answer {quote(reply.json)})")
    return str(task["id"])


def _annotated(reply: Any) -> bool:
    """Whether a GetTask answer carries the annotations under their URI (annotations activated)."""
    res = reply.result if isinstance(reply.result, dict) else {}
    return ANNOTATIONS in (res.get("metadata") or {})


def _command_ran(reply: Any) -> bool:
    """Whether a status command was answered (the command extension was activated)."""
    return reply.error is None and isinstance(reply.result, dict) and "message" in reply.result


@pytest.fixture
def events_on(agent_targets: AgentTargets) -> Instance:
    """The launched reference with the feed on, or a running target as it is."""
    inst = instance_for(agent_targets, events=True)
    core_answers(inst)  # a task to read is made with a plain message
    return inst


def _declared_of(inst: Instance) -> list[str]:
    """agentd's extensions the card declares; blocked by AGENTD_DECL_001 when it declares none (a
    near-miss spelling of an undeclared URI activating nothing proves nothing)."""
    card = card_of(inst)
    have: list[str] = [u for u in EXTENSIONS if u in declared_uris(card)]
    if not have:
        blocked_by(CARD_ROW, "the card declares none of agentd's extensions; declared: "
                             f"{declared_uris(card) or 'none'}")
    return have


def _activation_problems(client: JsonRpcClient, task_id: str, lines: list[str]) -> list[str]:
    """Sends a status command and a GetTask with A2A-Extensions given as ``lines`` (each naming
    command and task-annotations somewhere); lists every URI that was not activated."""
    out: list[str] = []
    cmd = client.call("SendMessage", send_params(command_message("status")), headers={HEADER: lines})
    if not _command_ran(cmd) and COMMAND not in (echo_of(cmd.headers) or []):
        out.append(f"header lines {lines!r}: the command was not activated (answer {quote(cmd.json, 240)})")
    get = client.call("GetTask", {"id": task_id}, headers={HEADER: lines})
    if not _annotated(get) and ANNOTATIONS not in (echo_of(get.headers) or []):
        out.append(f"header lines {lines!r}: task-annotations was not activated on GetTask "
                   f"(echo {render_echo(echo_of(get.headers))})")
    return out


def _without_unknown(lines: list[str]) -> list[str]:
    """``lines`` with the unknown URI left out of each (the spacing of the other items kept), and a line
    naming nothing else left out."""
    kept = [",".join(i for i in line.split(",") if i.strip() != UNKNOWN_URI).strip() for line in lines]
    return [line for line in kept if line.strip()]


def _judge_lines(client: JsonRpcClient, task_id: str, variants: list[list[str]]) -> None:
    """Fail on every variant (a list of header lines) that did not activate command and task-annotations.
    A variant naming the unknown URI too, which activates them once that URI is left out, was misread for
    that URI (dropping it is AGENTD_NEG_005's): with no other variant wrong, the row is blocked by it."""
    problems: list[str] = []
    unknown: list[str] = []
    for lines in variants:
        wrong = _activation_problems(client, task_id, lines)
        if wrong and any(UNKNOWN_URI in line for line in lines) and not _activation_problems(
                client, task_id, _without_unknown(lines)):
            unknown += wrong
        else:
            problems += wrong
    if problems:
        fail("; ".join(problems))
    if unknown:
        blocked_by(UNKNOWN_ROW, "; ".join(unknown) + ", though the same lines without the unknown URI activate both")


def _declares(inst: Instance, recorder: Recorder, *uris: str) -> None:
    """Activation of ``uris`` cannot even begin unless the card declares them (blocked by their row)."""
    card = card_of(inst)
    for uri in uris:
        require_declared(card, uri)


@NEG_DEPS
@pytest.mark.depends_on(UNKNOWN_ROW)
@pytest.mark.requirement("AGENTD_NEG_001")
def test_comma_separated_header_activates_every_uri(events_on: Instance, recorder: Recorder) -> None:
    """Every URI of a comma-separated header line is read, in any position, with or without spaces:
    a command second in the list still runs, task-annotations second still annotates. Activation is
    seen in the behaviour or the echo. Catches header-first-uri-only."""
    _declares(events_on, recorder, COMMAND, ANNOTATIONS)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        _judge_lines(client, tid, [[line] for line in (
            f"{ANNOTATIONS}, {COMMAND}", f"{UNKNOWN_URI},{ANNOTATIONS},{COMMAND}",
            f"{UNKNOWN_URI} ,  {COMMAND} ,{ANNOTATIONS}", f"{COMMAND},{ANNOTATIONS}")])


@NEG_DEPS
@pytest.mark.depends_on(UNKNOWN_ROW)
@pytest.mark.requirement("AGENTD_NEG_002")
def test_repeated_header_lines_are_all_read(events_on: Instance, recorder: Recorder) -> None:
    """A repeated A2A-Extensions header is read on every line, URIs on the second and later lines
    activate as if listed on the first. Each line names one URI (how a comma-separated line is read is
    AGENTD_NEG_001's). Catches header-first-line-only."""
    _declares(events_on, recorder, COMMAND, ANNOTATIONS)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        _judge_lines(client, tid, [[ANNOTATIONS, COMMAND], [COMMAND, ANNOTATIONS],
                                   [UNKNOWN_URI, UNKNOWN_URI, COMMAND, ANNOTATIONS]])


def _case_variants(uri: str) -> list[str]:
    head, _, last = uri.rpartition("/")
    return [f"{head}/{last.capitalize()}", uri.upper(), uri.replace("https://agentd.dev", "https://AGENTD.dev")]


def _inactive_problems(client: JsonRpcClient, task_id: str, variant_of: dict[str, str]) -> list[str]:
    """Requests naming only near-miss spellings of each declared URI (``variant_of`` holds only
    those); lists every sign that one activated."""
    out: list[str] = []
    cmd_v, ann_v, evt_v = (variant_of.get(u) for u in (COMMAND, ANNOTATIONS, EVENTS))

    def echoed(reply: Any, *names: str) -> list[str]:
        """The declared URIs among ``names`` the echo lists (echoing the near miss itself is an echo that is
        not the activated set, AGENTD_NEG_006's; it activated nothing that the echo shows)."""
        echo = echo_of(reply.headers) or []
        return [u for u in echo if u in names]

    if cmd_v is not None:
        r = client.call("SendMessage", send_params(command_message("status")), headers=ext(cmd_v))
        # A command that runs with no header at all says nothing of activation (that it is refused then
        # is AGENTD_REFUSE_003's); then the echo alone shows what was activated. The control is a status
        # read: refused or run, it changes nothing.
        if echoed(r, COMMAND) or (_command_ran(r) and not _command_ran(
                client.call("SendMessage", send_params(command_message("status"))))):
            out.append(f"{cmd_v!r} activated the command (answer {quote(r.json, 200)}; "
                       f"echo {render_echo(echo_of(r.headers))})")
    if ann_v is not None:
        r = client.call("GetTask", {"id": task_id}, headers=ext(ann_v))
        # Annotations on an answer to a request naming nothing say nothing of activation (whether they
        # ride without it is AGENTD_ANN_002's); then the echo alone shows what was activated.
        if echoed(r, ANNOTATIONS) or (_annotated(r) and not _annotated(client.call("GetTask",
                                                                                           {"id": task_id}))):
            out.append(f"{ann_v!r} activated task-annotations on GetTask (echo {render_echo(echo_of(r.headers))})")
    if evt_v is not None:
        def opened(headers: dict[str, str]) -> tuple[bool, Any, list[str]]:
            s = client.stream(EVENTS_METHOD, {}, headers=headers, deadline=5.0, until=lambda _e: True)
            first = s.payloads[0] if s.payloads else s.json
            return isinstance(first, dict) and "result" in first, first, echo_of(s.headers) or []

        answered, first, echo = opened(ext(evt_v))
        # A feed answered with no header at all says nothing of activation (that it is refused then is
        # AGENTD_REFUSE_002's); then the echo alone shows what was activated.
        if EVENTS in echo or (answered and not opened({})[0]):
            out.append(f"{evt_v!r} activated the events method (first frame {quote(first, 200)}; "
                       f"echo {render_echo(echo)})")
    return out


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_003")
def test_uri_differing_in_case_activates_nothing(events_on: Instance, recorder: Recorder) -> None:
    """A URI that differs from a declared one only in letter case (of the last segment, of the host,
    of everything) activates nothing: the command is not run, no annotations, no feed. Catches
    case-insensitive-uri."""
    problems: list[str] = []
    declared = _declared_of(events_on)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        for i in range(3):
            problems += _inactive_problems(client, tid, {u: _case_variants(u)[i] for u in declared})
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_004")
def test_uri_with_trailing_slash_activates_nothing(events_on: Instance, recorder: Recorder) -> None:
    """A URI that differs from a declared one only by a trailing slash activates nothing. Catches
    trailing-slash-forgiven."""
    declared = _declared_of(events_on)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        problems = _inactive_problems(client, tid, {u: u + "/" for u in declared})
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.depends_on("AGENTD_NEG_001")
@pytest.mark.requirement("AGENTD_NEG_005")
def test_unknown_uri_alone_is_dropped(events_on: Instance, recorder: Recorder) -> None:
    """A request naming only URIs agentd does not implement is answered exactly as one naming nothing
    (answered, with the same echo); one naming such a URI and then the command URI, exactly as one naming
    the command URI alone. The second names both on one line: read only in part, that line is
    AGENTD_NEG_001's (the row is blocked by it when that is all that is wrong). Catches
    unknown-uri-refused."""
    _declares(events_on, recorder, COMMAND)
    others = [UNKNOWN_URI, "urn:example:not-an-agentd-extension", "https://agentd.dev/a2a/ext/not-declared"]
    problems: list[str] = []
    listed: list[str] = []
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        bare = client.call("GetTask", {"id": tid})
        alone = client.call("SendMessage", send_params(command_message("status")), headers=ext(COMMAND))
        for uri in others:
            r = client.call("GetTask", {"id": tid}, headers=ext(uri))
            if (r.error is None) != (bare.error is None) or echo_of(r.headers) != echo_of(bare.headers):
                problems.append(f"GetTask naming {uri!r}: answer {quote(r.json or r.body, 200)}, "
                                f"echo {render_echo(echo_of(r.headers))}; naming nothing: echo "
                                f"{render_echo(echo_of(bare.headers))}")
            r = client.call("SendMessage", send_params(command_message("status")), headers=ext(uri, COMMAND))
            if (r.error is None) != (alone.error is None) or echo_of(r.headers) != echo_of(alone.headers):
                listed.append(f"status command naming {uri!r} and the command URI: "
                              f"answer {quote(r.json or r.body, 200)}, echo {render_echo(echo_of(r.headers))}; "
                              f"naming the command URI alone: echo {render_echo(echo_of(alone.headers))}")
    if problems:
        fail("; ".join(problems + listed))
    if listed:
        lists_read(events_on)
        fail("; ".join(listed))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_009")
def test_deliberate_refusals_echo_nothing(events_on: Instance, recorder: Recorder) -> None:
    """Refusals of several kinds, each naming every extension: a command with an unknown op, an
    unmarked command, a task that does not exist, the feed without its URI, an unknown argument.
    Whichever of them is refused echoes no URI (an empty A2A-Extensions header echoes nothing; that no
    header at all comes with nothing activated is AGENTD_NEG_007's). Catches echo-on-refusal."""
    _declares(events_on, recorder, COMMAND)
    everything = ext(COMMAND, EVENTS, ANNOTATIONS)
    all_but_events = ext(COMMAND, ANNOTATIONS)
    problems: list[str] = []
    with rpc_client(events_on, recorder=recorder) as client:
        attempts: list[tuple[str, Any]] = [
            ("unknown op", client.call("SendMessage", send_params(command_message(unique("no.such.op"))),
                                       headers=everything)),
            ("unmarked command", client.call("SendMessage", send_params(command_message("status", mark=False)),
                                             headers=everything)),
            ("unknown argument", client.call("SendMessage", send_params(command_message("status", {"bogus": 1})),
                                             headers=everything)),
            ("missing task", client.call("GetTask", {"id": unique("no-such-task")}, headers=everything)),
            ("feed not activated", client.stream(EVENTS_METHOD, {}, headers=all_but_events, deadline=5.0,
                                                 until=lambda _e: True)),
        ]
    refused = 0
    for what, reply in attempts:
        body = reply.payloads[0] if getattr(reply, "payloads", None) else reply.json
        if not (isinstance(body, dict) and "error" in body):
            continue  # not refused: whether it should have been is another requirement's question
        refused += 1
        if echo_of(reply.headers):
            problems.append(f"{what}: refused ({body['error'].get('code')}) yet echoed "
                            f"{render_echo(echo_of(reply.headers))}")
    if problems:
        fail("; ".join(problems))
    if not refused:
        not_measured("none of the requests meant to be refused was refused")
