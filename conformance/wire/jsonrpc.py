"""JSON-RPC 2.0 client for the A2A JSON-RPC binding, over TCP or a unix domain socket.

Every service parameter (header) is overridable per client and per call: a value of ``None``
removes a default header, a list sends repeated header lines (``A2A-Extensions`` as several lines
rather than one comma list). :meth:`JsonRpcClient.raw` sends any bytes at all, for malformed
envelopes.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, Unpack

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message as ProtoMessage

from conformance.wire.httpbase import (
    Connection,
    HeaderSpec,
    HttpClient,
    HttpReply,
    Reading,
    StreamReply,
    merge_headers,
)

DEFAULT_HEADERS: Mapping[str, str] = {
    "A2A-Version": "1.0",
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}

Params: TypeAlias = Mapping[str, Any] | ProtoMessage | None


@dataclass(frozen=True)
class RpcError:
    """The ``error`` member of a JSON-RPC response, values exactly as sent (not coerced)."""

    code: Any
    message: Any
    data: Any = None

    @classmethod
    def from_obj(cls, obj: Any) -> RpcError:
        if not isinstance(obj, Mapping):
            return cls(code=None, message=None, data=obj)
        return cls(code=obj.get("code"), message=obj.get("message"), data=obj.get("data"))


@dataclass
class RpcReply(HttpReply):
    """A JSON-RPC answer: the HTTP reply plus accessors into the envelope."""

    @property
    def envelope(self) -> dict[str, Any] | None:
        return self.json if isinstance(self.json, dict) else None

    @property
    def result(self) -> Any:
        env = self.envelope
        return env.get("result") if env is not None else None

    @property
    def error(self) -> RpcError | None:
        env = self.envelope
        if env is None or "error" not in env:
            return None
        return RpcError.from_obj(env["error"])

    @property
    def id(self) -> Any:
        env = self.envelope
        return env.get("id") if env is not None else None


@dataclass
class RpcStreamReply(StreamReply):
    """A streamed JSON-RPC answer; ``payloads`` are the envelopes of the SSE frames."""

    @property
    def envelopes(self) -> list[Any]:
        return self.payloads

    @property
    def results(self) -> list[Any]:
        """The ``result`` of every frame that has one, in order."""
        return [p["result"] for p in self.payloads if isinstance(p, dict) and "result" in p]

    @property
    def errors(self) -> list[RpcError]:
        """Every error: frames with an ``error`` member (``event: error`` frames included), or the
        plain JSON error body when the server refused before streaming."""
        out = [RpcError.from_obj(p["error"]) for p in self.payloads if isinstance(p, dict) and "error" in p]
        if not self.events and isinstance(self.json, dict) and "error" in self.json:
            out.append(RpcError.from_obj(self.json["error"]))
        return out


class JsonRpcClient(HttpClient):
    """Talks JSON-RPC 2.0 to one endpoint URL (or a unix socket) and records every exchange."""

    def __init__(
        self,
        url: str = "",
        *,
        headers: HeaderSpec | None = None,
        **connection: Unpack[Connection],
    ) -> None:
        """``url`` is the JSON-RPC endpoint (for a unix socket, the path on it, default ``/``)."""
        uds = connection.get("uds")
        if uds and not url.startswith(("http://", "https://")):
            url = "http://localhost" + (url if url.startswith("/") else "/" + url)
        self._connect(url, "JSONRPC-UNIX" if uds else "JSONRPC", DEFAULT_HEADERS, headers, connection)
        self.url = self._http.base_url
        self._ids = itertools.count(1)

    def envelope(self, method: str, params: Params = None, request_id: Any = None) -> dict[str, Any]:
        """The request envelope :meth:`call` would send (``params`` omitted when ``None``)."""
        env: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": next(self._ids) if request_id is None else request_id,
            "method": method,
        }
        if params is not None:
            env["params"] = MessageToDict(params) if isinstance(params, ProtoMessage) else dict(params)
        return env

    def call(
        self,
        method: str,
        params: Params = None,
        *,
        headers: HeaderSpec | None = None,
        request_id: Any = None,
        timeout: float | None = None,
        query: Mapping[str, Any] | None = None,
    ) -> RpcReply:
        """Send one request and read the whole answer (``query``: parameters added to the URL)."""
        env = self.envelope(method, params, request_id)
        return self._send(json.dumps(env).encode(), headers, method, timeout, query)

    def raw(
        self,
        body: bytes | str | Any,
        headers: HeaderSpec | None = None,
        *,
        timeout: float | None = None,
    ) -> RpcReply:
        """Send ``body`` as is: bytes/str verbatim, anything else JSON-encoded (no envelope added)."""
        if isinstance(body, bytes):
            content = body
        elif isinstance(body, str):
            content = body.encode()
        else:
            content = json.dumps(body).encode()
        method = body.get("method") if isinstance(body, dict) else None
        return self._send(content, headers, method if isinstance(method, str) else None, timeout)

    def stream(
        self,
        method: str,
        params: Params = None,
        *,
        headers: HeaderSpec | None = None,
        request_id: Any = None,
        **reading: Unpack[Reading],
    ) -> RpcStreamReply:
        """Send a streaming request and read SSE frames until the server closes the stream, ``until``
        returns true for a frame, or ``deadline`` / ``idle_timeout`` cut it."""
        env = self.envelope(method, params, request_id)
        reply = self._http.stream(
            "POST",
            self.url,
            headers=merge_headers(self.headers, headers),
            content=json.dumps(env).encode(),
            rpc_method=method,
            **reading,
        )
        return RpcStreamReply(**vars(reply))

    def _send(
        self,
        content: bytes,
        headers: HeaderSpec | None,
        method: str | None,
        timeout: float | None,
        query: Mapping[str, Any] | None = None,
    ) -> RpcReply:
        reply = self._http.send(
            "POST",
            self.url,
            headers=merge_headers(self.headers, headers),
            content=content,
            params=query,
            rpc_method=method,
            timeout=timeout,
        )
        return RpcReply(**vars(reply))

