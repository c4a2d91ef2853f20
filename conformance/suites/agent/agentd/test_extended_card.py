"""The public and the extended agent card (AGENTD_CARD_*): one public card for every caller with the
public ops vocabulary, ``extendedAgentCard`` true exactly where a scheme is declared, and
GetExtendedAgentCard narrowed to this instance and this caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any, Final, TypeVar

import pytest

from conformance.agentd.bundles import DEFAULT_BUNDLE_DIR
from conformance.agentd.cards import has_scheme, op_names, params_of
from conformance.agentd.clients import card_reply, public_card, rpc_client
from conformance.agentd.footing import declaring, deps, instance_for, require_declared
from conformance.agentd_page import (
    COMMAND,
    EVENT_KINDS,
    EVENTS,
    INTROSPECTION_OPS,
    OPERATOR_ONLY_OPS,
    PAGE_OPS,
    ROLES,
    SIGN_IN_OPS,
)
from conformance.agentd_page.launch import Workflow
from conformance.judge import Blocked, blocked_by, judged_here, quote
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.protojson import boolean, given

#: Every check here is about agentd's cards: the declarations of the command extension (AGENTD_DECL_001)
#: and, where kinds and the ring are judged, of the events extension (AGENTD_DECL_003).
pytestmark = pytest.mark.depends_on(*deps(COMMAND, EVENTS))

# ---- the configuration the narrowing checks use ----------------------------------------------------
REVIEW_SCHEMA: Final = {"type": "object", "required": ["change"], "properties": {"change": {"type": "string"}}}
DEPLOY_SCHEMA: Final = {"type": "object", "required": ["target"], "properties": {"target": {"type": "string"}}}
#: review: operator and agent may start it, with the command review.change; deploy: operator only,
#: with deploy.run; nightly: operator and user, no command.
WORKFLOWS: Final = (
    Workflow("review", roles=("operator", "agent"), command="review.change", schema=REVIEW_SCHEMA),
    Workflow("deploy", roles=("operator",), command="deploy.run", schema=DEPLOY_SCHEMA),
    Workflow("nightly", roles=("operator", "user")),
)
#: The agent's grants name its workflow command, one ordinary op and one operator-only op (which no
#: grant reaches); the user's name workflow.run.
GRANTS: Final = {"agent": ("review.change", "workflow.cancel", "admin.drain"), "user": ("workflow.run",)}
RING: Final = 37
NARROWING: Final[dict[str, Any]] = {"auth": True, "events": True, "ring": RING, "workflows": WORKFLOWS,
                                    "grants": GRANTS}
#: Per role: the workflow-declared commands it may send, and the workflows it may run.
COMMANDS_FOR: Final = {"operator": {"review.change": "review", "deploy.run": "deploy"},
                       "agent": {"review.change": "review"}, "user": {}}
SCHEMA_OF: Final = {"review.change": REVIEW_SCHEMA, "deploy.run": DEPLOY_SCHEMA}
SKILLS_FOR: Final = {"operator": {"review", "deploy", "nightly"}, "agent": {"review"}, "user": {"nightly"}}
#: Configurations whose public ops vocabulary must be identical.
VOCABULARY_CONFIGS: Final[dict[str, dict[str, Any]]] = {
    "plain": {"events": True},
    "events-off": {"events": False},
    "introspection": {"events": True, "introspection": True},
    "device-grant": {"events": True, "device_grant": True},
    "principals": NARROWING,
    "unix": {"listen": "unix"},
}


def _narrowing(agent_targets: AgentTargets, **more: Any) -> Instance:
    """The launched reference with principals, workflows, grants and a ring of 37 (``more`` on top)."""
    return declaring(agent_targets, COMMAND, **{**NARROWING, **more})


def _with_principals(agent_targets: AgentTargets) -> Instance:
    """For statements that hold on any listener with credentials: the narrowing configuration, or a
    running target as it is (the roles' tokens come from the command line)."""
    return instance_for(agent_targets, COMMAND, **NARROWING)


def _narrowed(agent_targets: AgentTargets, recorder: Recorder, **facts: Any) -> Instance:
    """For statements about how the extended card narrows by role and by what is switched on: the
    narrowing configuration (plus ``facts``), or a running target whose declared facts match."""
    if agent_targets.launchable:
        return _narrowing(agent_targets, **facts)
    declaring(agent_targets, COMMAND, **facts)  # a running target must have declared these facts
    return _schemed(agent_targets, recorder)


def _schemed(agent_targets: AgentTargets, recorder: Recorder) -> Instance:
    """A listener whose card declares an authentication scheme (where the extended card exists)."""
    inst = _with_principals(agent_targets)
    card = public_card(inst, recorder)
    if not has_scheme(card):
        if inst.launched is not None:
            fail(f"configured with principals, yet the card declares no security scheme: {quote(card, 300)}")
        not_measured("this target's card declares no security scheme, so it has no extended card to judge")
    return inst


#: The row whose own text demands that GetExtendedAgentCard is answered to a caller named by a declared
#: scheme. A check of what the extended card lists, refused it as a role whose token the card's scheme
#: names, is blocked by it (:func:`_extended`); :data:`EXTENDED` marks such a check.
EXTENDED_ROW: Final = "AGENTD_CARD_007"
EXTENDED = pytest.mark.depends_on(EXTENDED_ROW)
#: Runs a check with introspection off and on (the narrowing of ops and kinds depends on it).
BY_INTROSPECTION = pytest.mark.parametrize("introspection", [pytest.param(False, id="introspection-off"),
                                                             pytest.param(True, id="introspection-on")])

Check = TypeVar("Check", bound=Callable[..., object])


def _extended_per_role(check: Check) -> Check:
    """Marks a check of one role's extended card: run once per ``role``, and :data:`EXTENDED`."""
    marked: Check = EXTENDED(pytest.mark.parametrize("role", ROLES)(check))
    return marked


def _extended(inst: Instance, role: str, recorder: Recorder) -> dict[str, Any]:
    """GetExtendedAgentCard as ``role``: blocked by :data:`EXTENDED_ROW` when refused (its typing is
    AGENTD_DECL_007's); fails when the answer holds no card object."""
    with rpc_client(inst, role, recorder=recorder) as client:
        reply = client.call("GetExtendedAgentCard", {})
    seen = f"GetExtendedAgentCard as {role}: HTTP {reply.status}, answer {quote(reply.json or reply.body)}"
    if reply.status != 200 or reply.error is not None:
        blocked_by(EXTENDED_ROW, f"{seen}; what the extended card lists cannot be seen")
    if not isinstance(reply.result, dict):
        fail(seen)
    card: dict[str, Any] = reply.result
    return card


def _problems_or_pass(problems: list[str]) -> None:
    if problems:
        fail("; ".join(problems))


# ---- the public card --------------------------------------------------------------------------------
@pytest.mark.requirement("AGENTD_CARD_001")
def test_public_card_is_the_same_for_every_caller(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """The public card read with no credential, with each role's bearer and with a bearer nobody
    issued is one and the same document. Catches card-varies-by-caller."""
    inst = _schemed(agent_targets, recorder)
    base = public_card(inst, recorder)
    problems = []
    for who, token in [*((r, inst.token(r)) for r in ROLES), ("an unknown bearer", "not-a-token-agentd-conformance")]:
        reply = card_reply(inst, recorder, token)
        if reply.status != 200 or reply.json != base:
            problems.append(f"as {who}: HTTP {reply.status}, differs from the anonymous card: "
                            f"{_diff(base, reply.json)}")
    _problems_or_pass(problems)


def _diff(a: Any, b: Any, path: str = "$") -> str:
    """Where two JSON documents first differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _diff(a.get(k), b.get(k), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _diff(x, y, f"{path}[{i}]")
    return f"{path}: {quote(a, 120)} vs {quote(b, 120)}"


@pytest.mark.requirement("AGENTD_CARD_002")
@pytest.mark.parametrize("config", list(VOCABULARY_CONFIGS))
def test_public_ops_vocabulary_is_identical_everywhere(agent_targets: AgentTargets, config: str,
                                                       recorder: Recorder) -> None:
    """The public command declaration names dataPartKey ``agentd``, the bundle at
    ``<uri>/schema.json`` and an ops list holding every op the page names; that list is the same,
    op for op, on every configuration (feed off, introspection on, device grant on, principals and
    workflows, a unix socket) as on a plain instance. Catches public-ops-narrowed."""
    base = params_of(public_card(instance_for(agent_targets, COMMAND, events=True), recorder), COMMAND,
                     "the plain instance's card")
    other = instance_for(agent_targets, COMMAND, events=True) if config == "plain" else \
        declaring(agent_targets, COMMAND, **VOCABULARY_CONFIGS[config])
    params = params_of(public_card(other, recorder), COMMAND, f"the {config} instance's card")
    problems = []
    if params.get("dataPartKey") != "agentd":
        problems.append(f"dataPartKey {params.get('dataPartKey')!r}, expected 'agentd'")
    if params.get("schema") != f"{COMMAND}/schema.json":
        problems.append(f"schema {params.get('schema')!r}, expected {COMMAND}/schema.json")
    missing = [op for op in PAGE_OPS if op not in op_names(params)]
    if missing:
        problems.append(f"the public ops list lacks {missing}")
    if params.get("ops") != base.get("ops"):
        problems.append(f"the public ops differ from the plain instance's: {_diff(base.get('ops'), params.get('ops'))}")
    _problems_or_pass(problems)


@pytest.mark.requirement("AGENTD_CARD_003")
@EXTENDED
def test_every_published_op_has_its_reply_kind(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Every op of the public and of the operator's extended declaration carries ``reply`` message or
    task, the same in both; status and workflow.status are reads, workflow.run is work (the page's
    example). Catches ops-without-reply."""
    inst = _with_principals(agent_targets)
    card = public_card(inst, recorder)
    public = params_of(card, COMMAND, "the public card").get("ops") or []
    extended: list[Any] = []  # a listener with no scheme has no extended card: its public ops are all there is
    refused: Blocked | None = None  # judged after the public ops
    if has_scheme(card) or inst.launched is not None:
        try:
            extended = params_of(_extended(inst, "operator", recorder), COMMAND,
                                 "the operator's extended card").get("ops") or []
        except Blocked as exc:
            refused = exc
    problems = []
    kinds: dict[str, Any] = {}
    for where, ops in (("public", public), ("extended", extended)):
        for o in ops:
            if not isinstance(o, dict) or o.get("reply") not in ("message", "task"):
                problems.append(f"{where} op {quote(o, 120)} has no reply kind message or task")
                continue
            op = str(o.get("op"))
            if kinds.setdefault(op, o["reply"]) != o["reply"]:
                problems.append(f"op {op!r} is {kinds[op]!r} on the public card, {o['reply']!r} on the extended one")
    for op, want in (("status", "message"), ("workflow.status", "message"), ("workflow.run", "task")):
        if op in kinds and kinds[op] != want:
            problems.append(f"{op} replies {kinds[op]!r}; the page shows {want!r}")
    _problems_or_pass(problems)
    if refused is not None:
        raise refused


@pytest.mark.requirement("AGENTD_CARD_004")
def test_public_declarations_carry_nothing_caller_specific(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """On an instance with principals, workflow commands and the feed on, the public declarations
    carry no commands, settable, ring or kinds. Catches public-card-leaks-ring."""
    card = public_card(_with_principals(agent_targets), recorder)
    require_declared(card, EVENTS, "the public card")
    cmd = params_of(card, COMMAND, "the public card")
    evt = params_of(card, EVENTS, "the public card")
    leaks = [f"command params.{k}" for k in ("commands", "settable") if given(cmd.get(k))]
    leaks += [f"events params.{k}" for k in ("ring", "kinds") if given(evt.get(k))]
    if leaks:
        fail(f"the public card carries instance- or caller-specific params: {leaks}; "
             f"command params {quote(cmd, 300)}, events params {quote(evt)}")


# ---- where the extended card exists -----------------------------------------------------------------
@pytest.mark.requirement("AGENTD_CARD_005")
@pytest.mark.parametrize("config", [pytest.param({"auth": True}, id="bearer"),
                                    pytest.param({"device_grant": True}, id="device-grant")])
def test_declared_scheme_sets_extended_card_flag(agent_targets: AgentTargets, config: dict[str, Any],
                                                 recorder: Recorder) -> None:
    """A listener with credentials configured (bearer principals, or the device grant) declares a
    scheme and sets capabilities.extendedAgentCard true. Catches extended-flag-false-with-scheme."""
    card = public_card(instance_for(agent_targets, COMMAND, **config), recorder)
    if not has_scheme(card):
        if not agent_targets.launchable:
            not_measured("this target's card declares no security scheme, so the statement cannot be judged on it")
        fail(f"configured with {sorted(config)} but the card declares no security scheme: {quote(card, 300)}")
    flag = boolean(card, "capabilities", "extendedAgentCard")
    if flag is not True:
        fail(f"the card declares schemes {sorted(card['securitySchemes'])} but extendedAgentCard is {flag!r}")


@pytest.mark.requirement("AGENTD_CARD_006")
@pytest.mark.depends_on("AGENTD_UDS_006")
@pytest.mark.parametrize("config", [pytest.param({"events": True}, id="loopback"),
                                    pytest.param({"listen": "unix"}, id="unix")])
def test_no_scheme_clears_extended_card_flag(agent_targets: AgentTargets, config: dict[str, Any],
                                             recorder: Recorder) -> None:
    """A listener that declares no scheme (loopback with nothing configured, a unix socket) sets
    capabilities.extendedAgentCard false; leaving it out is the same (proto3 JSON omits false). A unix
    listener declaring a scheme has none to judge, and breaks AGENTD_UDS_006 ("a unix listener declares
    no authentication scheme"): blocked by it. Catches extended-flag-true-without-scheme."""
    card = public_card(declaring(agent_targets, COMMAND, **config) if "listen" in config
                       else instance_for(agent_targets, COMMAND, **config), recorder)
    if has_scheme(card) and "listen" in config:
        blocked_by("AGENTD_UDS_006", f"the unix listener declares schemes {sorted(card['securitySchemes'])}, so "
                                     "the statement about listeners without one cannot be judged on it")
    if has_scheme(card):
        not_measured(f"this listener declares schemes {sorted(card['securitySchemes'])}, so the statement about "
                     "listeners without one cannot be judged on it")
    flag = boolean(card, "capabilities", "extendedAgentCard")
    if flag is not False:
        fail(f"no scheme is declared yet extendedAgentCard is {flag!r} (expected false)")


@pytest.mark.requirement("AGENTD_CARD_007")
@pytest.mark.parametrize("role", ROLES)
def test_extended_card_answered_to_named_callers(agent_targets: AgentTargets, role: str, recorder: Recorder) -> None:
    """GetExtendedAgentCard answers a caller named by a declared scheme (each role's bearer) with a
    strict AgentCard. Catches extended-card-refused."""
    inst = _schemed(agent_targets, recorder)
    with judged_here(EXTENDED_ROW):
        _extended(inst, role, recorder)


@pytest.mark.requirement("AGENTD_CARD_008")
@pytest.mark.parametrize("token", [pytest.param(None, id="no-credential"),
                                   pytest.param("not-a-token-agentd-conformance", id="unknown-bearer")])
def test_extended_card_refused_to_unnamed_callers_with_401(agent_targets: AgentTargets, token: str | None,
                                                            recorder: Recorder) -> None:
    """GetExtendedAgentCard from a caller no declared scheme names (no credential, a bearer nobody
    issued) gets HTTP 401 and no card. Catches extended-card-anonymous, unauthenticated-http-200."""
    inst = _schemed(agent_targets, recorder)
    with rpc_client(inst, recorder=recorder, token=token or "unused") as client:
        headers = {"Authorization": None} if token is None else None
        reply = client.call("GetExtendedAgentCard", {}, headers=headers)
    if reply.status != 401 or reply.result is not None:
        fail(f"expected HTTP 401, got HTTP {reply.status}: {quote(reply.json or reply.body)}")


@pytest.mark.requirement("AGENTD_CARD_009")
def test_extended_card_unsupported_without_a_scheme(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Where no scheme is declared (loopback with nothing configured), GetExtendedAgentCard answers
    -32004. Catches extended-card-without-scheme."""
    inst = instance_for(agent_targets, COMMAND, events=True)
    card = public_card(inst, recorder)
    if has_scheme(card):
        not_measured(f"this listener declares schemes {sorted(card['securitySchemes'])}")
    with rpc_client(inst, recorder=recorder) as client:
        reply = client.call("GetExtendedAgentCard", {})
    if reply.error is None or reply.error.code != -32004:
        fail(f"expected error -32004, got HTTP {reply.status}: {quote(reply.json or reply.body)}")


# ---- narrowed to this instance and this caller ------------------------------------------------------
@pytest.mark.requirement("AGENTD_CARD_010")
@EXTENDED
@BY_INTROSPECTION
def test_extended_ops_are_what_this_caller_may_run_here(agent_targets: AgentTargets, introspection: bool,
                                                        recorder: Recorder) -> None:
    """The extended ops list holds only ops this instance serves (no introspection ops while it is
    off, no sign-in ops without the device grant; session ops on TCP) and this caller may run: the
    operator every served op, others no operator-only op even when a grant names one, and an
    ordinary op a grant names. Catches extended-ops-unnarrowed."""
    inst = _narrowed(agent_targets, recorder, introspection=introspection)
    launched = inst.launched is not None
    # Sign-in ops are served only with the device grant: off in the launched configuration, unknown on a
    # running target unless it declared --fact device_grant.
    grant = "off" if launched else inst.facts.get("device_grant")
    public = set(op_names(params_of(public_card(inst, recorder), COMMAND, "the public card")))
    problems = []
    unserved_here = {op for op in PAGE_OPS if (grant == "off" and op in SIGN_IN_OPS)
                     or (not introspection and op in INTROSPECTION_OPS)}
    served = {op for op in PAGE_OPS if op not in unserved_here and (grant == "on" or op not in SIGN_IN_OPS)}
    for role in ROLES:
        ops = op_names(params_of(_extended(inst, role, recorder), COMMAND, f"the {role}'s extended card"))
        unserved = [op for op in ops if op in unserved_here]
        if unserved:
            problems.append(f"{role}: lists ops not served here: {unserved}")
        outside = [op for op in ops if op not in public and not (launched and op in COMMANDS_FOR[role])]
        if outside:
            problems.append(f"{role}: lists ops outside the public vocabulary: {outside}")
        if role == "operator":
            absent = sorted(served - set(ops))
            if absent:
                problems.append(f"operator: lacks served ops {absent}")
            continue
        forbidden = [op for op in ops if op in OPERATOR_ONLY_OPS]
        if forbidden:
            problems.append(f"{role}: lists operator-only ops {forbidden}")
        if launched and role == "agent" and "workflow.cancel" not in ops:
            problems.append("agent: its grant names workflow.cancel, yet it is not listed")
    _problems_or_pass(problems)


@pytest.mark.requirement("AGENTD_CARD_011")
@_extended_per_role
def test_extended_commands_are_the_callers_workflow_commands(agent_targets: AgentTargets, role: str,
                                                              recorder: Recorder) -> None:
    """``commands`` lists exactly the workflow-declared commands this caller may send (operator: all;
    agent: the one its grants name and the start admits; user: none), each with its workflow and its
    argument schema. Catches extended-commands-missing."""
    params = params_of(_extended(_narrowing(agent_targets), role, recorder), COMMAND, f"the {role}'s extended card")
    got = params.get("commands")
    want = COMMANDS_FOR[role]
    if got is None and not want:
        return
    if not isinstance(got, list):
        fail(f"{role}: no commands list, expected {sorted(want)}; params {quote(params, 300)}")
    by_op = {c.get("op"): c for c in got if isinstance(c, dict)}
    problems = []
    if set(by_op) != set(want):
        problems.append(f"{role}: commands {sorted(map(str, by_op))}, expected {sorted(want)}")
    for op, wf in want.items():
        c = by_op.get(op)
        if c is not None and (c.get("workflow") != wf or c.get("schema") != SCHEMA_OF[op]):
            problems.append(f"{role}: {op} names workflow {c.get('workflow')!r} and schema {quote(c.get('schema'))}, "
                            f"expected {wf!r} and {quote(SCHEMA_OF[op])}")
    _problems_or_pass(problems)


@pytest.mark.requirement("AGENTD_CARD_012")
@_extended_per_role
def test_settable_only_for_callers_of_admin_set(agent_targets: AgentTargets, role: str, recorder: Recorder) -> None:
    """``settable`` (the paths admin.set accepts) is given to the operator, who may run admin.set, as
    a list of paths, and to nobody else. Who may run admin.set is the page's table: it is operator-only,
    and no grant reaches it. It is not read from the card's ops list (what that lists is
    AGENTD_CARD_010's) nor from what the instance lets a caller run (AGENTD_CMD_015's).
    Catches settable-for-everyone."""
    params = params_of(_extended(_narrowed(agent_targets, recorder), role, recorder), COMMAND,
                       f"the {role}'s extended card")
    may = role == "operator" or "admin.set" not in OPERATOR_ONLY_OPS
    settable = params.get("settable")
    if may and not (isinstance(settable, list) and settable and all(isinstance(p, str) for p in settable)):
        fail(f"{role} may run admin.set, yet settable is {quote(settable)}")
    if not may and given(settable):
        fail(f"{role} may not run admin.set, yet settable is given: {quote(settable)}")


@pytest.mark.requirement("AGENTD_CARD_013")
@_extended_per_role
def test_extended_events_declaration_gives_the_ring(agent_targets: AgentTargets, role: str, recorder: Recorder) -> None:
    """The extended events declaration gives ``ring``: the number of events the feed keeps (the
    instance is configured to keep 37). Catches ring-wrong."""
    params = params_of(_extended(_narrowing(agent_targets), role, recorder), EVENTS, f"the {role}'s extended card")
    if params.get("ring") != RING or isinstance(params.get("ring"), bool):
        fail(f"{role}: ring is {params.get('ring')!r}, the feed keeps {RING}")


@cache
def _kind_audience() -> dict[str, str]:
    """Each kind's audience (owner, everyone, operator), from the harness's events bundle."""
    doc = json.loads((DEFAULT_BUNDLE_DIR / "events.schema.json").read_text(encoding="utf-8"))
    kinds: dict[str, str] = doc.get("x-agentd-kinds", {})
    return kinds


@pytest.mark.requirement("AGENTD_CARD_014")
@EXTENDED
@BY_INTROSPECTION
def test_extended_kinds_are_what_this_callers_feed_carries(agent_targets: AgentTargets, introspection: bool,
                                                           recorder: Recorder) -> None:
    """``kinds`` is the vocabulary this caller's feed can carry: the operator every kind (audit only
    while introspection is on), others only kinds addressed to owners or to everyone. Catches
    kinds-unnarrowed."""
    inst = _narrowed(agent_targets, recorder, introspection=introspection)
    require_declared(public_card(inst, recorder), EVENTS, "the public card")
    audience = _kind_audience()
    problems = []
    for role in ROLES:
        kinds = params_of(_extended(inst, role, recorder), EVENTS, f"the {role}'s extended card").get("kinds")
        if not isinstance(kinds, list):
            problems.append(f"{role}: kinds is {quote(kinds)}, expected a list")
            continue
        want = {k for k in EVENT_KINDS if (introspection or k != "audit")
                and (role == "operator" or audience.get(k) in ("owner", "everyone"))}
        if set(kinds) != want:
            problems.append(f"{role}: extra {sorted(set(kinds) - want)}, missing {sorted(want - set(kinds))}")
    _problems_or_pass(problems)


@pytest.mark.requirement("AGENTD_CARD_015")
@_extended_per_role
def test_workflow_skills_only_for_runnable_workflows(agent_targets: AgentTargets, role: str,
                                                     recorder: Recorder) -> None:
    """The extended card adds a ``workflow:<name>`` skill for each workflow this caller may run and
    none for the others (operator: all three; agent: review; user: nightly). Catches
    workflow-skills-unnarrowed."""
    card = _extended(_narrowing(agent_targets), role, recorder)
    names = {s.get("id", "")[len("workflow:"):] for s in card.get("skills") or []
             if isinstance(s, dict) and str(s.get("id", "")).startswith("workflow:")}
    if names != SKILLS_FOR[role]:
        fail(f"{role}: workflow skills for {sorted(names)}, expected {sorted(SKILLS_FOR[role])}")
