"""Tier 1 transport and version negotiation (SPEC.md §13.1, §13.2): the binding chosen from the
card's supportedInterfaces order and from --transport, the interface's tenant on every request, and
an explicit A2A-Version that never drops below 1.0.

The scripted agent serves JSON-RPC and HTTP+JSON on the same port and records which binding each
request used, so the checks read the choice off the wire, not off the tool's own output.
"""

from __future__ import annotations

import pytest

from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.clicheck.transport_checks import bindings as _bindings
from conformance.clicheck.transport_checks import short_task_script as _script
from conformance.fixtures.scripted_agent import Interface, RecordedRequest, ScriptedAgent
from conformance.fixtures.scripted_agent.card import Binding
from conformance.judge import blocked_by, shown
from conformance.suites.cli.conftest import card_read, card_ref, first_spoken, require_bindings

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


def _send(cli: Cli, a: ScriptedAgent, *extra: str) -> list[RecordedRequest]:
    """``send`` to ``a`` (must exit 0); the A2A requests it made."""
    r = cli.run("send", "--text", "hi", *card_ref(a), *extra)
    assert r.exit_code == 0, f"expected exit 0 for send, got {r.exit_code}; {shown(r)}"
    reqs = a.a2a_requests()
    assert reqs, f"expected A2A requests, the CLI sent none; agent saw: {[(q.binding, q.method) for q in a.requests]}"
    return reqs


# ── A2ACLI_TX_001 / TX_002 ────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_TX_001")
@pytest.mark.requirement("A2ACLI_TX_002")
@pytest.mark.parametrize("order", [("JSONRPC", "HTTP+JSON"), ("HTTP+JSON", "JSONRPC")],
                         ids=["jsonrpc-first", "rest-first"])
def test_first_card_interface_is_used_without_preference(cli: Cli, agent: AgentMaker,
                                                         order: tuple[Binding, Binding]) -> None:
    """With no --transport, every request goes over the card's first supportedInterfaces entry the tool
    speaks (§13.1: the first it supports; a tool speaking one binding, as Tier 1 allows, keeps to it), for
    either order of the two. Catches a fixed transport or a tool that reads the list backwards."""
    expected = first_spoken(cli, agent, order)
    a = agent(_script(*(Interface(b) for b in order)))
    used = _bindings(_send(cli, a))
    assert used == [expected], (f"card declares {list(order)} (server preference order); the first the tool "
                                f"speaks is {expected}; the CLI used {used}")


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_TX_002")
def test_transport_flag_overrides_card_order(cli: Cli, agent: AgentMaker) -> None:
    """``--transport HTTP+JSON --transport JSONRPC`` against a JSON-RPC-first card uses HTTP+JSON: the
    caller's order wins over the card's. Catches a missing or ignored --transport."""
    require_bindings(cli, agent, "HTTP+JSON", "JSONRPC")
    a = agent(_script(Interface("JSONRPC"), Interface("HTTP+JSON")))
    used = _bindings(_send(cli, a, "--transport", "HTTP+JSON", "--transport", "JSONRPC"))
    assert used == ["HTTP+JSON"], f"--transport HTTP+JSON --transport JSONRPC on a JSONRPC-first card used {used}"


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_TX_002")
def test_transport_preference_absent_from_card_is_skipped(cli: Cli, agent: AgentMaker) -> None:
    """``--transport GRPC --transport HTTP+JSON`` against a card without gRPC skips GRPC and takes the
    next preference, HTTP+JSON, not the card's first entry. Catches a single-valued --transport that
    falls back to card order."""
    require_bindings(cli, agent, "HTTP+JSON", "JSONRPC")
    a = agent(_script(Interface("JSONRPC"), Interface("HTTP+JSON")))
    used = _bindings(_send(cli, a, "--transport", "GRPC", "--transport", "HTTP+JSON"))
    assert used == ["HTTP+JSON"], (
        f"--transport GRPC --transport HTTP+JSON on a card offering JSONRPC, HTTP+JSON used {used}; "
        "expected the second preference, HTTP+JSON")


@pytest.mark.requirement("A2ACLI_TX_002")
def test_transport_preference_none_offered_falls_back_to_card_order(cli: Cli, agent: AgentMaker) -> None:
    """A --transport the card does not offer at all is skipped, and the card's first entry is used
    (the call still succeeds). Catches a tool that fails or forces the absent binding."""
    expected = first_spoken(cli, agent, ("HTTP+JSON", "JSONRPC"))
    a = agent(_script(Interface("HTTP+JSON"), Interface("JSONRPC")))
    used = _bindings(_send(cli, a, "--transport", "GRPC"))
    assert used == [expected], (f"--transport GRPC on a card offering HTTP+JSON, JSONRPC used {used}; the first "
                                f"entry the tool speaks is {expected}")


# ── A2ACLI_TX_003 ─────────────────────────────────────────────────────────────────────────

_TENANT = "Tenant-7f_a"


def _tenant_run(cli: Cli, a: ScriptedAgent) -> list[RecordedRequest]:
    """A waiting send and a ``task get`` of the task it made; every A2A request both made."""
    _send(cli, a)
    assert a.tasks, "expected the send to create a task; the agent has none"
    task_id = a.tasks[-1].id
    r = cli.run("task", "get", task_id, *card_ref(a))
    if not [q for q in a.a2a_requests() if q.operation == "GetTask"]:
        blocked_by("A2ACLI_TASK_GET_001", f"`task get` sent no GetTask (exit {r.exit_code})")
    return a.a2a_requests()


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_TX_003")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_declared_tenant_is_in_every_request(cli: Cli, agent: AgentMaker, binding: Binding) -> None:
    """When the selected interface declares a tenant, every request (send, polls or stream, task get)
    carries exactly that tenant — a JSON-RPC params field, an HTTP+JSON path segment. Catches a tenant
    dropped, altered or set on only some requests."""
    require_bindings(cli, agent, binding)
    a = agent(_script(Interface(binding, tenant=_TENANT)))
    for q in _tenant_run(cli, a):
        assert q.tenant == _TENANT, (
            f"{q.binding} {q.method}: expected tenant {_TENANT!r} exactly as declared, got {q.tenant!r}")


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_TX_003")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001", "A2ACLI_TX_001")
@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_tenant_omitted_when_selected_interface_declares_none(cli: Cli, agent: AgentMaker, binding: Binding) -> None:
    """When the selected interface declares no tenant — even though another card entry does — no
    request carries a tenant field, not even an empty one. Catches an empty or borrowed tenant."""
    require_bindings(cli, agent, binding)
    other: Binding = "HTTP+JSON" if binding == "JSONRPC" else "JSONRPC"
    a = agent(_script(Interface(binding), Interface(other, tenant=_TENANT)))
    for q in _tenant_run(cli, a):
        if q.binding != binding:  # which entry a tool selects is TX_001's; this row is the tenant it then sets
            blocked_by("A2ACLI_TX_001", f"the card's first entry is {binding}, the tool used {q.binding}")
        params = q.params if isinstance(q.params, dict) else {}
        assert q.tenant is None and "tenant" not in params, (
            f"{q.binding} {q.method}: the selected interface declares no tenant, but the request carries "
            f"tenant {q.tenant if q.tenant is not None else params.get('tenant')!r} (path {q.path!r})")


# ── A2ACLI_VER_001 ────────────────────────────────────────────────────────────────────────

@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_VER_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_every_request_signals_a2a_version_1_0(cli: Cli, agent: AgentMaker, binding: Binding) -> None:
    """Every A2A request (send, its polls or stream, task get) signals ``A2A-Version: 1.0`` (header,
    or the ``A2A-Version`` query parameter), never empty. The card fetch is not counted: it is a plain
    HTTP GET of a well-known document, not an A2A operation. Catches a missing or empty version."""
    require_bindings(cli, agent, binding)
    a = agent(_script(Interface(binding)))
    reqs = _tenant_run(cli, a)
    assert len(reqs) >= 2, f"expected the send and the task get, saw {[q.method for q in reqs]}"
    for q in reqs:
        assert q.a2a_version == "1.0", (
            f"{q.binding} {q.method}: expected A2A-Version 1.0 (card and agent speak 1.0), got {q.a2a_version!r}")


@pytest.mark.requirement("A2ACLI_VER_001")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_legacy_only_card_is_refused_not_downgraded(cli: Cli, agent: AgentMaker) -> None:
    """A card whose only interface speaks A2A 0.3 (an agent that would accept 0.3) makes the tool fail
    with a non-zero exit that names the version problem, and no request is sent as 0.3. Catches a
    silent downgrade below 1.0."""
    a = agent(_script(Interface("JSONRPC", protocol_version="0.3"), versions=("0.3", "1.0")))
    r = cli.run("send", "--text", "hi", *card_ref(a))
    if not card_read(a):  # the refusal must follow from the card's version, so the card must have been read
        blocked_by("A2ACLI_CARD_GET_001", f"`send` never got the agent's card (exit {r.exit_code})")
    below = [(q.method, q.a2a_version) for q in a.a2a_requests()
             if not (q.a2a_version or "").strip() or (q.a2a_version or "").strip().startswith("0.")]
    assert not below, f"requests signalled a pre-1.0 (or empty) A2A-Version: {below}"
    assert r.exit_code != 0, f"expected a non-zero exit for a card offering only A2A 0.3, got 0; {shown(r)}"
    said = (r.stdout_text + r.stderr_text).lower()
    assert "version" in said, f"expected the refusal to name the version problem; it does not; {shown(r)}"
