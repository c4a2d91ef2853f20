"""The ``A2A-Extensions`` echo as a peer reads it, and what the page says it must be.

The page's identifiers and tables are :mod:`conformance.agentd_page` (written from the extensions page,
never imported from the reference agentd), so a check holds any target to the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import httpx

from conformance.agentd_page import APPLIES_TO, EXTENSIONS, HEADER

#: A URI no agentd implements: dropped, never refused.
UNKNOWN_URI: Final = "https://example.com/a2a/ext/not-agentd"


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
