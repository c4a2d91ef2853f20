"""Command messages: a user message carrying one ``command`` DataPart, and sending one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.a2a.messages import send_params
from conformance.agentd.clients import ext
from conformance.agentd_page import (
    COMMAND,
    DATA_PART_KEY,
)
from conformance.judge import unique
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply


def command_part(op: Any, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
    envelope: dict[str, Any] = {"op": op}
    envelope.update(args or {})
    return {"data": {DATA_PART_KEY: envelope}}


def command_message(
    op: Any,
    args: Mapping[str, Any] | None = None,
    *,
    mark: bool = True,
    task_id: str | None = None,
    parts: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """A user message carrying one command DataPart, listing the command URI unless ``mark`` is off."""
    msg: dict[str, Any] = {
        "role": "ROLE_USER",
        "messageId": unique("m"),
        "parts": [dict(p) for p in parts] if parts is not None else [command_part(op, args)],
    }
    if mark:
        msg["extensions"] = [COMMAND]
    if task_id is not None:
        msg["taskId"] = task_id
    return msg


def send_command(
    client: JsonRpcClient,
    op: Any,
    args: Mapping[str, Any] | None = None,
    *,
    header: bool = True,
    mark: bool = True,
    uris: Sequence[str] = (),
) -> RpcReply:
    """SendMessage with one command, activated by header (plus ``uris``) and ``message.extensions``."""
    names = list(uris)
    if header and COMMAND not in names:
        names.insert(0, COMMAND)
    return client.call("SendMessage", send_params(command_message(op, args, mark=mark)), headers=ext(*names))
