"""Reading what a card declares: its extensions, their params, its security schemes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.judge import quote
from conformance.outcome import fail


def extensions_of(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    exts = (card.get("capabilities") or {}).get("extensions") or []
    return [e for e in exts if isinstance(e, dict)]


def declared_uris(card: Mapping[str, Any]) -> list[str]:
    return [str(e["uri"]) for e in extensions_of(card) if isinstance(e.get("uri"), str)]


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
