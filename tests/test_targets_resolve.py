"""The one resolver: the card is found from an origin, a card URL or a base, and every endpoint comes
from the card's interfaces, whatever the root of the host answers."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from conformance.targets.resolve import WELL_KNOWN_PATH, AgentLocation, resolve
from tests.wire_servers import serve_http

BASE = "/agents/x"


def _card(name: str, interfaces: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "supportedInterfaces": interfaces, "capabilities": {}, "skills": []}


def _jsonrpc(url: str, version: str = "1.0") -> dict[str, Any]:
    return {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": version}


def _html_404(_: Request) -> Response:
    return HTMLResponse("<html><body><h1>Not Found</h1></body></html>", status_code=404)


def _host_app(cards: dict[str, dict[str, Any]], extra: list[Route] | None = None) -> Starlette:
    """A host serving each card at its path; the root and every unknown path answer an HTML 404."""

    def serve(card: dict[str, Any]) -> Any:
        async def endpoint(_: Request) -> Response:
            return JSONResponse(card)
        return endpoint

    routes = [Route(path, serve(card), methods=["GET"]) for path, card in cards.items()]
    routes += extra or []
    routes.append(Route("/{rest:path}", _html_404, methods=["GET", "POST"]))
    return Starlette(routes=routes)


@pytest.fixture(scope="module")
def host() -> Iterator[str]:
    """One host with two agents: the origin's card (agent "root") and the card of the agent mounted
    at /agents/x (agent "x"), a card at a custom path, an interface that answers GET with 405, and a
    path that answers a JSON object that is no card."""

    async def rpc(_: Request) -> Response:
        return Response("method not allowed", status_code=405)

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    cards = {
        WELL_KNOWN_PATH: _card("root", [_jsonrpc("http://h/a2a/jsonrpc")]),
        BASE + WELL_KNOWN_PATH: _card("x", [_jsonrpc("http://h/agents/x/rpc")]),
        "/cards/y.json": _card("y", [_jsonrpc("http://h/y")]),
    }
    extra = [Route("/a2a/jsonrpc", rpc, methods=["POST"]), Route("/health", health, methods=["GET"])]
    with serve_http(_host_app(cards, extra)) as running:
        yield running.url


@pytest.mark.parametrize("given", ["{o}", "{o}/", "{o}" + WELL_KNOWN_PATH, "{o}/a2a/jsonrpc", "{o}/health"])
def test_origin_card_url_interface_url_or_a_json_endpoint_all_find_the_origins_card(host: str, given: str) -> None:
    loc = resolve(given.format(o=host))
    assert loc.card is not None and loc.card["name"] == "root", loc.error
    assert loc.card_url == host + WELL_KNOWN_PATH
    assert [(e.binding, e.url) for e in loc.interfaces] == [("JSONRPC", "http://h/a2a/jsonrpc")]


@pytest.mark.parametrize("given", [BASE, BASE + "/", BASE + WELL_KNOWN_PATH])
def test_a_base_finds_its_own_card_before_the_origins(host: str, given: str) -> None:
    loc = resolve(host + given)
    assert loc.card is not None and loc.card["name"] == "x", (loc.error, loc.attempts)
    assert loc.card_url == host + BASE + WELL_KNOWN_PATH
    assert loc.well_known_url == loc.card_url
    assert loc.endpoint("JSONRPC") is not None and loc.endpoint("JSONRPC").url == "http://h/agents/x/rpc"  # type: ignore[union-attr]


def test_a_card_at_a_custom_url_is_taken_as_given(host: str) -> None:
    loc = resolve(host + "/cards/y.json")
    assert loc.card is not None and loc.card["name"] == "y"
    assert [a.url for a in loc.attempts] == [host + "/cards/y.json"]
    assert loc.well_known_url == host + WELL_KNOWN_PATH  # where §8.2 puts a card: judged apart


def test_no_card_anywhere_is_one_error_naming_every_place_tried() -> None:
    with serve_http(_host_app({})) as running:
        loc = resolve(running.url + BASE + "/")
    assert loc.card is None and loc.card_url is None
    assert [a.url for a in loc.attempts] == [running.url + BASE + "/", running.url + BASE + WELL_KNOWN_PATH,
                                             running.url + WELL_KNOWN_PATH]
    assert loc.error is not None and loc.error.count("HTTP 404") == 3, loc.error


def test_nothing_listening_ends_the_search_at_the_first_refusal() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        loc = resolve(f"http://127.0.0.1:{port}/agents/x/")
    assert loc.card is None and len(loc.attempts) == 1
    assert "ConnectError" in (loc.error or ""), loc.error


def test_a_well_known_path_takes_any_json_object_and_leaves_judging_it_to_the_checks() -> None:
    with serve_http(_host_app({WELL_KNOWN_PATH: {"status": "ok"}})) as running:
        loc = resolve(running.url)
    assert loc.card == {"status": "ok"} and loc.interfaces == []
    assert loc.endpoint("JSONRPC") is None


def test_interfaces_prefer_protocol_1_0_keep_card_order_and_read_tenant_and_sockets() -> None:
    card = _card("c", [
        {"url": "http://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "t1"},
        "not an interface",
        {"protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "http://h/new", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.2"},
        {"url": "unix:///run/a.sock", "protocolBinding": "https://agentd.dev/a2a/binding/jsonrpc-unix",
         "protocolVersion": "1.0"},
    ])
    loc = AgentLocation("http://h", None, "http://h" + WELL_KNOWN_PATH, card, None)
    chosen = loc.endpoints(("JSONRPC", "HTTP+JSON", "GRPC"))
    assert list(chosen) == ["JSONRPC", "HTTP+JSON"]
    assert chosen["JSONRPC"].url == "http://h/new" and chosen["HTTP+JSON"].tenant == "t1"
    unix = loc.endpoint("https://agentd.dev/a2a/binding/jsonrpc-unix", "JSONRPC")
    assert unix is not None and unix.uds == "/run/a.sock"
    assert loc.declared_bindings() == ["JSONRPC", "HTTP+JSON", "GRPC", "JSONRPC",
                                       "https://agentd.dev/a2a/binding/jsonrpc-unix"]


def test_a_unix_socket_serves_its_card_at_the_well_known_path() -> None:
    with tempfile.TemporaryDirectory(prefix="resolve-") as d:
        path = str(Path(d) / "a.sock")
        card = _card("sock", [{"url": f"unix://{path}", "protocolBinding": "https://agentd.dev/a2a/binding/jsonrpc-unix",
                               "protocolVersion": "1.0"}])
        with serve_http(_host_app({WELL_KNOWN_PATH: card}), uds=path):
            loc = resolve(f"unix://{path}")
    assert loc.uds == path and loc.card is not None and loc.card["name"] == "sock", loc.error
    assert loc.interfaces[0].uds == path
