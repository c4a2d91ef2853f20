"""One resolver for every check: find the agent's card from what the user gave, then take every
endpoint from the interfaces that card declares.

What the user gives (``--url``) may be

- the **origin**, ``http://h:p`` (or ``http://h:p/``);
- the **card URL**, ``http://h:p/.well-known/agent-card.json`` (or any URL that serves the card);
- the agent's **base**, ``http://h:p/agents/x/``, whose card is ``<base>/.well-known/agent-card.json``;
- a **unix socket** (``--unix PATH`` or ``unix:///PATH``), whose card is at the well-known path on
  the socket.

Where the card is looked for, in this order; the first candidate that answers with the card wins:

1. the given URL itself, unless it is the bare origin (an origin is never a card). Taken as the card
   when it answers HTTP 200 with a JSON object that reads as an agent card (it names
   ``supportedInterfaces``, ``capabilities`` or ``skills``). When the given path is the well-known
   path, any JSON object counts: that URL *is* the card by definition, and the checks judge it as
   served. The given URL goes first because a user who names the card means that card, and every
   candidate derived from it would be a nonsense URL;
2. ``<given URL>/.well-known/agent-card.json``, when the given URL has a path (and that path is not
   itself a ``.json`` document): the card of an agent mounted under a base. It goes before the
   origin's because a host that serves several agents may serve another agent's card, or none, at
   its root;
3. ``<origin>/.well-known/agent-card.json`` (A2A §8.2), where any JSON object counts.

A candidate that answers another status (redirects are not followed), something that is not a
JSON object, or (for 1) a JSON object that is not a card, moves on to the next; a refused connection
ends the search (every candidate is on that host). When none answers, the location carries one
error naming every URL tried and what each answered. Nothing is repaired: the card is the JSON
object as served.

Endpoints come only from the card's ``supportedInterfaces`` (``protocolBinding``, ``url``,
``tenant``, ``protocolVersion``), verbatim: the harness calls an interface where the card says it
is, as a stock client would. A ``unix:///PATH`` URL names a socket (the JSON-RPC binding over it is
HTTP/1.1 at ``/``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.wire.tlsdefault import verify_arg

#: The SDK's ``a2a.utils.constants.AGENT_CARD_WELL_KNOWN_PATH`` (tests/test_wire_tables.py holds them equal),
#: written here: importing the SDK's utils imports protobuf and starlette into the command's own process,
#: which probes the agent before the checks (issue 20: the fixed cost of a run).
WELL_KNOWN_PATH = "/.well-known/agent-card.json"
#: The host name used for requests over a unix socket.
UDS_ORIGIN = "http://localhost"
#: What an attempt's outcome ends with when the user's credential was sent.
CREDENTIAL_SENT = " (with the given credential)"
#: Members of which at least one makes a JSON object read as an agent card (candidate 1).
_CARD_MEMBERS = ("supportedInterfaces", "capabilities", "skills")


@dataclass(frozen=True)
class Endpoint:
    """One interface the card declares, as declared."""

    binding: str
    url: str
    protocol_version: str
    tenant: str | None
    interface: Mapping[str, Any]

    @property
    def uds(self) -> str | None:
        """The socket path of a ``unix:///PATH`` interface; None for any other URL."""
        return self.url[len("unix://"):] if self.url.startswith("unix://") else None

    @property
    def speaks_1_0(self) -> bool:
        """Whether the interface declares protocol version 1.0 (any patch)."""
        return self.protocol_version.split(".")[:2] == ["1", "0"]


@dataclass(frozen=True)
class Attempt:
    """One place the card was looked for, and what it answered."""

    url: str
    outcome: str
    #: The HTTP status it answered (None: no HTTP answer), and its WWW-Authenticate challenge if any.
    status: int | None = None
    challenge: str | None = None


@dataclass(frozen=True)
class AgentLocation:
    """The agent as found: where its card is, the card as served, and the interfaces it declares.

    ``card`` is None when no candidate answered with a card; ``error`` then says why, naming every
    URL tried.
    """

    given: str
    uds: str | None
    card_url: str | None
    card: dict[str, Any] | None
    error: str | None
    attempts: tuple[Attempt, ...] = field(default=())
    #: The card answered only to the credential the user gave (it refused a request without one).
    with_credential: bool = False

    @property
    def origin(self) -> str:
        """The origin requests for the card went to (``http://localhost`` over a socket)."""
        if self.uds:
            return UDS_ORIGIN
        parts = urlsplit(self.card_url or self.given)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def well_known_url(self) -> str:
        """Where A2A §8.2 puts the card: the URL it was found at when that is a well-known path (the
        origin's or a base's), else the origin's well-known path."""
        if self.card_url and urlsplit(self.card_url).path.endswith(WELL_KNOWN_PATH):
            return self.card_url
        return self.origin + WELL_KNOWN_PATH

    @property
    def interfaces(self) -> list[Endpoint]:
        """Every well-formed entry of ``supportedInterfaces`` (a binding and a URL), in card order."""
        entries = (self.card or {}).get("supportedInterfaces")
        out: list[Endpoint] = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            binding, url = entry.get("protocolBinding"), entry.get("url")
            if not isinstance(binding, str) or not isinstance(url, str) or not url:
                continue
            tenant = entry.get("tenant")
            out.append(Endpoint(binding=binding, url=url, protocol_version=str(entry.get("protocolVersion") or ""),
                                tenant=tenant if isinstance(tenant, str) and tenant else None, interface=entry))
        return out

    def endpoints(self, bindings: Iterable[str]) -> dict[str, Endpoint]:
        """Per binding of ``bindings`` the card declares, the interface to talk to: the first
        declaring protocol version 1.0, else the first of that binding. Card order is kept."""
        wanted = set(bindings)
        out: dict[str, Endpoint] = {}
        for ep in self.interfaces:
            if ep.binding not in wanted:
                continue
            have = out.get(ep.binding)
            if have is None or (ep.speaks_1_0 and not have.speaks_1_0):
                out[ep.binding] = ep
        return out

    def endpoint(self, *bindings: str) -> Endpoint | None:
        """The interface of the first of ``bindings`` (in the order given) the card declares."""
        chosen = self.endpoints(bindings)
        return next((chosen[b] for b in bindings if b in chosen), None)

    def declared_bindings(self) -> list[Any]:
        """Every ``protocolBinding`` the card names, as named (for messages)."""
        entries = (self.card or {}).get("supportedInterfaces")
        return [e.get("protocolBinding") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def candidates(given: str, uds: str | None = None) -> list[tuple[str, bool]]:
    """The URLs the card is looked for at, in order, each with whether any JSON object found there is
    taken as the card (True) or only one that reads as a card (False)."""
    if uds:
        return [(UDS_ORIGIN + WELL_KNOWN_PATH, True)]
    parts = urlsplit(given)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path
    out: list[tuple[str, bool]] = []
    if path not in ("", "/"):
        out.append((given, path.endswith(WELL_KNOWN_PATH)))
        if not path.endswith(".json"):
            out.append((origin + path.rstrip("/") + WELL_KNOWN_PATH, True))
    if origin + WELL_KNOWN_PATH not in (u for u, _ in out):
        out.append((origin + WELL_KNOWN_PATH, True))
    return out


def resolve(given: str, *, uds: str | None = None, timeout: float = 5.0, bearer: str | None = None) -> AgentLocation:
    """Find the card of the agent ``given`` names (see the module's docstring for the order).

    ``bearer``: a token the user gave. It is sent only to a card URL that asked for a credential
    (HTTP 401/403 without one), never offered up front.
    """
    if uds is None and given.startswith("unix://"):
        uds = given[len("unix://"):]
    transport = httpx.HTTPTransport(uds=uds, verify=verify_arg()) if uds else None
    attempts: list[Attempt] = []
    with httpx.Client(transport=transport, verify=verify_arg(), timeout=timeout, follow_redirects=False) as client:
        for url, any_json in candidates(given, uds):
            credential = False
            try:
                card, attempt = _try(client, url, any_json)
                if card is None and bearer and attempt.status in (401, 403):
                    attempts.append(attempt)
                    credential = True
                    card, attempt = _try(client, url, any_json, {"Authorization": f"Bearer {bearer}"})
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # every candidate is on this host
                attempts.append(Attempt(url, f"{type(exc).__name__}: {exc}"))
                break
            attempts.append(attempt)
            if card is not None:
                return AgentLocation(given, uds, url, card, None, tuple(attempts), with_credential=credential)
    where = f"the socket {uds}" if uds else given
    tried = "; ".join(f"GET {a.url} → {a.outcome}" for a in attempts)
    return AgentLocation(given, uds, None, None, f"no agent card found for {where}: {tried}", tuple(attempts))


def _try(client: httpx.Client, url: str, any_json: bool,
         headers: Mapping[str, str] | None = None) -> tuple[dict[str, Any] | None, Attempt]:
    """(the card, the attempt) or (None, the attempt saying what the URL answered instead)."""
    try:
        resp = client.get(url, headers={"Accept": "application/json", **(headers or {})})
    except (httpx.ConnectError, httpx.ConnectTimeout):
        raise
    except httpx.HTTPError as exc:
        return None, Attempt(url, f"{type(exc).__name__}: {exc}")
    ctype = resp.headers.get("content-type", "")
    sent = CREDENTIAL_SENT if headers else ""

    def miss(what: str) -> tuple[None, Attempt]:
        return None, Attempt(url, what + sent, resp.status_code, resp.headers.get("www-authenticate"))

    if resp.status_code != 200:
        return miss(f"HTTP {resp.status_code} ({ctype or 'no content-type'}): {resp.text[:80]!r}")
    try:
        doc = json.loads(resp.content)
    except ValueError:
        return miss(f"HTTP 200 with a body that is not JSON ({ctype or 'no content-type'}): {resp.text[:80]!r}")
    if not isinstance(doc, dict):
        return miss(f"HTTP 200 with JSON that is not an object: {resp.text[:80]!r}")
    if not any_json and not any(m in doc for m in _CARD_MEMBERS):
        return miss(f"HTTP 200 with a JSON object that is not an agent card: {resp.text[:80]!r}")
    return doc, Attempt(url, "the card" + sent, 200)
