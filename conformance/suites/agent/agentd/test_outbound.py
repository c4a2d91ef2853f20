"""agentd's own outbound client (the page's "Clients" section): what reaches a peer when a workflow sends.

The harness serves a recording peer, launches the target with a workflow whose ``a2a.send`` step
aims at that peer, starts the workflow over the wire (``workflow.run``, command extension
activated) and holds the request the peer received to the page. A running daemon's peers cannot be
configured from outside, so against an external target these checks end ``not_measured``; an image
is configured through its config switch, and reaches the peer on the harness's internal network (a
unix peer's folder is bind-mounted).
"""

from __future__ import annotations

import time
from typing import Any, Final

import pytest

from conformance.a2a.tasks import state_of
from conformance.agentd.answers import get_task, send_answer
from conformance.agentd.clients import rpc_client
from conformance.agentd.commands import send_command
from conformance.agentd.footing import card_of, commands_run, core_answers, deps, lacking, require_declared
from conformance.agentd.peer import SENDS, recording_peer
from conformance.agentd_page import (
    COMMAND,
    DATA_PART_KEY,
)
from conformance.agentd_page.launch import Peer, Workflow
from conformance.evidence import Evidence
from conformance.judge import quote, strict
from conformance.outcome import fail, not_measured
from conformance.receiver import Received, Receiver
from conformance.targets.instances import AgentTargets, Instance
from conformance.targets.pool import UNREACHABLE, way_back
from conformance.wire import Recorder
from conformance.wire.methods import CORE_METHODS, REQUEST_TYPES
from conformance.wire.states import TERMINAL

#: The relay is started with a command over the card's listener (AGENTD_DECL_001, AGENTD_DECL_013).
pytestmark = pytest.mark.depends_on(*deps(COMMAND))

#: How long the peer waits for the workflow's send to arrive, and how often the run is looked at meanwhile.
PEER_DEADLINE: Final = 20.0
POLL: Final = 0.2
#: The command the configured step sends (a read every agentd serves).
RELAY_COMMAND: Final = {"op": "status"}
RELAY: Final = "relay"


def _relay_instance(agent_targets: AgentTargets, peer_url: str) -> Instance:
    """A launched target with workflow ``relay`` whose a2a.send step sends RELAY_COMMAND to ``peer_url``."""
    relay = Workflow(RELAY, send_to=Peer(peer_url), send_command=dict(RELAY_COMMAND))
    inst = agent_targets.agentd(workflows=(relay,))
    require_declared(card_of(inst), COMMAND)  # the relay is started by a command
    core_answers(inst)  # and looked at with GetTask
    commands_run(inst)
    return inst


def _need_launch(agent_targets: AgentTargets, what: str) -> None:
    """The target must be configured with an a2a.send step aimed at ``what`` the harness serves, and
    reach the harness where it serves a peer (over TCP: with a scheme it calls, trusting the certificate)."""
    if not agent_targets.launchable:
        lacking("launch_config")
    if what == "a unix socket":
        if agent_targets.callback_host is None:
            not_measured(UNREACHABLE)
    else:
        way_back(agent_targets)


def _send_reaching_peer(agent_targets: AgentTargets, peer: Receiver, recorder: Recorder,
                        evidence: Evidence) -> Received:
    """Start ``relay`` over the wire and return the first send the peer received (fails when none came).

    The run is watched through its Task while the peer waits; a run answered with a Message instead (its
    reply kind is AGENTD_CMD_007's, not an outbound row's) leaves only the peer to wait on, until the deadline.
    A run that ended with nothing at the peer yet is given until the deadline too: the run may end as soon as
    its send was made (or its client gave up waiting for the answer) while the peer, under load, has not yet
    read the request it was sent.
    """
    inst = _relay_instance(agent_targets, peer.url)
    with rpc_client(inst, recorder=recorder) as c:
        answer = send_answer(send_command(c, "workflow.run", {"workflow": RELAY}), "workflow.run relay")
        task: dict[str, Any] | None = answer.get("task") if isinstance(answer.get("task"), dict) else None
        end = time.monotonic() + PEER_DEADLINE
        while not (got := peer.wait(1, POLL, match=lambda r: r.rpc_method in SENDS)):
            if time.monotonic() > end:
                break
            if task is not None and state_of(task) not in TERMINAL:  # kept for the note of a fail
                task = get_task(c, str(task.get("id")), "GetTask of the relay run")
        evidence.add("requests the peer received", [r.to_evidence() for r in peer.received()])
    if not got:
        seen = [f"{r.method} {r.path} {r.rpc_method!r}" for r in peer.received()]
        run = (f"the run's task is {state_of(task)} with status {quote(task.get('status'), 300)}" if task is not None
               else f"workflow.run answered {quote(answer, 300)}")
        fail(f"the relay workflow's a2a.send step names the peer {peer.url}, yet no send reached it (it received "
             f"{seen or 'nothing'}); {run}")
    return got[0]


def _sent_message(req: Received) -> dict[str, Any]:
    """The message of a send the peer received, its params read strictly as the send's request type."""
    body = req.json
    if not isinstance(body, dict):
        fail(f"the peer received a send whose body is not a JSON object: {req.body[:300]!r}")
    params = body.get("params")
    strict(params, REQUEST_TYPES[str(body.get("method"))], f"the {body.get('method')} params sent", path="$.params")
    msg = params.get("message") if isinstance(params, dict) else None
    if not isinstance(msg, dict):
        fail(f"the {body.get('method')} the peer received carries no message: {quote(body)}")
    return msg


def _named(lines: list[str]) -> list[str]:
    return [u.strip() for line in lines for u in line.split(",") if u.strip()]


@pytest.mark.requirement("AGENTD_CMD_019")
def test_outbound_client_activates_the_command_extension_by_header_and_message(
        agent_targets: AgentTargets, recorder: Recorder, evidence: Evidence) -> None:
    """A workflow step sending a command to a peer sends it activated twice: ``A2A-Extensions`` names
    the command URI and ``message.extensions`` lists it, with the command as the one DataPart under
    ``agentd``. Catches ``outbound-command-header-only`` and ``outbound-command-unmarked-header``."""
    _need_launch(agent_targets, "a peer")
    with recording_peer(host=str(agent_targets.callback_host), tls=agent_targets.callback_scheme == "https") as peer:
        req = _send_reaching_peer(agent_targets, peer, recorder, evidence)
    msg = _sent_message(req)
    parts = msg.get("parts") or []
    commands = [p for p in parts if isinstance(p, dict) and DATA_PART_KEY in (p.get("data") or {})]
    if len(commands) != 1 or commands[0]["data"][DATA_PART_KEY] != RELAY_COMMAND:
        fail(f"the step sends the command {quote(RELAY_COMMAND)}, but the message's parts are {quote(parts)}")
    problems = []
    lines = req.header("A2A-Extensions")
    if COMMAND not in _named(lines):
        problems.append(f"the A2A-Extensions header does not name {COMMAND} (header lines {lines!r})")
    marks = msg.get("extensions")
    if not isinstance(marks, list) or COMMAND not in marks:
        problems.append(f"message.extensions does not list {COMMAND} (got {marks!r})")
    if problems:
        fail(f"the outbound command is not activated twice: {'; '.join(problems)}; message {quote(msg)}")


@pytest.mark.requirement("AGENTD_UDS_008")
def test_outbound_client_dials_a_unix_peer_with_the_json_rpc_binding(
        agent_targets: AgentTargets, recorder: Recorder, evidence: Evidence) -> None:
    """A peer named ``unix:///<path>`` receives the step's send over its socket (the peer listens
    nowhere else) as the JSON-RPC binding unchanged: HTTP/1.1 POST, JSON body, ``A2A-Version: 1.0``,
    a JSON-RPC 2.0 envelope naming a core method, params that read strictly. Catches
    ``outbound-ignores-unix-peer``."""
    _need_launch(agent_targets, "a unix socket")
    with recording_peer(unix=True) as peer:
        req = _send_reaching_peer(agent_targets, peer, recorder, evidence)
    problems = []
    if req.version != "HTTP/1.1":
        problems.append(f"it is {req.version}, not HTTP/1.1")
    if req.method != "POST":
        problems.append(f"its HTTP method is {req.method}, not POST")
    ctype = req.header("Content-Type")
    if not ctype or ctype[0].split(";")[0].strip().lower() != "application/json":
        problems.append(f"Content-Type is {ctype!r}, not application/json")
    if req.header("A2A-Version") != ["1.0"]:
        problems.append(f"A2A-Version header lines are {req.header('A2A-Version')!r}, expected ['1.0']")
    body = req.json
    if not isinstance(body, dict):
        fail(f"the send that came over the socket is not a JSON object: {req.body[:300]!r}")
    if body.get("jsonrpc") != "2.0" or "id" not in body:
        problems.append(f"the envelope is not JSON-RPC 2.0 with an id: {quote(body, 300)}")
    if body.get("method") not in CORE_METHODS:
        problems.append(f"method {body.get('method')!r} is not a core A2A method")
    if problems:
        fail(f"the send that reached {peer.url} is not the JSON-RPC binding unchanged: {'; '.join(problems)}")
    _sent_message(req)
