"""The other end of an agentd ``a2a.send`` step: a :class:`~conformance.receiver.Receiver` that answers
like an A2A peer.

``with recording_peer() as peer:`` listens on 127.0.0.1:0; ``recording_peer(unix=True)`` listens only on
a unix socket in a private directory, so whatever it records arrived over that socket. It answers a
JSON-RPC send with a small agent Message built from the SDK's types, echoing the command URI when the
request's header named it; anything else gets a JSON-RPC error. It judges nothing: the checks do.
"""

from __future__ import annotations

import json
import uuid

from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageResponse, StreamResponse
from google.protobuf.json_format import MessageToDict

from conformance.agentd_page import COMMAND
from conformance.receiver import Received, Receiver, Reply

SENDS = ("SendMessage", "SendStreamingMessage")


def answer(req: Received) -> Reply:
    """Status, headers and body of the peer's answer to ``req``."""
    body = req.json
    rid = body.get("id") if isinstance(body, dict) else None
    if req.method != "POST" or req.rpc_method not in SENDS:
        err = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "this peer answers sends only"}}
        return 200, [("Content-Type", "application/json")], json.dumps(err).encode()
    reply = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_AGENT, parts=[Part(text="received")])
    named = [u.strip() for line in req.header("A2A-Extensions") for u in line.split(",")]
    headers = [("A2A-Extensions", COMMAND)] if COMMAND in named else []
    if req.rpc_method == "SendStreamingMessage":
        frame = {"jsonrpc": "2.0", "id": rid, "result": MessageToDict(StreamResponse(message=reply))}
        return 200, [*headers, ("Content-Type", "text/event-stream")], f"data: {json.dumps(frame)}\n\n".encode()
    result = MessageToDict(SendMessageResponse(message=reply))
    return 200, [*headers, ("Content-Type", "application/json")], json.dumps(
        {"jsonrpc": "2.0", "id": rid, "result": result}).encode()


def recording_peer(*, unix: bool = False, host: str = "127.0.0.1", tls: bool = False) -> Receiver:
    """A recording A2A peer on ``host`` (loopback, or the target's ``callback_host``; ``tls``: https under the
    harness's CA, for a target calling https peers only), or on a unix socket only; its ``url`` is what to name
    as the peer."""
    return Receiver(answer, path="/", unix=unix, host=host, tls=tls)
