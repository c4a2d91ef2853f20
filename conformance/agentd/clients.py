"""Clients at the interfaces the card declares: a JSON-RPC client per role, plain HTTP on the card's
origin (card reads, CORS requests), and the ``A2A-Extensions`` header a request names extensions with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from a2a.types.a2a_pb2 import AgentCard

from conformance.agentd.cards import declared_uris
from conformance.agentd.rows import CARD_ROW, LISTENER_ROW, card_of
from conformance.agentd_page import (
    EXTENSIONS,
    HEADER,
    UNIX_BINDING,
)
from conformance.judge import blocked_by, violations
from conformance.outcome import fail, not_measured
from conformance.targets import Endpoint
from conformance.targets.origins import another_port, outside, outside_note, unconfirmed_note
from conformance.wire import Recorder
from conformance.wire.card import fetch_card
from conformance.wire.httpbase import HttpEndpoint, HttpReply
from conformance.wire.jsonrpc import JsonRpcClient

if TYPE_CHECKING:
    from conformance.targets.instances import Instance


def jsonrpc_endpoint(instance: Instance) -> Endpoint:
    """The interface every agentd check calls: the card's JSON-RPC interface (on a unix socket the
    page's unix binding first, else ``JSONRPC``), as the one resolver finds it. Blocked by
    :data:`CARD_ROW` when the card cannot be read, by :data:`LISTENER_ROW` when it declares no such
    interface, or when that interface is outside the target (another listener's: nothing is sent there)."""
    loc = instance.location
    card_of(instance)
    order = (UNIX_BINDING, "JSONRPC") if instance.uds_path else ("JSONRPC", UNIX_BINDING)
    ep: Endpoint | None = loc.endpoint(*order)
    if ep is None:
        blocked_by(LISTENER_ROW, f"the card ({loc.card_url}) declares no JSON-RPC interface ({' or '.join(order)}); "
                   f"its interfaces name {loc.declared_bindings()}")
    if ep.uds is None and not ep.url.startswith(("http://", "https://")):
        fail(f"the card's {ep.binding} interface has url {ep.url!r}, neither http(s):// nor unix:///")
    if instance.origins is not None and outside(ep.url, instance.origins):
        if instance.other_ports_unconfirmed and another_port(ep.url, instance.origins):
            not_measured(unconfirmed_note(ep.binding, ep.url))
        blocked_by(LISTENER_ROW, outside_note(ep.binding, ep.url, instance.origin_remedy))
    return ep


def rpc_client(
    instance: Instance,
    role: str = "operator",
    *,
    recorder: Recorder,
    token: str | None = None,
    timeout: float | None = None,
) -> JsonRpcClient:
    """A JSON-RPC client calling ``instance`` as ``role`` (or with an explicit bearer ``token``) at
    the JSON-RPC interface its card declares (:func:`jsonrpc_endpoint`; a socket is called at ``/``),
    waiting ``timeout`` seconds for an answer (default: the run's per-call timeout).

    Where the target knows no credentials at all (a loopback listener with nothing configured, a unix
    socket) every caller is the operator; any other role then cannot be measured.
    """
    headers: dict[str, str] = {}
    if token is None:
        if instance.tokens:
            token = instance.token(role)
        elif role != "operator":
            not_measured(f"needs a {role} principal; this target has no credentials configured")
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    ep = jsonrpc_endpoint(instance)
    timeout = instance.call_timeout if timeout is None else timeout
    if ep.uds is not None:
        return JsonRpcClient("/", uds=ep.uds, headers=headers, recorder=recorder, timeout=timeout)
    return JsonRpcClient(ep.url, headers=headers, recorder=recorder, timeout=timeout)


def http_endpoint(instance: Instance, recorder: Recorder, timeout: float | None = None) -> HttpEndpoint:
    """A plain HTTP endpoint on the origin the card was read from (card reads, CORS requests); send
    it absolute URLs (``instance.location.card_url``, ``jsonrpc_endpoint(instance).url``)."""
    timeout = instance.call_timeout if timeout is None else timeout
    if instance.uds_path:
        return HttpEndpoint("", binding="JSONRPC-UNIX", uds=instance.uds_path, recorder=recorder, timeout=timeout)
    return HttpEndpoint(instance.location.origin, binding="JSONRPC", recorder=recorder, timeout=timeout)


def card_url(instance: Instance) -> str:
    """Where the instance's card was found (blocked by :data:`CARD_ROW` when it was not)."""
    loc = instance.location
    card_of(instance)
    assert loc.card_url is not None  # card_of blocked the check otherwise
    return loc.card_url


def card_reply(instance: Instance, recorder: Recorder, token: str | None = None) -> HttpReply:
    """GET the public card where it was found, with a bearer ``token`` when given."""
    return fetch_card(card_url(instance), recorder, uds=instance.uds_path, token=token)


def served_card(instance: Instance, recorder: Recorder, token: str | None = None) -> dict[str, Any]:
    """The public agent card as served (fails when it is not a JSON object); not read strictly."""
    reply = card_reply(instance, recorder, token)
    if reply.status != 200 or not isinstance(reply.json, dict):
        fail(f"GET {reply.exchange.url} answered HTTP {reply.status}: {reply.body[:300]!r}")
    card: dict[str, Any] = reply.json
    return card


def public_card(instance: Instance, recorder: Recorder, token: str | None = None) -> dict[str, Any]:
    """The public card as served, held strictly to the A2A AgentCard type.

    A card that does not read strictly blocks the agentd check by :data:`CARD_ROW` (every agentd check
    declares it). When that card declares none of the extension URIs either, that is what the note says:
    it is why nothing of agentd's can be judged on it, and the strictness is A2A_CARD_002's business.
    """
    card = served_card(instance, recorder, token)
    problems = violations(card, AgentCard, "$")
    if problems:
        if not set(declared_uris(card)) & set(EXTENSIONS):
            blocked_by(CARD_ROW, none_declared(card))
        blocked_by(CARD_ROW, f"the public card is not a strictly valid AgentCard: {'; '.join(problems)[:200]}")
    return card


def none_declared(card: dict[str, Any]) -> str:
    """The note of a card declaring none of the extensions page's URIs."""
    return (f"the card declares none of the extension URIs ({', '.join(EXTENSIONS)}); declared: "
            f"{declared_uris(card) or 'none'}")


def ext(*uris: str) -> dict[str, str]:
    """An ``A2A-Extensions`` header naming ``uris`` on one comma-separated line (no header for none)."""
    return {HEADER: ", ".join(uris)} if uris else {}
