"""What the listener-level agentd checks share (declarations, negotiation, cards, the unix socket).

The page's identifiers and tables are ``conformance.agentd_page`` (written from the extensions page,
never imported from the reference agentd), so a check holds any target to the page. What every
agentd check shares (clients at the card's JSON-RPC interface, cards, messages, the strict reader)
is in ``support``; here are the listener checks' own: card declarations, and the echo header read
as a peer would read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import httpx

from conformance.agentd_page import APPLIES_TO, EXTENSIONS, HEADER
from conformance.outcome import fail
from conformance.suites.agent.agentd.support import declared_uris, declaring, extensions_of, quote

#: A URI no agentd implements: dropped, never refused.
UNKNOWN_URI: Final = "https://example.com/a2a/ext/not-agentd"


def instance_for(agent_targets: Any, *uris: str, **needs: Any) -> Any:
    """For a statement that holds whatever the configuration: the launched reference configured with
    ``needs``, or a running target as it is (its own configuration, whatever its declared facts);
    either way one whose card declares ``uris`` (blocked by the declaring row otherwise)."""
    return declaring(agent_targets, *uris, **needs) if agent_targets.launchable else declaring(agent_targets, *uris)


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
