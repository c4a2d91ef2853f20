"""What the listener-level agentd checks share (declarations, negotiation, cards, the unix socket).

The page's identifiers and tables are written here from the extensions page, never imported from the
reference agentd, so a check holds any target to the page. Everything speaks only the wire: a
JSON-RPC client per role, the public card, the echo header read as a peer would read it, and the
strict second reader for A2A objects.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import httpx
from a2a.types.a2a_pb2 import AgentCard
from google.protobuf.message import Message as ProtoMessage

from conformance.outcome import fail, not_measured
from conformance.paths import FIXTURES_DIR
from conformance.wire import Recorder
from conformance.wire.httpbase import HttpEndpoint, HttpReply
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.strict import read_strict

# ---- the page's identifiers ----------------------------------------------------------------------
COMMAND: Final = "https://agentd.dev/a2a/ext/command"
EVENTS: Final = "https://agentd.dev/a2a/ext/events"
ANNOTATIONS: Final = "https://agentd.dev/a2a/ext/task-annotations"
UNIX_BINDING: Final = "https://agentd.dev/a2a/binding/jsonrpc-unix"
EVENTS_METHOD: Final = "agentd.events/SubscribeToEvents"
#: A URI no agentd implements: dropped, never refused.
UNKNOWN_URI: Final = "https://example.com/a2a/ext/not-agentd"
#: The extension URIs in the page's table order.
EXTENSIONS: Final = (COMMAND, EVENTS, ANNOTATIONS)
#: Every identifier the page lists (the three extensions and the one binding).
PAGE_URIS: Final = (*EXTENSIONS, UNIX_BINDING)
CARD_PATH: Final = "/.well-known/agent-card.json"
HEADER: Final = "A2A-Extensions"

#: "applicable: meaningful on the method called" -- the page's list for each extension.
_TASK_ANSWERS: Final = frozenset(
    {"SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask", EVENTS_METHOD}
)
APPLIES_TO: Final[Mapping[str, frozenset[str]]] = {
    COMMAND: frozenset({"SendMessage", "SendStreamingMessage"}),
    EVENTS: frozenset({EVENTS_METHOD}),
    ANNOTATIONS: _TASK_ANSWERS,
}

#: The command ops the page's families table names (the public vocabulary contains at least these).
PAGE_OPS: Final = (
    "status", "config",
    "workflow.run", "workflow.status", "workflow.cancel", "workflow.signal",
    "subagent.send", "subagent.kill", "subagent.status", "plan.get",
    "conversation.get", "run.get", "subagent.get", "debug.events",
    "admin.drain", "admin.pause", "admin.resume", "admin.cancel", "admin.set",
    "auth.device.pending", "auth.device.approve", "auth.device.deny",
    "auth.sessions", "auth.sessions.revoke",
)  # fmt: skip
INTROSPECTION_OPS: Final = ("conversation.get", "run.get", "subagent.get", "debug.events")
SIGN_IN_OPS: Final = ("auth.device.pending", "auth.device.approve", "auth.device.deny")
SESSION_OPS: Final = ("auth.sessions", "auth.sessions.revoke")
#: "The admin.* and auth.* ops, config and debug.events are operator-only, and no grant reaches them."
OPERATOR_ONLY_OPS: Final = (
    "config", "debug.events", "admin.drain", "admin.pause", "admin.resume", "admin.cancel", "admin.set",
    *SIGN_IN_OPS, *SESSION_OPS,
)  # fmt: skip

#: The page's closed event-kind vocabulary.
_BASE_KINDS: Final = ("task", "run", "step", "conversation", "subagent", "child", "activity")
EVENT_KINDS: Final = (*_BASE_KINDS, *(f"{k}.removed" for k in _BASE_KINDS), "status", "lifecycle", "config",
                      "audit", "auth")

#: The harness's own schema bundles (written from the page and the specifications it links).
BUNDLE_DIR: Final = FIXTURES_DIR / "reference_agentd" / "schemas"

_ids = itertools.count(1)


def unique(prefix: str) -> str:
    """A value no earlier request of this process used (message ids)."""
    return f"{prefix}-{next(_ids)}-{id(_ids):x}"


def quote(value: Any, limit: int = 500) -> str:
    """A short rendering of what came back, for failure messages."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- clients ---------------------------------------------------------------------------------------
def rpc_client(
    instance: Any, role: str = "operator", *, recorder: Recorder, token: str | None = None, timeout: float = 10.0
) -> JsonRpcClient:
    """A JSON-RPC client calling ``instance`` as ``role`` (or with an explicit bearer ``token``).

    A target with no credentials configured (loopback with nothing set, a unix socket) treats every
    caller as the operator; any other role then cannot be measured there.
    """
    headers: dict[str, str] = {}
    if token is None:
        if instance.tokens:
            token = instance.token(role)
        elif role != "operator":
            not_measured(f"needs a {role} principal; this target has no credentials configured")
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if instance.uds_path:
        return JsonRpcClient("/", uds=instance.uds_path, headers=headers, recorder=recorder, timeout=timeout)
    return JsonRpcClient(jsonrpc_url(instance), headers=headers, recorder=recorder, timeout=timeout)


_ENDPOINTS: dict[str, str] = {}


def jsonrpc_url(instance: Any) -> str:
    """Where the instance's JSON-RPC binding is served, as a peer finds it: the path of the card's
    JSONRPC interface, on the instance's own origin (the harness never follows a card off loopback).
    The instance's URL itself when the card names no JSONRPC interface."""
    if instance.url not in _ENDPOINTS:
        url = instance.url
        with contextlib.suppress(httpx.HTTPError):
            reply = card_reply(instance, Recorder())
            card = reply.json if isinstance(reply.json, dict) else {}
            for iface in card.get("supportedInterfaces") or []:
                if isinstance(iface, dict) and iface.get("protocolBinding") == "JSONRPC":
                    path = urlsplit(str(iface.get("url", ""))).path or "/"
                    url = instance.base_url + (path if path.startswith("/") else "/" + path)
                    break
        _ENDPOINTS[instance.url] = url
    return _ENDPOINTS[instance.url]


def instance_for(agent_targets: Any, **needs: Any) -> Any:
    """For a statement that holds whatever the configuration: the launched reference configured with
    ``needs``, or a running target as it is (its own configuration, whatever its declared facts)."""
    return agent_targets.agentd(**needs) if agent_targets.launchable else agent_targets.agentd()


def http_endpoint(instance: Any, recorder: Recorder, timeout: float = 10.0) -> HttpEndpoint:
    """A plain HTTP endpoint on the instance (card reads, CORS requests)."""
    if instance.uds_path:
        return HttpEndpoint("", binding="JSONRPC-UNIX", uds=instance.uds_path, recorder=recorder, timeout=timeout)
    return HttpEndpoint(instance.base_url, binding="JSONRPC", recorder=recorder, timeout=timeout)


def card_reply(instance: Any, recorder: Recorder, token: str | None = None) -> HttpReply:
    """GET the public card, with a bearer ``token`` when given."""
    http = http_endpoint(instance, recorder)
    headers = [("Accept", "application/json")]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    try:
        return http.send("GET", CARD_PATH, headers=headers)
    finally:
        http.close()


def public_card(instance: Any, recorder: Recorder, token: str | None = None) -> dict[str, Any]:
    """The public card as served, held strictly to the A2A AgentCard type (fails otherwise)."""
    reply = card_reply(instance, recorder, token)
    if reply.status != 200 or not isinstance(reply.json, dict):
        fail(f"GET {CARD_PATH} answered HTTP {reply.status}: {reply.body[:300]!r}")
    strict(reply.json, AgentCard, "$", "the public card")
    card: dict[str, Any] = reply.json
    return card


def strict_violations(obj: Any, message_type: type[ProtoMessage], path: str) -> list[str]:
    """Every way ``obj`` departs from the A2A type, by the shared strict reader.

    One reading is set aside: the SDK's required-field pass counts an empty string as missing, but the
    specification makes ``nextPageToken`` required *and* ``""`` on the final page (§ ListTasks), so a
    present, empty ``nextPageToken`` is not a violation. (Reported for a fix in the shared reader.)
    """
    got = read_strict(obj, message_type, path=path)
    out = [str(v) for v in got.violations
           if not (v.path.endswith(".nextPageToken") and v.problem.startswith("required field") and v.value == "")]
    if got.message is None and not out:
        out.append("protobuf ParseDict refused it")
    return out


def strict(obj: Any, message_type: type[ProtoMessage], path: str, what: str) -> None:
    """Hold ``obj`` to the A2A type strictly; fail quoting every violation."""
    problems = strict_violations(obj, message_type, path)
    if problems:
        fail(f"{what} is not a strict A2A {message_type.DESCRIPTOR.name}: {'; '.join(problems)}")


# ---- cards -----------------------------------------------------------------------------------------
def extensions_of(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    exts = (card.get("capabilities") or {}).get("extensions") or []
    return [e for e in exts if isinstance(e, dict)]


def declared_uris(card: Mapping[str, Any]) -> list[str]:
    return [str(e["uri"]) for e in extensions_of(card) if isinstance(e.get("uri"), str)]


def declaration(card: Mapping[str, Any], uri: str) -> dict[str, Any] | None:
    """The card's declaration of ``uri`` (matched byte for byte), or None."""
    return next((e for e in extensions_of(card) if e.get("uri") == uri), None)


def params_of(card: Mapping[str, Any], uri: str, what: str) -> dict[str, Any]:
    """The params of the declaration of ``uri``; fails when it is not declared."""
    decl = declaration(card, uri)
    if decl is None:
        fail(f"{what} does not declare {uri}; declared: {declared_uris(card)}")
    params = decl.get("params") or {}
    if not isinstance(params, dict):
        fail(f"{what}: params of {uri} is not an object: {quote(params)}")
    return params


def op_names(params: Mapping[str, Any]) -> list[str]:
    return [str(o.get("op")) for o in params.get("ops") or [] if isinstance(o, dict)]


def has_scheme(card: Mapping[str, Any]) -> bool:
    return bool(card.get("securitySchemes"))


# ---- messages --------------------------------------------------------------------------------------
def ext(*uris: str) -> dict[str, str]:
    """An ``A2A-Extensions`` header naming ``uris`` on one comma-separated line (no header for none)."""
    return {HEADER: ", ".join(uris)} if uris else {}


def text_message(text: str) -> dict[str, Any]:
    return {"role": "ROLE_USER", "messageId": unique("m"), "parts": [{"text": text}]}


def command_message(op: str, args: Mapping[str, Any] | None = None, *, mark: bool = True) -> dict[str, Any]:
    """A user message whose single DataPart is ``{"agentd": {"op": …, …args}}``, marked unless ``mark`` is off."""
    msg: dict[str, Any] = {
        "role": "ROLE_USER",
        "messageId": unique("m"),
        "parts": [{"data": {"agentd": {"op": op, **dict(args or {})}}}],
    }
    if mark:
        msg["extensions"] = [COMMAND]
    return msg


def send_params(message: Mapping[str, Any]) -> dict[str, Any]:
    return {"message": dict(message)}


# ---- the echo --------------------------------------------------------------------------------------
def echo_of(headers: httpx.Headers) -> list[str] | None:
    """The ``A2A-Extensions`` response header as a peer reads it: every line, comma-separated, each
    item stripped. ``None`` when the header is absent; an empty list when it is present but empty."""
    lines = headers.get_list(HEADER)
    if not lines:
        return None
    return [item.strip() for line in lines for item in line.split(",") if item.strip()]


def render_echo(echo: list[str] | None) -> str:
    return "no header" if echo is None else repr(echo)


def expected_echo(requested: Iterable[str], declared: Iterable[str], method: str) -> list[str]:
    """requested ∩ declared ∩ applicable, in the page's order (byte-exact matching)."""
    req, dec = set(requested), set(declared)
    return [u for u in EXTENSIONS if u in req and u in dec and method in APPLIES_TO[u]]
