"""Steps many core checks share: making a task over the wire, holding one in a state, waiting on it,
fetching the card."""

from __future__ import annotations

import time
from typing import Any

import httpx

from conformance.a2a.messages import hint_send_params, send_params
from conformance.a2a.tasks import SEND_ROW, state_of, task_of
from conformance.judge import blocked_by, quote, succeeded
from conformance.judge.errors import DATA_ROW, ENVELOPE_ROW
from conformance.outcome import fail, not_measured
from conformance.targets.control import NO_LONG_RUNNING
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Answer, Caller, Service
from conformance.wire.card import fetch_card
from conformance.wire.httpbase import HttpReply
from conformance.wire.states import TERMINAL


def send(caller: Caller, text: str = "conformance check", *, service: Service | None = None, **kw: Any) -> Answer:
    return caller.call("SendMessage", send_params(text, **kw), service=service)


#: The rows whose own texts demand a new task's id and GetTask's answer: a step that cannot read those
#: is blocked by them (the core conftest declares them for every check that does not measure them).
ID_ROW, GET_ROW = "A2A_SEND_003", "A2A_TASK_001"
#: Every row a shared step may be blocked by: an answer with no readable result (the envelope, the data
#: model), a SendMessage answer that is neither a task nor a message, a task without an id, no GetTask.
STEP_ROWS = (ENVELOPE_ROW, DATA_ROW, SEND_ROW, ID_ROW, GET_ROW)


def new_task(caller: Caller, text: str = "conformance check", **kw: Any) -> dict[str, Any]:
    """A task the agent creates for a plain text message (blocking send), read leniently: the data
    model is the DATA rows' to judge (their findings), not the calling row's."""
    ans = send(caller, text, **kw)
    result = succeeded(ans, "SendMessage")
    task = task_of(result, "SendMessage result")
    if task is None:
        not_measured("the agent answers a plain text message with a Message and creates no task, so there is "
                     "no task to exercise this behaviour on")
    if not isinstance(task.get("id"), str) or not task["id"]:
        blocked_by(ID_ROW, f"the SendMessage task carries no id: {quote(task)}")
    return task


def terminal_task(caller: Caller, text: str = "conformance check") -> dict[str, Any]:
    """A task in a terminal state, made by a blocking send (polled briefly if it is still running)."""
    task = new_task(caller, text)
    if state_of(task) not in TERMINAL:
        task = wait_for_state(caller, task["id"], TERMINAL, timeout=5.0) or task
    if state_of(task) not in TERMINAL:
        not_measured(f"the agent's task for a plain message did not reach a terminal state (it is "
                     f"{state_of(task)}), so there is no terminal task to exercise this behaviour on")
    return task


def completed_task(caller: Caller, text: str = "conformance check") -> dict[str, Any]:
    task = terminal_task(caller, text)
    if state_of(task) != "TASK_STATE_COMPLETED":
        not_measured(f"the agent's task for a plain message ended {state_of(task)}, not completed")
    return task


def get_task(caller: Caller, task_id: str, **params: Any) -> dict[str, Any]:
    """The task GetTask answers for ``task_id``, read leniently."""
    result = succeeded(caller.call("GetTask", {"id": task_id, **params}), "GetTask")
    if not isinstance(result, dict):
        blocked_by(GET_ROW, f"the GetTask result for {task_id!r} is not an object: {quote(result)}")
    return dict(result)


def wait_for_state(caller: Caller, task_id: str, states: frozenset[str], timeout: float = 5.0) -> dict[str, Any] | None:
    """Poll GetTask until the task is in one of ``states`` (None if the deadline passes)."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        task = get_task(caller, task_id)
        if state_of(task) in states:
            return task
        if time.monotonic() >= deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def held_task(agent: CoreAgent, caller: Caller, state: str, *, moved: bool = False) -> str:
    """A task the harness holds in ``state`` (``working``, ``input-required``) and can move later
    (``moved``: the check will); not_measured on a target the harness cannot steer. The task must be
    visible over ``caller``.

    A ``working`` task the check will not move, on a target the harness did not launch, comes from
    the target's long-running hint (:func:`long_running_task`); without one the check says how to
    give it (and only then: the hint cannot move a task)."""
    caller.ready()  # an interface that gives no A2A answer blocks first: no state could be held on it
    if state == "working" and not moved and agent.control is None:
        return long_running_task(agent, caller)
    ctl = agent.need_control()
    tid = ctl.new_task(state)
    get_task(caller, tid)
    return tid


def long_running_task(agent: CoreAgent, caller: Caller) -> str:
    """A task in TASK_STATE_WORKING made over the wire from the target's long-running hint (a message
    text, and metadata, the user says the agent answers with a task that stays working until
    canceled), sent with ``returnImmediately``. not_measured when no hint was given, or when the agent
    did not answer the hint with a working task (the hint, not the agent, is then in question)."""
    hint = agent.long_running
    if not hint:
        not_measured(NO_LONG_RUNNING)
    kw: dict[str, Any] = {"configuration": {"returnImmediately": True}}
    params = send_params(str(hint.get("text") or ""), **kw)
    if hint.get("metadata"):
        params["message"]["metadata"] = dict(hint["metadata"])
    result = succeeded(caller.call("SendMessage", params), "SendMessage of the long-running hint")
    task = task_of(result, "the answer to the long-running hint")
    if task is None:
        not_measured("the agent answered the long-running hint with a Message, not a task; give a message text "
                     "it answers with a task that stays working (--long-running-text TEXT)")
    if state_of(task) != "TASK_STATE_WORKING":
        seen = wait_for_state(caller, task["id"], frozenset({"TASK_STATE_WORKING"}), timeout=5.0)
        if seen is None:
            not_measured(f"the agent's task {task['id']} for the long-running hint is {state_of(task)}, not "
                         "TASK_STATE_WORKING; give a message text it answers with a task that stays working")
    return str(task["id"])


#: How long a SendMessage with returnImmediately may take to answer (less where --call-timeout is less):
#: §3.2.2 asks for the answer right after the task is created, whatever work is left.
AT_ONCE = 10.0


def hold_params(agent: CoreAgent) -> dict[str, Any]:
    """SendMessage params of a message the agent answers with a task it keeps working until canceled: the
    user's long-running hint (``--long-running-text``), else the long-running text of a target the harness
    launched; not_measured when there is neither."""
    hint = agent.long_running
    if not hint and agent.control is not None and agent.control.hold_text:
        hint = {"text": agent.control.hold_text}
    if not hint:
        not_measured(NO_LONG_RUNNING)
    return hint_send_params(hint)


def well_known_card(agent: CoreAgent, recorder: Recorder) -> HttpReply:
    """GET the card at its well-known path (the origin's, or the agent's base's where the resolver
    found it there), recorded as evidence; with the user's credential where the card asked for one."""
    loc = agent.location
    if not loc.given:
        fail(f"the agent card could not be located: {loc.error}")
    url = loc.well_known_url
    try:
        return fetch_card(url, recorder, uds=loc.uds, token=agent.card_token)
    except httpx.HTTPError as exc:
        fail(f"GET {url} failed: {type(exc).__name__}: {exc}")


def card_of(agent: CoreAgent) -> dict[str, Any]:
    """The card; blocked by A2A_CARD_001 when it could not be read."""
    return agent.readable()
