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
``AGENTD_CONFIG``           YAML of the reference's Config fields (principals with grants, workflows, ...),
                            applied first; the variables above override it
==========================  =====================================================================

Anything malformed is refused at start (exit 2, one line), as agentd refuses a bad configuration.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import yaml

ROLES = ("operator", "user", "agent")
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


def config_from_env(env: Mapping[str, str]) -> tuple[Any, tuple[str, int] | None, str | None]:
    """(Config, TCP bind address or None, public URL) from the environment."""
    from conformance.fixtures.reference_agentd.config import Config, Principal, from_mapping

    base = Config()
    if env.get("AGENTD_CONFIG"):
        try:
            doc = yaml.safe_load(env["AGENTD_CONFIG"]) or {}
        except yaml.YAMLError as exc:
            raise EnvError(f"AGENTD_CONFIG is not YAML: {' '.join(str(exc).split())}") from None
        if not isinstance(doc, dict):
            raise EnvError("AGENTD_CONFIG must be a mapping of Config fields")
        base = from_mapping(doc)
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
        fields["principals"] = base.principals + tuple(principals)
    for key, name, kind in (("AGENTD_RING", "ring", int), ("AGENTD_STREAM_DEADLINE", "stream_deadline", float)):
        if env.get(key):
            try:
                fields[name] = kind(env[key])
            except ValueError:
                raise EnvError(f"{key} must be a number, got {env[key]!r}") from None
    if env.get("AGENTD_CORS_ORIGINS"):
        fields["cors_origins"] = tuple(o.strip() for o in env["AGENTD_CORS_ORIGINS"].split(",") if o.strip())
    if env.get("AGENTD_DEFECTS"):
        fields["defects"] = frozenset(d.strip() for d in env["AGENTD_DEFECTS"].split(",") if d.strip())
    return base.with_(**fields), bind, env.get("AGENTD_PUBLIC_URL") or None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        from conformance.fixtures.reference_agentd.__main__ import main as reference_main

        code: int = reference_main(argv)
        return code
    from conformance.fixtures.reference_agentd.config import ConfigError

    try:
        config, bind, public = config_from_env(os.environ)
    except (EnvError, ConfigError, TypeError) as exc:
        print(f"reference-agentd: configuration refused: {exc}", file=sys.stderr)
        return 2
    from conformance.fixtures.reference_agentd.server import ReferenceAgentd, serve_until_stopped

    def announce(agent: ReferenceAgentd) -> str:
        where = agent.uds_path if agent.uds_path else f"{bind[0] if bind else '?'}:{agent.port}"
        return f"reference agentd serving {agent.url} (listening on {where}, uid {os.getuid()})"

    served: int = serve_until_stopped(lambda: ReferenceAgentd(config, bind=bind, public_url=public), announce)
    return served


if __name__ == "__main__":
    sys.exit(main())
