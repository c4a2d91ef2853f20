"""Which protocol versions a version check may probe: those the card declares for the interface
called, and the undeclared ones it sends instead (§3.6).

A version is compared as ``Major.Minor`` (§3.6: a patch number plays no part). The versions an
endpoint supports are those of every supportedInterfaces entry with its binding, url and tenant
(§3.6.2: an agent may expose several versions of one binding, at one url or at several).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Versions probed as unsupported, per part of A2A_VER_002 (the harness speaks 1.0): another minor
#: of the same major, another major, and the major alone.
UNDECLARED = {"minor": ("1.1", "1.9"), "major": ("2.0", "99.0"), "bare_major": ("1",)}


def major_minor(version: str) -> str:
    """``Major.Minor`` of a version (a patch number dropped); other shapes unchanged."""
    parts = version.strip().split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version.strip()


def declared_versions(card: Mapping[str, Any] | None, interface: Mapping[str, Any]) -> frozenset[str]:
    """The versions (``Major.Minor``) the card declares for the endpoint ``interface`` names."""
    key = (interface.get("protocolBinding"), interface.get("url"), interface.get("tenant") or "")
    out = set()
    for entry in (card or {}).get("supportedInterfaces") or []:
        if isinstance(entry, dict) and (entry.get("protocolBinding"), entry.get("url"),
                                        entry.get("tenant") or "") == key:
            out.add(major_minor(str(entry.get("protocolVersion") or "")))
    return frozenset(out)


def undeclared(part: str, declared: Iterable[str]) -> list[str]:
    """The versions of ``part`` (a key of :data:`UNDECLARED`) to probe on an interface declaring
    ``declared``: the usual ones it does not declare, else (all declared) the next minor of 1 / the
    next major after the highest declared. None for ``bare_major`` when ``1`` itself is declared."""
    have = set(declared)
    chosen = [v for v in UNDECLARED[part] if v not in have]
    if chosen or part == "bare_major":
        return chosen
    numbered = [(int(a), int(b)) for a, _, b in (v.partition(".") for v in have) if a.isdigit() and b.isdigit()]
    if part == "minor":
        return [f"1.{max([mi for ma, mi in numbered if ma == 1], default=0) + 1}"]
    return [f"{max([ma for ma, _ in numbered], default=1) + 1}.0"]


def declares_0_3(card: Mapping[str, Any]) -> bool:
    """Whether ``card`` is an A2A 0.3 card: a top-level protocolVersion 0.3 (the 0.3 shape), or every
    interface it declares names protocolVersion 0.3."""
    top = str(card.get("protocolVersion") or "")
    entries = [e for e in card.get("supportedInterfaces") or [] if isinstance(e, Mapping)]
    return top.startswith("0.3") or bool(entries) and all(
        str(e.get("protocolVersion") or "").startswith("0.3") for e in entries)
