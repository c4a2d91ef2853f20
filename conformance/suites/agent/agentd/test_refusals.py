"""Errors the extensions add: every row of the page's table with its code, ``google.rpc.ErrorInfo``
reason and domain, ``google.rpc.BadRequest`` for malformed commands, HTTP 403 for
PERMISSION_DENIED; and for every refusal, nothing run and no task created, as the operator's task
list and feed show. Bad input (hypothesis): malformed command envelopes, arguments, JSON-RPC
envelopes and A2A-Extensions headers get the specified refusal, never a 5xx, and run nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.answers import READ_REPLY_ROW, answer_task
from conformance.agentd.bundles import Bundles, bundles
from conformance.agentd.clients import ext, rpc_client
from conformance.agentd.commands import command_message, command_part
from conformance.agentd.configs import BAD_INPUT
from conformance.agentd.footing import declaring, deps
from conformance.agentd.observer import Observer
from conformance.agentd_page import (
    A2A_DOMAIN,
    AGENTD_DOMAIN,
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    EXTENSIONS,
)
from conformance.context import RunContext
from conformance.judge import SeenRefusal, blocked_by, quote, refusal, refusal_problems, unique
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.httpbase import StreamReply
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply

#: Every row here is an error the command extension adds (blocked by AGENTD_DECL_001 when the card does
#: not declare it). What a refusal left behind is read by the operator's :class:`Observer`, from the
#: configuration where the feed is off: that read stands on READ_REPLY_ROW.
pytestmark = pytest.mark.depends_on(*deps(COMMAND), READ_REPLY_ROW)

NEEDS: dict[str, dict[str, Any]] = {"auth": {"auth": True}, "events-off": {"auth": True, "events": False}}


class Ctx:
    """One refusal case's surroundings: the instance, clients per role, an existing task."""

    def __init__(self, instance: Instance, recorder: Recorder) -> None:
        self.instance = instance
        self.recorder = recorder
        self._clients: dict[str, JsonRpcClient] = {}
        self.task_id = ""

    def client(self, role: str = "operator") -> JsonRpcClient:
        if role not in self._clients:
            self._clients[role] = rpc_client(self.instance, role, recorder=self.recorder)
        return self._clients[role]

    def make_task(self) -> None:
        task = answer_task(self.client().call("SendMessage", send_params(text_message("a task to name"))),
                           "a plain message (to have a task to name)")
        self.task_id = str(task["id"])

    def close(self) -> None:
        for c in self._clients.values():
            c.close()


Reply = RpcReply | StreamReply


def _marker() -> dict[str, Any]:
    """admin.set arguments whose effect, were the command run, shows in the configuration and feed."""
    return {"path": "feed.note", "value": unique("refused-but-ran")}


def _send(ctx: Ctx, message: dict[str, Any], uris: tuple[str, ...] = (COMMAND,), role: str = "operator",
          accepted: list[str] | None = None) -> Reply:
    config = {"acceptedOutputModes": accepted} if accepted is not None else None
    return ctx.client(role).call("SendMessage", send_params(message, configuration=config), headers=ext(*uris))


def _subscribe(ctx: Ctx, uris: tuple[str, ...]) -> Reply:
    return ctx.client().stream(EVENTS_METHOD, {"fromSeq": 0}, headers=ext(*uris), deadline=5.0,
                               until=lambda e: True)


@dataclass(frozen=True)
class Case:
    """One way to provoke one row of the table."""

    name: str
    rid: str
    code: int
    reason: str
    send: Callable[[Ctx], Reply]
    domain: str = AGENTD_DOMAIN
    http_status: int | None = None
    needs: str = "auth"
    fields: tuple[str, ...] = ()  # a malformed command: the BadRequest names a field containing each
    needs_task: bool = False
    #: The row whose own text says this request is refused at all, where that is not ``rid``: REFUSE_008
    #: gives the code and reason of a refusal of arguments, while that arguments off the op's schema are
    #: refused is AGENTD_CMD_003's and that an argument the op does not take is refused, AGENTD_CMD_004's.
    refused_by: str = ""

    @property
    def owner(self) -> str:
        """The row a request of this case that was not refused at all fails."""
        return self.refused_by or self.rid


def _two_parts(ctx: Ctx) -> Reply:
    parts = [command_part("admin.set", _marker()), command_part("admin.set", _marker())]
    return _send(ctx, command_message("admin.set", parts=parts))


CASES: tuple[Case, ...] = (
    Case("events-not-declared", "AGENTD_REFUSE_001", -32601, "EXTENSION_NOT_DECLARED",
         lambda ctx: _subscribe(ctx, (EVENTS,)), needs="events-off"),
    Case("events-not-named", "AGENTD_REFUSE_002", -32601, "EXTENSION_NOT_ACTIVATED",
         lambda ctx: _subscribe(ctx, ())),
    Case("events-header-names-others", "AGENTD_REFUSE_002", -32601, "EXTENSION_NOT_ACTIVATED",
         lambda ctx: _subscribe(ctx, (COMMAND, ANNOTATIONS))),
    Case("command-without-header", "AGENTD_REFUSE_003", -32602, "EXTENSION_NOT_ACTIVATED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker()), uris=())),
    Case("command-header-names-others", "AGENTD_REFUSE_003", -32602, "EXTENSION_NOT_ACTIVATED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker()), uris=(ANNOTATIONS,))),
    Case("command-unmarked", "AGENTD_REFUSE_004", -32602, "EXTENSION_NOT_MARKED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker(), mark=False))),
    Case("command-marked-with-another-uri", "AGENTD_REFUSE_004", -32602, "EXTENSION_NOT_MARKED",
         lambda ctx: _send(ctx, {**command_message("admin.set", _marker(), mark=False), "extensions": [ANNOTATIONS]})),
    Case("two-command-parts", "AGENTD_REFUSE_005", -32602, "COMMAND_ENVELOPE_AMBIGUOUS", _two_parts,
         fields=("parts",)),
    Case("command-names-a-task", "AGENTD_REFUSE_006", -32602, "COMMAND_TASK_ID",
         lambda ctx: _send(ctx, command_message("admin.set", _marker(), task_id=ctx.task_id)),
         fields=("taskId",), needs_task=True),
    Case("unknown-op", "AGENTD_REFUSE_007", -32602, "UNKNOWN_OP",
         lambda ctx: _send(ctx, command_message("admin.reboot", {}))),
    Case("op-name-in-other-case", "AGENTD_REFUSE_007", -32602, "UNKNOWN_OP",
         lambda ctx: _send(ctx, command_message("ADMIN.SET", _marker()))),
    Case("argument-of-wrong-type", "AGENTD_REFUSE_008", -32602, "INVALID_COMMAND_ARGS",
         lambda ctx: _send(ctx, command_message("admin.set", {"path": "runs.maxConcurrent", "value": "many"})),
         fields=("value",), refused_by="AGENTD_CMD_003"),
    Case("unknown-argument", "AGENTD_REFUSE_008", -32602, "INVALID_COMMAND_ARGS",
         lambda ctx: _send(ctx, command_message("admin.set", {**_marker(), "force": True})), fields=("force",),
         refused_by="AGENTD_CMD_004"),
    Case("missing-argument", "AGENTD_REFUSE_008", -32602, "INVALID_COMMAND_ARGS",
         lambda ctx: _send(ctx, command_message("admin.set", {"path": "feed.note"})), fields=("value",),
         refused_by="AGENTD_CMD_003"),
    Case("json-not-accepted", "AGENTD_REFUSE_009", -32005, "CONTENT_TYPE_NOT_SUPPORTED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker()), accepted=["text/plain"]),
         domain=A2A_DOMAIN),
    Case("introspection-op-while-off", "AGENTD_REFUSE_010", -32004, "INTROSPECTION_DISABLED",
         lambda ctx: _send(ctx, command_message("debug.events", {}))),
    Case("introspection-read-while-off", "AGENTD_REFUSE_010", -32004, "INTROSPECTION_DISABLED",
         lambda ctx: _send(ctx, command_message("conversation.get", {"subagent": "s-1"}))),
    Case("admin-op-as-user", "AGENTD_REFUSE_011", -31403, "PERMISSION_DENIED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker()), role="user"), http_status=403),
    Case("operator-op-as-agent", "AGENTD_REFUSE_011", -31403, "PERMISSION_DENIED",
         lambda ctx: _send(ctx, command_message("admin.set", _marker()), role="agent"), http_status=403),
)


#: Each (reason, code, domain) of the page's table.
TABLE: frozenset[tuple[str, int, str]] = frozenset((c.reason, c.code, c.domain) for c in CASES)

#: The ErrorInfo reasons of the page's table that name a cause other than the arguments.
_OTHER_CAUSES = ("EXTENSION_NOT_DECLARED", "EXTENSION_NOT_ACTIVATED", "EXTENSION_NOT_MARKED",
                 "COMMAND_ENVELOPE_AMBIGUOUS", "COMMAND_TASK_ID", "UNKNOWN_OP", "CONTENT_TYPE_NOT_SUPPORTED",
                 "INTROSPECTION_DISABLED", "PERMISSION_DENIED")


def _params(cases: tuple[Case, ...], rid: str | None = None) -> list[Any]:
    """One param per case, measuring ``rid`` (the case's own row when None). A case stands on the
    refusal itself, which the row of :attr:`Case.owner` judges: a check of another row depends on it
    (:func:`_refused`)."""
    return [pytest.param(c, marks=[pytest.mark.requirement(rid or c.rid),
                                   *([pytest.mark.depends_on(c.owner)] if (rid or c.rid) != c.owner else [])],
                         id=c.name)
            for c in cases]


def _refused(case: Case, reply: Reply) -> SeenRefusal:
    """The refusal ``case`` provoked, for a check of what a refusal carries or leaves behind. A request
    that was not refused at all fails the row owning that it is refused (:attr:`Case.owner`, whose check
    sees the same answer), so such a check is blocked by it: there is no refusal here to judge."""
    body = reply.json
    streamed = isinstance(reply, StreamReply) and bool(reply.events)
    if streamed or not isinstance(body, dict) or "error" not in body:
        seen = [e.data for e in reply.events[:3]] if isinstance(reply, StreamReply) and streamed else body or reply.body
        blocked_by(case.owner, f"{case.name} was not refused: HTTP {reply.status}, "
                             f"{'an event stream' if streamed else 'answered'} {quote(seen, 300)}")
    return refusal(reply, case.name)


@pytest.fixture
def ctx_for(agent_targets: AgentTargets, recorder: Recorder) -> Iterator[Callable[[Case], Ctx]]:
    made: list[Ctx] = []

    def make(case: Case) -> Ctx:
        ctx = Ctx(declaring(agent_targets, COMMAND, **NEEDS[case.needs]), recorder)
        made.append(ctx)
        if case.needs_task:
            ctx.make_task()
        return ctx

    yield make
    for c in made:
        c.close()


# ---- the table ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", _params(CASES))
def test_refusal_has_the_code_and_reason_of_its_row(case: Case, ctx_for: Callable[[Case], Ctx]) -> None:
    """Each provocation is refused with its row's JSON-RPC code and ErrorInfo reason (HTTP 403 for
    PERMISSION_DENIED; domain a2a-protocol.org for CONTENT_TYPE_NOT_SUPPORTED). Each row's defect
    (e.g. ``command-without-marker``, ``unknown-op-wrong-code``, ``permission-denied-http-200``) fails it.
    A request whose refusal at all is another row's (:attr:`Case.owner`) and that was not refused is
    blocked by that row."""
    reply = case.send(ctx_for(case))
    got = _refused(case, reply) if case.owner != case.rid else refusal(reply, case.name)
    problems = refusal_problems(got, code=case.code, reason=case.reason, domain=got.view.domain or "",
                                http_status=case.http_status)
    if case.domain == A2A_DOMAIN and got.view.domain != A2A_DOMAIN:
        problems.append(f"ErrorInfo.domain {got.view.domain!r}, expected {A2A_DOMAIN!r}")
    if problems:
        fail(f"{case.name}: {'; '.join(problems)}; error {quote(got.body.get('error'))}")


@pytest.mark.parametrize("case", _params(CASES, "AGENTD_REFUSE_012"))
def test_refusal_carries_errorinfo_naming_reason_and_domain(case: Case, ctx_for: Callable[[Case], Ctx]) -> None:
    """error.data holds a google.rpc.ErrorInfo naming a reason, under the domain the table gives that
    reason: agentd.dev (a2a-protocol.org for CONTENT_TYPE_NOT_SUPPORTED). Which row of the table a
    request is refused under (its code and reason) is that row's own text (AGENTD_REFUSE_001 to _011),
    judged by :func:`test_refusal_has_the_code_and_reason_of_its_row`; this row is the ErrorInfo that
    carries the reason. Catches ``errorinfo-wrong-domain``."""
    got = _refused(case, case.send(ctx_for(case)))
    v = got.view
    problems = list(v.problems)
    if not v.has_error_info:
        problems.append("error.data holds no google.rpc.ErrorInfo")
    elif not v.reason:
        problems.append(f"the ErrorInfo names no reason: reason {v.reason!r}")
    else:
        domain = A2A_DOMAIN if v.reason == "CONTENT_TYPE_NOT_SUPPORTED" else AGENTD_DOMAIN
        if v.domain != domain:
            problems.append(f"ErrorInfo.domain {v.domain!r}, expected {domain!r} for reason {v.reason!r}")
    if problems:
        fail(f"{case.name}: {'; '.join(problems)}; error {quote(got.body.get('error'))}")


@pytest.mark.parametrize("case", _params(tuple(c for c in CASES if c.fields), "AGENTD_REFUSE_013"))
def test_malformed_command_names_each_field_in_a_bad_request(case: Case, ctx_for: Callable[[Case], Ctx]) -> None:
    """A malformed command's refusal also carries a google.rpc.BadRequest whose field violations
    name each offending field. Catches ``no-bad-request``."""
    got = _refused(case, case.send(ctx_for(case)))
    named = [fv.field for fv in got.view.field_violations]
    if not named:
        fail(f"{case.name}: no google.rpc.BadRequest field violation in error.data {quote(got.body.get('error'))}")
    missing = [f for f in case.fields if not any(f in n for n in named)]
    if missing:
        fail(f"{case.name}: the BadRequest names {named!r}, none naming {missing!r}")


@pytest.mark.parametrize("case", _params(CASES, "AGENTD_REFUSE_014"))
def test_refused_request_runs_nothing(case: Case, ctx_for: Callable[[Case], Ctx]) -> None:
    """The refused request has no effect: the operator's feed shows no new event (with the feed off:
    the configuration is unchanged), though each refused command would set the configuration and
    push a config event if run. Catches ``refused-command-runs``."""
    ctx = ctx_for(case)
    obs = Observer(ctx.instance, ctx.recorder)
    try:
        before = obs.snapshot()
        reply = case.send(ctx)
        _refused(case, reply)
        changed = obs.changes(before, tasks=False)
    finally:
        obs.close()
    if changed:
        fail(f"{case.name} was refused, yet: {'; '.join(changed)}")


@pytest.mark.parametrize("case", _params(CASES, "AGENTD_REFUSE_015"))
def test_refused_request_creates_no_task(case: Case, ctx_for: Callable[[Case], Ctx]) -> None:
    """The operator's task list is the same before and after the refusal.
    Catches ``refused-creates-task``."""
    ctx = ctx_for(case)
    obs = Observer(ctx.instance, ctx.recorder)
    try:
        before = obs.task_ids()
        _refused(case, case.send(ctx))
        new = sorted(obs.task_ids() - before)
    finally:
        obs.close()
    if new:
        fail(f"{case.name} was refused, yet ListTasks shows new task(s) {new}")


# ---- bad input (hypothesis) --------------------------------------------------------------------

_leaf = st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=8)
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                        max_size=3), max_leaves=6)
_key = st.text(min_size=1, max_size=8)


class Probe:
    """Send one bad input with the operator's before/after view around it."""

    def __init__(self, instance: Instance, recorder: Recorder) -> None:
        self.client = rpc_client(instance, recorder=recorder)
        self.obs = Observer(instance, recorder)

    def close(self) -> None:
        self.client.close()
        self.obs.close()

    def refused(self, send: Callable[[], Reply], what: str, *, codes: tuple[int, ...],
                reasons: tuple[str, ...] | None = None) -> Any:
        """Send; the answer must be a refusal with one of ``codes`` (and ``reasons``), not a 5xx, and
        leave no task, event or configuration change behind. Returns the refusal."""
        before = self.obs.snapshot()
        got = refusal(send(), what)
        if got.view.code not in codes:
            fail(f"{what}: refused with code {got.view.code!r}, expected one of {codes}; "
                 f"error {quote(got.body.get('error'))}")
        if reasons is not None and got.view.reason not in reasons:
            fail(f"{what}: ErrorInfo.reason {got.view.reason!r}, expected one of {reasons}; "
                 f"error {quote(got.body.get('error'))}")
        changed = self.obs.changes(before)
        if changed:
            fail(f"{what} was refused, yet: {'; '.join(changed)}")
        return got

    def observe(self, send: Callable[[], Reply], what: str, **extra: Any) -> Seen:
        """Send; record what came back and what it left behind, judging nothing (each row's check judges
        its own part of the record)."""
        before = self.obs.snapshot()
        reply = send()
        body = reply.json
        got: SeenRefusal | None = None
        if (reply.status < 500 and not (isinstance(reply, StreamReply) and reply.events)
                and isinstance(body, dict) and "error" in body):
            got = refusal(reply, what)
        answered = reply.status == 200 and got is None and (
            bool(reply.events) if isinstance(reply, StreamReply) else isinstance(body, dict) and "result" in body)
        return Seen(what, got, answered, f"HTTP {reply.status} {quote(body or reply.body, 200)}",
                    self.obs.changes(before, tasks=False), self.obs.changes(before, effects=False), extra)


@dataclass(frozen=True)
class Seen:
    """One bad input's record: the refusal (None: it was not refused), whether it was answered (HTTP 200
    with a result), the answer as shown, the effects
    (events, settings) and the new tasks it left, and what the generator knew of it."""

    what: str
    refused: SeenRefusal | None
    answered: bool
    answer: str
    effects: list[str]
    tasks: list[str]
    extra: dict[str, Any]


#: One run of each generated family of bad inputs per instance and process, shared by the rows that
#: judge it (each judges its own part; a failure of the run is kept and re-raised to each).
_SEEN: dict[tuple[str, str], list[Seen] | BaseException] = {}


def _observed(kind: str, instance: Instance, recorder: Recorder,
              make: Callable[[Probe, list[Seen]], Callable[[], None]]) -> list[Seen]:
    """The records of the run of family ``kind`` on ``instance``: ``make(probe, out)`` gives the run, which
    records each bad input it sends through ``probe`` in ``out``."""
    key = (kind, instance.url)
    if key not in _SEEN:
        try:
            _SEEN[key] = _probed(instance, recorder, make)
        except Exception as exc:  # noqa: BLE001 - kept so every row judging the run reports it
            _SEEN[key] = exc
    got = _SEEN[key]
    if isinstance(got, BaseException):
        raise got
    return got


def _probed(instance: Instance, recorder: Recorder,
            make: Callable[[Probe, list[Seen]], Callable[[], None]]) -> list[Seen]:
    """Run ``make``'s run through a probe of ``instance`` (closed after it); what it recorded."""
    probe = Probe(instance, recorder)
    out: list[Seen] = []
    try:
        make(probe, out)()
    finally:
        probe.close()
    return out


#: The row a check is blocked by when an input was not refused at all: one row for every input, or the
#: row owning that this input is refused at all (:func:`_owner_of`).
Unrefused = str | Callable[[Seen], str]


def _unrefused(seen: list[Seen], by: Unrefused) -> None:
    """Be blocked by ``by`` when an input was not refused at all (that row's check fails on it; what a
    refusal carries or leaves cannot be seen there)."""
    answered = [x for x in seen if x.refused is None]
    if answered:
        x = answered[0]
        more = f" (and {len(answered) - 1} more)" if len(answered) > 1 else ""
        blocked_by(by if isinstance(by, str) else by(x), f"{x.what} was not refused: {x.answer}{more}")


def _judge_seen(seen: list[Seen], problems: list[str], *, unrefused_by: Unrefused | None = None) -> None:
    """Fail on ``problems``; then, with ``unrefused_by``, be blocked by that row when an input was not
    refused at all (:func:`_unrefused`)."""
    if problems:
        fail("; ".join(problems[:4]) + (f"; and {len(problems) - 4} more" if len(problems) > 4 else ""))
    if unrefused_by is not None:
        _unrefused(seen, unrefused_by)


def _nothing_left_behind(seen: list[Seen], *, tasks: bool, unrefused_by: Unrefused) -> None:
    """Fail naming, for each refused input, the tasks (``tasks``) or the effects it left behind; then be
    blocked by ``unrefused_by`` when an input was not refused at all."""
    _judge_seen(seen, [f"{x.what} was refused, yet: {'; '.join(x.tasks if tasks else x.effects)}"
                       for x in seen if x.refused is not None and (x.tasks if tasks else x.effects)],
                unrefused_by=unrefused_by)


def _envelopes(b: Bundles) -> st.SearchStrategy[dict[str, Any]]:
    """DataPart data under the agentd key that the command bundle's envelope schema refuses."""
    not_object = _json.filter(lambda v: not isinstance(v, dict))
    bad_op = _json.filter(lambda v: not (isinstance(v, str) and v))
    envelope = not_object | st.builds(
        lambda op, args, has_op: ({"op": op} if has_op else {}) | args,
        bad_op, st.dictionaries(_key.filter(lambda k: k != "op"), _json, max_size=2), st.booleans())
    beside = st.dictionaries(_key.filter(lambda k: k != "agentd"), _json, max_size=2)
    valid_with_extra = st.builds(lambda extra: {"agentd": {"op": "admin.set", **_marker()}} | extra,
                                 st.dictionaries(_key.filter(lambda k: k != "agentd"), _json, min_size=1, max_size=2))
    data = st.builds(lambda env, extra: {"agentd": env} | extra, envelope, beside) | valid_with_extra
    return data.filter(lambda d: bool(b.errors("command", "", d)))


def _envelope_run(agent_targets: AgentTargets, recorder: Recorder, run_context: RunContext) -> list[Seen]:
    """Command DataParts the envelope schema refuses (agentd not an object, op missing or not a
    non-empty string, members beside agentd), each sent as the operator."""
    inst = declaring(agent_targets, COMMAND, auth=True)

    def make(probe: Probe, out: list[Seen]) -> Callable[[], None]:

        @BAD_INPUT
        @given(_envelopes(bundles(run_context)))
        def run(data: dict[str, Any]) -> None:
            msg = command_message("admin.set", parts=[{"data": data}])
            out.append(probe.observe(lambda: probe.client.call("SendMessage", send_params(msg), headers=ext(COMMAND)),
                                     f"the command part {quote(data, 200)}"))

        return run

    return _observed("envelopes", inst, recorder, make)


#: The row whose check judges that a malformed command envelope is refused at all: a check of what such a
#: refusal leaves behind is blocked by it when an envelope was not refused.
ENVELOPE_ROW = "AGENTD_REFUSE_008"


@pytest.mark.requirement("AGENTD_REFUSE_008")
def test_malformed_command_envelopes_are_refused(agent_targets: AgentTargets, recorder: Recorder,
                                                 run_context: RunContext) -> None:
    """Command DataParts the envelope schema refuses are refused with -32602 (INVALID_COMMAND_ARGS or
    UNKNOWN_OP), never answered, never a 5xx."""
    seen = _envelope_run(agent_targets, recorder, run_context)
    problems = [f"{x.what}: not refused: {x.answer}" for x in seen if x.refused is None]
    problems += [f"{x.what}: refused with {x.refused.view.code} {x.refused.view.reason!r}, expected -32602 "
                 f"INVALID_COMMAND_ARGS or UNKNOWN_OP" for x in seen if x.refused is not None
                 and (x.refused.view.code != -32602 or x.refused.view.reason not in ("INVALID_COMMAND_ARGS",
                                                                                     "UNKNOWN_OP"))]
    _judge_seen(seen, problems)


@pytest.mark.requirement("AGENTD_REFUSE_014")
@pytest.mark.depends_on(ENVELOPE_ROW)
def test_refused_malformed_envelopes_run_nothing(agent_targets: AgentTargets, recorder: Recorder,
                                                 run_context: RunContext) -> None:
    """A refused malformed command envelope leaves no event or setting behind."""
    _nothing_left_behind(_envelope_run(agent_targets, recorder, run_context), tasks=False, unrefused_by=ENVELOPE_ROW)


@pytest.mark.requirement("AGENTD_REFUSE_015")
@pytest.mark.depends_on(ENVELOPE_ROW)
def test_refused_malformed_envelopes_create_no_task(agent_targets: AgentTargets, recorder: Recorder,
                                                    run_context: RunContext) -> None:
    """A refused malformed command envelope leaves no task behind."""
    _nothing_left_behind(_envelope_run(agent_targets, recorder, run_context), tasks=True, unrefused_by=ENVELOPE_ROW)


def _admin_set_args(b: Bundles) -> st.SearchStrategy[dict[str, Any]]:
    paths = st.sampled_from(["log.level", "runs.maxConcurrent", "feed.note"]) | _json
    values = st.sampled_from(["debug", "info", 8, "note"]) | _json
    base = st.fixed_dictionaries({}, optional={"path": paths, "value": values})
    extra = st.dictionaries(_key.filter(lambda k: k not in ("path", "value", "op")), _json, max_size=2)
    return st.builds(lambda a, x: a | x, base, extra).filter(
        lambda a: bool(b.errors("command", "$defs/args/admin.set", a)))


def _offending(b: Bundles, args: dict[str, Any]) -> set[str]:
    """The argument names a correct BadRequest must name for ``args`` (extra, missing, mistyped)."""
    out: set[str] = set()
    for err in b.validator("command", "$defs/args/admin.set").iter_errors(args):
        if err.validator == "additionalProperties":
            out |= {k for k in args if k not in ("path", "value")}
        elif err.validator == "required":
            out |= {k for k in ("path", "value") if k not in args}
        elif err.absolute_path:
            out.add(str(err.absolute_path[0]))
        else:
            for sub in err.context or ():
                if sub.absolute_path:
                    out.add(str(sub.absolute_path[0]))
    return out


#: The rows whose own text says a malformed admin.set is refused at all: arguments off the op's schema
#: (a wrong, missing or out-of-range path or value) are AGENTD_CMD_003's; an argument the op does not take
#: is AGENTD_CMD_004's ("refused, never ignored"). An input whose only fault is an argument admin.set does
#: not take is CMD_004's alone.
OFF_SCHEMA = "AGENTD_CMD_003"
NOT_TAKEN = "AGENTD_CMD_004"
_ARGUMENT_ROWS = (OFF_SCHEMA, NOT_TAKEN)


def _owner(b: Bundles, args: dict[str, Any]) -> str:
    """The row owning that ``args`` are refused at all (:data:`OFF_SCHEMA` or :data:`NOT_TAKEN`)."""
    taken = {k: v for k, v in args.items() if k in ("path", "value")}
    return NOT_TAKEN if len(taken) < len(args) and not b.errors("command", "$defs/args/admin.set", taken) \
        else OFF_SCHEMA


def _arguments_run(agent_targets: AgentTargets, recorder: Recorder, run_context: RunContext) -> list[Seen]:
    """admin.set arguments its schema refuses (wrong or missing path or value, values outside a path's
    range, unknown arguments), each sent as the operator, with the arguments a BadRequest must name and
    the row owning that it is refused at all. Two inputs are always among them: a value outside its
    path's range alone, and an argument admin.set does not take alone (each harmless were it run)."""
    b = bundles(run_context)
    inst = declaring(agent_targets, COMMAND, auth=True)

    def make(probe: Probe, out: list[Seen]) -> Callable[[], None]:

        @BAD_INPUT
        @given(_admin_set_args(b))
        @example({"path": "feed.note", "value": "n" * 201})
        @example({"path": "feed.note", "value": "note", "force": True})
        def run(args: dict[str, Any]) -> None:
            out.append(probe.observe(
                lambda: probe.client.call("SendMessage", send_params(command_message("admin.set", args)),
                                          headers=ext(COMMAND)),
                f"admin.set with {quote(args, 200)}", offending=sorted(_offending(b, args)), owner=_owner(b, args)))

        return run

    return _observed("arguments", inst, recorder, make)


def _owner_of(x: Seen) -> str:
    """The row owning that the arguments ``x`` records are refused at all (:func:`_owner`)."""
    return str(x.extra["owner"])


@pytest.mark.requirement("AGENTD_CMD_003")
@pytest.mark.depends_on(NOT_TAKEN)
def test_malformed_arguments_are_refused(agent_targets: AgentTargets, recorder: Recorder,
                                         run_context: RunContext) -> None:
    """admin.set arguments its schema refuses are refused (how: AGENTD_REFUSE_008 and _013), never
    answered, never a 5xx, and not for another cause of the page's table. An input whose only fault is
    an argument admin.set does not take is AGENTD_CMD_004's: not refused, it blocks this check."""
    seen = _arguments_run(agent_targets, recorder, run_context)
    problems = [f"{x.what}: not refused: {x.answer}" for x in seen
                if x.refused is None and x.extra["owner"] == OFF_SCHEMA]
    problems += [f"{x.what}: refused for {x.refused.view.reason!r}, not for its arguments" for x in seen
                 if x.refused is not None and x.refused.view.reason in _OTHER_CAUSES]
    _judge_seen(seen, problems, unrefused_by=_owner_of)


@pytest.mark.requirement("AGENTD_REFUSE_008")
@pytest.mark.depends_on(*_ARGUMENT_ROWS)
def test_malformed_arguments_are_refused_with_invalid_command_args(agent_targets: AgentTargets, recorder: Recorder,
                                                                   run_context: RunContext) -> None:
    """Each refusal of arguments off admin.set's schema is -32602 INVALID_COMMAND_ARGS."""
    seen = _arguments_run(agent_targets, recorder, run_context)
    problems = [f"{x.what}: refused with {x.refused.view.code} {x.refused.view.reason!r}, expected -32602 "
                f"INVALID_COMMAND_ARGS" for x in seen if x.refused is not None
                and (x.refused.view.code, x.refused.view.reason) != (-32602, "INVALID_COMMAND_ARGS")]
    _judge_seen(seen, problems, unrefused_by=_owner_of)


@pytest.mark.requirement("AGENTD_REFUSE_013")
@pytest.mark.depends_on(*_ARGUMENT_ROWS)
def test_malformed_arguments_are_refused_with_field_violations(agent_targets: AgentTargets, recorder: Recorder,
                                                               run_context: RunContext) -> None:
    """Each refusal of arguments off admin.set's schema carries a BadRequest naming each offending
    argument (extra, missing, mistyped). Which arguments are at fault is the schema's reading of them,
    which a target holds them to only when it refuses every malformed input: one that let an input
    through (AGENTD_CMD_003's or _004's fail) blocks this check, as it may not have checked the
    arguments its BadRequests leave out."""
    seen = _arguments_run(agent_targets, recorder, run_context)
    _unrefused(seen, _owner_of)
    problems = []
    for x in seen:
        if x.refused is None:
            continue
        named = [fv.field for fv in x.refused.view.field_violations]
        missing = [f for f in x.extra["offending"] if not any(f in n for n in named)]
        if missing:
            problems.append(f"{x.what}: the BadRequest names {named!r}, not the offending argument(s) {missing!r}")
    _judge_seen(seen, problems)


@pytest.mark.requirement("AGENTD_REFUSE_014")
@pytest.mark.depends_on(*_ARGUMENT_ROWS)
def test_refused_malformed_arguments_run_nothing(agent_targets: AgentTargets, recorder: Recorder,
                                                 run_context: RunContext) -> None:
    """A refused admin.set with malformed arguments leaves the setting and the feed untouched."""
    _nothing_left_behind(_arguments_run(agent_targets, recorder, run_context), tasks=False, unrefused_by=_owner_of)


@pytest.mark.requirement("AGENTD_REFUSE_015")
@pytest.mark.depends_on(*_ARGUMENT_ROWS)
def test_refused_malformed_arguments_create_no_task(agent_targets: AgentTargets, recorder: Recorder,
                                                    run_context: RunContext) -> None:
    """A refused admin.set with malformed arguments leaves no task behind."""
    _nothing_left_behind(_arguments_run(agent_targets, recorder, run_context), tasks=True, unrefused_by=_owner_of)


_MUTATIONS: dict[str, st.SearchStrategy[Any]] = {
    "jsonrpc": st.sampled_from(["1.0", "2", 2.0, "", None]),
    "method": st.sampled_from([5, None, ["SendMessage"], {"name": "SendMessage"}]),
    "id": st.sampled_from([{}, [1], True]),
    "params": st.sampled_from([[1], "params", 7]),
}


def _broken_envelopes() -> st.SearchStrategy[tuple[str, bytes]]:
    """A JSON-RPC SendMessage carrying a valid admin.set command, broken at one or more members
    (``None``: the member is left out), or UTF-8 text that is not JSON."""
    def build(changes: dict[str, Any]) -> tuple[str, bytes]:
        env: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                               "params": send_params(command_message("admin.set", _marker()))}
        for k, v in changes.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return "invalid-request", json.dumps(env).encode()

    broken = st.dictionaries(st.sampled_from(sorted(_MUTATIONS)), st.none(), min_size=1).flatmap(
        lambda keys: st.fixed_dictionaries({k: _MUTATIONS[k] for k in keys})).map(build)
    not_json = st.text(max_size=30).map(str.encode).filter(_not_json).map(lambda raw: ("parse-error", raw))
    return broken | not_json


def _not_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return True
    return False


@pytest.mark.requirement("AGENTD_REFUSE_014", "AGENTD_REFUSE_015")
def test_broken_jsonrpc_envelopes_around_a_command_are_refused_and_run_nothing(agent_targets: AgentTargets,
                                                                                recorder: Recorder) -> None:
    """A command inside a broken JSON-RPC envelope (wrong jsonrpc, method, id or params; not JSON)
    is refused by the binding (-32700, -32600, -32601 or -32602), never with a 5xx, and the command
    is not run: no task, no event, no setting."""
    probe = Probe(declaring(agent_targets, COMMAND, auth=True), recorder)

    @BAD_INPUT
    @given(_broken_envelopes())
    def run(case: tuple[str, bytes]) -> None:
        kind, raw = case
        codes = (-32700,) if kind == "parse-error" else (-32600, -32601, -32602)
        probe.refused(lambda: probe.client.raw(raw, headers=ext(COMMAND)), f"the body {raw[:200]!r}", codes=codes)

    try:
        run()
    finally:
        probe.close()


_URI_ITEMS = st.sampled_from([
    COMMAND, COMMAND.upper(), COMMAND + "/", COMMAND.replace("https", "http"), COMMAND + "s",
    "https://agentd.dev/a2a/ext", ANNOTATIONS, EVENTS, "urn:x-unknown", "*",
]) | st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters=","), min_size=1, max_size=12)
_SEP = st.sampled_from([",", ", ", " ,", " , ", ",,"])


def _header_lines() -> st.SearchStrategy[list[str]]:
    line = st.builds(lambda items, seps: "".join(i + s for i, s in zip(items[:-1], seps, strict=False)) + items[-1],
                     st.lists(_URI_ITEMS, min_size=1, max_size=3), st.lists(_SEP, min_size=2, max_size=2))
    return st.lists(line, min_size=1, max_size=3)


def _header_run(agent_targets: AgentTargets, recorder: Recorder) -> list[Seen]:
    """A marked admin.set under generated A2A-Extensions headers (case, slash and scheme variants,
    unknown URIs, odd separators, repeated lines), each sent as the operator, with whether one
    comma-separated item is byte for byte the command URI and on which line."""
    inst = declaring(agent_targets, COMMAND, auth=True)

    def make(probe: Probe, out: list[Seen]) -> Callable[[], None]:

        @BAD_INPUT
        @given(_header_lines())
        # the near misses of the command URI, each alone, every run (a generator may not reach them): a URI that
        # differs in case or by a trailing slash is not the command URI
        @example([COMMAND + "/"])
        @example([COMMAND.upper()])
        def run(lines: list[str]) -> None:
            per_line = [[i.strip() for i in line.split(",")] for line in lines]
            out.append(probe.observe(
                lambda: probe.client.call("SendMessage", send_params(command_message("admin.set", _marker())),
                                          headers={"A2A-Extensions": lines}),
                f"A2A-Extensions {lines!r}", named=any(COMMAND in items for items in per_line),
                first_line=COMMAND in per_line[0], first_item=per_line[0][0] == COMMAND,
                unknown=any(i and i not in EXTENSIONS for items in per_line for i in items)))

        return run

    return _observed("headers", inst, recorder, make)


@pytest.mark.requirement("AGENTD_REFUSE_003")
@pytest.mark.depends_on("AGENTD_NEG_005")
def test_a_command_runs_only_when_a_header_item_is_exactly_the_command_uri(agent_targets: AgentTargets,
                                                                            recorder: Recorder) -> None:
    """Generated A2A-Extensions headers: a marked admin.set whose header has no item byte for byte the
    command URI is refused with -32602 EXTENSION_NOT_ACTIVATED, never a 5xx; one naming it first on the
    first line runs (so the refusals are not of every command). One naming it only further on that is
    refused anyway was misread by the header's reader, which is AGENTD_NEG_001's and _002's to judge,
    not this row's. One naming a URI agentd does not implement is refused as without that URI (dropping
    it is AGENTD_NEG_005's): refused otherwise while the same command with no header at all is refused
    right, the row is blocked by that row."""
    seen = _header_run(agent_targets, recorder)
    problems: list[str] = []
    unknown: list[str] = []
    for x in seen:
        if x.extra["named"]:
            if x.extra["first_item"] and x.refused is not None:
                problems.append(f"{x.what} (names the command URI first): refused {x.refused.view.code} "
                                f"{x.refused.view.reason!r}")
            elif x.extra["first_item"] and not x.answered:
                problems.append(f"{x.what} (names the command URI first): neither answered nor refused: "
                                f"{x.answer}")
        elif x.refused is None:
            problems.append(f"{x.what}: not refused: {x.answer}")
        elif (x.refused.view.code, x.refused.view.reason) != (-32602, "EXTENSION_NOT_ACTIVATED"):
            (unknown if x.extra["unknown"] else problems).append(
                f"{x.what}: refused with {x.refused.view.code} {x.refused.view.reason!r}, expected -32602 "
                f"EXTENSION_NOT_ACTIVATED")
    _judge_seen(seen, problems)
    if unknown:
        with rpc_client(declaring(agent_targets, COMMAND, auth=True), recorder=recorder) as client:
            bare = client.call("SendMessage", send_params(command_message("admin.set", _marker())))
        err = bare.error
        if err is None or err.code != -32602 or refusal(bare, "no header").view.reason != "EXTENSION_NOT_ACTIVATED":
            fail("; ".join(unknown[:4]) + (f"; and {len(unknown) - 4} more" if len(unknown) > 4 else ""))
        blocked_by("AGENTD_NEG_005", f"{unknown[0]}, though with no header at all it is refused -32602 "
                                     f"EXTENSION_NOT_ACTIVATED: the header's unknown URI changed the refusal"
                                     + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    if not any(x.extra["named"] and x.answered for x in seen):
        not_measured("no generated header named the command URI and had its command run, so the refusals "
                     "cannot be told from a refusal of every command")


@pytest.mark.requirement("AGENTD_REFUSE_014")
@pytest.mark.depends_on("AGENTD_REFUSE_003")
def test_a_command_refused_for_its_header_runs_nothing(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """A marked admin.set refused for a generated header not naming the command URI changes nothing:
    no event, no setting. One that was not refused is AGENTD_REFUSE_003's (this row is blocked by it)."""
    seen = [x for x in _header_run(agent_targets, recorder) if not x.extra["named"]]
    _nothing_left_behind(seen, tasks=False, unrefused_by="AGENTD_REFUSE_003")
