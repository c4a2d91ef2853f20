"""HTTP+JSON client for the A2A REST binding: the named routes, a tenant path prefix, and a raw
:meth:`RestClient.request` for anything else (wrong verbs, bad bodies, unknown routes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeAlias, Unpack
from urllib.parse import quote

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message as ProtoMessage

from conformance.wire.errors import current
from conformance.wire.httpbase import (
    Connection,
    HeaderSpec,
    HttpClient,
    HttpReply,
    Outgoing,
    Reading,
    StreamReply,
    merge_headers,
)

DEFAULT_HEADERS: Mapping[str, str] = {
    "A2A-Version": "1.0",
    "Content-Type": "application/a2a+json",
    "Accept": "application/a2a+json, application/json, text/event-stream",
}



def default_headers() -> Mapping[str, str]:
    """:data:`DEFAULT_HEADERS` with the Content-Type of the revision judged by (v1.0.0's text labelled
    HTTP+JSON requests application/json; ``--spec-revision``)."""
    return {**DEFAULT_HEADERS, "Content-Type": current().rest_media_type}


Body: TypeAlias = Mapping[str, Any] | ProtoMessage | bytes | str | None
Query: TypeAlias = Mapping[str, Any] | None


class RestClient(HttpClient):
    """Talks the A2A HTTP+JSON binding to one base URL (or unix socket) and records every call.

    ``tenant`` (when set) is put in front of every route path as ``/{tenant}``.
    """

    def __init__(
        self,
        base_url: str = "",
        *,
        tenant: str | None = None,
        headers: HeaderSpec | None = None,
        **connection: Unpack[Connection],
    ) -> None:
        self._connect(base_url, "HTTP+JSON", default_headers(), headers, connection)
        self.base_url = self._http.base_url
        self.tenant = tenant

    def path(self, route: str) -> str:
        """``route`` with the tenant prefix applied."""
        return f"/{quote(self.tenant, safe='')}{route}" if self.tenant else route

    # -- generic -----------------------------------------------------------------------------

    def request(
        self,
        verb: str,
        path: str,
        *,
        json: Body = None,
        params: Query = None,
        headers: HeaderSpec | None = None,
        timeout: float | None = None,
    ) -> HttpReply:
        """One request to ``path`` exactly as given (no tenant prefix); ``json`` may be a dict, a
        proto message, or raw bytes/str sent verbatim."""
        return self._http.send(verb.upper(), path, **self._outgoing(json, params, headers), timeout=timeout)

    def stream_request(
        self,
        verb: str,
        path: str,
        *,
        json: Body = None,
        params: Query = None,
        headers: HeaderSpec | None = None,
        **reading: Unpack[Reading],
    ) -> StreamReply:
        """A streamed request read as SSE (see :meth:`HttpEndpoint.stream`)."""
        return self._http.stream(verb.upper(), path, **self._outgoing(json, params, headers), **reading)

    def _outgoing(self, json: Body, params: Query, headers: HeaderSpec | None) -> Outgoing:
        """What :meth:`request` and :meth:`stream_request` hand the endpoint besides the verb and the path
        as given: this client's headers with ``headers`` on top, ``json`` encoded, and the query."""
        return Outgoing(headers=merge_headers(self.headers, headers), content=_content(json), params=params)

    # -- the A2A routes ----------------------------------------------------------------------

    def send_message(self, body: Body, *, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request("POST", self.path("/message:send"), json=body, headers=headers)

    def stream_message(
        self, body: Body, *, headers: HeaderSpec | None = None, **reading: Unpack[Reading]
    ) -> StreamReply:
        return self.stream_request("POST", self.path("/message:stream"), json=body, headers=headers, **reading)

    def get_task(self, task_id: str, *, params: Query = None, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request("GET", self.path(f"/tasks/{_seg(task_id)}"), params=params, headers=headers)

    def list_tasks(self, *, params: Query = None, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request("GET", self.path("/tasks"), params=params, headers=headers)

    def cancel_task(self, task_id: str, body: Body = None, *, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request(
            "POST", self.path(f"/tasks/{_seg(task_id)}:cancel"), json=body or {}, headers=headers
        )

    def subscribe(
        self, task_id: str, *, verb: str = "POST", headers: HeaderSpec | None = None, **reading: Unpack[Reading]
    ) -> StreamReply:
        return self.stream_request(
            verb,
            self.path(f"/tasks/{_seg(task_id)}:subscribe"),
            json={} if verb.upper() == "POST" else None,
            headers=headers,
            **reading,
        )

    def create_push_config(self, task_id: str, body: Body, *, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request(
            "POST", self.path(f"/tasks/{_seg(task_id)}/pushNotificationConfigs"), json=body, headers=headers
        )

    def get_push_config(
        self, task_id: str, config_id: str, *, headers: HeaderSpec | None = None
    ) -> HttpReply:
        return self.request(
            "GET",
            self.path(f"/tasks/{_seg(task_id)}/pushNotificationConfigs/{_seg(config_id)}"),
            headers=headers,
        )

    def list_push_configs(
        self, task_id: str, *, params: Query = None, headers: HeaderSpec | None = None
    ) -> HttpReply:
        return self.request(
            "GET",
            self.path(f"/tasks/{_seg(task_id)}/pushNotificationConfigs"),
            params=params,
            headers=headers,
        )

    def delete_push_config(
        self, task_id: str, config_id: str, *, headers: HeaderSpec | None = None
    ) -> HttpReply:
        return self.request(
            "DELETE",
            self.path(f"/tasks/{_seg(task_id)}/pushNotificationConfigs/{_seg(config_id)}"),
            headers=headers,
        )

    def get_extended_card(self, *, headers: HeaderSpec | None = None) -> HttpReply:
        return self.request("GET", self.path("/extendedAgentCard"), headers=headers)


def _seg(value: str) -> str:
    return quote(value, safe="")


def _content(body: Body) -> bytes | None:
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode()
    if isinstance(body, ProtoMessage):
        return json.dumps(MessageToDict(body)).encode()
    return json.dumps(dict(body)).encode()
