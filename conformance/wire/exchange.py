"""One request/response pair as it crossed the wire, and the collector the clients append to.

An :class:`Exchange` is evidence: what the harness sent and what came back, unrepaired. Secrets in
headers (``Authorization`` and friends) and any string the caller names as secret are redacted by
:meth:`Exchange.to_evidence`, never stored redacted, so a check can still inspect the real values.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Self

from google.protobuf.message import Message

from conformance.wire.sse import SseEvent, StreamEnd

Binding = Literal["JSONRPC", "HTTP+JSON", "GRPC", "JSONRPC-UNIX"]
ClosedBy = StreamEnd

#: Where an agent card is served (A2A §8.2): an exchange there is no binding's answer.
CARD_PATH = "/.well-known/agent-card.json"
#: Header (and gRPC metadata) names whose values never reach evidence.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})
REDACTED = "<redacted>"


@dataclass
class Exchange:
    """What one call sent and received.

    ``method`` is the HTTP verb (or ``"RPC"`` for gRPC); ``target`` is the request path, or the full
    gRPC method path (``/a2a.v1.A2AService/GetTask``). ``rpc_method`` is the JSON-RPC / gRPC method
    name when there is one. ``status`` is the HTTP status code, or the gRPC status code name.
    ``response_body`` is parsed JSON when the body was JSON, else text; for gRPC the response
    message(s) rendered with ``MessageToDict``. ``frames`` holds the SSE events of a stream (or the
    rendered messages of a gRPC server stream); ``closed_by`` says how a stream ended.
    """

    binding: Binding
    method: str
    target: str
    url: str
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    request_body: Any = None
    rpc_method: str | None = None
    status: int | str | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: Any = None
    frames: list[SseEvent] | None = None
    started_at: float = field(default_factory=time.time)
    duration: float = 0.0
    error: str | None = None
    closed_by: ClosedBy | None = None
    #: The unix socket the request went over (JSONRPC-UNIX); not evidence (the URL says where, on it).
    uds: str | None = None

    def __repr__(self) -> str:
        """A summary without headers, query, bodies or error text: those may hold secrets, and pytest prints
        the repr of a failing check's values. :meth:`to_evidence` has them, redacted."""
        what = f" {self.rpc_method}" if self.rpc_method else ""
        frames = "" if self.frames is None else f", {len(self.frames)} frame(s)"
        error = ", with an error" if self.error else ""
        path = self.target.partition("?")[0]  # a query may carry a key
        return f"Exchange({self.binding} {self.method} {self.url}{path}{what} -> {self.status}{frames}{error})"

    @property
    def protocol_answer(self) -> bool:
        """Whether the binding answered in its own protocol: a JSON-RPC 2.0 response (result or error), an
        HTTP+JSON result or ``{"error": ...}`` body, a gRPC status from a served method; each also as
        the frames of a stream. Not: a connection failure, an HTML or other foreign body, the agent
        card (fetched over HTTP, but no binding's answer), gRPC UNAVAILABLE / UNIMPLEMENTED / UNKNOWN."""
        if self.binding == "GRPC":
            return self.status not in (None, "UNAVAILABLE", "UNIMPLEMENTED", "UNKNOWN")
        bodies: list[Any] = [self.response_body]
        for frame in self.frames or ():
            try:
                bodies.append(frame.json())
            except ValueError:
                continue
        if self.binding in ("JSONRPC", "JSONRPC-UNIX"):
            return any(isinstance(b, dict) and b.get("jsonrpc") == "2.0" and ("result" in b or "error" in b)
                       for b in bodies)
        if self.target.split("?", 1)[0].endswith(CARD_PATH):
            return False
        ok = isinstance(self.status, int) and 200 <= self.status < 300
        return any(isinstance(b, dict) and (ok or isinstance(b.get("error"), dict)) for b in bodies)

    def to_evidence(self, secrets: Iterable[str] = ()) -> dict[str, Any]:
        """A JSON-serialisable dict of this exchange with secret headers and ``secrets`` redacted."""
        hidden = [s for s in secrets if s]
        d: dict[str, Any] = {
            "binding": self.binding,
            "method": self.method,
            "target": self.target,
            "url": self.url,
            "rpc_method": self.rpc_method,
            "request": {
                "headers": _headers_evidence(self.request_headers, hidden),
                "body": _scrub(_jsonable(self.request_body), hidden),
            },
            "response": {
                "status": self.status,
                "headers": _headers_evidence(self.response_headers, hidden),
                "body": _scrub(_jsonable(self.response_body), hidden),
            },
            "started_at": self.started_at,
            "duration": round(self.duration, 6),
            "error": _scrub(self.error, hidden),
            "closed_by": self.closed_by,
        }
        if self.frames is not None:
            d["response"]["frames"] = [_scrub(f.to_dict(), hidden) for f in self.frames]
        return d


@dataclass(frozen=True)
class Read:
    """One A2A object a caller read out of an answer (a result, or a stream frame), as it came.

    The caller hands checks a lenient view of it (``conformance.wire.strict.lenient``), so a row that
    does not own the data model is judged on its own behaviour; the rows that do own it judge these
    reads afterwards (DESIGN.md §2.11). ``problems`` are what was wrong with the JSON-RPC envelope it
    came in (the id echo, the version member), which is the envelope row's to judge.
    """

    binding: str
    method: str
    what: str
    raw: Any
    message_type: type[Message]
    problems: tuple[str, ...] = ()


#: Called with every exchange any recorder records, in the process (the run's task ledger,
#: ``conformance.a2a.ledger``, watches for the tasks the run makes). A watcher must not raise.
WATCHERS: list[Callable[[Exchange], None]] = []


class Recorder(list[Exchange]):
    """A list of exchanges, in call order; every client appends each call it makes. ``reads`` lists the
    A2A objects the caller read out of them, for the rows that judge the data model."""

    def __init__(self, *exchanges: Exchange) -> None:
        super().__init__(exchanges)
        self.reads: list[Read] = []

    def record(self, exchange: Exchange) -> Exchange:
        self.append(exchange)
        for watch in WATCHERS:
            watch(exchange)
        return exchange

    @property
    def last(self) -> Exchange:
        if not self:
            raise LookupError("no exchange recorded yet")
        return self[-1]

    def to_evidence(self, secrets: Iterable[str] = ()) -> list[dict[str, Any]]:
        hidden = list(secrets)
        return [e.to_evidence(hidden) for e in self]


def _headers_evidence(headers: list[tuple[str, str]], secrets: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    for name, value in headers:
        shown = REDACTED if name.lower() in SECRET_HEADERS else _scrub(_jsonable(value), secrets)
        out.append([name, shown])
    return out


def _jsonable(value: Any) -> Any:
    """Turn bytes and other non-JSON leaves into strings so evidence always serialises."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if not secrets or value is None:
        return value
    if isinstance(value, str):
        for s in secrets:
            value = value.replace(s, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


class Client:
    """What every binding client is: something to :meth:`close`, also as a context manager."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
