"""The harness's https receiver (what a container calling back to https URLs only is given): real TLS clients on
loopback. One that trusts only the harness's CA is served and its request kept; one that trusts only the public
roots cannot finish the handshake, which the receiver keeps instead of a request."""

from __future__ import annotations

import ssl

import httpx
import pytest

from conformance.receiver import Receiver
from conformance.tls import harness_tls


def _trusting_only_the_harness_ca() -> ssl.SSLContext:
    ctx = ssl.create_default_context(cadata=harness_tls().ca_pem.decode("ascii"))
    assert len(ctx.get_ca_certs()) == 1  # nothing else: not the public roots
    return ctx


def test_an_https_receiver_is_served_under_the_harness_ca_for_the_address_it_listens_on() -> None:
    with Receiver(path="/a2a-webhook", tls=True) as hook:
        assert hook.url.startswith("https://127.0.0.1:") and hook.url.endswith("/a2a-webhook"), hook.url
        with httpx.Client(verify=_trusting_only_the_harness_ca(), trust_env=False, timeout=5.0) as client:
            answer = client.post(hook.url, json={"statusUpdate": {"taskId": "t-1"}},
                                 headers={"Authorization": "Bearer not-kept-in-evidence"})
        assert answer.status_code == 204
        got = hook.wait(1, 5.0)
    assert len(got) == 1 and got[0].json == {"statusUpdate": {"taskId": "t-1"}}, got
    assert got[0].method == "POST" and got[0].path == "/a2a-webhook"
    assert got[0].to_evidence()["headers"].count("Authorization: <redacted>") == 1
    assert hook.handshake_failures() == []


def test_a_client_that_does_not_trust_the_harness_ca_gets_no_answer_and_the_failed_handshake_is_kept() -> None:
    import certifi

    with Receiver(tls=True) as hook:
        public_roots = ssl.create_default_context(cafile=certifi.where())
        with httpx.Client(verify=public_roots, trust_env=False, timeout=5.0) as client, \
                pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.post(hook.url, json={})
        failures = hook.handshake_failures(timeout=5.0)  # kept by the handler's thread once the client hung up
        assert hook.received() == []
    assert len(failures) == 1 and failures[0].startswith("from 127.0.0.1:"), failures


def test_a_certificate_names_only_the_address_listened_on() -> None:
    """A client checking the certificate against another name of this host (localhost) is refused: it is issued
    for the one address the receiver serves on, as a container reaches it there."""
    import socket
    from urllib.parse import urlsplit

    with Receiver(tls=True) as hook:
        port = urlsplit(hook.url).port
        assert port is not None
        with socket.create_connection(("127.0.0.1", port), timeout=5.0) as raw, \
                pytest.raises(ssl.SSLCertVerificationError, match="mismatch|match"):
            _trusting_only_the_harness_ca().wrap_socket(raw, server_hostname="localhost")
        assert hook.received() == []


def test_a_unix_receiver_does_not_pretend_to_serve_tls() -> None:
    with pytest.raises(ValueError, match="plain http"):
        Receiver(unix=True, tls=True)
