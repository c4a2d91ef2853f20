"""Fetching an agent card over HTTP (or a unix socket), recorded as evidence like every other call."""

from __future__ import annotations

from conformance.wire.exchange import Recorder
from conformance.wire.httpbase import HttpEndpoint, HttpReply


def fetch_card(url: str, recorder: Recorder, *, uds: str | None = None, token: str | None = None,
               timeout: float = 10.0) -> HttpReply:
    """GET the card at ``url`` (absolute; over the socket ``uds`` when given) asking for JSON, with a
    bearer ``token`` when given. Raises ``httpx.HTTPError`` when nothing answers."""
    http = HttpEndpoint("", binding="JSONRPC-UNIX" if uds else "HTTP+JSON", uds=uds, recorder=recorder,
                        timeout=timeout)
    headers = [("Accept", "application/json")]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    try:
        return http.send("GET", url, headers=headers)
    finally:
        http.close()
