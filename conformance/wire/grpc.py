"""gRPC client for the A2A gRPC binding, through a2a-sdk's generated ``A2AServiceStub``.

Each call is recorded as an :class:`~conformance.wire.exchange.Exchange` with messages rendered as
ProtoJSON. A failed call is not an exception here: the reply carries the status code name, the
details text, the trailing metadata and the decoded ``google.rpc.Status`` (``ErrorInfo`` /
``BadRequest``) so a check can judge it.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from a2a.types import a2a_pb2_grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from google.rpc import status_pb2

from conformance.wire.errors import ErrorView, any_to_dict, from_grpc, status_from_metadata
from conformance.wire.exchange import Client, Exchange, Recorder
from conformance.wire.methods import grpc_path
from conformance.wire.sse import StreamEnd

#: Default call metadata (gRPC service parameters are lower-case metadata keys).
DEFAULT_METADATA: Mapping[str, str] = {"a2a-version": "1.0"}

MetadataValue = str | bytes | Sequence[str] | None
MetadataSpec = Mapping[str, MetadataValue]
Metadata = list[tuple[str, str | bytes]]


@dataclass
class GrpcReply:
    """One unary call's outcome. ``code`` is the status code name (``"OK"``, ``"NOT_FOUND"``…)."""

    code: str
    details: str | None
    response: Message | None
    initial_metadata: Metadata
    trailing_metadata: Metadata
    status: status_pb2.Status | None
    exchange: Exchange

    @property
    def ok(self) -> bool:
        return self.code == "OK"

    @property
    def response_dict(self) -> dict[str, Any] | None:
        return MessageToDict(self.response) if self.response is not None else None

    @property
    def error(self) -> ErrorView | None:
        """The normalised error, ``None`` when the call succeeded."""
        return None if self.ok else from_grpc(self.code, self.details, self.status)


@dataclass
class GrpcStreamReply:
    """A server-streaming call: every message received, then how the stream ended."""

    code: str
    details: str | None
    messages: list[Message]
    initial_metadata: Metadata
    trailing_metadata: Metadata
    status: status_pb2.Status | None
    closed_by: StreamEnd
    exchange: Exchange
    message_dicts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def error(self) -> ErrorView | None:
        return None if self.code == "OK" else from_grpc(self.code, self.details, self.status)


def merge_metadata(*layers: MetadataSpec | None) -> Metadata:
    """Layer metadata specs like HTTP headers: later wins, ``None`` removes, a list repeats."""
    merged: dict[str, list[str | bytes]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            key = name.lower()
            if value is None:
                merged.pop(key, None)
            elif isinstance(value, str | bytes):
                merged[key] = [value]
            else:
                merged[key] = list(value)
    return [(k, v) for k, values in merged.items() for v in values]


class GrpcClient(Client):
    """A channel to one target (``host:port`` or ``unix:/path``) that records every call."""

    def __init__(
        self,
        target: str,
        *,
        metadata: MetadataSpec | None = None,
        timeout: float = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        options: Sequence[tuple[str, Any]] = (),
        recorder: Recorder | None = None,
    ) -> None:
        self.target = target
        self.timeout = timeout
        self.metadata: dict[str, MetadataValue] = dict(DEFAULT_METADATA)
        self.metadata.update(metadata or {})
        self.recorder = recorder if recorder is not None else Recorder()
        self._secure = credentials is not None
        if credentials is not None:
            self._channel = grpc.secure_channel(target, credentials, options=list(options))
        else:
            self._channel = grpc.insecure_channel(target, options=list(options))
        stub: Any = a2a_pb2_grpc.A2AServiceStub  # generated code, untyped
        self._stub = stub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def _exchange(self, method: str, request: Message, md: Metadata) -> Exchange:
        scheme = "grpcs" if self._secure else "grpc"
        return Exchange(
            binding="GRPC",
            method="RPC",
            target=grpc_path(method),
            url=f"{scheme}://{self.target}{grpc_path(method)}",
            request_headers=[(k, v if isinstance(v, str) else _b64(v)) for k, v in md],
            request_body=MessageToDict(request),
            rpc_method=method,
        )

    def call(
        self,
        method: str,
        request: Message,
        *,
        metadata: MetadataSpec | None = None,
        timeout: float | None = None,
    ) -> GrpcReply:
        """One unary call of ``method`` (a name from :data:`~conformance.wire.methods.CORE_METHODS`)."""
        md = merge_metadata(self.metadata, metadata)
        ex = self._exchange(method, request, md)
        fn = getattr(self._stub, method)
        t0 = time.monotonic()
        response: Message | None = None
        try:
            response, call = fn.with_call(request, metadata=md, timeout=timeout or self.timeout)
        except grpc.RpcError as err:
            call = err  # a grpc.Call as well
        ex.duration = time.monotonic() - t0
        code = call.code().name
        details = call.details()
        initial = _md(call.initial_metadata())
        trailing = _md(call.trailing_metadata())
        status = _status(trailing)
        ex.status = code
        ex.response_headers = _md_evidence(initial + trailing)
        ex.response_body = MessageToDict(response) if response is not None else None
        if code != "OK":
            ex.error = details
            ex.response_body = {"code": code, "details": details, "status": _status_dict(status)}
        self.recorder.record(ex)
        return GrpcReply(code, details, response, initial, trailing, status, ex)

    def stream(
        self,
        method: str,
        request: Message,
        *,
        metadata: MetadataSpec | None = None,
        deadline: float = 10.0,
        idle_timeout: float | None = None,
        until: Callable[[Message], bool] | None = None,
    ) -> GrpcStreamReply:
        """A server-streaming call read until the server ends it, ``until(message)`` is true, or the
        deadline / idle timeout cuts it (the call is cancelled)."""
        md = merge_metadata(self.metadata, metadata)
        ex = self._exchange(method, request, md)
        fn = getattr(self._stub, method)
        t0 = time.monotonic()
        call = fn(request, metadata=md, timeout=deadline)
        messages: list[Message] = []
        closed_by: StreamEnd = "server"
        cut = _IdleCut(call, idle_timeout)
        try:
            for msg in call:
                cut.touch()
                messages.append(msg)
                if until is not None and until(msg):
                    closed_by = "client"
                    call.cancel()
                    break
        except grpc.RpcError:
            pass
        finally:
            cut.stop()
        ex.duration = time.monotonic() - t0
        code = call.code().name
        details = call.details()
        if closed_by != "client":
            if code == "DEADLINE_EXCEEDED" or (code == "CANCELLED" and cut.fired):
                closed_by = "deadline"
            elif code != "OK":
                closed_by = "error"
        initial = _md(call.initial_metadata())
        trailing = _md(call.trailing_metadata())
        status = _status(trailing)
        dicts = [MessageToDict(m) for m in messages]
        ex.status = code
        ex.response_headers = _md_evidence(initial + trailing)
        ex.response_body = {
            "messages": dicts,
            "code": code,
            "details": details,
            "status": _status_dict(status),
        }
        ex.closed_by = closed_by
        if code != "OK" and closed_by != "client":
            ex.error = details
        self.recorder.record(ex)
        return GrpcStreamReply(code, details, messages, initial, trailing, status, closed_by, ex, dicts)


class _IdleCut:
    """Cancels a streaming call when no message arrived for ``idle`` seconds."""

    def __init__(self, call: Any, idle: float | None) -> None:
        self._call = call
        self._idle = idle
        self._last = time.monotonic()
        self._stop = threading.Event()
        self.fired = False
        if idle is not None:
            threading.Thread(target=self._run, daemon=True, name="grpc-idle").start()

    def touch(self) -> None:
        self._last = time.monotonic()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        assert self._idle is not None
        while not self._stop.wait(max(0.0, self._last + self._idle - time.monotonic())):
            if time.monotonic() >= self._last + self._idle:
                self.fired = True
                self._call.cancel()
                return


def _md(md: Any) -> Metadata:
    return [(str(k), v) for k, v in (md or ())]


def _b64(v: bytes) -> str:
    return "base64:" + base64.b64encode(v).decode("ascii")


def _md_evidence(md: Metadata) -> list[tuple[str, str]]:
    return [(k, v if isinstance(v, str) else _b64(v)) for k, v in md]


def _status(trailing: Metadata) -> status_pb2.Status | None:
    try:
        return status_from_metadata(trailing)
    except Exception:  # noqa: BLE001 - an undecodable status is reported as absent
        return None


def _status_dict(status: status_pb2.Status | None) -> dict[str, Any] | None:
    if status is None:
        return None
    return {
        "code": status.code,
        "message": status.message,
        "details": [any_to_dict(d) for d in status.details],
    }
