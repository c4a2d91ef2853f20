"""Fixtures of the CLI half: the CLI under test, and the scripted agent it is run against.

Every CLI invocation and every request the agent received is attached to the check's evidence,
redacted of the run's secrets. Checks use only these fixtures and ``conformance.clicheck.output``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import unquote

import pytest

from conformance.clicheck.gates import (
    IMPLICIT,
    EarlyReturns,
    PollsThroughInterruption,
    add_implicit_depends,
    version_refused,
)
from conformance.clicheck.invocations import AgentMaker, Cli, SecretMaker
from conformance.clicheck.transport_checks import short_task_script
from conformance.context import RunContext
from conformance.evidence import Evidence, SecretSet
from conformance.fixtures.scripted_agent import Interface, RecordedRequest, Script, ScriptedAgent
from conformance.fixtures.scripted_agent.card import WELL_KNOWN_CARD_PATH, Binding
from conformance.judge import DEPENDS_MARKER, Blocked, blocked_by
from conformance.plugin.outcomes import block_if_not_reached
from conformance.targets.model import CliTarget

#: What the checks import from here: the card reference flag (the types live in the library).
__all__ = ["HARNESS_HEADER", "TWO_TRANSPORTS", "card_read", "card_ref", "first_event_sent", "first_spoken",
           "require_bindings", "subscriptions", "unspoken"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every CLI check that starts an agent stands on the tool's version signal and on a plain send
    waiting for the task's end (``conformance.clicheck.gates``): it declares so, unless it judges them."""
    add_implicit_depends([it for it in items if "/cli/" in str(it.path).replace("\\", "/")])


@pytest.fixture(scope="session")
def cli_target(run_context: RunContext) -> CliTarget:
    return CliTarget.from_dict(run_context.target)


def _marked(node: pytest.Item, name: str) -> list[str]:
    return [rid for m in node.iter_markers(name) for rid in m.args]


@pytest.fixture
def cli(cli_target: CliTarget, evidence: Evidence, run_secrets: SecretSet,
        request: pytest.FixtureRequest) -> Iterator[Cli]:
    implicit = request.node.stash.get(IMPLICIT, ()) if isinstance(request.node, pytest.Item) else ()
    c = Cli(cli_target, evidence, run_secrets, own=_marked(request.node, "requirement"),
            declared=[r for r in _marked(request.node, DEPENDS_MARKER) if r not in implicit])
    yield c
    for r in c.results:
        r.cleanup()


def request_evidence(agent: ScriptedAgent) -> list[dict[str, Any]]:
    """What the agent received, for the evidence file."""
    out = []
    for r in agent.requests:
        out.append({"binding": r.binding, "method": r.method, "path": r.path, "query": r.query,
                    "tenant": r.tenant, "headers": dict(r.headers), "body": r.json if r.json is not None
                    else r.body.decode("utf-8", errors="replace")[:4000], "wall": r.wall,
                    "response_status": r.response_status})
    return out


#: A header on the requests a check itself makes to its agent (seeding a push config, asking what the agent
#: holds): they are not the tool's, so they never show that the tool reached the agent.
HARNESS_HEADER = "x-conformance-harness"

#: The row that names how `-a <URL>` finds the agent's card (SPEC.md §10.1: a bare origin gets the
#: well-known path appended).
CARD_ROW = "A2ACLI_CARD_GET_001"


def card_never_asked(agents: Sequence[ScriptedAgent]) -> str | None:
    """What shows the tool never asked for any agent's card, or None: the agents got requests, and every
    one was at a path that is neither a card (well-known or the script's own card path), a protocol
    endpoint, nor a side service (authorization server, catalog). Positive evidence that the tool's card
    lookup went wrong before anything else could happen — a card the script breaks on purpose (a 404,
    a bad document) is still asked for at its path, so it never counts here."""
    seen = [q for a in agents for q in a.requests if HARNESS_HEADER not in q.headers]
    if not seen or any(q.binding != "OTHER" for q in seen):
        return None
    asked = sorted({q.method for q in seen})
    return (f"the tool never asked for the agent card at {WELL_KNOWN_CARD_PATH} of the `-a` URL; the agent "
            f"saw only {asked[:3]}{' ...' if len(asked) > 3 else ''}")


@pytest.fixture
def agent(evidence: Evidence, record_transport: Callable[[str], None],
          run_secrets: SecretSet, request: pytest.FixtureRequest) -> Iterator[AgentMaker]:
    """``agent(script=Script(...), tls=..., grpc=...)`` starts a scripted agent for this check.

    Every credential the agent mints (access and refresh tokens, device codes, webhook tokens) joins
    the run's secrets, so no report or evidence file shows it. When the tool never asked any of the
    check's agents for its card (:func:`card_never_asked`), a check that then failed or measured nothing
    is blocked by the card row (for a check that declares it; DESIGN.md §2.8). Likewise, by the
    ``conformance.clicheck.gates``, when an agent refused a request of the tool for its A2A-Version, or a
    plain ``send`` of the check exited 0 while its task was still working, or a run of the tool polled on
    through a task waiting for the user.
    """
    started: list[ScriptedAgent] = []
    early = EarlyReturns(lambda: started, HARNESS_HEADER)
    through = PollsThroughInterruption(lambda: started, HARNESS_HEADER)
    if "cli" in request.fixturenames:
        request.getfixturevalue("cli").watchers.extend((early, through))

    def start(script: Script | None = None, **kwargs: Any) -> ScriptedAgent:
        kwargs.setdefault("secrets", run_secrets)
        a = ScriptedAgent(script, **kwargs)
        a.start()
        started.append(a)
        return a

    yield start
    if isinstance(request.node, pytest.Item):
        never = card_never_asked(started)
        if never is not None:
            block_if_not_reached(request.node, Blocked(CARD_ROW, never))
        implicit = request.node.stash.get(IMPLICIT, ())  # a check declaring the row itself blames it itself
        for gate in (version_refused(started, HARNESS_HEADER), early.blocked(), through.blocked()):
            if gate is not None and gate.by in implicit:
                block_if_not_reached(request.node, gate)
    for i, a in enumerate(started, 1):
        try:
            for r in a.requests:
                record_transport(r.binding)
            evidence.add(f"agent {i} requests", request_evidence(a))
            if a.deliveries:
                evidence.add(f"agent {i} webhook deliveries", [d.to_evidence() for d in a.deliveries])
        finally:
            a.stop()


@pytest.fixture
def new_secret(run_secrets: SecretSet) -> SecretMaker:
    """``new_secret("tok")`` makes a random credential and registers it with the run's secrets."""
    return run_secrets.make


def card_ref(agent: ScriptedAgent) -> Sequence[str]:
    """``-a <base URL>``: the spec's agent-card reference flag."""
    return ("-a", agent.base_url)


#: What a probe showed, once per tool and process: (target, binding) -> None when the tool spoke the binding,
#: else what it did instead (the card read, no request on the binding, a non-zero exit).
_PROBED: dict[tuple[int, str], str | None] = {}

#: The row a second transport belongs to: Tier 1 lets a tool speak one (SPEC.md §13.1 asks it to pick the
#: first card entry *it supports*); A2ACLI_TX_004 (Tier 2) asks for two.
TWO_TRANSPORTS = "A2ACLI_TX_004"
#: The bindings a probe tries (gRPC is TX_005's, probed by its own check).
PROBED_BINDINGS: tuple[Binding, ...] = ("JSONRPC", "HTTP+JSON")


def _probe(cli: Cli, agent: AgentMaker, binding: Binding) -> str | None | bool:
    """A ``send`` to a card offering ``binding`` alone: None when a request came on it or the send exited 0;
    what the tool did instead when it read the card and then made no such request and exited non-zero;
    False when it never read the card (nothing is learnt about the binding, and nothing is kept)."""
    key = (id(cli.target), binding)
    if key in _PROBED:
        return _PROBED[key]
    a = agent(short_task_script(Interface(binding)))
    r = cli.run("send", "--text", f"do you speak {binding}?", *card_ref(a))
    if any(q.binding == binding for q in a.a2a_requests()) or r.exit_code == 0:
        _PROBED[key] = None
    elif not card_read(a):
        return False
    else:
        _PROBED[key] = (f"a `send` to a card offering only {binding} read the card, reached none of its endpoints "
                        f"and exited {r.exit_code}")
    return _PROBED[key]


def unspoken(cli: Cli, agent: AgentMaker, binding: Binding) -> str | None:
    """What shows the tool does not speak ``binding``, or None. Positive evidence only: the tool read a card
    offering that binding alone and made no request on it, while it does speak another (a tool speaking
    neither has a broken send, which is SEND_001's, not a missing transport)."""
    why = _probe(cli, agent, binding)
    if not isinstance(why, str):
        return None
    if any(_probe(cli, agent, other) is None for other in PROBED_BINDINGS if other != binding):
        return why
    return None


def require_bindings(cli: Cli, agent: AgentMaker, *bindings: Binding) -> None:
    """End the check not measured, blocked by A2ACLI_TX_004, when the tool does not speak one of
    ``bindings``: what the check observes on that binding (or between two) cannot be seen on the tool."""
    for binding in bindings:
        why = unspoken(cli, agent, binding)
        if why is not None:
            blocked_by(TWO_TRANSPORTS, f"the tool does not speak {binding}: {why}")


def first_spoken(cli: Cli, agent: AgentMaker, order: Sequence[Binding]) -> Binding:
    """The first of ``order`` (a card's bindings, in its order) the tool speaks: the one SPEC.md §13.1 has
    it select with no preference given. The first of ``order`` when it speaks none (the send then fails
    on its own)."""
    return next((b for b in order if unspoken(cli, agent, b) is None), order[0])


def card_read(agent: ScriptedAgent) -> bool:
    """Did the tool get the agent's card? A card request the agent answered 200 — positive evidence that
    the tool reached the point where the card's content matters (an unrelated request, a 404 at a path
    that is not the card's, is not)."""
    return any(q.binding == "CARD" and q.response_status == 200 for q in agent.card_requests())


def _subscribed_id(req: RecordedRequest) -> str | None:
    if req.binding == "JSONRPC":
        params = req.params if isinstance(req.params, dict) else {}
        value = params.get("id")
        return value if isinstance(value, str) else None
    m = re.search(r"/tasks/([^/]+):subscribe$", req.path)
    return unquote(m.group(1)) if m else None


def subscriptions(agent: ScriptedAgent, task_id: str) -> list[RecordedRequest]:
    """The SubscribeToTask requests the agent received for ``task_id`` (any binding)."""
    return [r for r in agent.a2a_requests() if r.operation == "SubscribeToTask" and _subscribed_id(r) == task_id]


def first_event_sent(agent: ScriptedAgent, task_id: str) -> bool:
    """Has the agent written an event on a subscription to this task?"""
    return any(b"data:" in r.response_body for r in subscriptions(agent, task_id))
