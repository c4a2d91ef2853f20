"""Activation and the echo, judged over the negotiation matrix (AGENTD_NEG_005-012, and the DECL and
REFUSE rows the same cases show).

The matrix (:mod:`conformance.agentd.negotiation_cases`) sends every routed method × every subset of
{command, events, task-annotations, an unknown URI} to an instance with the feed on and one with it off.
Each check below judges one statement of the page over those recorded cases.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

import pytest
from a2a.types.a2a_pb2 import StreamResponse

from conformance.agentd.echo import UNKNOWN_URI, expected_echo, render_echo
from conformance.agentd.footing import (
    CARD_ROW,
    CORE_ROW,
    DECLARED_BY,
    FEED_ROW,
    LIST_ROW,
    LISTENER_ROW,
    core_answers,
    deps,
    instance_for,
    require_declared,
)
from conformance.agentd.negotiation_cases import (
    ANSWERED,
    BROKEN,
    METHODS,
    REFUSED,
    STREAMED,
    Case,
    Negotiation,
    NegotiationCache,
    iter_pairs,
    run_negotiation,
)
from conformance.agentd_page import (
    ANNOTATIONS,
    APPLIES_TO,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    EXTENSIONS,
)
from conformance.evidence import Evidence, SecretSet
from conformance.judge import blocked_by, judged_here, violations
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets
from conformance.wire import Recorder
from conformance.wire.methods import CORE_METHODS, RESPONSE_TYPES

_CACHE = NegotiationCache()
EVENTS_ON = pytest.param(True, id="events-on")
EVENTS_OFF = pytest.param(False, id="events-off")
BOTH = (EVENTS_ON, EVENTS_OFF)
#: What the checks here stand on: the card and its listener, and the declarations of the extensions
#: whose activation they judge (blocked by AGENTD_DECL_001/002/003 when one is not declared).
NEG_DEPS = pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS, EVENTS))
#: The extensions the page says the card always declares (AGENTD_DECL_001, _002), whatever is switched on.
ALWAYS: Final = (COMMAND, ANNOTATIONS)


@pytest.fixture
def negotiation(request: pytest.FixtureRequest, agent_targets: AgentTargets, evidence: Evidence) -> Negotiation:
    """The matrix on the instance with the feed on (param True) or off (False), run once per process."""
    events: bool = request.param
    # The launched reference gets credentials too, so GetExtendedAgentCard is answered (as the operator)
    # and its echo can be judged like every other method's. A running target is taken as it is: the
    # statements judged here hold whatever it has switched on, and its card says whether the feed is on.
    own = [rid for m in request.node.iter_markers("requirement") for rid in m.args]
    instance = instance_for(agent_targets, events=events, auth=True)
    # A core request refused -32008 is AGENTD_DECL_006's own fail ("never answers -32008"), and blocks the
    # other rows judged over the matrix (AGENTD_DECL_005's).
    with judged_here(*own, *([CORE_ROW] if "AGENTD_DECL_006" in own else [])):
        core_answers(instance)
    with judged_here(*own):
        got = replace(_CACHE.get(instance, lambda: run_negotiation(instance, events, Recorder())), events=events)
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


# ---- the matrix, one statement per check ----------------------------------------------------------
def _answered(negotiation: Negotiation, what: str) -> list[Case]:
    cases = [c for c in negotiation.cases if c.outcome == ANSWERED]
    if not cases:
        blocked_by(LISTENER_ROW, f"no request of the matrix was answered on this instance, so no {what} could be "
                                 "judged")
    return cases


def _of_agentd(negotiation: Negotiation) -> None:
    """A statement about how agentd's extensions are activated and echoed has nothing to judge on a card
    that declares none of them (blocked by AGENTD_DECL_001, not passed)."""
    if not [u for u in EXTENSIONS if u in negotiation.declared]:
        blocked_by(CARD_ROW, f"the card declares none of agentd's extensions ({', '.join(EXTENSIONS)}), so "
                             f"nothing can be activated or echoed; declared: {negotiation.declared or 'none'}")


def _core_routed(negotiation: Negotiation) -> None:
    """Whether the core methods were routed at all: a listener answering them -32601 gives nothing to
    judge a statement about their answers on (blocked by AGENTD_DECL_013)."""
    core = [c for c in negotiation.cases if c.method in CORE_METHODS]
    if core and all(c.code == -32601 for c in core):
        blocked_by(LISTENER_ROW, f"the listener answered every core method -32601 (not routed), e.g. "
                                 f"{core[0].label()}")


def _undeclared_always(negotiation: Negotiation, problems: list[tuple[Case, str]]) -> list[tuple[Case, str]]:
    """The wrong echoes that are right for the page's declarations: the card lacks an extension the page
    says it always declares (AGENTD_DECL_001/002: a trailing slash, a version suffix), the daemon activates
    it all the same, and its echo is exactly requested ∩ (declared + that extension) ∩ applicable. What is
    wrong there is the declaration, not the echo; every other wrong echo is the check's own."""
    lacking = [u for u in ALWAYS if u not in negotiation.declared]
    if not lacking:
        return []
    full = [*negotiation.declared, *lacking]
    return [(c, msg) for c, msg in problems
            if c.echo is not None and sorted(c.echo) == sorted(expected_echo(c.requested, full, c.method))]


def _judge_echo(negotiation: Negotiation, evidence: Evidence, secrets: SecretSet, cases: list[Case],
                problems: list[tuple[Case, str]], what: str) -> None:
    """:func:`_judge`, except that with only wrong echoes :func:`_undeclared_always` finds, the row is blocked
    by the row declaring the extension the card lacks."""
    blamed = _undeclared_always(negotiation, problems)
    own = [p for p in problems if p not in blamed]
    _judge(evidence, secrets, cases, own, what)
    if blamed:
        lacking = next(u for u in ALWAYS if u not in negotiation.declared)
        blocked_by(DECLARED_BY[lacking], f"the card declares no {lacking} (declared: {negotiation.declared}), yet "
                                         f"{len(blamed)} answer(s) echo it where the page's declarations would "
                                         f"activate it, e.g. {blamed[0][0].label()}: {blamed[0][1]}")


def _one_per_line(negotiation: Negotiation, cases: list[Case]) -> list[Case]:
    """``cases``, less those naming several URIs (on one comma-separated line) when the instance reads such a
    line only in part (AGENTD_NEG_001's): what they activate is not this check's to judge."""
    return [c for c in cases if len(c.requested) <= 1] if negotiation.lists else cases


def _lists_read(negotiation: Negotiation) -> None:
    """Blocked by AGENTD_NEG_001 when the cases naming several URIs were left out (:func:`_one_per_line`)."""
    if negotiation.lists:
        blocked_by(LIST_ROW, f"{negotiation.lists}, so the cases naming several extensions are not judged here")


@NEG_DEPS
@pytest.mark.depends_on(LIST_ROW)
@pytest.mark.requirement("AGENTD_NEG_006")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_echo_is_requested_declared_and_applicable(negotiation: Negotiation, evidence: Evidence,
                                                   run_secrets: SecretSet) -> None:
    """Every answered request's echo lists exactly requested ∩ declared ∩ applicable: nothing more (an
    unknown URI, an inapplicable one), nothing less, no repeats. Catches echo-requested,
    echo-inapplicable, events-echo-undeclared, command-not-echoed-on-stream."""
    _of_agentd(negotiation)
    cases = _one_per_line(negotiation, _answered(negotiation, "echo"))
    problems = [(c, f"echo {render_echo(c.echo)}, expected {c.expected}") for c in cases
                if sorted(c.echo or []) != sorted(c.expected)]
    _judge_echo(negotiation, evidence, run_secrets, cases, problems, "the echo is not the activated set")
    _lists_read(negotiation)


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_007")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_nothing_activated_sends_no_header(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """When a request activates nothing, the answer carries no A2A-Extensions header at all (not an
    empty one). Catches empty-echo-header."""
    _of_agentd(negotiation)
    cases = [c for c in _answered(negotiation, "echo") if not c.expected]
    if not cases:
        not_measured("no answered request of the matrix activated nothing")
    problems = [(c, f"activated nothing but the answer has the header: {render_echo(c.echo)}")
                for c in cases if c.echo is not None]
    _judge_echo(negotiation, evidence, run_secrets, cases, problems, "a header came back when nothing was activated")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_008")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_inapplicable_extension_is_not_echoed(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """A declared extension named on a method it does not apply to (command on GetTask, events on a
    send, task-annotations on a push-config method) is not echoed. Catches echo-inapplicable."""
    _of_agentd(negotiation)
    def inapplicable(c: Case) -> set[str]:
        return {u for u in c.requested
                if u in negotiation.declared and u in APPLIES_TO and c.method not in APPLIES_TO[u]}

    cases = [c for c in _answered(negotiation, "echo") if inapplicable(c)]
    if not cases:
        not_measured("no answered request named a declared extension that does not apply to its method")
    problems = [(c, f"echoed {sorted(set(c.echo or []) & inapplicable(c))}, which do not apply to {c.method}")
                for c in cases if set(c.echo or []) & inapplicable(c)]
    _judge(evidence, run_secrets, cases, problems, "an inapplicable extension was echoed")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_009")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_refused_matrix_requests_echo_nothing(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every request of the matrix that was refused (an error, as JSON or as the stream's first frame)
    echoes no URI, whatever it requested. (An empty A2A-Extensions header echoes nothing; that no header
    at all comes with nothing activated is AGENTD_NEG_007's.) Catches echo-on-refusal."""
    _of_agentd(negotiation)
    cases = [c for c in negotiation.cases if c.outcome == REFUSED]
    if not cases:
        not_measured("no request of the matrix was refused on this instance")
    problems = [(c, f"refused ({c.code} {c.reason}) yet echoed {render_echo(c.echo)}")
                for c in cases if c.echo]
    _judge(evidence, run_secrets, cases, problems, "a refused request echoed extensions")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_005")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_unknown_uri_changes_nothing(negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Adding a URI no agentd implements to any request of any method changes nothing: the same
    outcome, the same error and the same echo as without it. Catches unknown-uri-refused (and
    echo-requested)."""
    _of_agentd(negotiation)
    _core_routed(negotiation)
    pairs = list(iter_pairs(negotiation.cases))
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
@pytest.mark.parametrize("negotiation", [EVENTS_OFF], indirect=True)
def test_undeclared_events_uri_is_never_echoed(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """With the feed off, no answer of any method echoes the events URI, even when asked for it.
    Catches events-echo-undeclared."""
    _of_agentd(negotiation)
    if negotiation.contradiction:
        blocked_by(FEED_ROW, f"{negotiation.contradiction}: there is no instance without the events extension to "
                             "judge")
    if EVENTS in negotiation.declared:
        not_measured(f"this instance declares {EVENTS}; the statement is about one that does not")
    cases = [c for c in negotiation.cases if EVENTS in c.requested]
    problems = [(c, f"echoed {render_echo(c.echo)} on an instance with the feed off")
                for c in cases if EVENTS in (c.echo or [])]
    _judge(evidence, run_secrets, cases, problems, "the undeclared events URI was echoed")


def _per_method(negotiation: Negotiation, uri: str, methods: list[str]) -> tuple[list[Case], list[str]]:
    """The answered cases naming ``uri`` on each of ``methods``; and the methods with none."""
    cases = [c for c in negotiation.cases if c.method in methods and uri in c.requested and c.outcome == ANSWERED]
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


def _require_declared(negotiation: Negotiation, uri: str) -> None:
    require_declared(negotiation.card, uri)


@NEG_DEPS
@pytest.mark.depends_on("AGENTD_ANN_001")
@pytest.mark.depends_on(LIST_ROW)
@pytest.mark.requirement("AGENTD_NEG_011")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_annotations_echoed_on_every_task_answer(negotiation: Negotiation, evidence: Evidence,
                                                 run_secrets: SecretSet) -> None:
    """task-annotations, requested, is activated on the sends, GetTask, ListTasks, CancelTask,
    SubscribeToTask and (with the feed on) the feed method: it is echoed, and every Task the answer
    carries holds the annotations under the URI. When no Task of any answer holds them, which methods
    activate the extension cannot be told from whether it carries annotations at all (AGENTD_ANN_001's):
    with the echo right, the row is blocked by that row. Catches annotations-not-on-list."""
    _require_declared(negotiation, ANNOTATIONS)
    feed = EVENTS in negotiation.declared
    methods = [m for m in METHODS if m in APPLIES_TO[ANNOTATIONS] and (feed or m != EVENTS_METHOD)]
    cases, missing = _per_method(negotiation, ANNOTATIONS, methods)
    cases = _one_per_line(negotiation, cases)
    problems: list[tuple[Case, str]] = []
    bare: list[tuple[Case, str]] = []
    annotated = False
    for c in cases:
        if ANNOTATIONS not in (c.echo or []):
            problems.append((c, f"echo {render_echo(c.echo)} lacks task-annotations"))
        found = _tasks_in(c)
        annotated |= any(ANNOTATIONS in (t.get("metadata") or {}) for t in found)
        ids = [t.get("id") for t in found if ANNOTATIONS not in (t.get("metadata") or {})]
        if ids:
            bare.append((c, f"task(s) {ids} answered without metadata[{ANNOTATIONS!r}]: not activated"))
    if not problems and bare and not annotated:
        evidence.add("cases judged", [c.row() for c in cases])
        blocked_by("AGENTD_ANN_001", f"no Task of any answer naming task-annotations carries the annotations "
                                     f"(e.g. {bare[0][0].label()}), on any method")
    _judge(evidence, run_secrets, cases, problems + bare, "task-annotations was not activated")
    _lists_read(negotiation)
    if EVENTS_METHOD in missing and negotiation.contradiction:
        blocked_by(FEED_ROW, f"{negotiation.contradiction}: the feed method is not answered there")
    if "SendMessage" in missing and COMMAND not in negotiation.declared:
        # The matrix's SendMessage carries the status command (a send that answers at once).
        require_declared(negotiation.card, COMMAND)
    if missing:
        not_measured(f"no request naming task-annotations was answered on {missing}; the others echo it")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_012")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_command_echoed_only_on_the_sends(negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """The command URI is echoed on every answered send that names it, and on no other method.
    Catches command-not-echoed-on-stream, echo-inapplicable."""
    _require_declared(negotiation, COMMAND)
    sends = sorted(APPLIES_TO[COMMAND])
    cases = [c for c in _answered(negotiation, "echo") if COMMAND in c.requested]
    missing = [m for m in sends if not any(c.method == m for c in cases)]
    problems = [(c, f"echo {render_echo(c.echo)}" + (" lacks" if c.method in sends else " has") + " the command URI")
                for c in cases if (COMMAND in (c.echo or [])) != (c.method in sends)]
    _judge(evidence, run_secrets, cases, problems, "the command URI was echoed wrongly")
    if missing:
        not_measured(f"no request naming the command URI was answered on {missing}")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_DECL_006")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_never_refuses_for_a_missing_extension(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Whatever a request activates (including nothing), no method answers -32008 (a required
    extension not activated). A case neither answered nor refused (an HTTP 500, say) never said an
    extension was required: it is the core method's fault, judged by the core rows, and kept in the
    evidence here. Catches core-needs-extension."""
    _core_routed(negotiation)
    _answered(negotiation, "answer")
    cases = negotiation.cases
    broken = [c for c in cases if c.outcome == BROKEN]
    if broken:
        evidence.add("cases neither answered nor refused (not -32008: not judged here)", [c.row() for c in broken])
    problems = [(c, f"refused with -32008 ({c.reason})") for c in cases if c.code == -32008]
    _judge(evidence, run_secrets, cases, problems, "an extension was required")


@NEG_DEPS
@pytest.mark.requirement("AGENTD_DECL_007")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_matrix_answers_parse_strictly(negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every answer of a core method, with any set of extensions activated, parses strictly into its
    A2A 1.0 type: extensions never change a core structure. Catches reply-extra-field."""
    _of_agentd(negotiation)
    cases = [c for c in _answered(negotiation, "answer") if c.method in CORE_METHODS]
    problems: list[tuple[Case, str]] = []
    for c in cases:
        rtype = StreamResponse if c.method in STREAMED else RESPONSE_TYPES[c.method]
        for path, obj in c.results:
            if rtype.DESCRIPTOR.full_name == "google.protobuf.Empty" and obj in (None, {}):
                continue
            found = violations(obj, rtype, path)
            if found:
                problems.append((c, f"not a strict {rtype.DESCRIPTOR.name}: {'; '.join(found)}"))
    _judge(evidence, run_secrets, cases, problems, "an answer departs from the A2A type")


def _feed_state(negotiation: Negotiation) -> bool:
    """Whether the card declares the feed, held to the state the instance is known to have: a card saying
    otherwise is AGENTD_DECL_003's fail, and blocks (a running target whose card says otherwise, with no
    state known, cannot be judged for this state)."""
    declared = EVENTS in negotiation.declared
    if negotiation.contradiction:
        blocked_by(FEED_ROW, negotiation.contradiction)
    if declared != negotiation.events:
        if negotiation.events:
            require_declared(negotiation.card, EVENTS)
        not_measured("this target's card declares the events extension, so the feed-off case cannot be "
                     "judged on it")
    return declared


@pytest.mark.depends_on(CARD_ROW, CORE_ROW, FEED_ROW)
@pytest.mark.requirement("AGENTD_DECL_013")
@pytest.mark.parametrize("negotiation", BOTH, indirect=True)
def test_events_method_routed_only_when_declared_and_activated(negotiation: Negotiation, evidence: Evidence,
                                                               run_secrets: SecretSet) -> None:
    """No core method is ever -32601, whatever the request names; agentd.events/SubscribeToEvents is
    answered (a stream) where the card declares the events extension and the request names it alone, and
    is -32601 where the card does not declare it. Not judged here: the feed method declared but not
    named (its refusal is AGENTD_REFUSE_002's), named beside other URIs on one line (how that line is read
    is AGENTD_NEG_001's), or beside an unknown URI (AGENTD_NEG_005's); nor, on a card contradicting the
    feed state the instance is known to have, the feed method at all (blocked by AGENTD_DECL_003).
    Catches list-unrouted-with-command."""
    declared = EVENTS in negotiation.declared
    problems: list[tuple[Case, str]] = []
    for c in negotiation.cases:
        if c.method != EVENTS_METHOD:
            if c.code == -32601:
                problems.append((c, "a core method answered -32601 (not routed)"))
        elif negotiation.contradiction or UNKNOWN_URI in c.requested:
            continue
        elif declared and c.requested == (EVENTS,):
            if c.outcome != ANSWERED:
                problems.append((c, f"declared and activated, yet {c.outcome} ({c.code} {c.reason})"))
        elif not declared and (c.outcome != REFUSED or c.code != -32601):
            problems.append((c, f"expected -32601, got {c.outcome} ({c.code} {c.reason})"))
    _judge(evidence, run_secrets, negotiation.cases, problems, "the route table")
    if negotiation.contradiction:
        blocked_by(FEED_ROW, f"{negotiation.contradiction}: where the feed method is routed cannot be judged "
                             "against that card")


@NEG_DEPS
@pytest.mark.parametrize("negotiation", [
    pytest.param(True, id="events-on", marks=pytest.mark.requirement("AGENTD_REFUSE_002")),
    pytest.param(False, id="events-off", marks=pytest.mark.requirement("AGENTD_REFUSE_001"))], indirect=True)
def test_events_method_refusal_names_its_reason(
        negotiation: Negotiation, evidence: Evidence, run_secrets: SecretSet) -> None:
    """Every refusal of the feed method in the matrix is -32601 with ErrorInfo reason
    EXTENSION_NOT_DECLARED (the feed off) or EXTENSION_NOT_ACTIVATED (declared, not named). Catches
    events-undeclared-served, events-without-activation."""
    _of_agentd(negotiation)
    declared = _feed_state(negotiation)
    # A request naming an unknown URI is answered as without it (AGENTD_NEG_005's, judged on every method).
    cases = [c for c in negotiation.of(EVENTS_METHOD)
             if not (declared and EVENTS in c.requested) and UNKNOWN_URI not in c.requested]
    want = "EXTENSION_NOT_ACTIVATED" if declared else "EXTENSION_NOT_DECLARED"
    problems = [(c, f"expected -32601 {want}, got {c.outcome} ({c.code} {c.reason})") for c in cases
                if c.outcome != REFUSED or (c.code, c.reason) != (-32601, want)]
    _judge(evidence, run_secrets, cases, problems, f"the feed method was not refused with {want}")
