"""What the listener-level agentd checks share (declarations, negotiation, cards, the unix socket).

The page's identifiers and tables are written here from the extensions page, never imported from the
reference agentd, so a check holds any target to the page. What every agentd check shares (the
identifiers, clients, cards, messages, the strict reader) is in ``support``; here are the listener
checks' own: the JSON-RPC endpoint as the card names it, card declarations, and the echo header read
as a peer would read it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from conformance.outcome import fail
from conformance.suites.agent.agentd.support import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    HEADER,
    card_reply,
    declared_uris,
    extensions_of,
    quote,
    rpc_client,
)
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient

# ---- the page's identifiers (those only the listener checks use) ---------------------------------
UNIX_BINDING: Final = "https://agentd.dev/a2a/binding/jsonrpc-unix"
#: A URI no agentd implements: dropped, never refused.
UNKNOWN_URI: Final = "https://example.com/a2a/ext/not-agentd"
#: The extension URIs in the page's table order.
EXTENSIONS: Final = (COMMAND, EVENTS, ANNOTATIONS)
#: Every identifier the page lists (the three extensions and the one binding).
PAGE_URIS: Final = (*EXTENSIONS, UNIX_BINDING)

#: "applicable: meaningful on the method called" -- the page's list for each extension.
_TASK_ANSWERS: Final = frozenset(
    {"SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask", EVENTS_METHOD}
)
APPLIES_TO: Final[Mapping[str, frozenset[str]]] = {
    COMMAND: frozenset({"SendMessage", "SendStreamingMessage"}),
    EVENTS: frozenset({EVENTS_METHOD}),
    ANNOTATIONS: _TASK_ANSWERS,
}

#: The command ops the page's families table names (the public vocabulary contains at least these).
PAGE_OPS: Final = (
    "status", "config",
    "workflow.run", "workflow.status", "workflow.cancel", "workflow.signal",
    "subagent.send", "subagent.kill", "subagent.status", "plan.get",
    "conversation.get", "run.get", "subagent.get", "debug.events",
    "admin.drain", "admin.pause", "admin.resume", "admin.cancel", "admin.set",
    "auth.device.pending", "auth.device.approve", "auth.device.deny",
    "auth.sessions", "auth.sessions.revoke",
)  # fmt: skip

#: The page's closed event-kind vocabulary.
_BASE_KINDS: Final = ("task", "run", "step", "conversation", "subagent", "child", "activity")
EVENT_KINDS: Final = (*_BASE_KINDS, *(f"{k}.removed" for k in _BASE_KINDS), "status", "lifecycle", "config",
                      "audit", "auth")

# ---- clients ---------------------------------------------------------------------------------------
def card_rpc_client(
    instance: Any, role: str = "operator", *, recorder: Recorder, token: str | None = None, timeout: float = 10.0
) -> JsonRpcClient:
    """``rpc_client`` aimed at the JSON-RPC endpoint the instance's card names (``jsonrpc_url``)."""
    url = None if instance.uds_path else jsonrpc_url(instance)
    return rpc_client(instance, role, recorder=recorder, token=token, timeout=timeout, url=url)


_ENDPOINTS: dict[str, str] = {}


def jsonrpc_url(instance: Any) -> str:
    """Where the instance's JSON-RPC binding is served, as a peer finds it: the path of the card's
    JSONRPC interface, on the instance's own origin (the harness never follows a card off loopback).
    The instance's URL itself when the card names no JSONRPC interface."""
    if instance.url not in _ENDPOINTS:
        url = instance.url
        with contextlib.suppress(httpx.HTTPError):
            reply = card_reply(instance, Recorder())
            card = reply.json if isinstance(reply.json, dict) else {}
            for iface in card.get("supportedInterfaces") or []:
                if isinstance(iface, dict) and iface.get("protocolBinding") == "JSONRPC":
                    path = urlsplit(str(iface.get("url", ""))).path or "/"
                    url = instance.base_url + (path if path.startswith("/") else "/" + path)
                    break
        _ENDPOINTS[instance.url] = url
    return _ENDPOINTS[instance.url]


def instance_for(agent_targets: Any, **needs: Any) -> Any:
    """For a statement that holds whatever the configuration: the launched reference configured with
    ``needs``, or a running target as it is (its own configuration, whatever its declared facts)."""
    return agent_targets.agentd(**needs) if agent_targets.launchable else agent_targets.agentd()


# ---- cards -----------------------------------------------------------------------------------------
def declaration(card: Mapping[str, Any], uri: str) -> dict[str, Any] | None:
    """The card's declaration of ``uri`` (matched byte for byte), or None."""
    return next((e for e in extensions_of(card) if e.get("uri") == uri), None)


def params_of(card: Mapping[str, Any], uri: str, what: str) -> dict[str, Any]:
    """The params of the declaration of ``uri``; fails when it is not declared."""
    decl = declaration(card, uri)
    if decl is None:
        fail(f"{what} does not declare {uri}; declared: {declared_uris(card)}")
    params = decl.get("params") or {}
    if not isinstance(params, dict):
        fail(f"{what}: params of {uri} is not an object: {quote(params)}")
    return params


def op_names(params: Mapping[str, Any]) -> list[str]:
    return [str(o.get("op")) for o in params.get("ops") or [] if isinstance(o, dict)]


def has_scheme(card: Mapping[str, Any]) -> bool:
    return bool(card.get("securitySchemes"))


# ---- the echo --------------------------------------------------------------------------------------
def echo_of(headers: httpx.Headers) -> list[str] | None:
    """The ``A2A-Extensions`` response header as a peer reads it: every line, comma-separated, each
    item stripped. ``None`` when the header is absent; an empty list when it is present but empty."""
    lines = headers.get_list(HEADER)
    if not lines:
        return None
    return [item.strip() for line in lines for item in line.split(",") if item.strip()]


def render_echo(echo: list[str] | None) -> str:
    return "no header" if echo is None else repr(echo)


def expected_echo(requested: Iterable[str], declared: Iterable[str], method: str) -> list[str]:
    """requested ∩ declared ∩ applicable, in the page's order (byte-exact matching)."""
    req, dec = set(requested), set(declared)
    return [u for u in EXTENSIONS if u in req and u in dec and method in APPLIES_TO[u]]
