"""Which versions the core version checks probe: the card's declarations per endpoint, and the
undeclared versions chosen instead of any the interface declares."""

from __future__ import annotations

from conformance.wire.versions import UNDECLARED, declared_versions, major_minor, undeclared

JSONRPC = {"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}


def test_declared_versions_are_those_of_the_same_binding_url_and_tenant_without_patch() -> None:
    card = {"supportedInterfaces": [
        JSONRPC,
        {**JSONRPC, "protocolVersion": "1.1.3"},
        {**JSONRPC, "url": "http://127.0.0.1:1/other", "protocolVersion": "0.3"},
        {**JSONRPC, "protocolBinding": "HTTP+JSON", "protocolVersion": "2.0"},
        {**JSONRPC, "tenant": "t1", "protocolVersion": "1.9"},
        "not an interface",
    ]}
    assert declared_versions(card, JSONRPC) == {"1.0", "1.1"}
    assert declared_versions(card, {**JSONRPC, "tenant": "t1"}) == {"1.9"}
    assert declared_versions(None, JSONRPC) == frozenset()
    assert (major_minor("1.0.9"), major_minor(" 1 "), major_minor("")) == ("1.0", "1", "")


def test_an_interface_declaring_only_1_0_is_probed_with_every_usual_version() -> None:
    assert {p: undeclared(p, {"1.0"}) for p in UNDECLARED} == {p: list(v) for p, v in UNDECLARED.items()}


def test_a_declared_version_is_never_probed_and_a_replacement_is_found() -> None:
    assert undeclared("minor", {"1.0", "1.1"}) == ["1.9"]
    assert undeclared("minor", {"1.0", "1.1", "1.9"}) == ["1.10"]
    assert undeclared("major", {"1.0", "2.0"}) == ["99.0"]
    assert undeclared("major", {"1.0", "2.0", "99.0"}) == ["100.0"]
    assert undeclared("bare_major", {"1.0", "1"}) == []
