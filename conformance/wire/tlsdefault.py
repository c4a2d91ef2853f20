"""One default TLS client context per process, shared by the harness's HTTP clients.

An ``httpx.Client`` made with ``verify=True`` (httpx's default) builds a new ``ssl.SSLContext`` and loads the
whole CA bundle into it, 30-50 ms each, whether or not the client ever speaks TLS: a run makes a client per
check, and a run of the a2a family on a fast agent spent more time loading CA bundles than checking (issue
20). :func:`verify_arg` hands every client that would verify with the defaults one context made exactly as
httpx makes it (``httpx.create_ssl_context``: ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's
bundle), made again when either variable changes (the harness's own CA is added through ``SSL_CERT_FILE``,
conformance/tls.py). A client that presents a certificate of its own keeps its own context: httpx loads the
certificate into the context it is given.
"""

from __future__ import annotations

import os
import ssl
import threading

import httpx

_lock = threading.Lock()
_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def default_context() -> ssl.SSLContext:
    """The context httpx would make for ``verify=True`` under the present environment, made once."""
    key = (os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None)
    with _lock:
        ctx = _contexts.get(key)
        if ctx is None:
            ctx = _contexts[key] = httpx.create_ssl_context(verify=True)
        return ctx


def verify_arg(verify: ssl.SSLContext | bool = True, cert: object = None) -> ssl.SSLContext | bool:
    """What to pass httpx as ``verify``: the shared default context for ``verify=True`` without a client
    certificate; anything else as given."""
    if verify is True and cert is None:
        return default_context()
    return verify
