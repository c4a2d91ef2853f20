"""What the checks send: user messages and the params of SendMessage (ProtoJSON), for any agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a.types import a2a_pb2 as pb
from google.protobuf.json_format import ParseDict

from conformance.judge.tags import unique

#: An extension URI no agent declares (the .invalid TLD is reserved, RFC 2606).
UNKNOWN_EXTENSION = "https://extensions.conformance.invalid/never-declared/v1"
#: A protocol version no agent can support.
UNSUPPORTED_VERSION = "99.0"


def text_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> dict[str, Any]:
    """A user message with one text part and a fresh messageId."""
    msg: dict[str, Any] = {"messageId": unique("conf"), "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id:
        msg["taskId"] = task_id
    if context_id:
        msg["contextId"] = context_id
    return msg


def send_params(message: str | Mapping[str, Any], *, configuration: Mapping[str, Any] | None = None,
                **message_kw: Any) -> dict[str, Any]:
    """SendMessage params: ``message`` as given, or (a text) a :func:`text_message` made with
    ``message_kw``; ``configuration`` when given (a SendMessageConfiguration)."""
    msg = text_message(message, **message_kw) if isinstance(message, str) else dict(message)
    params: dict[str, Any] = {"message": msg}
    if configuration:
        params["configuration"] = dict(configuration)
    return params


def hint_send_params(hint: Mapping[str, Any]) -> dict[str, Any]:
    """SendMessage params of a long-running hint (``--long-running-text``: its text, and its metadata when
    it names some)."""
    params = send_params(str(hint.get("text") or ""))
    if hint.get("metadata"):
        params["message"]["metadata"] = dict(hint["metadata"])
    return params


def send_params_0_3(text: str) -> dict[str, Any]:
    """The params of an A2A 0.3 JSON-RPC ``message/send`` carrying one text part, shaped by the
    SDK's own 0.3 types (``a2a.compat.v0_3``) from the 1.0 request :func:`send_params` builds.

    The SDK's 0.3 module is imported here, by the checks that send 0.3, not with this module: it imports
    pydantic and the 0.3 types, a quarter of a second of every run's start-up (issue 20)."""
    from a2a.compat.v0_3.conversions import to_compat_send_message_request

    request = ParseDict(send_params(text), pb.SendMessageRequest())
    compat = to_compat_send_message_request(request, request_id=0)
    return dict(compat.params.model_dump(by_alias=True, exclude_none=True, mode="json"))


def takes(modes: list[str], media_type: str) -> bool:
    """Whether an input mode of a card (``type/subtype``, ``type/*``, ``*/*``; parameters ignored, case
    folded) takes ``media_type``."""
    kind = media_type.split(";", 1)[0].strip().lower()
    for mode in modes:
        m = mode.split(";", 1)[0].strip().lower()
        if m in ("*/*", "*", kind) or (m.endswith("/*") and kind.partition("/")[0] == m[:-2]):
            return True
    return False
