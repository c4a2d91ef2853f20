"""The command extension: one DataPart ``{"agentd": {"op": …}}``, activated twice, validated against
the op's schema, answered as a Message (reads, no task) or a Task (work, ``<taskId>.result``), the
op families served where the page says, operator-only ops out of every other role's reach, and
workflow-declared commands held to their schema, grants and roles.
"""

from __future__ import annotations

from contextlib import closing
from typing import Any

import pytest

from conformance.a2a.messages import send_params
from conformance.agentd.answers import (
    READ_REPLY_ROW,
    WORK_REPLY_ROW,
    answer_message,
    answer_task,
    data_document,
    read_document,
    reply_document,
    result_artifact,
    settled,
    work_task,
)
from conformance.agentd.bundles import bundles
from conformance.agentd.clients import ext, rpc_client, served_card
from conformance.agentd.commands import command_message, send_command
from conformance.agentd.configs import principals as make_principals
from conformance.agentd.configs import standard, workflows
from conformance.agentd.footing import declaring, deps, lacking
from conformance.agentd.ops import SERVED_BY, SERVING_ROWS, OpRunner, PrerequisiteRefused, reply_kind
from conformance.agentd_page import (
    ALWAYS_OPS,
    COMMAND,
    INTROSPECTION_OPS,
    OPERATOR_ONLY_OPS,
    SESSION_OPS,
    SIGN_IN_OPS,
)
from conformance.agentd_page.launch import Workflow
from conformance.context import RunContext
from conformance.evidence import Evidence
from conformance.judge import Blocked, SeenRefusal, blocked_by, quote, refusal, unique
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.jsonrpc import RpcReply

#: The reason a caller the op is out of reach of is refused for (its code -31403 and HTTP 403 are
#: AGENTD_REFUSE_011's).
DENIED = "PERMISSION_DENIED"
#: The ErrorInfo reasons of the page's table that name a cause other than the arguments (a refusal for
#: one of them is not a refusal of the arguments).
OTHER_CAUSES = ("EXTENSION_NOT_DECLARED", "EXTENSION_NOT_ACTIVATED", "EXTENSION_NOT_MARKED",
                "COMMAND_ENVELOPE_AMBIGUOUS", "COMMAND_TASK_ID", "UNKNOWN_OP", "CONTENT_TYPE_NOT_SUPPORTED",
                "INTROSPECTION_DISABLED", "PERMISSION_DENIED")


def refused_for(reply: RpcReply, what: str, reason: str) -> SeenRefusal:
    """The request was refused, its ErrorInfo naming ``reason``: the cause a row here is about. The
    refusal's code, HTTP status and domain are the REFUSE rows' (AGENTD_REFUSE_007, 011, 012), not judged."""
    got = refusal(reply, what)
    if got.view.reason != reason:
        fail(f"{what}: refused for {got.view.reason!r} (code {got.view.code}), not {reason}; "
             f"error {quote(got.body.get('error'))}")
    return got


def refused_args(reply: RpcReply, what: str, field: str | None = None) -> SeenRefusal:
    """The request (whose only fault is its arguments) was refused, and not for another cause of the
    table. How (-32602 INVALID_COMMAND_ARGS, a BadRequest naming each field) is AGENTD_REFUSE_008's and
    _013's; a BadRequest that names only other fields than ``field`` is a refusal for something else."""
    got = refusal(reply, what)
    if got.view.reason in OTHER_CAUSES:
        fail(f"{what}: refused for {got.view.reason!r}, not for its arguments; error {quote(got.body.get('error'))}")
    named = [v.field for v in got.view.field_violations]
    if field is not None and named and not any(field in f for f in named):
        fail(f"{what}: the refusal names fields {named!r}, not {field!r}")
    return got

#: Every check here is about how the declared command extension behaves (blocked by AGENTD_DECL_001
#: when it is not declared), over the card's JSON-RPC listener.
pytestmark = pytest.mark.depends_on(*deps(COMMAND))


# ---- the envelope and its two activations --------------------------------------------------------

@pytest.mark.requirement("AGENTD_CMD_002")
@pytest.mark.depends_on(READ_REPLY_ROW)
def test_command_on_streaming_send_is_run_and_answered_on_the_stream(agent_targets: AgentTargets, recorder: Recorder,
                                                                     run_context: RunContext) -> None:
    """SendStreamingMessage carrying the status command streams the op's reply Message.
    Catches ``stream-refuses-commands``."""
    inst = declaring(agent_targets, COMMAND)
    with rpc_client(inst, recorder=recorder) as c:
        reply = c.stream("SendStreamingMessage", send_params(command_message("status")), headers=ext(COMMAND),
                         deadline=10.0)
    if reply.errors or not reply.is_sse:
        fail(f"the streamed status command was not answered with a stream: HTTP {reply.status}, "
             f"errors {[(e.code, e.message) for e in reply.errors]}, body {quote(reply.json or reply.body)}")
    results = reply.results
    messages = [r["message"] for r in results if isinstance(r, dict) and "message" in r]
    if len(messages) != 1:
        fail(f"expected the stream to carry one reply Message, got frames {quote(results)}")
    # Its one DataPart is AGENTD_CMD_005's (as on SendMessage), its schema AGENTD_DECL_014's.
    reply_document(messages[0], "the streamed status reply")


@pytest.mark.requirement("AGENTD_CMD_010")
def test_command_reply_message_lists_the_command_uri(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """The Message answering a command names the command URI in its extensions.
    Catches ``reply-unmarked``."""
    inst = declaring(agent_targets, COMMAND)
    with rpc_client(inst, recorder=recorder) as c:
        msg = answer_message(send_command(c, "status"), "the status command")
    if COMMAND not in (msg.get("extensions") or []):
        fail(f"the reply Message's extensions are {msg.get('extensions')!r}; expected them to list {COMMAND}")


# ---- arguments ---------------------------------------------------------------------------------

#: Arguments each op's schema refuses, with the argument at fault (all ops served everywhere).
BAD_ARGS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("admin.set", {"path": "runs.maxConcurrent", "value": "many"}, "value"),
    ("admin.set", {"path": "log.level", "value": 3}, "value"),
    ("admin.set", {"path": "no.such.setting", "value": 1}, "path"),
    ("admin.set", {"path": "feed.note"}, "value"),
    ("config", {"path": 5}, "path"),
    ("workflow.signal", {"runId": 7, "signal": "go"}, "runId"),
    ("subagent.send", {"subagent": "s", "text": ""}, "text"),
)


@pytest.mark.requirement("AGENTD_CMD_003")
def test_arguments_not_matching_the_op_schema_are_refused(agent_targets: AgentTargets, recorder: Recorder,
                                                          run_context: RunContext) -> None:
    """Each op's arguments are held to its published schema: a wrong type, a value outside an enum
    or range, a missing required argument are refused with INVALID_COMMAND_ARGS, and arguments that
    match are accepted. Catches ``no-arg-validation``."""
    inst = declaring(agent_targets, COMMAND)
    b = bundles(run_context)
    with rpc_client(inst, recorder=recorder) as c:
        for op, args, _field in BAD_ARGS:
            if not b.errors("command", f"$defs/args/{op}", args):
                fail(f"harness: {op} {args} is valid against the bundle; the case proves nothing")
            refused_args(send_command(c, op, args), f"{op} with {args}")
        good = {"path": "feed.note", "value": unique("note")}
        answer_message(send_command(c, "admin.set", good), f"admin.set with schema-valid arguments {good}")


@pytest.mark.requirement("AGENTD_CMD_004")
def test_an_argument_the_op_does_not_take_is_refused_not_ignored(agent_targets: AgentTargets,
                                                                 recorder: Recorder) -> None:
    """An unknown argument is refused with INVALID_COMMAND_ARGS naming it, never dropped and run.
    Catches ``ignore-unknown-arg``."""
    inst = declaring(agent_targets, COMMAND)
    with rpc_client(inst, recorder=recorder) as c:
        for op, args, extra in (("status", {"verbose": True}, "verbose"),
                                ("workflow.status", {"runId": "r-1", "all": 1}, "all"),
                                ("admin.set", {"path": "feed.note", "value": "x", "force": True}, "force")):
            refused_args(send_command(c, op, args), f"{op} with the unknown argument {extra!r}", extra)


# ---- reply kinds -------------------------------------------------------------------------------

READS = ("status", "config", "workflow.status", "subagent.status")


@pytest.mark.requirement("AGENTD_CMD_005")
def test_a_read_answers_a_message_whose_data_part_is_the_result(agent_targets: AgentTargets, recorder: Recorder,
                                                                run_context: RunContext) -> None:
    """Reads answer with a Message holding one DataPart: the op's result document (whether it is valid
    against the bundle is AGENTD_DECL_014's). Catches ``read-reply-as-text``."""
    inst = declaring(agent_targets, COMMAND)
    with rpc_client(inst, recorder=recorder) as c:
        for op in READS:
            data_document(answer_message(send_command(c, op), op), f"the {op} reply")


@pytest.mark.requirement("AGENTD_CMD_006")
def test_a_read_creates_no_task(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Polling reads leaves nothing behind: the operator's task list is the same before and after.
    Catches ``read-creates-task``."""
    from conformance.agentd.observer import Observer

    inst = declaring(agent_targets, COMMAND)
    obs = Observer(inst, recorder)
    try:
        before = obs.task_ids()
        with rpc_client(inst, recorder=recorder) as c:
            for op in READS:
                answer_message(send_command(c, op), op)
        new = sorted(obs.task_ids() - before)
    finally:
        obs.close()
    if new:
        fail(f"reads {READS} created task(s) {new}")


@pytest.mark.requirement("AGENTD_CMD_007")
def test_work_answers_with_a_task(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """workflow.run and subagent.send (work) answer with a Task. Catches ``work-reply-as-message``."""
    inst = declaring(agent_targets, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        answer_task(send_command(c, "workflow.run", {"workflow": "build"}), "workflow.run")
        answer_task(send_command(c, "subagent.send", {"subagent": unique("s"), "text": "hi"}), "subagent.send")


@pytest.mark.requirement("AGENTD_CMD_008")
@pytest.mark.depends_on(WORK_REPLY_ROW)
def test_work_result_arrives_as_the_task_id_result_artifact(agent_targets: AgentTargets, recorder: Recorder,
                                                            run_context: RunContext) -> None:
    """The result of work is the task's ``<taskId>.result`` artifact, a document valid against the
    op's result schema. Catches ``result-artifact-misnamed``."""
    inst = declaring(agent_targets, COMMAND, **standard())
    b = bundles(run_context)
    with rpc_client(inst, recorder=recorder) as c:
        for op, args in (("workflow.run", {"workflow": "build", "input": {"n": 1}}),
                         ("subagent.send", {"subagent": unique("s"), "text": "hi"})):
            task = settled(c, work_task(send_command(c, op, args), op), op)
            doc = result_artifact(task, f"the {op} task")
            b.check("command", f"$defs/result/{op}", doc, f"the {op} result artifact")


@pytest.mark.requirement("AGENTD_CMD_009")
@pytest.mark.depends_on(*SERVING_ROWS, "AGENTD_CARD_003", READ_REPLY_ROW, WORK_REPLY_ROW)
def test_every_op_answers_in_the_reply_kind_the_card_publishes(agent_targets: AgentTargets, recorder: Recorder,
                                                               run_context: RunContext) -> None:
    """Each op of the card's ops list, run by the operator on an instance serving every family,
    answers a Message where the card says ``message`` and a Task where it says ``task``. An op of the
    page's families the operator is refused is not served: that is the serving row's to judge
    (:data:`SERVED_BY`), and this check is blocked by it; so is an op whose prerequisite (the op sent
    first to have what it names, e.g. auth.sessions for auth.sessions.revoke) the operator is refused.
    Catches ``work-reply-as-message``."""
    inst = declaring(agent_targets, COMMAND, fresh=True, **standard(introspection=True, device_grant=True))
    card = served_card(inst, recorder)
    published = _published_ops(card)
    wrong = []
    unserved: dict[str, str] = {}
    unpublished: list[str] = []
    unreached: list[Blocked] = []
    with closing(OpRunner(inst, recorder, card, bundles(run_context))) as runner:
        for op in runner.order(published):
            try:
                reply = runner.send(op)
            except PrerequisiteRefused as exc:
                if exc.op not in SERVED_BY:
                    raise
                unserved.setdefault(exc.op, exc.kind)
            except Blocked as exc:  # what the op names could not be made: judged after the ops that ran
                unreached.append(exc)
                continue
            kind = reply_kind(reply, op)
            if reply.error is not None and op in SERVED_BY:
                unserved.setdefault(op, kind)
            elif published[op] not in ("message", "task"):
                unpublished.append(op)
            elif kind != published[op]:
                wrong.append(f"{op}: card says {published[op]!r}, answered {kind!r}")
    if wrong:
        fail("; ".join(wrong))
    if unreached:
        raise unreached[0]
    if unpublished:
        blocked_by("AGENTD_CARD_003", f"the card publishes no reply kind (message or task) for {unpublished}, so "
                                      "the kind they answer in cannot be held to it")
    for op, kind in unserved.items():
        blocked_by(SERVED_BY[op], f"the operator is refused {op} on an instance serving every family ({kind}), "
                                  "so its reply kind cannot be seen")


def _published_ops(card: dict[str, Any]) -> dict[str, str]:
    for e in (card.get("capabilities") or {}).get("extensions") or []:
        if isinstance(e, dict) and e.get("uri") == COMMAND:
            ops = (e.get("params") or {}).get("ops") or []
            return {str(o["op"]): str(o.get("reply")) for o in ops if isinstance(o, dict) and "op" in o}
    fail(f"the card declares no {COMMAND} with params.ops: {quote(card.get('capabilities'))}")


# ---- which ops are served where ----------------------------------------------------------------

def _all_answered(inst: Instance, recorder: Recorder, run_context: RunContext, ops: tuple[str, ...]) -> None:
    """Every op of ``ops`` is answered for the operator of ``inst``, in its kind, its document valid."""
    problems = []
    unreached: list[Blocked] = []
    with closing(OpRunner(inst, recorder, served_card(inst, recorder), bundles(run_context))) as runner:
        for op in runner.order(ops):
            try:
                reply = runner.send(op)
            except Blocked as exc:  # what the op names could not be made (a run, a session): not served?
                unreached.append(exc)
                continue
            if reply.error is not None:
                problems.append(f"{op}: refused {reply.error.code} {quote(reply.json.get('error'), 300)}")
            else:
                reply_kind(reply, op)  # its document's schema is AGENTD_DECL_014's
    if problems:
        fail("ops the page says are served here were refused: " + "; ".join(problems))
    if unreached:
        raise unreached[0]


#: What a serving check's :class:`OpRunner` stands on to name things (a run, a subagent, a session).
NAMING_ROWS = (READ_REPLY_ROW, WORK_REPLY_ROW)


@pytest.mark.requirement("AGENTD_CMD_011")
@pytest.mark.depends_on(*NAMING_ROWS)
def test_always_served_families_are_served_to_an_operator(agent_targets: AgentTargets, recorder: Recorder,
                                                          run_context: RunContext) -> None:
    """Status and configuration, workflows, subagents and plans, operator controls: every op is
    answered for the operator on an instance with nothing switched on. Catches ``admin-op-missing``."""
    inst = declaring(agent_targets, COMMAND, fresh=True, workflows=workflows())
    _all_answered(inst, recorder, run_context, ALWAYS_OPS)


@pytest.mark.requirement("AGENTD_CMD_012")
@pytest.mark.depends_on(*NAMING_ROWS)
def test_introspection_ops_are_served_while_introspection_is_on(agent_targets: AgentTargets, recorder: Recorder,
                                                                run_context: RunContext) -> None:
    """conversation.get, run.get, subagent.get and debug.events are answered with introspection on.
    Catches ``introspection-ops-refused``."""
    inst = declaring(agent_targets, COMMAND, introspection=True, workflows=workflows())
    _all_answered(inst, recorder, run_context, INTROSPECTION_OPS)


@pytest.mark.requirement("AGENTD_CMD_013")
def test_sign_in_ops_are_served_exactly_while_the_device_grant_is_on(agent_targets: AgentTargets, recorder: Recorder,
                                                                     run_context: RunContext) -> None:
    """With the device grant on, auth.device.pending/approve/deny are answered; with it off they are
    unknown ops (UNKNOWN_OP). Catches ``device-ops-always``."""
    off = declaring(agent_targets, COMMAND, auth=True)
    with rpc_client(off, recorder=recorder) as c:
        for op, args in (("auth.device.pending", {}), ("auth.device.approve", {"userCode": "ABCD1234"}),
                         ("auth.device.deny", {"userCode": "ABCD1234"})):
            refused_for(send_command(c, op, args), f"{op} with the device grant off", "UNKNOWN_OP")
    on = declaring(agent_targets, COMMAND, auth=True, device_grant=True)
    _all_answered(on, recorder, run_context, SIGN_IN_OPS)


@pytest.mark.requirement("AGENTD_CMD_014")
@pytest.mark.depends_on(*NAMING_ROWS)
def test_session_ops_are_served_on_a_tcp_listener(agent_targets: AgentTargets, recorder: Recorder,
                                                  run_context: RunContext) -> None:
    """auth.sessions and auth.sessions.revoke are answered on a TCP listener.
    Catches ``session-ops-missing``."""
    inst = declaring(agent_targets, COMMAND, fresh=True, auth=True)
    if inst.uds_path:
        not_measured("the target is a unix socket listener; session ops are served on TCP only")
    _all_answered(inst, recorder, run_context, SESSION_OPS)


# ---- who may call what -------------------------------------------------------------------------

#: Arguments that satisfy each operator-only op's schema, so only the caller decides the answer.
OPERATOR_ONLY_ARGS: dict[str, dict[str, Any]] = {
    "config": {},
    "debug.events": {},
    "admin.drain": {},
    "admin.pause": {},
    "admin.resume": {},
    "admin.cancel": {"taskId": "t-unknown"},
    "admin.set": {"path": "feed.note", "value": "granted?"},
    "auth.device.pending": {},
    "auth.device.approve": {"userCode": "ABCD1234"},
    "auth.device.deny": {"userCode": "ABCD1234"},
    "auth.sessions": {},
    "auth.sessions.revoke": {"session": "s-unknown"},
}

ROLE_SPECS = (
    ("op-1", "operator", ()),
    ("user-granted", "user", OPERATOR_ONLY_OPS),
    ("agent-granted", "agent", OPERATOR_ONLY_OPS),
    ("user-plain", "user", ()),
    ("agent-plain", "agent", ()),
)


@pytest.mark.requirement("AGENTD_CMD_015")
@pytest.mark.depends_on(*SERVING_ROWS)
def test_operator_only_ops_are_refused_to_every_other_role_even_with_a_grant(agent_targets: AgentTargets,
                                                                              recorder: Recorder) -> None:
    """admin.*, auth.*, config and debug.events are refused for PERMISSION_DENIED (its code -31403 and
    HTTP 403 are AGENTD_REFUSE_011's) to user and agent principals, with and without grants naming
    them; the operator runs config.
    An op refused otherwise is asked of the operator too: refused to the operator as well, it is not
    served on this instance, which the serving row judges (:data:`SERVED_BY`), and this check is
    blocked by it. Catches ``grant-reaches-operator-op``."""
    made, tokens = make_principals(agent_targets, ROLE_SPECS)
    inst = declaring(agent_targets, COMMAND, principals=made, introspection=True, device_grant=True)
    with rpc_client(inst, recorder=recorder, token=tokens["op-1"]) as c:
        answer_message(send_command(c, "config"), "config as the operator")
    wrong = []
    unserved: dict[str, str] = {}
    for name in ("user-granted", "agent-granted", "user-plain", "agent-plain"):
        with rpc_client(inst, recorder=recorder, token=tokens[name]) as c:
            for op in OPERATOR_ONLY_OPS:
                reply = send_command(c, op, OPERATOR_ONLY_ARGS[op])
                if reply.error is None:
                    wrong.append(f"{name}: {op} was answered {quote(reply.result, 200)}")
                    continue
                got = refusal(reply, f"{op} as {name}")
                problems = [] if got.view.reason == DENIED else [f"refused for {got.view.reason!r}, not {DENIED}"]
                if problems and (op in unserved or _not_served(inst, recorder, tokens["op-1"], op, got.view.reason)):
                    unserved.setdefault(op, f"refused {got.view.code} {got.view.reason}")
                elif problems:
                    wrong.append(f"{name}: {op}: {'; '.join(problems)}")
    if wrong:
        fail("operator-only ops reached or refused wrongly: " + " | ".join(wrong))
    for op, how in unserved.items():
        blocked_by(SERVED_BY[op], f"{op} is refused to the operator too ({how}) on an instance serving its "
                                  "family, so who may reach it cannot be seen")


#: The page's reasons for an op this instance does not serve (whoever asks).
NOT_SERVED = ("UNKNOWN_OP", "INTROSPECTION_DISABLED")


def _not_served(inst: Instance, recorder: Recorder, token: str, op: str, reason: str | None) -> bool:
    """Whether ``op``, refused to another role for ``reason``, is refused to the operator for the same
    "not served here" reason. The operator's probe carries an argument no op takes, so a served op is
    refused INVALID_COMMAND_ARGS and runs nothing."""
    if reason not in NOT_SERVED:
        return False
    with rpc_client(inst, recorder=recorder, token=token) as c:
        reply = send_command(c, op, {**OPERATOR_ONLY_ARGS[op], "conformanceProbe": True})
    if reply.error is None:
        return False
    return refusal(reply, f"{op} as the operator").view.reason == reason


# ---- workflow-declared commands ----------------------------------------------------------------

@pytest.mark.requirement("AGENTD_CMD_016")
@pytest.mark.depends_on("AGENTD_CMD_004", READ_REPLY_ROW, WORK_REPLY_ROW)
def test_a_workflow_command_starts_its_workflow_with_schema_checked_arguments(agent_targets: AgentTargets,
                                                                              recorder: Recorder) -> None:
    """``review.change`` (declared by workflow review, schema: change is a required string) starts
    the workflow and answers a Task; arguments off its schema are refused with
    INVALID_COMMAND_ARGS. An argument the command does not take is refused too, but by
    AGENTD_CMD_004's rule, not by the start step's schema (which does not close its properties): one
    that is not refused blocks this check by that row. Catches ``workflow-command-unvalidated``."""
    inst = declaring(agent_targets, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        before = _review_runs(c)
        task = work_task(send_command(c, "review.change", {"change": "c-1"}), "review.change")
        settled(c, task, "review.change")
        after = _review_runs(c)
        if len(after) <= len(before):
            fail(f"review.change answered task {task.get('id')} but workflow.status shows no new review run: "
                 f"before {quote(before)}, after {quote(after)}")
        for args in ({"change": 5}, {}):
            refused_args(send_command(c, "review.change", args), f"review.change with {args}")
        extra = {"change": "c-2", "priority": "high"}
        reply = send_command(c, "review.change", extra)
        if reply.status == 200 and reply.error is None and reply.result is not None:
            blocked_by("AGENTD_CMD_004", f"review.change with the argument 'priority' it does not take was not "
                                         f"refused: {quote(reply.json or reply.body, 300)}")
        refused_args(reply, f"review.change with {extra}")


def _review_runs(c: Any) -> list[Any]:
    doc = read_document(send_command(c, "workflow.status"), "workflow.status")
    runs = doc.get("runs")
    if not isinstance(runs, list):
        runs = []
    return [r for r in runs if isinstance(r, dict) and r.get("workflow") == "review"]


WF_SPECS = (
    ("wf-op", "operator", ()),
    ("agent-with-grant", "agent", ("review.change",)),
    ("agent-without-grant", "agent", ()),
    ("user-with-grant", "user", ("review.change",)),
)


@pytest.mark.requirement("AGENTD_CMD_017")
@pytest.mark.depends_on(WORK_REPLY_ROW)
def test_a_workflow_command_needs_a_grant_and_an_admitted_role(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """review.change (start admits operator and agent) is run for the operator and for an agent
    whose grants name it; an agent without the grant and a granted user (role not admitted) get
    PERMISSION_DENIED (code and HTTP status: AGENTD_REFUSE_011's). Catches ``workflow-command-ignores-grants``."""
    made, tokens = make_principals(agent_targets, WF_SPECS)
    inst = declaring(agent_targets, COMMAND, principals=made, workflows=workflows())
    for name in ("wf-op", "agent-with-grant"):
        with rpc_client(inst, recorder=recorder, token=tokens[name]) as c:
            work_task(send_command(c, "review.change", {"change": unique("c")}), f"review.change as {name}")
    for name in ("agent-without-grant", "user-with-grant"):
        with rpc_client(inst, recorder=recorder, token=tokens[name]) as c:
            refused_for(send_command(c, "review.change", {"change": unique("c")}), f"review.change as {name}",
                        DENIED)


@pytest.mark.requirement("AGENTD_CMD_018")
@pytest.mark.depends_on("AGENTD_CMD_016")
def test_a_workflow_declaring_a_built_in_op_name_is_refused_at_validation(agent_targets: AgentTargets,
                                                                          recorder: Recorder,
                                                                          evidence: Evidence) -> None:
    """An instance configured with a workflow whose command is ``status`` does not start (a launched
    reference raises its configuration error; an image's process exits before its card answers); a
    target that starts anyway shadows a built-in op. Catches ``workflow-shadows-builtin``."""
    if not agent_targets.launchable:
        lacking("launch_config")
    schema = {"type": "object", "properties": {}}
    # The paired control: the same workflow declaring a free op name must start, or a refusal of the
    # shadowing one says nothing about reserved names (an image that refuses every workflow, say).
    free, _started = agent_targets.refusal(workflows=(Workflow("shadow", command="shadow.probe", schema=schema),))
    if free is not None:
        blocked_by("AGENTD_CMD_016", f"an instance configured with a workflow declaring the free op "
                                     f"'shadow.probe' does not start either: {free[:600]}")
    shadow = Workflow("shadow", command="status", schema=schema)
    refused, inst = agent_targets.refusal(workflows=(shadow,))  # launch_config
    if refused is not None:
        evidence.add("the refusal to start", refused)
        return
    assert inst is not None
    with rpc_client(inst, recorder=recorder) as c:
        reply = send_command(c, "status")
    fail(f"an instance whose workflow 'shadow' declares the built-in op 'status' started; status now answers "
         f"{quote(reply.json, 300)}")
