"""Steps many core checks share: making a task over the wire, waiting on it, fetching the card."""

from __future__ import annotations

import time
from typing import Any

import httpx
from a2a.types import a2a_pb2 as pb

from conformance.outcome import fail, not_measured
from conformance.suites.agent.core.agent import CoreAgent
from conformance.suites.agent.core.caller import Answer, Caller, Service
from conformance.suites.agent.core.expect import TERMINAL, send_params, state_of, strict, succeeded, task_of
from conformance.wire import Recorder
from conformance.wire.httpbase import HttpReply
from conformance.wire.rest import RestClient


def send(caller: Caller, text: str = "conformance check", *, service: Service | None = None, **kw: Any) -> Answer:
    return caller.call("SendMessage", send_params(text, **kw), service=service)


def new_task(caller: Caller, text: str = "conformance check", **kw: Any) -> dict[str, Any]:
    """A task the agent creates for a plain text message (blocking send), strictly read."""
    ans = send(caller, text, **kw)
    result = succeeded(ans, "SendMessage")
    task = task_of(result, "SendMessage result")
    if task is None:
        not_measured("the agent answers a plain text message with a Message and creates no task, so there is "
                     "no task to exercise this behaviour on")
    strict(task, pb.Task, "the SendMessage task")
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
    result = succeeded(caller.call("GetTask", {"id": task_id, **params}), "GetTask")
    return dict(strict(result, pb.Task, "the GetTask result"))


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


def held_task(agent: CoreAgent, caller: Caller, state: str) -> str:
    """A task the harness holds in ``state`` (``working``, ``input-required``) and can move later;
    not_measured on a target the harness cannot steer. The task must be visible over ``caller``."""
    ctl = agent.need_control()
    tid = ctl.new_task(state)
    get_task(caller, tid)
    return tid


def fetch_card(agent: CoreAgent, recorder: Recorder) -> HttpReply:
    """GET the card at its well-known path (the origin's, or the agent's base's where the resolver
    found it there), recorded as evidence."""
    loc = agent.location
    if not loc.given:
        fail(f"the agent card could not be read: {loc.error}")
    url = loc.well_known_url
    with RestClient(loc.origin, uds=loc.uds, recorder=recorder,
                    headers={"Content-Type": None, "Accept": "application/json"}) as client:
        try:
            return client.request("GET", url[len(loc.origin):])
        except httpx.HTTPError as exc:
            fail(f"GET {url} failed: {type(exc).__name__}: {exc}")


def card_of(agent: CoreAgent) -> dict[str, Any]:
    if agent.card is None:
        fail(f"the agent card could not be read: {agent.card_error}")
    return agent.card
