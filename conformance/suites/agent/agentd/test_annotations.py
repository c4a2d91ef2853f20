"""The task-annotations extension: agentd's facts about a task in ``Task.metadata[<URI>]`` (link,
created, statusHistory oldest first, principal, askSchema, askChannel, command), valid against the
bundle, only in answers to requests that activated it (and on feed task events likewise), never in
a webhook body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from a2a.types.a2a_pb2 import StreamResponse, Task

from conformance.a2a.datamodel import read_object
from conformance.a2a.messages import send_params, text_message
from conformance.agentd.answers import (
    WORK_REPLY_ROW,
    answer_task,
    get_task,
    ok_result,
    result_artifact,
    settled,
    work_task,
)
from conformance.agentd.bundles import bundles
from conformance.agentd.clients import ext, rpc_client, served_card
from conformance.agentd.commands import command_message, send_command
from conformance.agentd.configs import ASK_CHANNEL, ASK_SCHEMA, standard
from conformance.agentd.echo import echo_of
from conformance.agentd.feed import STREAM_ROW, FeedReader, Sentinel, hello_of
from conformance.agentd.footing import LIST_ROW, declaring, deps, lists_read
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
)
from conformance.context import RunContext
from conformance.judge import blocked_by, quote, unique
from conformance.outcome import fail, not_measured
from conformance.receiver import Receiver
from conformance.targets.instances import AgentTargets, Instance
from conformance.targets.pool import way_back
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply

#: Every check here is about how the declared task-annotations extension behaves (blocked by
#: AGENTD_DECL_002 when it is not declared); tasks are made with commands (AGENTD_DECL_001), and the
#: feed check needs the events extension (AGENTD_DECL_003). A task made with a work command stands on the
#: row demanding that work answers with a Task (:data:`WORK_REPLY_ROW`); the feed check reads frames, standing
#: on the row demanding an event stream (:data:`STREAM_ROW`).
pytestmark = pytest.mark.depends_on(*deps(ANNOTATIONS, COMMAND, EVENTS), WORK_REPLY_ROW, STREAM_ROW)

def annotations_of(task: dict[str, Any]) -> Any:
    return (task.get("metadata") or {}).get(ANNOTATIONS)


#: The row whose own text demands the annotations object on a Task answer to a request that activated
#: the extension. A check of what the object holds, finding no object on such an answer, is blocked by it.
CARRIED_BY = "AGENTD_ANN_001"
#: The row whose own text says on which methods task-annotations is activated.
ACTIVATED_BY = "AGENTD_NEG_011"
#: Marks a check reading members of the annotations object (blocked by :data:`CARRIED_BY` without one).
READS_ANNOTATIONS = pytest.mark.depends_on(CARRIED_BY, ACTIVATED_BY)


def _ann(task: dict[str, Any], what: str, *, own: bool = False) -> dict[str, Any]:
    """The annotations object ``task`` carries. Without one: blocked by :data:`CARRIED_BY` for a check
    of its members, a fail for a check (``own``) whose own text demands the object there."""
    ann = annotations_of(task)
    if not isinstance(ann, dict):
        missing = (f"{what}: task {task.get('id')} carries no annotations object under metadata[{ANNOTATIONS!r}]; "
                   f"metadata {quote(task.get('metadata'))}")
        if own:
            fail(missing)
        blocked_by(CARRIED_BY, missing)
    return ann


def _first_task_frame(reply: Any, what: str) -> dict[str, Any]:
    if reply.errors or not reply.results:
        fail(f"{what}: no stream frame; errors {[(e.code, e.message) for e in reply.errors]}, "
             f"body {quote(reply.json or reply.body)}")
    first = reply.results[0]
    if not isinstance(first, dict) or "task" not in first:
        fail(f"{what}: the first frame carries no Task: {quote(first)}")
    task: dict[str, Any] = first["task"]
    return task


def _task_result(reply: RpcReply, method: str) -> dict[str, Any]:
    """The Task ``method`` (GetTask, CancelTask) answered; fails when it answered anything else."""
    task = ok_result(reply, method)
    if not isinstance(task, dict):
        fail(f"{method} answered {quote(task)}, not a task")
    out: dict[str, Any] = task
    return out


#: One Task answer: where it came from, the Task, and whether the answer echoed task-annotations (the
#: server's word that the request activated it).
Answer = tuple[str, dict[str, Any], bool]


def task_answers(c: JsonRpcClient, uris: tuple[str, ...]) -> list[Answer]:
    """A Task from every answer that carries one: SendMessage (a message and a command),
    SendStreamingMessage, GetTask, ListTasks, SubscribeToTask and CancelTask, each request naming
    ``uris`` in A2A-Extensions."""
    h = ext(*uris)
    out: list[Answer] = []

    def add(where: str, task: dict[str, Any], reply: Any) -> None:
        out.append((where, task, ANNOTATIONS in (echo_of(reply.headers) or [])))

    sent = c.call("SendMessage", send_params(text_message("hello")), headers=h)
    add("SendMessage", answer_task(sent, "SendMessage"), sent)
    cmd = c.call("SendMessage", send_params(command_message("workflow.run", {"workflow": "hold"})),
                 headers=ext(COMMAND, *uris))
    held = work_task(cmd, "SendMessage with workflow.run")
    add("SendMessage (a command)", held, cmd)
    stream = c.stream("SendStreamingMessage", send_params(text_message("hello")), headers=h, deadline=5.0,
                      until=lambda e: True)
    add("SendStreamingMessage", _first_task_frame(stream, "SendStreamingMessage"), stream)
    got = c.call("GetTask", {"id": held["id"]}, headers=h)
    add("GetTask", _task_result(got, "GetTask"), got)
    listed_reply = c.call("ListTasks", {"contextId": held["contextId"]}, headers=h)
    listed = ok_result(listed_reply, "ListTasks")
    tasks = listed.get("tasks") if isinstance(listed, dict) else None
    mine = [t for t in tasks or [] if isinstance(t, dict) and t.get("id") == held["id"]]
    if not mine:
        fail(f"ListTasks for context {held['contextId']} does not list task {held['id']}: {quote(listed)}")
    add("ListTasks", mine[0], listed_reply)
    sub = c.stream("SubscribeToTask", {"id": held["id"]}, headers=h, deadline=5.0, until=lambda e: True)
    add("SubscribeToTask", _first_task_frame(sub, "SubscribeToTask"), sub)
    cancel = c.call("CancelTask", {"id": held["id"]}, headers=h)
    add("CancelTask", _task_result(cancel, "CancelTask"), cancel)
    return out


def activated(answers: list[Answer]) -> list[tuple[str, dict[str, Any]]]:
    """The answers whose echo says task-annotations was activated: the ones whose annotations a check of
    the object's members judges (on which methods it is activated is AGENTD_NEG_011's). Blocked by that
    row when none was."""
    out = [(where, task) for where, task, echoed in answers if echoed]
    if not out:
        blocked_by(ACTIVATED_BY, f"no answer echoed task-annotations though every request named it "
                                 f"({', '.join(w for w, _t, _e in answers)})")
    return out


# ---- present exactly when activated ------------------------------------------------------------

@pytest.mark.requirement("AGENTD_ANN_001")
@pytest.mark.depends_on(ACTIVATED_BY, LIST_ROW)
def test_every_task_answer_carries_annotations_when_activated(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """With task-annotations named, every answer carrying a Task (both sends, GetTask, ListTasks,
    SubscribeToTask, CancelTask) and echoing it holds the annotations object under metadata[<URI>].
    An answer that neither echoes nor carries them was not activated, which is AGENTD_NEG_011's to
    judge (or AGENTD_NEG_001's, on an instance reading only part of a line naming several URIs, as the
    command's does): with the others right, the row is blocked by it. Catches ``annotations-missing``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        answers = task_answers(c, (ANNOTATIONS,))
    bare = {where: task for where, task, _e in answers if not isinstance(annotations_of(task), dict)}
    missing = [where for where, _t, echoed in answers if echoed and where in bare]
    if missing:
        fail(f"answers without the annotations object though task-annotations was activated (and echoed): "
             f"{missing}; e.g. metadata {quote(bare[missing[0]].get('metadata'))}")
    if bare:
        lists_read(inst)
        blocked_by(ACTIVATED_BY, f"answers to requests naming task-annotations neither echo it nor carry the "
                                 f"annotations (not activated there): {sorted(bare)}")


@pytest.mark.requirement("AGENTD_ANN_002")
def test_no_answer_carries_annotations_without_activation(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Naming other extensions (events) but not task-annotations, no Task answer carries them.
    Catches ``annotations-without-activation``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        answers = task_answers(c, (EVENTS,))
    leaked = [where for where, task, _e in answers if annotations_of(task) is not None]
    if leaked:
        fail(f"answers carrying annotations though task-annotations was not activated: {leaked}")


@pytest.mark.requirement("AGENTD_ANN_010")
@READS_ANNOTATIONS
def test_annotations_are_valid_against_the_bundle(agent_targets: AgentTargets, recorder: Recorder,
                                                  run_context: RunContext) -> None:
    """Every annotations object (on every Task answer, and at an input-required gate) validates
    against the task-annotations bundle. Catches ``annotations-extra-member``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    b = bundles(run_context)
    with rpc_client(inst, recorder=recorder) as c:
        answers = activated(task_answers(c, (ANNOTATIONS,)))
        gate = _ask_task(c)
    for where, task in [*answers, ("an input-required task", gate)]:
        b.check("task-annotations", "", _ann(task, where), f"the annotations of {where}")


# ---- members -----------------------------------------------------------------------------------

def _run(c: JsonRpcClient, op: str, args: dict[str, Any]) -> dict[str, Any]:
    task = work_task(send_command(c, op, args, uris=(ANNOTATIONS,)), op)
    task = settled(c, task, op)
    return get_task(c, task["id"], op, uris=(ANNOTATIONS,))


def _turn(c: JsonRpcClient) -> dict[str, Any]:
    return answer_task(c.call("SendMessage", send_params(text_message("hi")), headers=ext(ANNOTATIONS)), "a message")


def _ask_task(c: JsonRpcClient) -> dict[str, Any]:
    task = _run(c, "workflow.run", {"workflow": "ask"})
    if task.get("status", {}).get("state") != "TASK_STATE_INPUT_REQUIRED":
        fail(f"the ask workflow's task is {task.get('status')}, expected TASK_STATE_INPUT_REQUIRED")
    return task


@pytest.mark.requirement("AGENTD_ANN_003")
@READS_ANNOTATIONS
def test_link_names_what_the_task_tracks(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """link is ``{kind, id}``: ``turn`` for a conversation turn, ``run`` (id the run's id) for a
    workflow run, ``subagent`` for a subagent turn. Catches ``link-kind-wrong``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        turn = _turn(c)
        run = _run(c, "workflow.run", {"workflow": "build"})
        sub = _run(c, "subagent.send", {"subagent": unique("s"), "text": "hi"})
    run_id = result_artifact(run, "the workflow.run task").get("runId")
    for what, task, kind, ident in (("a conversation turn", turn, "turn", None),
                                    ("a workflow run", run, "run", run_id),
                                    ("a subagent turn", sub, "subagent", None)):
        link = _ann(task, what).get("link")
        if not isinstance(link, dict) or set(link) != {"kind", "id"}:
            fail(f"{what}: link is {quote(link)}, expected an object with exactly kind and id")
        if link["kind"] != kind:
            fail(f"{what}: link.kind is {link['kind']!r}, expected {kind!r}")
        if not isinstance(link["id"], str) or not link["id"]:
            fail(f"{what}: link.id is {link['id']!r}, expected a non-empty string")
        if ident is not None and link["id"] != ident:
            fail(f"{what}: link.id is {link['id']!r}, the run's id is {ident!r}")


def _when(value: Any, what: str) -> datetime:
    if not isinstance(value, str):
        fail(f"{what} is {value!r}, expected an RFC 3339 timestamp")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        fail(f"{what} is {value!r}, not an RFC 3339 timestamp")
    if when.tzinfo is None:
        fail(f"{what} is {value!r}, a timestamp without an offset")
    return when


@pytest.mark.requirement("AGENTD_ANN_004")
@READS_ANNOTATIONS
def test_created_is_always_present(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """created is present on every annotated task, a timestamp no later than its first recorded
    state. Catches ``no-created``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        answers = activated(task_answers(c, (ANNOTATIONS,)))
    for where, task in answers:
        ann = _ann(task, where)
        if "created" not in ann:
            fail(f"{where}: the annotations carry no created: {quote(ann)}")
        created = _when(ann["created"], f"{where}: created")
        history = ann.get("statusHistory") or []
        if history and isinstance(history[0], dict):
            first = _when(history[0].get("ts"), f"{where}: statusHistory[0].ts")
            if first < created:
                fail(f"{where}: created {ann['created']} is after the first state's ts {history[0].get('ts')}")


@pytest.mark.requirement("AGENTD_ANN_005")
@READS_ANNOTATIONS
def test_status_history_is_every_state_oldest_first_ending_in_the_current_one(agent_targets: AgentTargets,
                                                                              recorder: Recorder) -> None:
    """statusHistory lists each state ``{state, ts}`` oldest first and ends in the task's current
    state: a held run canceled went through working to canceled; a completed run ends completed.
    Catches ``history-newest-first``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        held = work_task(send_command(c, "workflow.run", {"workflow": "hold"}, uris=(ANNOTATIONS,)), "workflow.run")
        canceled = ok_result(c.call("CancelTask", {"id": held["id"]}, headers=ext(ANNOTATIONS)), "CancelTask")
        done = _run(c, "workflow.run", {"workflow": "build"})
    for what, task, path in (("the canceled run", canceled, ("TASK_STATE_WORKING", "TASK_STATE_CANCELED")),
                             ("the completed run", done, ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED"))):
        history = _ann(task, what).get("statusHistory")
        if not isinstance(history, list) or not history or not all(isinstance(h, dict) for h in history):
            fail(f"{what}: statusHistory is {quote(history)}, expected a non-empty list of {{state, ts}}")
        states = [h.get("state") for h in history]
        times = [_when(h.get("ts"), f"{what}: statusHistory ts") for h in history]
        if states[-1] != task.get("status", {}).get("state"):
            fail(f"{what}: statusHistory ends in {states[-1]!r}, the task is {task.get('status', {}).get('state')!r};"
                 f" history {states}")
        if times != sorted(times):
            fail(f"{what}: statusHistory is not oldest first: {quote(history)}")
        at = [states.index(s) if s in states else -1 for s in path]
        if -1 in at or at != sorted(at):
            fail(f"{what}: statusHistory {states} does not show {list(path)} in that order")


@pytest.mark.requirement("AGENTD_ANN_006")
@READS_ANNOTATIONS
def test_principal_names_who_started_the_task(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Tasks started by the user, the agent and the operator name their starters: present, the same
    for the same caller, different between callers. Catches ``no-principal``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    seen: dict[str, list[Any]] = {}
    for role in ("user", "user", "agent", "operator"):
        with rpc_client(inst, role, recorder=recorder) as c:
            task = answer_task(c.call("SendMessage", send_params(text_message("hi")), headers=ext(ANNOTATIONS)),
                               f"a message from the {role}")
        principal = _ann(task, f"the {role}'s task").get("principal")
        if not isinstance(principal, str) or not principal:
            fail(f"the {role}'s task: principal is {principal!r}, expected who started it")
        seen.setdefault(role, []).append(principal)
    if len(set(seen["user"])) != 1:
        fail(f"two tasks of the same user name different principals {seen['user']}")
    if len({seen["user"][0], seen["agent"][0], seen["operator"][0]}) != 3:
        fail(f"tasks of different callers name the same principal: {seen}")


def _expect_gate_member(agent_targets: AgentTargets, recorder: Recorder, member: str, configured: Any,
                        show: Callable[[Any], str], gate: str) -> None:
    """The annotations of a run stopped at the standard instance's input-required gate hold ``member`` as
    ``configured``; fail showing (with ``show``) what they hold and what the ``gate`` does."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        ann = _ann(_ask_task(c), "the input-required task")
    if ann.get(member) != configured:
        fail(f"{member} is {show(ann.get(member))}, {gate} {show(configured)}")


@pytest.mark.requirement("AGENTD_ANN_007")
@READS_ANNOTATIONS
def test_input_required_task_carries_the_ask_schema(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """A run stopped at an input-required gate carries askSchema, the JSON Schema of the answer the
    gate asks for (the one configured). Catches ``no-ask-schema``."""
    _expect_gate_member(agent_targets, recorder, "askSchema", ASK_SCHEMA, quote, "the gate asks for")


@pytest.mark.requirement("AGENTD_ANN_008")
@READS_ANNOTATIONS
def test_input_gate_names_where_it_is_announced(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """A gate announced on a channel carries askChannel naming it. Catches ``no-ask-channel``."""
    _expect_gate_member(agent_targets, recorder, "askChannel", ASK_CHANNEL, repr, "the gate is announced on")


@pytest.mark.requirement("AGENTD_ANN_009")
@READS_ANNOTATIONS
def test_command_names_the_op_that_started_the_task(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Tasks started by workflow.run, subagent.send and the workflow-declared review.change name
    that op in command; a plain message's task names none. Catches ``no-command``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    with rpc_client(inst, recorder=recorder) as c:
        started = [("workflow.run", _run(c, "workflow.run", {"workflow": "build"})),
                   ("subagent.send", _run(c, "subagent.send", {"subagent": unique("s"), "text": "hi"})),
                   ("review.change", _run(c, "review.change", {"change": "c-1"}))]
        turn = _turn(c)
    for op, task in started:
        got = _ann(task, f"the {op} task").get("command")
        if got != op:
            fail(f"the task started by {op}: command is {got!r}, expected {op!r}")
    if "command" in _ann(turn, "a conversation turn"):
        fail(f"a task started by a plain message names command {_ann(turn, 'turn')['command']!r}")


# ---- the feed and webhooks ---------------------------------------------------------------------

def _sentinel_events(inst: Instance, recorder: Recorder, uris: tuple[str, ...]) -> list[dict[str, Any]]:
    sentinel = Sentinel()
    with (rpc_client(inst, recorder=recorder) as c,
          FeedReader(rpc_client(inst, recorder=recorder), {}, uris=uris, stop_when=sentinel.seen) as feed):
        feed.wait_for(lambda r: hello_of(r) is not None, "the hello frame")
        sentinel.send(c)
        events = sentinel.events(feed.wait_for(sentinel.seen, "the sentinel task's event"))
    return events


@pytest.mark.requirement("AGENTD_ANN_011")
@pytest.mark.depends_on(LIST_ROW)
def test_feed_task_events_carry_annotations_exactly_when_activated(agent_targets: AgentTargets,
                                                                   recorder: Recorder) -> None:
    """On a subscription naming events and task-annotations, a task event's task carries the
    annotations object; naming events alone, it does not. (What the object holds is judged by the rows
    of its members and of the bundle, AGENTD_ANN_003..010 and AGENTD_DECL_014, on every answer and
    feed frame.) The subscription names both on one line: on an instance reading only part of such a
    line (AGENTD_NEG_001's), a task event without them is blocked by that row. Catches
    ``feed-task-unannotated``."""
    inst = declaring(agent_targets, ANNOTATIONS, EVENTS)
    for ev in _sentinel_events(inst, recorder, (EVENTS, ANNOTATIONS)):
        task = read_object(recorder, f"the task of task event seq {ev.get('seq')}", ev["data"]["task"], Task, "feed")
        if not isinstance(annotations_of(task), dict):
            lists_read(inst)
        _ann(task, f"the task event seq {ev.get('seq')}", own=True)
    for ev in _sentinel_events(inst, recorder, (EVENTS,)):
        if annotations_of(ev["data"]["task"]) is not None:
            fail(f"task event seq {ev.get('seq')} carries annotations on a feed that did not activate them")


@pytest.mark.requirement("AGENTD_ANN_012")
def test_webhook_body_never_carries_annotations(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """A webhook registered (and the task canceled) by requests naming task-annotations delivers
    bodies without them, to a receiver in the test process (on loopback, or where a container reaches it).
    Catches ``webhook-carries-annotations``."""
    inst = declaring(agent_targets, ANNOTATIONS, COMMAND, **standard())
    if (served_card(inst, recorder).get("capabilities") or {}).get("pushNotifications") is not True:
        not_measured("the target does not declare push notifications (capabilities.pushNotifications)")
    host = way_back(inst)
    with Receiver(host=host, tls=inst.callback_scheme == "https") as hook, \
            rpc_client(inst, recorder=recorder) as c:
        held = work_task(send_command(c, "workflow.run", {"workflow": "hold"}, uris=(ANNOTATIONS,)), "workflow.run")
        ok_result(c.call("CreateTaskPushNotificationConfig",
                         {"taskId": held["id"], "url": hook.url, "token": unique("hook")},
                         headers=ext(ANNOTATIONS)), "CreateTaskPushNotificationConfig")
        ok_result(c.call("CancelTask", {"id": held["id"]}, headers=ext(ANNOTATIONS)), "CancelTask")
        got = hook.wait(1, 5.0)
    if not got:
        fail(f"push notifications are declared and a webhook was registered for task {held['id']}, "
             f"yet nothing arrived at {hook.url} within 5s of canceling it")
    for i, d in enumerate(got):
        body = d.json if d.json is not None else d.body.decode("utf-8", "replace")
        if d.json is not None:
            read_object(recorder, f"webhook body {i}", d.json, StreamResponse, "webhook")
        if ANNOTATIONS in json.dumps(body):
            fail(f"webhook body {i} carries the annotations: {quote(body)}")
