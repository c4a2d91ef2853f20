"""The agentd extensions page's data, written from the page: identifiers, tables and schema bundles.

This is the oracle the agentd checks judge with. The reference agentd imports it (never the
reverse), so what the reference serves is held to what the page says, not to itself.

- identifiers: the three extension URIs, the unix binding URI, the events method, the DataPart key
  and the ErrorInfo domains ("What agentd declares", "Identifiers", "Errors the extensions add");
- tables: the principals' roles, the op families and when each is served, the operator-only ops, the methods each
  extension applies to ("Activation and the echo"), the closed event-kind vocabulary;
- schema bundles: ``schemas/<name>.schema.json`` for ``command``, ``events`` and
  ``task-annotations`` (the last segment of each URI, as ``--extension-schema`` takes it). Where the
  page gives a shape (hello/event/goodbye members, the annotation members and which are always
  there, the op table) the bundles follow it; argument and result details the page leaves to
  agentd.dev's specifications are this harness's reading.

Beside them, :mod:`conformance.agentd_page.launch`: the launch configuration's vocabulary (principals, peers,
workflows) and its document's JSON Schema (``config/``), the contract the checks, the targets and a
third-party image share, which the reference agentd reads like any image.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

# ---- identifiers -----------------------------------------------------------------------------------
COMMAND: Final = "https://agentd.dev/a2a/ext/command"
EVENTS: Final = "https://agentd.dev/a2a/ext/events"
ANNOTATIONS: Final = "https://agentd.dev/a2a/ext/task-annotations"
UNIX_BINDING: Final = "https://agentd.dev/a2a/binding/jsonrpc-unix"
EVENTS_METHOD: Final = "agentd.events/SubscribeToEvents"
DATA_PART_KEY: Final = "agentd"
AGENTD_DOMAIN: Final = "agentd.dev"
A2A_DOMAIN: Final = "a2a-protocol.org"
#: The request header naming the extensions a client activates, and the response header echoing them.
HEADER: Final = "A2A-Extensions"
#: The extension URIs in the page's table order (the order of the card and of the echo).
EXTENSIONS: Final = (COMMAND, EVENTS, ANNOTATIONS)
#: Every identifier the page lists (the three extensions and the one binding).
PAGE_URIS: Final = (*EXTENSIONS, UNIX_BINDING)

# ---- tables ----------------------------------------------------------------------------------------
#: The roles a principal has ("the caller's role and grants"); ``operator`` reaches every op.
ROLES: Final = ("operator", "user", "agent")
#: The op families of the page's table, and when each is served.
_WORK_OPS: Final = (
    "status", "config",
    "workflow.run", "workflow.status", "workflow.cancel", "workflow.signal",
    "subagent.send", "subagent.kill", "subagent.status", "plan.get",
)  # fmt: skip
_ADMIN_OPS: Final = ("admin.drain", "admin.pause", "admin.resume", "admin.cancel", "admin.set")
ALWAYS_OPS: Final = (*_WORK_OPS, *_ADMIN_OPS)
INTROSPECTION_OPS: Final = ("conversation.get", "run.get", "subagent.get", "debug.events")
SIGN_IN_OPS: Final = ("auth.device.pending", "auth.device.approve", "auth.device.deny")
SESSION_OPS: Final = ("auth.sessions", "auth.sessions.revoke")
#: Every op the page's families table names, in its order (the public vocabulary holds at least these).
PAGE_OPS: Final = (*_WORK_OPS, *INTROSPECTION_OPS, *_ADMIN_OPS, *SIGN_IN_OPS, *SESSION_OPS)
#: "The admin.* and auth.* ops, config and debug.events are operator-only, and no grant reaches them."
OPERATOR_ONLY_OPS: Final = (
    "config", "debug.events",
    "admin.drain", "admin.pause", "admin.resume", "admin.cancel", "admin.set",
    *SIGN_IN_OPS, *SESSION_OPS,
)  # fmt: skip

#: "applicable: meaningful on the method called" -- the page's list for each extension.
_TASK_ANSWERS: Final = frozenset(
    {"SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask", EVENTS_METHOD}
)
APPLIES_TO: Final[Mapping[str, frozenset[str]]] = {
    COMMAND: frozenset({"SendMessage", "SendStreamingMessage"}),
    EVENTS: frozenset({EVENTS_METHOD}),
    ANNOTATIONS: _TASK_ANSWERS,
}

#: The page's closed event-kind vocabulary.
_BASE_KINDS: Final = ("task", "run", "step", "conversation", "subagent", "child", "activity")
EVENT_KINDS: Final = (*_BASE_KINDS, *(f"{k}.removed" for k in _BASE_KINDS), "status", "lifecycle", "config",
                      "audit", "auth")

# ---- schema bundles --------------------------------------------------------------------------------
SCHEMA_DIR: Final = Path(__file__).resolve().parent / "schemas"
#: ``--extension-schema`` takes the last segment of a URI: each bundle's name and its extension.
SCHEMA_NAMES: Final[Mapping[str, str]] = {u.rsplit("/", 1)[1]: u for u in EXTENSIONS}


def schema_path(name: str) -> Path:
    """The file of bundle ``name`` (``command``, ``events`` or ``task-annotations``)."""
    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    return SCHEMA_DIR / f"{name}.schema.json"


def schema_text(name: str) -> str:
    """Bundle ``name`` exactly as published (the file's text)."""
    return schema_path(name).read_text(encoding="utf-8")
