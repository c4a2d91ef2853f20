"""Only the target is judged: which of the endpoints a card names belong to the target.

Every endpoint comes from the card, and a card may name anything: a container whose card advertised
its bind address was answered by another daemon listening there on the host, and that daemon's
answers were credited to the image. So an interface is called only when it is where the target is:

* ``--url``: the listener the URL names (its host and port), plus any ``--allow-origin`` the user
  names (a reverse proxy in front of the agent, another port of it);
* ``--unix``: the socket given, plus any ``--allow-origin``;
* a container: the port the harness reached it at (and its socket, when it listens on one);
* a launched bundled agent: every interface it declares (the harness started it, so they are its own).

Two URLs name the same listener when their host and port are the same (a missing port is the
scheme's default; a gRPC ``host:port`` has no scheme); the loopback names ``localhost``,
``127.0.0.1`` and ``::1`` are one host. The scheme is not compared: a port is one listener, whatever
protocol it speaks, and whether it speaks the declared one is A2A_CARD_007's question anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

#: Host names that all name this machine's loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: The port a URL without one names, by scheme.
DEFAULT_PORTS = {"http": 80, "https": 443, "grpc": 80, "grpcs": 443}


def listener(url: str) -> str | None:
    """The listener ``url`` names, as compared: ``host:port`` (lower case, the loopback names as one),
    or ``unix:PATH`` for a socket; None when the URL names no host (or an unreadable port)."""
    if url.startswith("unix://"):
        return "unix:" + url[len("unix://"):]
    parts = urlsplit(url if "://" in url else "grpc://" + url)
    try:
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host or any(c.isspace() for c in host) or ("://" not in url and port is None):
        return None
    if port is None:
        port = DEFAULT_PORTS.get(parts.scheme.lower())
        if port is None:
            return None
    return f"{'loopback' if host in LOOPBACK_NAMES else host}:{port}"


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url`` as written (``unix://PATH`` for a socket), for messages."""
    if url.startswith("unix://"):
        return url
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def allowed_origin(value: str) -> str:
    """``value`` checked as an ``--allow-origin``: ``scheme://host[:port]`` or ``host:port`` (a gRPC
    target) with no path, or ``unix:///PATH``; raises ValueError saying what is wrong."""
    if listener(value) is None:
        raise ValueError(f"expected an origin (scheme://host:port, host:port or unix:///PATH), got {value!r}")
    if not value.startswith("unix://"):
        parts = urlsplit(value if "://" in value else "grpc://" + value)
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"an origin has no path, query or fragment: {value!r}")
    return value


def outside(url: str, origins: Iterable[str] | None) -> bool:
    """Whether the interface at ``url`` is outside the target whose endpoints are ``origins`` (None:
    every interface the card declares is the target's). A URL naming no listener is not judged here."""
    if origins is None:
        return False
    own = listener(url)
    return own is not None and own not in {listener(o) for o in origins}


def another_port(url: str, origins: Iterable[str]) -> bool:
    """Whether ``url`` names another port of a host ``origins`` name (not another host): given ``--url``,
    such an interface may well be the same agent's (its gRPC listener, say), or another process's on that
    machine; the harness cannot tell, so it calls neither and fails neither (not measured)."""
    own = listener(url)
    if own is None or own.startswith("unix:"):
        return False
    hosts = {lst.rpartition(":")[0] for o in origins if (lst := listener(o)) and not lst.startswith("unix:")}
    return own.rpartition(":")[0] in hosts


def unconfirmed_note(binding: str, url: str) -> str:
    """The note of a row not measured because its interface is on another port of the host given."""
    return (f"{binding} interface {url!r} is on another port of the host given, not called (it may be another "
            "process's); --allow-origin it if it is your agent's")


def outside_note(binding: str, url: str, remedy: str) -> str:
    """The note of a card row failing for an interface outside the target (the URL quoted; short, since
    the report keeps a few hundred characters of a note)."""
    return f"{binding} interface {url!r} is outside the target, not called; {remedy}"
