"""Reading answers: results, the Message or Task a send answered, result documents, tasks polled until
they settle. Read as they came; their typing is AGENTD_DECL_007's, judged from every exchange of the
run (the recorder's reads, ``conformance.a2a.datamodel``), never a fail of the check reading them."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from conformance.a2a.tasks import state_of
from conformance.agentd.clients import ext
from conformance.judge import blocked_by, quote
from conformance.outcome import fail
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply
from conformance.wire.states import TERMINAL

#: The row whose own text demands that a task-reply op (work: workflow.run, subagent.send, a workflow's
#: command) answers with a Task. A check that runs work to have a task (to name, to watch, to annotate)
#: and is answered a Message is blocked by it (:func:`work_task`): the reply kind is not its subject.
WORK_REPLY_ROW: Final = "AGENTD_CMD_007"
#: The row whose own text demands that a message-reply op (a read) answers with a Message whose DataPart
#: is the result document. A check that reads a document to go on (a run id, the config) and finds no
#: such DataPart is blocked by it (:func:`read_document`).
READ_REPLY_ROW: Final = "AGENTD_CMD_005"


def ok_result(reply: RpcReply, what: str) -> Any:
    """The ``result`` of a successful answer; fails quoting the answer otherwise."""
    if reply.status != 200:
        fail(f"{what}: HTTP {reply.status}, expected 200; body {quote(reply.json or reply.body)}")
    if reply.error is not None:
        fail(f"{what}: refused with {reply.error.code} {reply.error.message!r}; error {quote(reply.json)}")
    if reply.result is None:
        fail(f"{what}: no result in the answer {quote(reply.json or reply.body)}")
    return reply.result


def send_answer(reply: RpcReply, what: str) -> dict[str, Any]:
    """The result of a SendMessage: ``{"message": …}`` or ``{"task": …}``."""
    result = ok_result(reply, what)
    if not isinstance(result, dict):
        fail(f"{what}: the result is not an object: {quote(result)}")
    return result


def answer_message(reply: RpcReply, what: str) -> dict[str, Any]:
    """The Message a send answered; fails when it answered anything else."""
    return _answered(reply, what, "message", "a Message")


def answer_task(reply: RpcReply, what: str) -> dict[str, Any]:
    """The Task a send answered; fails when it answered anything else."""
    return _answered(reply, what, "task", "a Task")


def _answered(reply: RpcReply, what: str, member: str, shown: str) -> dict[str, Any]:
    result = send_answer(reply, what)
    if member not in result:
        fail(f"{what}: expected {shown} reply, got {sorted(result)}: {quote(result)}")
    out: dict[str, Any] = result[member]
    return out


def work_task(reply: RpcReply, what: str) -> dict[str, Any]:
    """The Task a task-reply op answered, for a check that needs the task to go on: blocked by
    :data:`WORK_REPLY_ROW` when the op answered a Message instead (that row's own text, not the check's)."""
    result = send_answer(reply, what)
    if "task" not in result and isinstance(result.get("message"), dict):
        blocked_by(WORK_REPLY_ROW, f"{what} answered a Message, not a Task, so there is no task to go on with: "
                                   f"{quote(result, 300)}")
    return answer_task(reply, what)


def read_document(reply: RpcReply, what: str) -> dict[str, Any]:
    """The result document a message-reply op answered, for a check that needs the document to go on:
    blocked by :data:`READ_REPLY_ROW` when the answer is a Task, or a Message without exactly one DataPart
    holding an object (that row's own text, not the check's)."""
    result = send_answer(reply, what)
    message = result.get("message")
    if "task" in result and not isinstance(message, dict):
        blocked_by(READ_REPLY_ROW, f"{what} answered a Task, not a Message holding the result document: "
                                   f"{quote(result, 300)}")
    return reply_document(answer_message(reply, what), what)


def reply_document(message: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The result document of a read's reply Message, for a check that needs it to go on: blocked by
    :data:`READ_REPLY_ROW` when the Message does not hold exactly one DataPart holding an object."""
    parts = message.get("parts") or []
    if len(parts) != 1 or not isinstance(parts[0], dict) or not isinstance(parts[0].get("data"), dict):
        blocked_by(READ_REPLY_ROW, f"{what}: the reply Message holds no single DataPart with the result document, "
                                   f"so the document cannot be read: parts {quote(parts, 300)}")
    return data_document(message, what)


def data_document(message: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The result document of a read: the one part of the Message, a DataPart holding an object."""
    parts = message.get("parts") or []
    if len(parts) != 1 or not isinstance(parts[0], dict) or not isinstance(parts[0].get("data"), dict):
        fail(f"{what}: expected exactly one DataPart holding the result document, got parts {quote(parts)}")
    doc: dict[str, Any] = parts[0]["data"]
    return doc


def result_artifact(task: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The ``<taskId>.result`` artifact's document (one DataPart)."""
    want = f"{task.get('id')}.result"
    arts = [a for a in task.get("artifacts") or [] if isinstance(a, dict) and a.get("artifactId") == want]
    if len(arts) != 1:
        have = [a.get("artifactId") for a in task.get("artifacts") or [] if isinstance(a, dict)]
        fail(f"{what}: expected one artifact {want!r}, got artifact ids {have!r}")
    return data_document(arts[0], f"{what}: artifact {want}")


def get_task(client: JsonRpcClient, task_id: str, what: str, *, uris: Sequence[str] = ()) -> dict[str, Any]:
    """GetTask's task."""
    task = ok_result(client.call("GetTask", {"id": task_id}, headers=ext(*uris)), what)
    if not isinstance(task, dict):
        fail(f"{what}: GetTask answered {quote(task)}, not a task")
    out: dict[str, Any] = task
    return out


def settled(client: JsonRpcClient, task: dict[str, Any], what: str, *, timeout: float = 5.0) -> dict[str, Any]:
    """The task once it is terminal or input-required (polled with GetTask until ``timeout``)."""
    end = time.monotonic() + timeout
    while state_of(task) not in TERMINAL | {"TASK_STATE_INPUT_REQUIRED"}:
        if time.monotonic() > end:
            fail(f"{what}: task {task.get('id')} still {state_of(task)} after {timeout:g}s")
        time.sleep(0.05)
        task = get_task(client, str(task.get("id")), what)
    return task
