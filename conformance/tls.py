"""The harness's own CA for containers that serve TLS (contract v2's ``tls`` label), one per process.

The CA and every key live in memory only: a certificate and its key reach a container through the
engine's archive upload before the container starts, never a file on this host. What this process trusts
is widened to the CA by one bundle file of public certificates (the default roots plus the CA) named by
``SSL_CERT_FILE``, which every httpx client the harness makes reads; nothing else changes.
"""

from __future__ import annotations

import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The names a server certificate is valid for: every address the harness reaches a container at.
SERVER_NAMES = ("127.0.0.1", "::1", "localhost")

_lock = threading.Lock()
_instance: HarnessTls | None = None


@dataclass(frozen=True)
class ServerPair:
    """A certificate chain and its key, as PEM bytes."""

    chain: bytes
    key: bytes


class HarnessTls:
    """A throwaway CA (trustme) and what it issued."""

    def __init__(self) -> None:
        import trustme

        self._ca: Any = trustme.CA(organization_name="agentd-conformance run CA")
        self.ca_pem: bytes = self._ca.cert_pem.bytes()
        self._issued: dict[tuple[str, ...], ServerPair] = {}
        self._bundle: Path | None = None

    def server(self, *names: str) -> ServerPair:
        """A certificate for ``names`` (default :data:`SERVER_NAMES`), issued once per set of names."""
        key = tuple(names or SERVER_NAMES)
        if key not in self._issued:
            cert = self._ca.issue_cert(*key)
            chain = b"".join(blob.bytes() for blob in cert.cert_chain_pems)
            self._issued[key] = ServerPair(chain=chain, key=cert.private_key_pem.bytes())
        return self._issued[key]

    def server_context(self, *names: str) -> Any:
        """An ssl server context holding a certificate for ``names`` (for the harness's own receivers)."""
        import ssl

        pair = self.server(*names)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        with tempfile.TemporaryDirectory(prefix="agentd-tls-") as folder:
            # ssl loads a chain only from files: written into a private folder, read, removed at once.
            chain, key = Path(folder) / "chain.pem", Path(folder) / "key.pem"
            chain.write_bytes(pair.chain)
            key.touch(mode=0o600)
            key.write_bytes(pair.key)
            ctx.load_cert_chain(str(chain), str(key))
        return ctx

    def trust(self) -> Path:
        """Make this process's https clients trust the CA (besides what they trusted); returns the bundle."""
        if self._bundle is None:
            import certifi

            base = os.environ.get("SSL_CERT_FILE") or certifi.where()
            folder = Path(tempfile.mkdtemp(prefix="agentd-trust-"))
            bundle = folder / "ca-bundle.pem"
            bundle.write_bytes(Path(base).read_bytes().rstrip(b"\n") + b"\n" + self.ca_pem)
            os.environ["SSL_CERT_FILE"] = str(bundle)
            self._bundle = bundle
        return self._bundle


def harness_tls() -> HarnessTls:
    """This process's CA (made on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = HarnessTls()
        return _instance
