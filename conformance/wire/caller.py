"""One way to call any core A2A method on any standard binding, with answers read the same way.

A check says ``caller.call("GetTask", {"id": tid})`` and gets an :class:`Answer` whose ``result`` is
the decoded result object (ProtoJSON, as the binding carried it) or whose ``error`` is the
normalised :class:`~conformance.wire.errors.ErrorView`. The caller maps the method onto the binding:
a JSON-RPC request, an HTTP+JSON route (path, query, body), or a gRPC call through the SDK's stub.
Service parameters (``A2A-Version``, ``A2A-Extensions``) are overridable per call on every binding;
``None`` removes one; on the HTTP bindings a call may also carry URL query parameters. Nothing is
repaired: envelope and framing problems are listed in ``problems``.

Results and stream frames of a 1.0 call are handed to the check as a tolerant reader would read them
(``result``, ``events``: proto field names and enum numbers or spellings read as ProtoJSON names; see
:func:`conformance.wire.strict.lenient`), with the object as it came beside (``raw_result``,
``raw_events``) and noted in the recorder's ``reads``: the rows that own the data model judge those,
every other row is judged on its own behaviour (DESIGN.md §2.11).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.message import Message

from conformance.wire import DEFAULT_CALL_TIMEOUT, STANDARD_BINDINGS, Recorder
from conformance.wire.errors import ErrorView, from_jsonrpc, from_rest
from conformance.wire.exchange import Read
from conformance.wire.grpc import GrpcClient
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.methods import REQUEST_TYPES, RESPONSE_TYPES
from conformance.wire.quoting import quote as quote_value
from conformance.wire.rest import RestClient
from conformance.wire.strict import lenient

#: Service-parameter overrides for one call: name -> value, or None to leave the parameter out.
Service = Mapping[str, str | list[str] | None]
OnEvent = Callable[[Any], bool]


@dataclass
class Answer:
    """One unary call as the harness read it."""

    binding: str
    method: str
    result: Any = None
    error: ErrorView | None = None
    status: int | str | None = None
    content_type: str = ""
    body: Any = None
    request_id: Any = None
    problems: list[str] = field(default_factory=list)
    transport_error: str | None = None
    #: The result exactly as it came (``result`` is the lenient reading of it, for a 1.0 call).
    raw_result: Any = None
    #: Whether the answer carried a result at all (a JSON-RPC ``result`` member, which may be null; a
    #: 2xx HTTP+JSON body; a gRPC response), whatever its envelope's problems.
    has_result: bool = False
    #: The per-call timeout (seconds) when the harness stopped waiting for this answer; None when an
    #: answer (or a transport failure of another kind) came.
    timed_out: float | None = None

    @property
    def ok(self) -> bool:
        """The call succeeded: no error, no transport failure, a result. How the envelope around the result
        is formed (``problems``) is the envelope row's to judge, not the calling check's."""
        return self.error is None and self.transport_error is None and self.has_result

    def quote(self, limit: int = 600) -> str:
        """What came back, short enough for a failure message."""
        if self.transport_error:
            return f"transport failure: {self.transport_error}"
        return f"{self.binding} {self.method} → status {self.status!r}, body {quote_value(self.body, limit)}"


@dataclass
class StreamAnswer:
    """One streaming call: the StreamResponse objects received, in order, and how it ended."""

    binding: str
    method: str
    events: list[Any] = field(default_factory=list)
    error: ErrorView | None = None
    is_stream: bool = False
    status: int | str | None = None
    content_type: str = ""
    closed_by: str = "server"
    body: Any = None
    problems: list[str] = field(default_factory=list)
    transport_error: str | None = None
    #: The frames exactly as they came (``events`` are their lenient readings, for a 1.0 call).
    raw_events: list[Any] = field(default_factory=list)
    #: What was wrong with the stream's framing (an event whose data is not JSON, an unterminated
    #: event); also in ``problems``, beside the envelope's problems.
    framing: list[str] = field(default_factory=list)

    def quote(self, limit: int = 900) -> str:
        if self.transport_error:
            return f"transport failure: {self.transport_error}"
        shown = self.events if self.events else self.body
        return (f"{self.binding} {self.method} → status {self.status!r}, content-type {self.content_type!r}, "
                f"closed by {self.closed_by}, {len(self.events)} event(s): {quote_value(shown, limit)}")


class Caller:
    """Calls one interface of the agent (``interface`` is the card's AgentInterface entry)."""

    def __init__(self, binding: str, interface: Mapping[str, Any], *, token: str | None = None,
                 recorder: Recorder | None = None, timeout: float = DEFAULT_CALL_TIMEOUT) -> None:
        if binding not in STANDARD_BINDINGS:
            raise ValueError(f"not a standard binding: {binding!r}")
        self.binding = binding
        self.interface = dict(interface)
        self.url = str(interface.get("url") or "")
        self.tenant = str(interface.get("tenant") or "") or None
        self.recorder = recorder if recorder is not None else Recorder()
        self.timeout = timeout
        #: Run once before the first call (a check's precondition on this interface; it may end the check).
        self.before: Callable[[], None] | None = None
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        self._jsonrpc: JsonRpcClient | None = None
        self._rest: RestClient | None = None
        self._grpc: GrpcClient | None = None
        if binding == "JSONRPC":
            self._jsonrpc = JsonRpcClient(self.url, headers=auth, timeout=timeout, recorder=self.recorder)
        elif binding == "HTTP+JSON":
            self._rest = RestClient(self.url, tenant=self.tenant, headers=auth, timeout=timeout,
                                    recorder=self.recorder)
        else:
            md = {"authorization": f"Bearer {token}"} if token else {}
            self._grpc = GrpcClient(grpc_target(self.url), metadata=md, timeout=timeout, recorder=self.recorder)

    def close(self) -> None:
        for c in (self._jsonrpc, self._rest, self._grpc):
            if c is not None:
                c.close()

    def __enter__(self) -> Caller:
        return self

    def ready(self) -> None:
        """Run the check's precondition on this interface now (it runs before the first call anyway)."""
        hook, self.before = self.before, None
        if hook is not None:
            hook()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- unary ---------------------------------------------------------------------------------

    def call(self, method: str, params: Mapping[str, Any] | None = None, *,
             service: Service | None = None, query: Mapping[str, str] | None = None) -> Answer:
        """Call ``method`` with ``params`` (ProtoJSON of its request type) and read the answer.
        ``query`` adds URL query parameters on the HTTP bindings (gRPC has none)."""
        if query and self._grpc is not None:
            raise ValueError("the gRPC binding has no query parameters")
        self.ready()
        params = self._with_tenant(method, dict(params or {}))
        try:
            if self._jsonrpc is not None:
                ans = self._call_jsonrpc(method, params, service, query)
            elif self._rest is not None:
                ans = self._call_rest(method, params, service, query)
            else:
                ans = self._call_grpc(method, params, service)
        except httpx.TimeoutException as exc:
            return Answer(self.binding, method, transport_error=f"{type(exc).__name__}: no answer within the "
                          f"per-call timeout of {self.timeout:g}s ({exc})", timed_out=self.timeout)
        except Exception as exc:  # noqa: BLE001 - a transport failure is an answer the check judges
            return Answer(self.binding, method, transport_error=f"{type(exc).__name__}: {exc}")
        ans.raw_result = ans.result
        rtype = RESPONSE_TYPES.get(method)
        if ans.result is not None and rtype is not None and speaks_1_0(service):
            self.recorder.reads.append(Read(self.binding, method, f"the {method} result", ans.result, rtype,
                                            tuple(ans.problems)))
            ans.result = lenient(ans.result, rtype)
        return ans

    def _call_jsonrpc(self, method: str, params: dict[str, Any], service: Service | None,
                      query: Mapping[str, str] | None) -> Answer:
        assert self._jsonrpc is not None
        reply = self._jsonrpc.call(method, params, headers=_headers(service), query=query)
        ans = Answer(self.binding, method, status=reply.status, content_type=reply.content_type,
                     body=reply.json if reply.is_json else reply.body.decode("utf-8", "replace"),
                     request_id=reply.exchange.request_body.get("id")
                     if isinstance(reply.exchange.request_body, dict) else None)
        read_envelope(ans, reply.json if reply.is_json else None)
        return ans

    def _call_rest(self, method: str, params: dict[str, Any], service: Service | None,
                   extra_query: Mapping[str, str] | None) -> Answer:
        assert self._rest is not None
        verb, path, body, query = rest_route(method, params)
        if extra_query:
            query = {**(query or {}), **extra_query}
        reply = self._rest.request(verb, self._rest.path(path), json=body, params=query, headers=_headers(service))
        ans = Answer(self.binding, method, status=reply.status, content_type=reply.content_type,
                     body=reply.json if reply.is_json else reply.body.decode("utf-8", "replace"))
        if 200 <= reply.status < 300:
            if reply.body and not reply.is_json:
                ans.problems.append(f"the {reply.status} answer is not JSON")
            ans.result = reply.json
            ans.has_result = reply.is_json or not reply.body
        else:
            ans.error = from_rest(reply.status, reply.json)
        return ans

    def _call_grpc(self, method: str, params: dict[str, Any], service: Service | None) -> Answer:
        assert self._grpc is not None
        request = _proto_request(method, params)
        reply = self._grpc.call(method, request, metadata=_metadata(service))
        ans = Answer(self.binding, method, status=reply.code, body=reply.exchange.response_body)
        if reply.code == "DEADLINE_EXCEEDED" and reply.exchange.duration >= self.timeout * 0.95:
            ans.timed_out = self.timeout  # the harness's own deadline cut the call, not the agent's answer
        if reply.ok:
            ans.result = MessageToDict(reply.response) if reply.response is not None else None
            ans.has_result = True
        else:
            ans.error = reply.error
        return ans

    def raw_jsonrpc(self, body: bytes | str | Any) -> Answer:
        """Send ``body`` as is to the JSON-RPC endpoint (bytes/str verbatim, else JSON-encoded)."""
        if self._jsonrpc is None:
            raise ValueError("raw JSON-RPC needs the JSONRPC binding")
        self.ready()
        method = body.get("method") if isinstance(body, dict) else None
        rid = body.get("id") if isinstance(body, dict) else None
        try:
            reply = self._jsonrpc.raw(body)
        except httpx.TimeoutException as exc:
            return Answer(self.binding, str(method), transport_error=f"{type(exc).__name__}: no answer within the "
                          f"per-call timeout of {self.timeout:g}s ({exc})", timed_out=self.timeout)
        except Exception as exc:  # noqa: BLE001
            return Answer(self.binding, str(method), transport_error=f"{type(exc).__name__}: {exc}")
        ans = Answer(self.binding, str(method), status=reply.status, content_type=reply.content_type,
                     body=reply.json if reply.is_json else reply.body.decode("utf-8", "replace"), request_id=rid)
        read_envelope(ans, reply.json if reply.is_json else None)
        return ans

    # ---- streaming -----------------------------------------------------------------------------

    def stream(self, method: str, params: Mapping[str, Any] | None = None, *, service: Service | None = None,
               deadline: float = 10.0, idle: float | None = None, on_event: OnEvent | None = None) -> StreamAnswer:
        """Call a streaming method and read StreamResponse objects until the server ends the stream,
        ``on_event(event)`` returns true, or ``deadline`` / ``idle`` seconds cut it. ``on_event`` sees
        each decoded StreamResponse object as it arrives (a check may act on the agent there)."""
        self.ready()
        params = self._with_tenant(method, dict(params or {}))
        current = speaks_1_0(service)
        rtype = RESPONSE_TYPES.get(method)
        if on_event is not None and current and rtype is not None:
            seen, kind = on_event, rtype

            def on_event(event: Any) -> bool:
                return seen(lenient(event, kind))
        frame_problems: dict[int, list[str]] = {}
        try:
            if self._grpc is not None:
                out = self._stream_grpc(method, params, service, deadline, idle, on_event)
            else:
                out = self._stream_http(method, params, service, deadline, idle, on_event, frame_problems)
        except Exception as exc:  # noqa: BLE001
            return StreamAnswer(self.binding, method, transport_error=f"{type(exc).__name__}: {exc}",
                                closed_by="error")
        out.raw_events = list(out.events)
        if current and rtype is not None:
            for i, ev in enumerate(out.raw_events):
                self.recorder.reads.append(Read(self.binding, method, f"frame {i} of {method}", ev, rtype,
                                                tuple(frame_problems.get(i, ()))))
            out.events = [lenient(ev, rtype) for ev in out.raw_events]
        return out

    def _stream_http(self, method: str, params: dict[str, Any], service: Service | None, deadline: float,
                     idle: float | None, on_event: OnEvent | None,
                     frame_problems: dict[int, list[str]]) -> StreamAnswer:
        jsonrpc = self._jsonrpc is not None

        def until(ev: Any) -> bool:
            if on_event is None:
                return False
            try:
                payload = ev.json()
            except ValueError:
                return False
            if jsonrpc:
                payload = payload.get("result") if isinstance(payload, dict) else None
            return bool(payload is not None and on_event(payload))

        if self._jsonrpc is not None:
            reply: Any = self._jsonrpc.stream(method, params, headers=_headers(service), deadline=deadline,
                                              idle_timeout=idle, until=until)
            sent = reply.exchange.request_body
            request_id = sent.get("id") if isinstance(sent, dict) else None
        else:
            assert self._rest is not None
            verb, path, body, query = rest_route(method, params)
            reply = self._rest.stream_request(verb, self._rest.path(path), json=body, params=query,
                                              headers=_headers(service), deadline=deadline, idle_timeout=idle,
                                              until=until)
            request_id = None
        out = StreamAnswer(self.binding, method, is_stream=reply.is_sse, status=reply.status,
                           content_type=reply.content_type, closed_by=reply.closed_by)
        if not reply.is_sse:
            out.body = reply.json if reply.json is not None else reply.body.decode("utf-8", "replace")
            if jsonrpc:
                ans = Answer(self.binding, method, body=out.body, request_id=request_id)
                read_envelope(ans, reply.json)
                out.error, out.problems = ans.error, ans.problems
                if ans.result is not None:
                    out.problems.append("a streaming method answered a single JSON-RPC result instead of a stream")
            elif reply.status >= 300:
                out.error = from_rest(reply.status, reply.json)
            else:
                out.problems.append(f"HTTP {reply.status} with Content-Type {reply.content_type!r}, not a stream")
            return out
        out.body = [e.to_dict() for e in reply.events]
        for i, (ev, payload) in enumerate(zip(reply.events, reply.payloads, strict=True)):
            if payload is None:
                out.framing.append(f"frame {i} is not JSON: {ev.data[:200]!r}")
                continue
            if jsonrpc:
                ans = Answer(self.binding, method, body=payload, request_id=request_id)
                read_envelope(ans, payload)
                out.problems.extend(f"frame {i}: {p}" for p in ans.problems)
                if ans.error is not None:
                    out.error = ans.error
                elif ans.result is not None:
                    frame_problems[len(out.events)] = list(ans.problems)
                    out.events.append(ans.result)
            elif isinstance(payload, dict) and "error" in payload:
                out.error = from_rest(reply.status, payload)
            else:
                out.events.append(payload)
        if reply.undispatched:
            out.framing.append(f"the stream ended inside an unterminated event: {reply.undispatched[:200]!r}")
        out.problems.extend(out.framing)
        return out

    def _stream_grpc(self, method: str, params: dict[str, Any], service: Service | None, deadline: float,
                     idle: float | None, on_event: OnEvent | None) -> StreamAnswer:
        assert self._grpc is not None
        request = _proto_request(method, params)

        def until(msg: Message) -> bool:
            return bool(on_event is not None and on_event(MessageToDict(msg)))

        reply = self._grpc.stream(method, request, metadata=_metadata(service), deadline=deadline,
                                  idle_timeout=idle, until=until)
        out = StreamAnswer(self.binding, method, events=list(reply.message_dicts), is_stream=True, status=reply.code,
                           closed_by=reply.closed_by, body=reply.exchange.response_body)
        if reply.closed_by == "error" and reply.code != "OK":
            out.error = reply.error
        return out

    # ---- helpers -------------------------------------------------------------------------------

    def _with_tenant(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.tenant and self.binding != "HTTP+JSON" and method in REQUEST_TYPES:
            fields = REQUEST_TYPES[method].DESCRIPTOR.fields_by_name
            if "tenant" in fields:
                params.setdefault("tenant", self.tenant)
        return params


def speaks_1_0(service: Service | None) -> bool:
    """Whether a call with these service-parameter overrides is an A2A 1.0 request (the default): its
    answer is then read as the 1.0 types; a check asking in another version reads what it gets."""
    for name, value in (service or {}).items():
        if name.lower() == "a2a-version":
            return value == "1.0"
    return True


def grpc_target(url: str) -> str:
    """``host:port`` of a gRPC interface url given as ``host:port`` or ``scheme://host:port/…``."""
    if "://" in url:
        parts = urlsplit(url)
        return parts.netloc
    return url.rstrip("/")


def read_envelope(ans: Answer, env: Any) -> None:
    """Read a JSON-RPC response envelope into ``ans`` (result or error), listing what is wrong with it."""
    if not isinstance(env, dict):
        ans.problems.append(f"the answer is not a JSON-RPC response object: {str(ans.body)[:200]!r}")
        return
    if env.get("jsonrpc") != "2.0":
        ans.problems.append(f"jsonrpc member is {env.get('jsonrpc')!r}, not '2.0'")
    if ans.request_id is not None and env.get("id") != ans.request_id:
        ans.problems.append(f"id {env.get('id')!r} does not echo the request id {ans.request_id!r}")
    has_result, has_error = "result" in env, "error" in env
    if has_result == has_error:
        ans.problems.append("the response carries " + ("both result and error" if has_result else
                                                       "neither result nor error"))
    extra = set(env) - {"jsonrpc", "id", "result", "error"}
    if extra:
        ans.problems.append(f"unknown envelope member(s) {sorted(extra)}")
    if has_error:
        ans.error = from_jsonrpc(env["error"])
    elif has_result:
        ans.result = env["result"]
        ans.has_result = True


def rest_route(method: str, params: Mapping[str, Any]) -> tuple[str, str, Any, dict[str, Any] | None]:
    """(verb, path, body, query) of ``method`` on the HTTP+JSON binding (§5.3, §11.3)."""
    p = dict(params)
    p.pop("tenant", None)

    def seg(value: Any) -> str:
        return quote(str(value), safe="")

    if method == "SendMessage":
        return "POST", "/message:send", p, None
    if method == "SendStreamingMessage":
        return "POST", "/message:stream", p, None
    if method == "GetTask":
        return "GET", f"/tasks/{seg(p.pop('id', ''))}", None, p or None
    if method == "ListTasks":
        return "GET", "/tasks", None, p or None
    if method == "CancelTask":
        return "POST", f"/tasks/{seg(p.pop('id', ''))}:cancel", p, None
    if method == "SubscribeToTask":
        return "POST", f"/tasks/{seg(p.pop('id', ''))}:subscribe", p, None
    if method == "CreateTaskPushNotificationConfig":
        return "POST", f"/tasks/{seg(p.get('taskId', ''))}/pushNotificationConfigs", p, None
    if method == "GetTaskPushNotificationConfig":
        return "GET", f"/tasks/{seg(p.pop('taskId', ''))}/pushNotificationConfigs/{seg(p.pop('id', ''))}", None, None
    if method == "ListTaskPushNotificationConfigs":
        return "GET", f"/tasks/{seg(p.pop('taskId', ''))}/pushNotificationConfigs", None, p or None
    if method == "DeleteTaskPushNotificationConfig":
        return ("DELETE", f"/tasks/{seg(p.pop('taskId', ''))}/pushNotificationConfigs/{seg(p.pop('id', ''))}",
                None, None)
    if method == "GetExtendedAgentCard":
        return "GET", "/extendedAgentCard", None, None
    raise ValueError(f"no HTTP+JSON route for {method!r}")


def _proto_request(method: str, params: Mapping[str, Any]) -> Message:
    msg = REQUEST_TYPES[method]()
    ParseDict(dict(params), msg)
    return msg


def _headers(service: Service | None) -> dict[str, Any] | None:
    return dict(service) if service else None


def _metadata(service: Service | None) -> dict[str, Any] | None:
    return {k.lower(): v for k, v in service.items()} if service else None
