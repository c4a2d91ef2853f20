"""CORS exposure of the echo (AGENTD_NEG_013, 014): a browser on a listed origin may read the extension
headers and send ``A2A-Extensions``.
"""

from __future__ import annotations

import pytest

from conformance.agentd.clients import card_url, ext, http_endpoint, jsonrpc_endpoint, rpc_client
from conformance.agentd.footing import declaring, deps
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
)
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder

#: An origin the launched reference is configured to list for CORS.
ORIGIN = "http://app.agentd-conformance.test"
#: What the checks here stand on: the card and its listener, and the declarations of the extensions
#: whose activation they judge (blocked by AGENTD_DECL_001/002/003 when one is not declared).
NEG_DEPS = pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS, EVENTS))


@pytest.fixture
def cors_target(agent_targets: AgentTargets) -> tuple[Instance, str]:
    """An instance and an origin it lists: the launched reference is configured with ORIGIN; a running
    target must declare one (``--fact cors_origin=…``)."""
    if agent_targets.launchable:
        return declaring(agent_targets, COMMAND, events=True, cors_origins=(ORIGIN,)), ORIGIN
    inst = declaring(agent_targets, COMMAND)
    origin = inst.facts.get("cors_origin")
    if not origin:
        not_measured("needs an origin the target lists for CORS; declare one with --fact cors_origin=ORIGIN")
    return inst, origin


def _tokens(value: str | None) -> set[str]:
    return {t.strip().lower() for t in (value or "").split(",") if t.strip()}


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_013")
def test_cors_response_exposes_extension_headers(cors_target: tuple[Instance, str], recorder: Recorder) -> None:
    """A response to a listed origin (a JSON-RPC call and the card) lets a browser read a2a-extensions,
    retry-after and www-authenticate. Catches cors-missing-expose."""
    inst, origin = cors_target
    want = {"a2a-extensions", "retry-after", "www-authenticate"}
    problems: list[str] = []
    with rpc_client(inst, recorder=recorder) as client:
        rpc = client.call("ListTasks", {"pageSize": 1}, headers={"Origin": origin, **ext(ANNOTATIONS)})
    http = http_endpoint(inst, recorder)
    try:
        card = http.send("GET", card_url(inst), headers=[("Origin", origin)])
    finally:
        http.close()
    for what, reply in (("JSON-RPC answer", rpc), ("card", card)):
        allow = reply.headers.get("access-control-allow-origin")
        exposed = _tokens(reply.headers.get("access-control-expose-headers"))
        credentials = reply.headers.get("access-control-allow-credentials", "").lower() == "true"
        if allow not in (origin, "*"):
            problems.append(f"{what}: Access-Control-Allow-Origin {allow!r} for the listed origin {origin!r}")
        if not (want <= exposed or ("*" in exposed and not credentials)):
            shown = reply.headers.get("access-control-expose-headers")
            problems.append(f"{what}: Access-Control-Expose-Headers {shown!r} lacks {sorted(want - exposed)}")
    if problems:
        fail("; ".join(problems))


@NEG_DEPS
@pytest.mark.requirement("AGENTD_NEG_014")
def test_cors_preflight_allows_the_extensions_header(cors_target: tuple[Instance, str], recorder: Recorder) -> None:
    """A preflight from a listed origin asking to send A2A-Extensions (alone, and beside the headers
    every call sends) is allowed. Catches cors-preflight-no-extensions."""
    inst, origin = cors_target
    problems: list[str] = []
    http = http_endpoint(inst, recorder)
    try:
        for asked in ("a2a-extensions", "a2a-extensions, a2a-version, content-type"):
            preflight = [("Origin", origin), ("Access-Control-Request-Method", "POST"),
                         ("Access-Control-Request-Headers", asked)]
            r = http.send("OPTIONS", "/" if inst.uds_path else jsonrpc_endpoint(inst).url, headers=preflight)
            allowed = _tokens(r.headers.get("access-control-allow-headers"))
            credentials = r.headers.get("access-control-allow-credentials", "").lower() == "true"
            ok_headers = "a2a-extensions" in allowed or ("*" in allowed and not credentials)
            if not 200 <= r.status < 300 or not ok_headers:
                problems.append(f"preflight asking {asked!r}: HTTP {r.status}, Access-Control-Allow-Headers "
                                f"{r.headers.get('access-control-allow-headers')!r}, body {r.body[:120]!r}")
    finally:
        http.close()
    if problems:
        fail("; ".join(problems))
