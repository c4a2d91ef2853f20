"""One default TLS context per process for the harness's HTTP clients (conformance/wire/tlsdefault.py)."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi
import pytest

from conformance.wire import tlsdefault
from conformance.wire.httpbase import HttpEndpoint


@pytest.fixture(autouse=True)
def _no_ca_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


def test_clients_that_verify_by_default_share_one_context() -> None:
    first = tlsdefault.verify_arg()
    assert isinstance(first, ssl.SSLContext)
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    assert tlsdefault.verify_arg(True) is first
    a = HttpEndpoint("http://127.0.0.1:1", binding="JSONRPC")
    b = HttpEndpoint("http://127.0.0.1:1", binding="JSONRPC")
    try:
        assert a._client._transport._pool._ssl_context is first  # type: ignore[attr-defined]
        assert b._client._transport._pool._ssl_context is first  # type: ignore[attr-defined]
    finally:
        a.close()
        b.close()


def test_a_changed_ca_bundle_gets_its_own_context(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The harness's CA reaches every client through SSL_CERT_FILE (conformance/tls.py): a context made
    before it was set must not be handed out after."""
    before = tlsdefault.default_context()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    after = tlsdefault.default_context()
    assert after is not before
    assert tlsdefault.default_context() is after


def test_anything_but_the_default_is_passed_as_given() -> None:
    own = ssl.create_default_context()
    assert tlsdefault.verify_arg(own) is own
    assert tlsdefault.verify_arg(False) is False
    # A client certificate is loaded into the context httpx is handed: never into the shared one.
    assert tlsdefault.verify_arg(True, ("cert.pem", "key.pem")) is True
