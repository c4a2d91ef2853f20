"""Extension activation and the echo (AGENTD_NEG_*), judged over the negotiation matrix and by
focused requests; CORS exposure of the echo.

The matrix (``matrix.py``) sends every routed method × every subset of {command, events,
task-annotations, an unknown URI} to an instance with the feed on and one with it off. Each check
below judges one statement of the page over those recorded cases.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from a2a.types.a2a_pb2 import StreamResponse

from conformance.agentd_page import (
    ANNOTATIONS,
    APPLIES_TO,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    EXTENSIONS,
    HEADER,
)
from conformance.evidence import Evidence, SecretSet
from conformance.judge import Blocked, blocked_by
from conformance.outcome import fail, not_measured
from conformance.suites.agent.agentd.listener import (
    UNKNOWN_URI,
    echo_of,
    instance_for,
    render_echo,
)
from conformance.suites.agent.agentd.matrix import (
    ANSWERED,
    BROKEN,
    METHODS,
    REFUSED,
    STREAMED,
    Case,
    Matrix,
    MatrixCache,
    iter_pairs,
    run_matrix,
)
from conformance.suites.agent.agentd.support import (
    CARD_ROW,
    LISTENER_ROW,
    card_of,
    card_url,
    command_message,
    declared_uris,
    declaring,
    deps,
    ext,
    http_endpoint,
    jsonrpc_endpoint,
    quote,
    require_declared,
    rpc_client,
    send_params,
    strict_violations,
    text_message,
    unique,
)
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.methods import CORE_METHODS, RESPONSE_TYPES

_CACHE = MatrixCache()
EVENTS_ON = pytest.param(True, id="events-on")
EVENTS_OFF = pytest.param(False, id="events-off")
BOTH = (EVENTS_ON, EVENTS_OFF)
#: An origin the launched reference is configured to list for CORS.
ORIGIN = "http://app.agentd-conformance.test"
#: What the checks here stand on: the card and its listener, and the declarations of the extensions
#: whose activation they judge (blocked by AGENTD_DECL_001/002/003 when one is not declared).
NEG_DEPS = pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS, EVENTS))


@pytest.fixture
def matrix(request: pytest.FixtureRequest, agent_targets: Any, evidence: Evidence) -> Matrix:
    """The matrix on the instance with the feed on (param True) or off (False), run once per process."""
    events: bool = request.param
    # The launched reference gets credentials too, so GetExtendedAgentCard is answered (as the operator)
    # and its echo can be judged like every other method's. A running target is taken as it is: the
    # statements judged here hold whatever it has switched on, and its card says whether the feed is on.
    instance = instance_for(agent_targets, events=events, auth=True)
    try:
        got = replace(_CACHE.get(instance, lambda: run_matrix(instance, events, Recorder())), events=events)
    except Blocked as exc:
        own = [rid for m in request.node.iter_markers("requirement") for rid in m.args]
        if exc.by in own:
            fail(exc.missing)
        raise
    evidence.add("negotiation matrix timing", got.timing())
    return got


def _judge(evidence: Evidence, secrets: SecretSet, cases: list[Case], problems: list[tuple[Case, str]],
           what: str) -> None:
    """Attach the judged cases; fail naming every wrong one (with its exchange as evidence)."""
    evidence.add("cases judged", [c.row() for c in cases])
    if not problems:
        return
    evidence.add("exchanges of the wrong cases",
                 [c.exchange.to_evidence(secrets.secrets) for c, _ in problems if c.exchange is not None])
    shown = "; ".join(f"{c.label()}: {msg}" for c, msg in problems[:6])
    more = f"; and {len(problems) - 6} more" if len(problems) > 6 else ""
    wrong = len({id(c) for c, _ in problems})
    fail(f"{what}: {wrong} of {len(cases)} case(s) wrong: {shown}{more}")


def _broken(cases: list[Case]) -> list[tuple[Case, str]]:
    return [(c, f"the request was neither answered nor refused ({c.note})") for c in cases if c.outcome == BROKEN]


# ---- the matrix, one statement per check ----------------------------------------------------------
def _answered(matrix: Matrix, what: str) -> list[Case]:
    cases = [c for c in matrix.cases if c.outcome == ANSWERED]
    if not cases:
        blocked_by(LISTENER_ROW, f"no request of the matrix was answered on this instance, so no {what} could be "
                                 "judged")
    return cases


def _of_agentd(matrix: Matrix) -> None:
    """A statement about how agentd's extensions are activated and echoed has nothing to judge on a card
    that declares none of them (blocked by AGENTD_DECL_001, not passed)."""
    if not [u for u in EXTENSIONS if u in matrix.declared]:
        blocked_by(CARD_ROW, f"the card declares none of agentd's extensions ({', '.join(EXTENSIONS)}), so "
                             f"nothing can be activated or echoed; declared: {matrix.declared or 'none'}")


def _core_routed(matrix: Matrix) -> None:
    """Whether the core methods were routed at all: a listener answering them -32601 gives nothing to
    judge a statement about their answers on (blocked by AGENTD_DECL_013)."""
    core = [c for c in matrix.cases if c.method in CORE_METHODS]
    if core and all(c.code == -32601 for c in core):
        blocked_by(LISTENER_ROW, f"the listener answered every core method -32601 (not routed), e.g. "
                                 f"{core[0].label()}")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_006")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_echo_is_requested_declared_and_applicable(matrix: Matrix, evidence: Evidence,
                                                   run_secrets: SecretSet) -> None:
    """Every answered request's echo lists exactly requested ∩ declared ∩ applicable: nothing more (an
    unknown URI, an inapplicable one), nothing less, no repeats. Catches echo-requested,
    echo-inapplicable, events-echo-undeclared, command-not-echoed-on-stream."""
    _of_agentd(matrix)
    cases = _answered(matrix, "echo")
    problems = [(c, f"echo {render_echo(c.echo)}, expected {c.expected}") for c in cases
                if sorted(c.echo or []) != sorted(c.expected)]
    _judge(evidence, run_secrets, cases, problems, "the echo is not the activated set")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_007")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_nothing_activated_sends_no_header(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """When a request activates nothing, the answer carries no A2A-Extensions header at all (not an
    empty one). Catches empty-echo-header."""
    _of_agentd(matrix)
    cases = [c for c in _answered(matrix, "echo") if not c.expected]
    if not cases:
        not_measured("no answered request of the matrix activated nothing")
    problems = [(c, f"activated nothing but the answer has the header: {render_echo(c.echo)}")
                for c in cases if c.echo is not None]
    _judge(evidence, run_secrets, cases, problems, "a header came back when nothing was activated")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_008")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_inapplicable_extension_is_not_echoed(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """A declared extension named on a method it does not apply to (command on GetTask, events on a
    send, task-annotations on a push-config method) is not echoed. Catches echo-inapplicable."""
    _of_agentd(matrix)
    def inapplicable(c: Case) -> set[str]:
        return {u for u in c.requested if u in matrix.declared and u in APPLIES_TO and c.method not in APPLIES_TO[u]}

    cases = [c for c in _answered(matrix, "echo") if inapplicable(c)]
    if not cases:
        not_measured("no answered request named a declared extension that does not apply to its method")
    problems = [(c, f"echoed {sorted(set(c.echo or []) & inapplicable(c))}, which do not apply to {c.method}")
                for c in cases if set(c.echo or []) & inapplicable(c)]
    _judge(evidence, run_secrets, cases, problems, "an inapplicable extension was echoed")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_009")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_refused_matrix_requests_echo_nothing(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every request of the matrix that was refused (an error, as JSON or as the stream's first frame)
    carries no A2A-Extensions header, whatever it requested. Catches echo-on-refusal."""
    _of_agentd(matrix)
    cases = [c for c in matrix.cases if c.outcome == REFUSED]
    if not cases:
        not_measured("no request of the matrix was refused on this instance")
    problems = [(c, f"refused ({c.code} {c.reason}) yet echoed {render_echo(c.echo)}")
                for c in cases if c.echo is not None]
    _judge(evidence, run_secrets, cases, problems, "a refused request echoed extensions")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_005")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_unknown_uri_changes_nothing(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Adding a URI no agentd implements to any request of any method changes nothing: the same
    outcome, the same error and the same echo as without it. Catches unknown-uri-refused (and
    echo-requested)."""
    _of_agentd(matrix)
    _core_routed(matrix)
    pairs = list(iter_pairs(matrix.cases))
    problems: list[tuple[Case, str]] = []
    for with_u, without in pairs:
        got = (with_u.outcome, with_u.code, with_u.reason, sorted(with_u.echo) if with_u.echo is not None else None)
        base = (without.outcome, without.code, without.reason,
                sorted(without.echo) if without.echo is not None else None)
        if got != base:
            problems.append((with_u, f"with the unknown URI: {got}; without it: {base}"))
    _judge(evidence, run_secrets, [c for p in pairs for c in p], problems, "an unknown URI changed the answer")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_010")
@pytest.mark.parametrize("matrix", [EVENTS_OFF], indirect=True)
def test_undeclared_events_uri_is_never_echoed(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """With the feed off, no answer of any method echoes the events URI, even when asked for it.
    Catches events-echo-undeclared."""
    _of_agentd(matrix)
    if EVENTS in matrix.declared:
        not_measured(f"this instance declares {EVENTS}; the statement is about one that does not")
    cases = [c for c in matrix.cases if EVENTS in c.requested]
    problems = [(c, f"echoed {render_echo(c.echo)} on an instance with the feed off")
                for c in cases if EVENTS in (c.echo or [])]
    _judge(evidence, run_secrets, cases, problems, "the undeclared events URI was echoed")


def _per_method(matrix: Matrix, uri: str, methods: list[str]) -> tuple[list[Case], list[str]]:
    """The answered cases naming ``uri`` on each of ``methods``; and the methods with none."""
    cases = [c for c in matrix.cases if c.method in methods and uri in c.requested and c.outcome == ANSWERED]
    missing = [m for m in methods if not any(c.method == m for c in cases)]
    return cases, missing


def _tasks_in(case: Case) -> list[dict[str, Any]]:
    """Every Task an answer carries: a Task result, ``{"task": …}`` (sends, stream frames) or a list."""
    out: list[dict[str, Any]] = []
    for _path, obj in case.results:
        if not isinstance(obj, dict):
            continue
        if isinstance(obj.get("task"), dict):
            out.append(obj["task"])
        elif isinstance(obj.get("tasks"), list):
            out += [t for t in obj["tasks"] if isinstance(t, dict)]
        elif "status" in obj and "id" in obj:
            out.append(obj)
    return out


def _require_declared(matrix: Matrix, uri: str) -> None:
    require_declared(matrix.card, uri)


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_011")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_annotations_echoed_on_every_task_answer(matrix: Matrix, evidence: Evidence,
                                                 run_secrets: SecretSet) -> None:
    """task-annotations, requested, is activated on the sends, GetTask, ListTasks, CancelTask,
    SubscribeToTask and (with the feed on) the feed method: it is echoed, and every Task the answer
    carries holds the annotations under the URI. Catches annotations-not-on-list."""
    _require_declared(matrix, ANNOTATIONS)
    feed = EVENTS in matrix.declared
    methods = [m for m in METHODS if m in APPLIES_TO[ANNOTATIONS] and (feed or m != EVENTS_METHOD)]
    cases, missing = _per_method(matrix, ANNOTATIONS, methods)
    problems: list[tuple[Case, str]] = []
    for c in cases:
        if ANNOTATIONS not in (c.echo or []):
            problems.append((c, f"echo {render_echo(c.echo)} lacks task-annotations"))
        bare = [t.get("id") for t in _tasks_in(c) if ANNOTATIONS not in (t.get("metadata") or {})]
        if bare:
            problems.append((c, f"task(s) {bare} answered without metadata[{ANNOTATIONS!r}]: not activated"))
    _judge(evidence, run_secrets, cases, problems, "task-annotations was not activated")
    if missing:
        not_measured(f"no request naming task-annotations was answered on {missing}; the others echo it")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_012")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_command_echoed_only_on_the_sends(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """The command URI is echoed on every answered send that names it, and on no other method.
    Catches command-not-echoed-on-stream, echo-inapplicable."""
    _require_declared(matrix, COMMAND)
    sends = sorted(APPLIES_TO[COMMAND])
    cases = [c for c in _answered(matrix, "echo") if COMMAND in c.requested]
    missing = [m for m in sends if not any(c.method == m for c in cases)]
    problems = [(c, f"echo {render_echo(c.echo)}" + (" lacks" if c.method in sends else " has") + " the command URI")
                for c in cases if (COMMAND in (c.echo or [])) != (c.method in sends)]
    _judge(evidence, run_secrets, cases, problems, "the command URI was echoed wrongly")
    if missing:
        not_measured(f"no request naming the command URI was answered on {missing}")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_DECL_006")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_never_refuses_for_a_missing_extension(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Whatever a request activates (including nothing), no method answers -32008 (a required
    extension not activated); every case is answered or refused. Catches core-needs-extension."""
    _core_routed(matrix)
    _answered(matrix, "answer")
    cases = matrix.cases
    problems = [(c, f"refused with -32008 ({c.reason})") for c in cases if c.code == -32008] + _broken(cases)
    _judge(evidence, run_secrets, cases, problems, "an extension was required")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_DECL_007")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_matrix_answers_parse_strictly(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every answer of a core method, with any set of extensions activated, parses strictly into its
    A2A 1.0 type: extensions never change a core structure. Catches reply-extra-field."""
    _of_agentd(matrix)
    cases = [c for c in _answered(matrix, "answer") if c.method in CORE_METHODS]
    problems: list[tuple[Case, str]] = []
    for c in cases:
        rtype = StreamResponse if c.method in STREAMED else RESPONSE_TYPES[c.method]
        for path, obj in c.results:
            if rtype.DESCRIPTOR.full_name == "google.protobuf.Empty" and obj in (None, {}):
                continue
            found = strict_violations(obj, rtype, path)
            if found:
                problems.append((c, f"not a strict {rtype.DESCRIPTOR.name}: {'; '.join(found)}"))
    _judge(evidence, run_secrets, cases, problems, "an answer departs from the A2A type")


def _feed_state(matrix: Matrix) -> bool:
    """Whether the card declares the feed, held to the state the instance was launched in (a running
    target whose card says otherwise cannot be judged for this state)."""
    declared = EVENTS in matrix.declared
    if declared != matrix.events:
        if matrix.launched:
            fail(f"the feed is {'on' if matrix.events else 'off'} but the card "
                 f"{'does not declare' if matrix.events else 'declares'} {EVENTS}; declared: {matrix.declared}")
        if matrix.events:
            require_declared(matrix.card, EVENTS)
        not_measured("this target's card declares the events extension, so the feed-off case cannot be "
                     "judged on it")
    return declared


@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.requirement("AGENTD_DECL_013")
@pytest.mark.parametrize("matrix", BOTH, indirect=True)
def test_events_method_routed_only_when_declared_and_activated(matrix: Matrix, evidence: Evidence,
                                                               run_secrets: SecretSet) -> None:
    """agentd.events/SubscribeToEvents is answered (a stream) exactly when the card declares the events
    extension and the request activates it, and is -32601 otherwise; no core method is ever -32601.
    Catches events-undeclared-served, events-without-activation."""
    declared = EVENTS in matrix.declared
    problems: list[tuple[Case, str]] = []
    for c in matrix.cases:
        if c.method != EVENTS_METHOD:
            if c.code == -32601:
                problems.append((c, "a core method answered -32601 (not routed)"))
        elif declared and EVENTS in c.requested:
            if c.outcome != ANSWERED:
                problems.append((c, f"declared and activated, yet {c.outcome} ({c.code} {c.reason})"))
        elif c.outcome != REFUSED or c.code != -32601:
            problems.append((c, f"expected -32601, got {c.outcome} ({c.code} {c.reason})"))
    _judge(evidence, run_secrets, matrix.cases, problems, "the route table")


@NEG_DEPS
@pytest.mark.parametrize("matrix", [
    pytest.param(True, id="events-on", marks=pytest.mark.requirement("AGENTD_REFUSE_002")),
    pytest.param(False, id="events-off", marks=pytest.mark.requirement("AGENTD_REFUSE_001"))], indirect=True)
def test_events_method_refusal_names_its_reason(matrix: Matrix, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every refusal of the feed method in the matrix is -32601 with ErrorInfo reason
    EXTENSION_NOT_DECLARED (the feed off) or EXTENSION_NOT_ACTIVATED (declared, not named). Catches
    events-undeclared-served, events-without-activation."""
    _of_agentd(matrix)
    declared = _feed_state(matrix)
    cases = [c for c in matrix.of(EVENTS_METHOD) if not (declared and EVENTS in c.requested)]
    want = "EXTENSION_NOT_ACTIVATED" if declared else "EXTENSION_NOT_DECLARED"
    problems = [(c, f"expected -32601 {want}, got {c.outcome} ({c.code} {c.reason})") for c in cases
                if c.outcome != REFUSED or (c.code, c.reason) != (-32601, want)]
    _judge(evidence, run_secrets, cases, problems, f"the feed method was not refused with {want}")


# ---- focused requests -------------------------------------------------------------------------------
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
def events_on(agent_targets: Any) -> Any:
    """The launched reference with the feed on, or a running target as it is."""
    return instance_for(agent_targets, events=True)


def _declared_of(inst: Any) -> list[str]:
    """agentd's extensions the card declares; blocked by AGENTD_DECL_001 when it declares none (a
    near-miss spelling of an undeclared URI activating nothing proves nothing)."""
    card = card_of(inst)
    have = [u for u in EXTENSIONS if u in declared_uris(card)]
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


def _declares(inst: Any, recorder: Recorder, *uris: str) -> None:
    """Activation of ``uris`` cannot even begin unless the card declares them (blocked by their row)."""
    card = card_of(inst)
    for uri in uris:
        require_declared(card, uri)


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_001")
def test_comma_separated_header_activates_every_uri(events_on: Any, recorder: Recorder) -> None:
    """Every URI of a comma-separated header line is read, in any position, with or without spaces:
    a command second in the list still runs, task-annotations second still annotates. Activation is
    seen in the behaviour or the echo. Catches header-first-uri-only."""
    _declares(events_on, recorder, COMMAND, ANNOTATIONS)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        problems: list[str] = []
        for line in (f"{ANNOTATIONS}, {COMMAND}", f"{UNKNOWN_URI},{ANNOTATIONS},{COMMAND}",
                     f"{UNKNOWN_URI} ,  {COMMAND} ,{ANNOTATIONS}", f"{COMMAND},{ANNOTATIONS}"):
            problems += _activation_problems(client, tid, [line])
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_002")
def test_repeated_header_lines_are_all_read(events_on: Any, recorder: Recorder) -> None:
    """A repeated A2A-Extensions header is read on every line, URIs on the second and later lines
    activate as if listed on the first. Catches header-first-line-only."""
    _declares(events_on, recorder, COMMAND, ANNOTATIONS)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        problems: list[str] = []
        for lines in ([ANNOTATIONS, COMMAND], [COMMAND, ANNOTATIONS], [UNKNOWN_URI, f"{UNKNOWN_URI}, {COMMAND}",
                                                                       ANNOTATIONS]):
            problems += _activation_problems(client, tid, lines)
    if problems:
        fail("; ".join(problems))


def _case_variants(uri: str) -> list[str]:
    head, _, last = uri.rpartition("/")
    return [f"{head}/{last.capitalize()}", uri.upper(), uri.replace("https://agentd.dev", "https://AGENTD.dev")]


def _inactive_problems(client: JsonRpcClient, task_id: str, variant_of: dict[str, str]) -> list[str]:
    """Requests naming only near-miss spellings of each declared URI (``variant_of`` holds only
    those); lists every sign that one activated."""
    out: list[str] = []
    cmd_v, ann_v, evt_v = (variant_of.get(u) for u in (COMMAND, ANNOTATIONS, EVENTS))

    def echoed(reply: Any, *names: str) -> list[str]:
        echo = echo_of(reply.headers) or []
        return [u for u in echo if u in names]

    if cmd_v is not None:
        r = client.call("SendMessage", send_params(command_message("status")), headers=ext(cmd_v))
        if _command_ran(r) or echoed(r, COMMAND, cmd_v):
            out.append(f"{cmd_v!r} activated the command (answer {quote(r.json, 200)}; "
                       f"echo {render_echo(echo_of(r.headers))})")
    if ann_v is not None:
        r = client.call("GetTask", {"id": task_id}, headers=ext(ann_v))
        if _annotated(r) or echoed(r, ANNOTATIONS, ann_v):
            out.append(f"{ann_v!r} activated task-annotations on GetTask (echo {render_echo(echo_of(r.headers))})")
    if evt_v is not None:
        s = client.stream(EVENTS_METHOD, {}, headers=ext(evt_v), deadline=5.0, until=lambda _e: True)
        first = s.payloads[0] if s.payloads else s.json
        if (isinstance(first, dict) and "result" in first) or [u for u in echo_of(s.headers) or []
                                                               if u in (EVENTS, evt_v)]:
            out.append(f"{evt_v!r} activated the events method (first frame {quote(first, 200)})")
    return out


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_003")
def test_uri_differing_in_case_activates_nothing(events_on: Any, recorder: Recorder) -> None:
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
def test_uri_with_trailing_slash_activates_nothing(events_on: Any, recorder: Recorder) -> None:
    """A URI that differs from a declared one only by a trailing slash activates nothing. Catches
    trailing-slash-forgiven."""
    declared = _declared_of(events_on)
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        problems = _inactive_problems(client, tid, {u: u + "/" for u in declared})
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_005")
def test_unknown_uri_alone_is_dropped(events_on: Any, recorder: Recorder) -> None:
    """A request naming only URIs agentd does not implement is answered exactly as one naming nothing,
    with no echo; beside the command URI, only the command URI is echoed. Catches unknown-uri-refused."""
    _declares(events_on, recorder, COMMAND)
    others = [UNKNOWN_URI, "urn:example:not-an-agentd-extension", "https://agentd.dev/a2a/ext/not-declared"]
    problems: list[str] = []
    with rpc_client(events_on, recorder=recorder) as client:
        tid = _task(client)
        for uri in others:
            r = client.call("GetTask", {"id": tid}, headers=ext(uri))
            if r.error is not None or echo_of(r.headers) is not None:
                problems.append(f"GetTask naming {uri!r}: answer {quote(r.json or r.body, 200)}, "
                                f"echo {render_echo(echo_of(r.headers))}")
            r = client.call("SendMessage", send_params(command_message("status")), headers=ext(uri, COMMAND))
            if r.error is not None or echo_of(r.headers) != [COMMAND]:
                problems.append(f"status command naming {uri!r} and the command URI: "
                                f"answer {quote(r.json or r.body, 200)}, "
                                f"echo {render_echo(echo_of(r.headers))}, expected [{COMMAND!r}]")
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_009")
def test_deliberate_refusals_echo_nothing(events_on: Any, recorder: Recorder) -> None:
    """Refusals of several kinds, each naming every extension: a command with an unknown op, an
    unmarked command, a task that does not exist, the feed without its URI, an unknown argument.
    Whichever of them is refused carries no echo. Catches echo-on-refusal."""
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
        if echo_of(reply.headers) is not None:
            problems.append(f"{what}: refused ({body['error'].get('code')}) yet echoed "
                            f"{render_echo(echo_of(reply.headers))}")
    if problems:
        fail("; ".join(problems))
    if not refused:
        not_measured("none of the requests meant to be refused was refused")


# ---- CORS -------------------------------------------------------------------------------------------
@pytest.fixture
def cors_target(agent_targets: Any) -> tuple[Any, str]:
    """An instance and an origin it lists: the launched reference is configured with ORIGIN; a running
    target must declare one (``--fact cors_origin=…``)."""
    if agent_targets.launchable:
        return declaring(agent_targets, COMMAND, events=True, cors_origins=(ORIGIN,)), ORIGIN
    inst = declaring(agent_targets, COMMAND)
    origin = inst.facts.get("cors_origin")
    if not origin:
        not_measured("needs an origin the target lists for CORS; declare one with --fact cors_origin=ORIGIN")
    return inst, origin


def _tokens(value: str | None) -> set[str]:
    return {t.strip().lower() for t in (value or "").split(",") if t.strip()}


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_013")
def test_cors_response_exposes_extension_headers(cors_target: tuple[Any, str], recorder: Recorder) -> None:
    """A response to a listed origin (a JSON-RPC call and the card) lets a browser read a2a-extensions,
    retry-after and www-authenticate. Catches cors-missing-expose."""
    inst, origin = cors_target
    want = {"a2a-extensions", "retry-after", "www-authenticate"}
    problems: list[str] = []
    with rpc_client(inst, recorder=recorder) as client:
        rpc = client.call("ListTasks", {"pageSize": 1}, headers={"Origin": origin, **ext(ANNOTATIONS)})
    http = http_endpoint(inst, recorder)
    try:
        card = http.send("GET", card_url(inst), headers=[("Origin", origin)])
    finally:
        http.close()
    for what, reply in (("JSON-RPC answer", rpc), ("card", card)):
        allow = reply.headers.get("access-control-allow-origin")
        exposed = _tokens(reply.headers.get("access-control-expose-headers"))
        credentials = reply.headers.get("access-control-allow-credentials", "").lower() == "true"
        if allow not in (origin, "*"):
            problems.append(f"{what}: Access-Control-Allow-Origin {allow!r} for the listed origin {origin!r}")
        if not (want <= exposed or ("*" in exposed and not credentials)):
            shown = reply.headers.get("access-control-expose-headers")
            problems.append(f"{what}: Access-Control-Expose-Headers {shown!r} lacks {sorted(want - exposed)}")
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_014")
def test_cors_preflight_allows_the_extensions_header(cors_target: tuple[Any, str], recorder: Recorder) -> None:
    """A preflight from a listed origin asking to send A2A-Extensions (alone, and beside the headers
    every call sends) is allowed. Catches cors-preflight-no-extensions."""
    inst, origin = cors_target
    problems: list[str] = []
    http = http_endpoint(inst, recorder)
    try:
        for asked in ("a2a-extensions", "a2a-extensions, a2a-version, content-type"):
            preflight = [("Origin", origin), ("Access-Control-Request-Method", "POST"),
                         ("Access-Control-Request-Headers", asked)]
            r = http.send("OPTIONS", "/" if inst.uds_path else jsonrpc_endpoint(inst).url, headers=preflight)
            allowed = _tokens(r.headers.get("access-control-allow-headers"))
            credentials = r.headers.get("access-control-allow-credentials", "").lower() == "true"
            ok_headers = "a2a-extensions" in allowed or ("*" in allowed and not credentials)
            if not 200 <= r.status < 300 or not ok_headers:
                problems.append(f"preflight asking {asked!r}: HTTP {r.status}, Access-Control-Allow-Headers "
                                f"{r.headers.get('access-control-allow-headers')!r}, body {r.body[:120]!r}")
    finally:
        http.close()
    if problems:
        fail("; ".join(problems))
