"""The HTTP plumbing shared by the JSON-RPC and HTTP+JSON clients: header layering, one recorded
request, one recorded SSE stream. TCP (optionally TLS) or a unix domain socket.
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Required, TypeAlias, TypedDict, Unpack

import httpx

from conformance.wire.exchange import Binding, Client, Exchange, Recorder
from conformance.wire.sse import SseEvent, SseRead, StreamEnd, read_sse
from conformance.wire.tlsdefault import verify_arg

#: A header value: one line, several lines of the same name, or ``None`` to remove the header.
HeaderValue: TypeAlias = str | Sequence[str] | None
HeaderSpec: TypeAlias = Mapping[str, HeaderValue]

#: Host name used in URLs sent over a unix domain socket.
UDS_HOST = "http://localhost"


def merge_headers(*layers: HeaderSpec | None) -> list[tuple[str, str]]:
    """Layer header specs (later wins, names case-insensitive); ``None`` removes a header and a
    list of strings becomes repeated header lines, in order."""
    merged: dict[str, tuple[str, list[str]]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            key = name.lower()
            if value is None:
                merged.pop(key, None)
            elif isinstance(value, str):
                merged[key] = (name, [value])
            else:
                merged[key] = (name, list(value))
    return [(name, v) for name, values in merged.values() for v in values]


def decode_body(raw: bytes) -> Any:
    """Parsed JSON when the body is JSON, else the text (``None`` for an empty body)."""
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class Outgoing(TypedDict, total=False):
    """What one request sends besides its verb and path, as keyword arguments of :meth:`HttpEndpoint.send`
    and :meth:`HttpEndpoint.stream`: the header lines as sent, the body's bytes, the query, and the
    JSON-RPC method its record names."""

    headers: Required[list[tuple[str, str]]]
    content: bytes | None
    params: Mapping[str, Any] | None
    rpc_method: str | None


class Reading(TypedDict, total=False):
    """How long a streamed answer is read, as keyword arguments passed on to :meth:`HttpEndpoint.stream`
    (whose signature holds the defaults): until the deadline, an idle gap, or ``until`` holds for an event."""

    deadline: float
    idle_timeout: float | None
    until: Callable[[SseEvent], bool] | None


@dataclass
class HttpReply:
    """A complete (non-streamed) HTTP answer. ``json`` is the parsed body, ``None`` when the body
    is not JSON (see ``body`` for the bytes)."""

    status: int
    headers: httpx.Headers
    body: bytes
    json: Any
    exchange: Exchange
    is_json: bool = False

    @property
    def content_type(self) -> str:
        return str(self.headers.get("content-type", ""))


@dataclass
class StreamReply:
    """A streamed HTTP answer. When the server answered with SSE, ``events`` holds every dispatched
    event and ``payloads`` their data decoded as JSON (``None`` for a frame that is not JSON); when
    it answered with a plain body instead (an error before the first event), ``body``/``json`` hold
    it and ``events`` is empty."""

    status: int
    headers: httpx.Headers
    events: list[SseEvent]
    payloads: list[Any]
    closed_by: StreamEnd
    error: str | None
    exchange: Exchange
    body: bytes = b""
    json: Any = None
    undispatched: str = ""
    comments: list[str] = field(default_factory=list)

    @property
    def content_type(self) -> str:
        return str(self.headers.get("content-type", ""))

    @property
    def is_sse(self) -> bool:
        return self.content_type.split(";")[0].strip().lower() == "text/event-stream"


class Connection(TypedDict, total=False):
    """How an HTTP binding client reaches its server, as keyword arguments passed on to
    :class:`HttpEndpoint` (whose signature holds the defaults)."""

    uds: str | None
    timeout: float
    verify: ssl.SSLContext | bool
    cert: tuple[str, str] | None
    recorder: Recorder | None


class HttpEndpoint:
    """An httpx client bound to one base URL (or unix socket) that records every call."""

    def __init__(
        self,
        base_url: str,
        *,
        binding: Binding,
        uds: str | None = None,
        timeout: float = 10.0,
        verify: ssl.SSLContext | bool = True,
        cert: tuple[str, str] | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.base_url = (UDS_HOST if uds and not base_url else base_url).rstrip("/")
        self.binding: Binding = binding
        self.timeout = timeout
        self.recorder = recorder if recorder is not None else Recorder()
        self._settings: dict[str, Any] = {"uds": uds, "verify": verify, "cert": cert}
        self._client = self._new_client()
        self._open_streams = 0

    def _new_client(self) -> httpx.Client:
        uds, cert = self._settings["uds"], self._settings["cert"]
        verify = verify_arg(self._settings["verify"], cert)
        transport = httpx.HTTPTransport(uds=uds, verify=verify, cert=cert) if uds else None
        return httpx.Client(transport=transport, verify=verify, cert=cert, timeout=self.timeout,
                            follow_redirects=False)

    def _after(self, status: int) -> None:
        """After a server error, keep no connection: a server may close one after a 5xx without saying
        so, and the next request sent on it would fail for a reason that is no answer of the agent's
        (a stale keep-alive connection), differently from run to run. Not while a stream is open on
        this client (a check acting mid-stream); that stream's connection is its own anyway."""
        if status >= 500 and self._open_streams == 0:
            self._client.close()
            self._client = self._new_client()

    def close(self) -> None:
        self._client.close()

    def url_for(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + (path if path.startswith("/") or not path else "/" + path)

    def _request(self, verb: str, path: str, outgoing: Outgoing) -> tuple[httpx.Request, Exchange]:
        """The request ``outgoing`` describes, and the record of its exchange."""
        content = outgoing.get("content")
        request = self._client.build_request(
            verb, self.url_for(path), headers=outgoing["headers"], content=content,
            params=_query(outgoing.get("params")),
        )
        return request, self._exchange(request, content, outgoing.get("rpc_method"))

    def _exchange(
        self, request: httpx.Request, content: bytes | None, rpc_method: str | None
    ) -> Exchange:
        return Exchange(
            binding=self.binding,
            method=request.method,
            target=request.url.raw_path.decode("ascii", errors="replace"),
            url=str(request.url),
            request_headers=[(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw],
            request_body=decode_body(content or b""),
            rpc_method=rpc_method,
            uds=self._settings["uds"],
        )

    def _open(self, request: httpx.Request, ex: Exchange, t0: float, *, stream: bool) -> httpx.Response:
        """Send ``request`` (started at ``t0``); a transport failure is recorded on ``ex`` (a stream's
        as closed by ``error``) and re-raised as ``httpx.HTTPError``."""
        try:
            return self._client.send(request, stream=stream)
        except httpx.HTTPError as exc:
            ex.duration = time.monotonic() - t0
            ex.error = f"{type(exc).__name__}: {exc}"
            if stream:
                ex.closed_by = "error"
            self.recorder.record(ex)
            raise

    def send(self, verb: str, path: str, *, timeout: float | None = None, **outgoing: Unpack[Outgoing]) -> HttpReply:
        """One request; a transport failure is recorded and re-raised as ``httpx.HTTPError``."""
        request, ex = self._request(verb, path, outgoing)
        if timeout is not None:
            request.extensions["timeout"] = httpx.Timeout(timeout).as_dict()
        t0 = time.monotonic()
        response = self._open(request, ex, t0, stream=False)
        ex.duration = time.monotonic() - t0
        ex.status = response.status_code
        ex.response_headers = _raw_headers(response.headers)
        body = response.content
        parsed = decode_body(body)
        ex.response_body = parsed
        self.recorder.record(ex)
        self._after(response.status_code)
        is_json = bool(body) and not isinstance(parsed, str)
        return HttpReply(
            response.status_code, response.headers, body, parsed if is_json else None, ex, is_json
        )

    def stream(
        self,
        verb: str,
        path: str,
        *,
        deadline: float = 10.0,
        idle_timeout: float | None = None,
        until: Callable[[SseEvent], bool] | None = None,
        **outgoing: Unpack[Outgoing],
    ) -> StreamReply:
        """One streamed request, read as SSE until the server closes, ``until`` holds, or the
        deadline / idle timeout cuts it. A non-SSE answer is read as a plain body."""
        request, ex = self._request(verb, path, outgoing)
        t0 = time.monotonic()
        response = self._open(request, ex, t0, stream=True)
        self._open_streams += 1
        try:
            ex.status = response.status_code
            ex.response_headers = _raw_headers(response.headers)
            ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype == "text/event-stream":
                remaining = max(0.0, deadline - (time.monotonic() - t0))
                got = read_sse(response, deadline=remaining, idle_timeout=idle_timeout, until=until)
                body = b""
            else:
                got, body = _read_plain(response, deadline - (time.monotonic() - t0), idle_timeout)
        finally:
            response.close()
            self._open_streams -= 1
        self._after(response.status_code)
        ex.duration = time.monotonic() - t0
        ex.frames = got.events
        ex.closed_by = got.closed_by
        ex.error = got.error
        parsed = decode_body(body)
        ex.response_body = got.raw if ctype == "text/event-stream" else parsed
        self.recorder.record(ex)
        payloads = [_frame_json(e) for e in got.events]
        is_json = bool(body) and not isinstance(parsed, str)
        return StreamReply(
            status=response.status_code,
            headers=response.headers,
            events=got.events,
            payloads=payloads,
            closed_by=got.closed_by,
            error=got.error,
            exchange=ex,
            body=body,
            json=parsed if is_json else None,
            undispatched=got.undispatched,
            comments=got.comments,
        )


class HttpClient(Client):
    """What the HTTP binding clients share: the one recording :class:`HttpEndpoint` they talk
    through (``self._http``), its recorder, and closing it (also as a context manager)."""

    _http: HttpEndpoint
    headers: dict[str, Any]

    def _connect(self, url: str, binding: Binding, default_headers: Mapping[str, str],
                 headers: HeaderSpec | None, connection: Connection) -> None:
        """Open the endpoint at ``url``; ``headers`` on top of ``default_headers`` go with every call."""
        self._http = HttpEndpoint(url, binding=binding, **connection)
        self.headers = dict(default_headers)
        self.headers.update(headers or {})

    @property
    def recorder(self) -> Recorder:
        return self._http.recorder

    def close(self) -> None:
        self._http.close()


def _read_plain(response: httpx.Response, deadline: float, idle: float | None) -> tuple[SseRead, bytes]:
    """Read a non-SSE streamed body under the same deadline rules as an SSE stream."""
    chunks: list[bytes] = []
    # Reuse the SSE reader's deadline machinery; the parser sees nothing, the bytes go to ``chunks``.
    got = read_sse(_Tee(response, chunks), deadline=max(0.0, deadline), idle_timeout=idle)  # type: ignore[arg-type]
    got.raw = ""
    return got, b"".join(chunks)


class _Tee:
    """Looks enough like an httpx.Response for :func:`read_sse`, keeping the raw bytes."""

    def __init__(self, response: httpx.Response, sink: list[bytes]) -> None:
        self._response = response
        self._sink = sink
        self.extensions = response.extensions

    def iter_raw(self) -> Any:
        for chunk in self._response.iter_raw():
            self._sink.append(chunk)
            yield b""  # nothing for the SSE parser; the bytes go to the sink

    def close(self) -> None:
        self._response.close()


def _frame_json(event: SseEvent) -> Any:
    try:
        return event.json()
    except ValueError:
        return None


def _raw_headers(headers: httpx.Headers) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers.raw]


def _query(params: Mapping[str, Any] | None) -> list[tuple[str, str | int | float | bool | None]] | None:
    if params is None:
        return None
    out: list[tuple[str, str | int | float | bool | None]] = []
    for k, v in params.items():
        if v is None:
            continue
        values = v if isinstance(v, list | tuple) else [v]
        for item in values:
            out.append((k, "true" if item is True else "false" if item is False else str(item)))
    return out
