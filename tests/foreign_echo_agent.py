"""echo-agent: a small A2A agent on a2a-sdk, shaped as a third party ships one — test data for container
contract v2 (it imports nothing of agentd-conformance and runs in its own image).

Its own conventions, none of them the reference's:

- configuration: a JSON file named by ``ECHO_AGENT_CONFIG`` (default ``/etc/echo-agent/config.json``)::

    {"server": {"host": "0.0.0.0", "port": 9443, "certificate": PATH, "private_key": PATH},
     "access": [{"user": NAME, "bearer_env": VARIABLE, "admin": BOOL}, ...]}

  a credential is never inline: ``bearer_env`` names the variable holding it;
- TLS only: without a certificate and key it refuses to start (exit 2, one line), as agentd refuses plain
  http off loopback;
- the URL its card advertises: ``ECHO_ADVERTISE_URL`` (required);
- with any ``access`` entry every JSON-RPC call needs one of those bearers (401 otherwise); an admin user
  also reads the extended card;
- push notifications: off unless ``ECHO_PUSH=on``; ``ECHO_PUSH_URLS=https`` refuses a webhook URL that is not
  https (plain http only to its own loopback), as agentd does. Deliveries trust the CA bundle named by
  ``ECHO_PUSH_CA`` (default: the public roots).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

JSONRPC_PATH = "/rpc"


def _load(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"echo-agent: cannot read {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise SystemExit(f"echo-agent: {path} must hold a JSON object")
    return doc


def main() -> int:
    path = os.environ.get("ECHO_AGENT_CONFIG", "/etc/echo-agent/config.json")
    doc = _load(path)
    server = doc.get("server") or {}
    cert, key = server.get("certificate"), server.get("private_key")
    if not cert or not key:
        print("echo-agent: refused: plain http is not served; set server.certificate and server.private_key",
              file=sys.stderr)
        return 2
    advertise = os.environ.get("ECHO_ADVERTISE_URL", "").rstrip("/")
    if not advertise:
        print("echo-agent: refused: ECHO_ADVERTISE_URL is not set", file=sys.stderr)
        return 2
    users: dict[str, tuple[str, bool]] = {}
    for entry in doc.get("access") or []:
        secret = os.environ.get(str(entry.get("bearer_env") or ""), "")
        if not secret:
            print(f"echo-agent: refused: user {entry.get('user')!r} has no bearer in its variable", file=sys.stderr)
            return 2
        users[secret] = (str(entry.get("user")), bool(entry.get("admin")))
    push = os.environ.get("ECHO_PUSH", "off")
    urls = os.environ.get("ECHO_PUSH_URLS", "any")
    if push not in ("off", "on") or urls not in ("any", "https"):
        print(f"echo-agent: refused: ECHO_PUSH={push!r} (off, on), ECHO_PUSH_URLS={urls!r} (any, https)",
              file=sys.stderr)
        return 2
    if push == "on" and urls == "https":
        push = "https-only"
    return _serve(str(server.get("host") or "0.0.0.0"), int(server.get("port") or 9443), cert, key, advertise,  # noqa: S104
                  users, push, os.environ.get("ECHO_PUSH_CA") or None)


def _serve(host: str, port: int, cert: str, key: str, advertise: str, users: dict[str, tuple[str, bool]],
           push: str, push_ca: str | None) -> int:
    import ssl
    from collections.abc import Awaitable, Callable
    from urllib.parse import urlsplit

    import httpx
    import uvicorn
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import (
        BasePushNotificationSender,
        InMemoryPushNotificationConfigStore,
        InMemoryTaskStore,
        TaskUpdater,
    )
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.types import ASGIApp, Receive, Scope, Send

    class Echo(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            task_id, context_id = context.task_id or "", context.context_id or ""
            updater = TaskUpdater(event_queue, task_id, context_id)
            if context.current_task is None:
                await event_queue.enqueue_event(pb.Task(
                    id=task_id, context_id=context_id, status=pb.TaskStatus(state=pb.TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message] if context.message is not None else []))
            await updater.start_work()
            text = context.get_user_input() if context.message is not None else ""
            await updater.add_artifact([pb.Part(text=f"echo: {text}")], name="echo", last_chunk=True)
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
            await updater.cancel()

    card = pb.AgentCard(
        name="echo-agent", description="echoes what it is sent (a third-party image for contract v2 tests)",
        version="0.1.0",
        supported_interfaces=[pb.AgentInterface(url=advertise + JSONRPC_PATH, protocol_binding="JSONRPC",
                                                protocol_version="1.0")],
        capabilities=pb.AgentCapabilities(streaming=True, push_notifications=push != "off",
                                          extended_agent_card=bool(users)),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="echo", description="echoes the text", tags=["echo"])])
    if users:
        card.security_schemes["bearer"].CopyFrom(pb.SecurityScheme(
            http_auth_security_scheme=pb.HTTPAuthSecurityScheme(scheme="Bearer")))
        card.security_requirements.add().schemes["bearer"].SetInParent()  # no scopes
    extended = pb.AgentCard()
    extended.CopyFrom(card)
    extended.skills.append(pb.AgentSkill(id="admin", name="admin", description="admins only", tags=["admin"]))
    store = InMemoryPushNotificationConfigStore() if push != "off" else None
    sender = None
    if store is not None:
        verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=push_ca) if push_ca else True
        sender = BasePushNotificationSender(httpx.AsyncClient(verify=verify, timeout=5.0), store)

    async def https_only(url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1"))

    policy: Callable[[str], Awaitable[bool]] | None = https_only if push == "https-only" else None
    handler = DefaultRequestHandler(agent_executor=Echo(), task_store=InMemoryTaskStore(), agent_card=card,
                                    extended_agent_card=extended if users else None, push_config_store=store,
                                    push_sender=sender, push_url_validator=policy)
    inner = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, JSONRPC_PATH)])

    def bearer_gate(app: ASGIApp) -> ASGIApp:
        async def gate(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and users and scope["path"] == JSONRPC_PATH:
                headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
                presented = headers.get("authorization", "").removeprefix("Bearer ").strip()
                if presented not in users:
                    deny = JSONResponse({"error": "a bearer token is required"}, status_code=401,
                                        headers={"WWW-Authenticate": 'Bearer realm="echo-agent"'})
                    await deny(scope, receive, send)
                    return
            await app(scope, receive, send)
        return gate

    print(f"echo-agent serving {advertise} on port {port} for {len(users)} user(s)", flush=True)
    uvicorn.run(bearer_gate(inner), host=host, port=port, ssl_certfile=cert, ssl_keyfile=key,
                log_level="warning", access_log=False, lifespan="off")
    return 0


if __name__ == "__main__":
    sys.exit(main())
