"""`card get` (SPEC.md §10.1, §13.1): resolving an Agent Card reference and choosing a transport from it.

A reference is a host/origin (the well-known path is appended), a full card URL (used as-is) or a
local file (`file://` or a plain path). Checks find the card's unique name and its interface URLs
in the output by value, and read which path the agent was asked for.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import (
    WELL_KNOWN_CARD_PATH,
    ApiKey,
    CardSpec,
    Interface,
    Script,
    ScriptedAgent,
    TaskFlow,
)
from conformance.fixtures.scripted_agent.card import Binding
from conformance.judge import shown, unique
from conformance.suites.cli.conftest import card_ref, require_bindings

EXTRA_CARD_PATH = "/agents/conformance/card.json"


def _named_agent(agent: AgentMaker, **card: Any) -> tuple[ScriptedAgent, str]:
    name = unique("card-probe")
    return agent(Script(card=CardSpec(name=name, **card))), name


def _assert_card_presented(r: CliResult, a: ScriptedAgent, name: str) -> None:
    """The card was parsed and presented: exit 0, its name and every interface URL in stdout."""
    assert r.exit_code == 0, f"expected exit 0 for card get; {shown(r)}"
    out = r.stdout_text
    assert name in out, f"the card's name {name!r} is not in the output (card not read or not shown); {shown(r)}"
    for binding, url in (("JSONRPC", a.jsonrpc_url), ("HTTP+JSON", a.rest_url)):
        assert url in out, f"the declared {binding} interface {url} is not presented; {shown(r)}"


def _card_fetches(a: ScriptedAgent) -> list[str]:
    return [q.path for q in a.requests if q.method.startswith("GET ")]


@pytest.mark.requirement("A2ACLI_CARD_GET_001", part="host")
def test_card_get_from_an_origin_appends_the_well_known_path(cli: Cli, agent: AgentMaker) -> None:
    """`card get -a http://127.0.0.1:<port>` fetches /.well-known/agent-card.json and presents it.

    Catches a CLI that requests the origin itself as the card.
    """
    a, name = _named_agent(agent)
    r = cli.run("card", "get", "-a", a.base_url)
    fetched = _card_fetches(a)
    assert WELL_KNOWN_CARD_PATH in fetched, (
        f"the well-known card path was never requested; GETs seen: {fetched}; {shown(r)}"
    )
    _assert_card_presented(r, a, name)


@pytest.mark.requirement("A2ACLI_CARD_GET_001", part="url")
def test_card_get_uses_an_explicit_card_url_as_is(cli: Cli, agent: AgentMaker) -> None:
    """A full card URL (the card served at a non-standard path) is fetched exactly, nothing appended."""
    a, name = _named_agent(agent, extra_path=EXTRA_CARD_PATH)
    r = cli.run("card", "get", "-a", a.base_url + EXTRA_CARD_PATH)
    fetched = _card_fetches(a)
    assert fetched and fetched[0] == EXTRA_CARD_PATH, (
        f"expected the first request to be GET {EXTRA_CARD_PATH}; GETs seen: {fetched}; {shown(r)}"
    )
    _assert_card_presented(r, a, name)


@pytest.mark.requirement("A2ACLI_CARD_GET_001", part="file_path")
@pytest.mark.parametrize("form", ["file-uri", "plain-path"])
def test_card_get_reads_a_local_card_file(
    cli: Cli, agent: AgentMaker, tmp_path: Path, form: str
) -> None:
    """A local card (`file://…` or a plain path) is read from disk, not fetched, and presented."""
    a, name = _named_agent(agent)
    path = a.card_file(tmp_path).resolve()
    ref = path.as_uri() if form == "file-uri" else str(path)
    r = cli.run("card", "get", "-a", ref)
    _assert_card_presented(r, a, name)
    fetched = [q.path for q in a.requests if q.binding == "CARD"]
    assert not fetched, f"the CLI fetched the card over HTTP although it was given the local file {ref}: {fetched}"


@pytest.mark.requirement("A2ACLI_CARD_GET_001", part="presentation")
def test_card_get_presents_capabilities_security_schemes_and_skills(cli: Cli, agent: AgentMaker) -> None:
    """`card get` presents what §10.1 lists beyond identity and interfaces: the advertised capabilities
    (streaming, push notifications, extended card — all three advertised here), the security schemes
    (a uniquely named apiKey scheme: its name or its header's name) and the skills (a uniquely named
    skill: its id or its name). Catches a presentation that drops them (defects `card-get-hides-skills`,
    `card-get-hides-capabilities`)."""
    scheme, header = unique("probe-scheme"), unique("X-Probe-Key")
    skill_id, skill_name = unique("probe-skill-id"), unique("probe-skill")
    a, name = _named_agent(agent, streaming=True, push_notifications=True, extended_agent_card=True,
                           security=(ApiKey("card-probe-key-value", name=header, scheme_name=scheme),),
                           require_auth=False,
                           skills=({"id": skill_id, "name": skill_name, "description": "a probe skill",
                                    "tags": ["probe"]},))
    r = cli.run("card", "get", "-a", a.base_url)
    _assert_card_presented(r, a, name)
    out = r.stdout_text
    missing = [cap for cap, pattern in (("streaming", r"stream"), ("push notifications", r"push"),
                                        ("extended card", r"extended")) if not re.search(pattern, out, re.I)]
    assert not missing, f"the advertised capabilities {missing} are not presented; {shown(r)}"
    assert scheme in out or header in out, (
        f"the security scheme {scheme!r} (apiKey in header {header!r}) is not presented; {shown(r)}")
    assert skill_id in out or skill_name in out, (
        f"the skill {skill_name!r} (id {skill_id!r}) is not presented; {shown(r)}")


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_CARD_GET_001", part="transport_selection")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
@pytest.mark.parametrize("first", ["JSONRPC", "HTTP+JSON"])
def test_transport_follows_the_order_of_the_card_it_read(
    cli: Cli, agent: AgentMaker, tmp_path: Path, first: Binding
) -> None:
    """A `send` goes to the first interface of the card it read, on its binding.

    Both orders are tried, so a CLI hard-wired to one binding (or one that ignores the card and
    guesses an endpoint) fails one of them. The card is the agent's own, fetched by URL: reading a
    card file is the part ``file_path``, and a tool without it is not failed here for that (seen on
    a2a-handler 0.4.0, whose file refusal also failed this part).
    """
    require_bindings(cli, agent, first)
    order: tuple[Binding, Binding] = ("JSONRPC", "HTTP+JSON") if first == "JSONRPC" else ("HTTP+JSON", "JSONRPC")
    card = CardSpec(interfaces=tuple(Interface(b) for b in order))
    a = agent(Script(card=card, send=TaskFlow.single("COMPLETED")))
    r = cli.run("send", "--text", "which transport?", *card_ref(a))
    assert r.exit_code == 0, f"expected exit 0 for a send through the agent's card; {shown(r)}"
    protocol = [(q.binding, q.operation) for q in a.a2a_requests()]
    assert protocol, f"the agent received no protocol request; {shown(r)}"
    wrong = [p for p in protocol if p[0] != first]
    assert not wrong, f"the card lists {first} first, but requests came on {protocol}"
