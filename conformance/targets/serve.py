"""The reference image's entry point: the bundled reference agentd, configured from the environment.

``python3 -m conformance.targets.serve`` (the image's ENTRYPOINT). With arguments it is the
reference's own command line (``--extensions``, ``--extension-schema NAME``); without, it serves one
listener configured by these variables (the switches a container target sets per configuration):

==========================  =====================================================================
``AGENTD_LISTEN``           ``tcp`` (default: ``0.0.0.0:$AGENTD_PORT``) or ``unix``
``AGENTD_PORT``             TCP port inside the container (default 8420)
``AGENTD_SOCKET_DIR``       folder of the unix socket ``agentd.sock`` (a bind-mounted folder)
``AGENTD_PUBLIC_URL``       the URL the card declares (the address the caller reaches it under)
``AGENTD_EVENTS``           ``on`` (default) / ``off``: the events feed
``AGENTD_INTROSPECTION``    ``on`` / ``off`` (default)
``AGENTD_DEVICE_GRANT``     ``on`` / ``off`` (default)
``AGENTD_PUSH``             ``on`` (default) / ``off``: push notifications
``AGENTD_<ROLE>_TOKEN``     bearer token of a principal ``<role>-1`` (ROLE: OPERATOR, USER, AGENT)
``AGENTD_RING``             events ring size; ``AGENTD_STREAM_DEADLINE`` seconds a stream may last
``AGENTD_CORS_ORIGINS``     comma-separated origins
``AGENTD_DEFECTS``          comma-separated named defects of the reference (for kill runs only)
``AGENTD_CONFIG``           a launch configuration document, YAML (principals with grants, workflows, ...:
                            :mod:`conformance.agentd_page.launch`, validated against its JSON Schema),
                            applied first; the variables above override it
``AGENTD_CALLBACK_HOSTS``   comma-separated hosts besides loopback that peers and webhooks may name
                            (the harness's address on its internal network)
``AGENTD_CONTROL_SOCKET``   a socket path (in a bind-mounted folder) where the harness's control is
                            served: the in-process hooks of ``--launch reference`` (put a task into a
                            chosen state, move it, revoke a credential), for the harness only;
                            ``AGENTD_CONTROL_UID``: the harness's uid, answered besides root
==========================  =====================================================================

The control socket speaks one JSON object per connection each way (:mod:`conformance.targets.control`
is its client): ``{"do": "new_task", "state": S}`` → ``{"id": ...}``; ``{"do": "move", "task": ID,
"state": S}`` → ``{"ok": true}``; ``{"do": "revoke", "token": T}`` → ``{"revoked": bool}``; anything
else → ``{"error": ...}``. It is a harness fixture's back door, never part of what is judged: every
check still observes the daemon over its listener.

Anything malformed is refused at start (exit 2, one line), as agentd refuses a bad configuration.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import yaml

from conformance.agentd_page import ROLES

if TYPE_CHECKING:  # imported at run time where the daemon is started
    from conformance.fixtures.reference_agentd.server import ReferenceAgentd

FILE_NAME = "agentd.sock"
DEFAULT_PORT = 8420
_SWITCHES = {"AGENTD_EVENTS": "events", "AGENTD_INTROSPECTION": "introspection",
             "AGENTD_DEVICE_GRANT": "device_grant", "AGENTD_PUSH": "push"}


class EnvError(ValueError):
    """A variable is malformed."""


def _switch(env: Mapping[str, str], key: str) -> bool | None:
    raw = env.get(key)
    if raw is None or raw == "":
        return None
    if raw.lower() in ("on", "true", "1", "yes"):
        return True
    if raw.lower() in ("off", "false", "0", "no"):
        return False
    raise EnvError(f"{key} must be on or off, got {raw!r}")


def _list(raw: str) -> tuple[str, ...]:
    return tuple(h.strip() for h in raw.split(",") if h.strip())


def config_from_env(env: Mapping[str, str]) -> tuple[Any, tuple[str, int] | None, str | None]:
    """(Config, TCP bind address or None, public URL) from the environment."""
    from conformance.agentd_page.launch import Principal
    from conformance.fixtures.reference_agentd.config import make, typed_fields

    # The document's fields, then the variables over them, validated once as a whole: a peer on a callback
    # host, or a defect that lets a refused workflow through, is judged with everything it depends on.
    base: dict[str, Any] = {}
    if env.get("AGENTD_CONFIG"):
        try:
            doc = yaml.safe_load(env["AGENTD_CONFIG"]) or {}
        except yaml.YAMLError as exc:
            raise EnvError(f"AGENTD_CONFIG is not YAML: {' '.join(str(exc).split())}") from None
        if not isinstance(doc, dict):
            raise EnvError("AGENTD_CONFIG must be a mapping of Config fields")
        base = typed_fields(doc)
    fields: dict[str, Any] = {}
    listen = env.get("AGENTD_LISTEN", "tcp") or "tcp"
    if listen not in ("tcp", "unix"):
        raise EnvError(f"AGENTD_LISTEN must be tcp or unix, got {listen!r}")
    fields["listen"] = listen
    bind: tuple[str, int] | None = None
    if listen == "unix":
        folder = env.get("AGENTD_SOCKET_DIR")
        if not folder:
            raise EnvError("AGENTD_LISTEN=unix needs AGENTD_SOCKET_DIR (a mounted folder)")
        fields["uds_path"] = os.path.join(folder, FILE_NAME)
    else:
        try:
            port = int(env.get("AGENTD_PORT") or DEFAULT_PORT)
        except ValueError:
            raise EnvError(f"AGENTD_PORT must be a port number, got {env.get('AGENTD_PORT')!r}") from None
        bind = ("0.0.0.0", port)  # noqa: S104 - inside the container; the engine maps it to loopback
    for key, name in _SWITCHES.items():
        value = _switch(env, key)
        if value is not None:
            fields[name] = value
    principals = [Principal(name=f"{role}-1", token=env[f"AGENTD_{role.upper()}_TOKEN"], role=role)
                  for role in ROLES if env.get(f"AGENTD_{role.upper()}_TOKEN")]
    if principals:
        fields["principals"] = tuple(base.get("principals", ())) + tuple(principals)
    for key, name, kind in (("AGENTD_RING", "ring", int), ("AGENTD_STREAM_DEADLINE", "stream_deadline", float)):
        if env.get(key):
            try:
                fields[name] = kind(env[key])
            except ValueError:
                raise EnvError(f"{key} must be a number, got {env[key]!r}") from None
    if env.get("AGENTD_CORS_ORIGINS"):
        fields["cors_origins"] = tuple(o.strip() for o in env["AGENTD_CORS_ORIGINS"].split(",") if o.strip())
    if env.get("AGENTD_CALLBACK_HOSTS"):
        fields["callback_hosts"] = _list(env["AGENTD_CALLBACK_HOSTS"])
    if env.get("AGENTD_DEFECTS"):
        fields["defects"] = frozenset(d.strip() for d in env["AGENTD_DEFECTS"].split(",") if d.strip())
    return make({**base, **fields}), bind, env.get("AGENTD_PUBLIC_URL") or None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        from conformance.fixtures.reference_agentd.__main__ import main as reference_main

        code: int = reference_main(argv)
        return code
    from conformance.agentd_page.launch import ConfigError

    try:
        config, bind, public = config_from_env(os.environ)
    except (EnvError, ConfigError, TypeError) as exc:
        print(f"reference-agentd: configuration refused: {exc}", file=sys.stderr)
        return 2
    from conformance.fixtures.reference_agentd.server import ReferenceAgentd, serve_until_stopped

    def announce(agent: ReferenceAgentd) -> str:
        where = agent.uds_path if agent.uds_path else f"{bind[0] if bind else '?'}:{agent.port}"
        return f"reference agentd serving {agent.url} (listening on {where}, uid {os.getuid()})"

    control = os.environ.get("AGENTD_CONTROL_SOCKET") or None

    def make() -> ReferenceAgentd:
        agent = ReferenceAgentd(config, bind=bind, public_url=public)
        agent._app.echo = True  # noqa: SLF001 - the daemon's log lines go to the container's log stream
        if control:
            uid = os.environ.get("AGENTD_CONTROL_UID", "")
            serve_control(agent, control, int(uid) if uid.isdigit() else None)
        return agent

    served: int = serve_until_stopped(make, announce)
    return served


def _control_answer(agent: ReferenceAgentd, request: object) -> dict[str, Any]:
    """The control socket's answer to one request (see the module's docstring)."""
    if not isinstance(request, dict):
        return {"error": "a request is a JSON object"}
    try:
        if request.get("do") == "new_task":
            return {"id": agent.create_task(state=str(request["state"]))}
        if request.get("do") == "move":
            agent.set_task_state(str(request["task"]), str(request["state"]))
            return {"ok": True}
        if request.get("do") == "context":
            return {"context": agent.context_of(str(request["task"]))}
        if request.get("do") == "revoke":
            return {"revoked": bool(agent.revoke(str(request["token"])))}
    except (KeyError, AssertionError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"error": f"unknown request {request.get('do')!r}"}


def serve_control(agent: ReferenceAgentd, path: str, harness_uid: int | None = None) -> None:
    """Serve the harness's control on the unix socket ``path`` in a daemon thread, for as long as the
    process lives. Only root, the daemon's own uid and ``harness_uid`` (``AGENTD_CONTROL_UID``: the
    harness on the host, which may not be root) are answered: the kernel names the caller (SO_PEERCRED)."""
    import json
    import socket
    import socketserver
    import struct
    import threading

    allowed = {0, os.getuid()} | ({harness_uid} if harness_uid is not None else set())

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            cred = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", cred)[1] not in allowed:
                return
            try:
                request = json.loads(self.rfile.readline(65536) or b"null")
            except ValueError:
                request = None
            self.wfile.write(json.dumps(_control_answer(agent, request)).encode() + b"\n")

    if os.path.exists(path):
        os.unlink(path)
    server = socketserver.ThreadingUnixStreamServer(path, Handler)
    server.daemon_threads = True
    os.chmod(path, 0o666)  # the folder is the harness's; the peer's uid is checked per connection
    threading.Thread(target=server.serve_forever, name="control", daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
