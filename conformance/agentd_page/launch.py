"""The launch configuration's vocabulary and its document: what a configuration an agent must be launched with
says, and the document a ``config`` switch hands to an image.

The checks, the targets and the container contract for third-party images describe a configuration in these
terms; the reference agentd (a fixture) imports them from here, never the reverse.

- vocabulary: :data:`Role` (the page's ``ROLES``), :class:`Principal` (a bearer credential and who it names),
  :class:`Peer` (an endpoint of the outbound client), :class:`Workflow` (a workflow, with its declared command,
  its gate and its ``a2a.send`` step), :class:`ConfigError` (a configuration refused);
- the document: contract v1's ``config`` switch (the reference image's ``AGENTD_CONFIG``), contract v2's
  ``config`` file with ``format=reference`` and the ``reference`` member of a v2 template's context all carry
  one document of this shape (:func:`principal_document`, :func:`workflow_document` and back). Its JSON Schema
  (Draft 2020-12) is ``config/document.schema.json``; what a v2 ``config-template`` reads is
  ``config/context.schema.json``. The reference agentd validates every document it loads against the first,
  as any image may (:func:`check_document`).

``python -m conformance.agentd_page.launch [--context] FILE`` validates a document (YAML or JSON; with
``--context``: a template's context) and prints each error with its path: exit 0 when it is valid, 1 when it
is not, 2 when the file cannot be read.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

import yaml

from conformance.agentd_page import ROLES

Role = Literal["operator", "user", "agent"]

CONFIG_DIR: Final = Path(__file__).resolve().parent / "config"
DOCUMENT_SCHEMA: Final = CONFIG_DIR / "document.schema.json"
CONTEXT_SCHEMA: Final = CONFIG_DIR / "context.schema.json"
#: At most this many errors go into a refusal's one line (the command line prints them all).
_IN_ONE_LINE = 3


class ConfigError(ValueError):
    """A launch configuration is refused: its document is malformed, or the agent would not start with it."""


def as_role(value: str, who: str) -> Role:
    """``value`` as a role, for the principal named ``who``; a :class:`ConfigError` when it names none."""
    for role in ROLES:
        if role == value:
            return role
    raise ConfigError(f"principal {who!r}: role must be one of {ROLES}")


@dataclass(frozen=True)
class Principal:
    """A bearer credential and who it names. ``grants`` names extra ops (built-in or workflow)."""

    name: str
    token: str
    role: Role = "user"
    grants: frozenset[str] = frozenset()

    def __repr__(self) -> str:  # never print the secret
        return f"Principal(name={self.name!r}, role={self.role!r}, grants={sorted(self.grants)!r})"


@dataclass(frozen=True)
class Peer:
    """A peer endpoint for the outbound client: ``http://<loopback>:<port>/<path>`` (the JSON-RPC
    binding at that URL) or ``unix:///<path>`` (the unix socket binding: JSON-RPC over the socket)."""

    url: str

    @property
    def uds_path(self) -> str | None:
        """The socket path of a ``unix:///<path>`` endpoint, None for an HTTP one."""
        return self.url[len("unix://"):] if self.url.startswith("unix://") else None


@dataclass(frozen=True)
class Workflow:
    """A workflow. ``command`` + ``schema``: its start step is kind a2a and declares that op.

    ``roles``: the roles the start admits. ``ask``: the run stops at an input-required gate asking
    for an answer matching this schema (announced on ``ask_channel``). ``hold``: the run stays
    working until canceled. ``send_to``: the run has an ``a2a.send`` step that sends ``send_command``
    (a command envelope ``{"op": ..., ...arguments}``) or ``send_text`` to that peer through the
    outbound client, and completes with the peer's answer (or fails naming why it could not send).
    """

    name: str
    roles: tuple[str, ...] = ROLES
    command: str | None = None
    schema: dict[str, Any] | None = None
    ask: dict[str, Any] | None = None
    ask_channel: str | None = None
    hold: bool = False
    send_to: Peer | None = None
    send_command: dict[str, Any] | None = None
    send_text: str | None = None


# ---- the document ----------------------------------------------------------------------------------
def principal_document(p: Principal) -> dict[str, Any]:
    """``p`` as the document writes it (grants sorted)."""
    return {"name": p.name, "token": p.token, "role": p.role, "grants": sorted(p.grants)}


def workflow_document(w: Workflow) -> dict[str, Any]:
    """``w`` as the document writes it: its set members, ``send_to`` as the peer's URL."""
    out: dict[str, Any] = {"name": w.name, "roles": list(w.roles), "hold": w.hold}
    for key in ("command", "schema", "ask", "ask_channel", "send_command", "send_text"):
        value = getattr(w, key)
        if value is not None:
            out[key] = copy.deepcopy(value)
    if w.send_to is not None:
        out["send_to"] = w.send_to.url
    return out


def principal_of(data: Mapping[str, Any]) -> Principal:
    """A document's principal (already valid against the schema) as a :class:`Principal`."""
    name = str(data["name"])
    return Principal(name=name, token=str(data["token"]), role=as_role(str(data.get("role", "user")), name),
                     grants=frozenset(data.get("grants", ())))


def workflow_of(data: Mapping[str, Any]) -> Workflow:
    """A document's workflow (already valid against the schema) as a :class:`Workflow`."""
    return Workflow(
        name=str(data["name"]),
        roles=tuple(data.get("roles", ROLES)),
        command=data.get("command"),
        schema=data.get("schema"),
        ask=data.get("ask"),
        ask_channel=data.get("ask_channel"),
        hold=bool(data.get("hold", False)),
        send_to=Peer(str(data["send_to"])) if data.get("send_to") else None,
        send_command=data.get("send_command"),
        send_text=data.get("send_text"),
    )


def document(*, principals: Iterable[Principal] = (), workflows: Iterable[Workflow] = (),
             **fields: Any) -> dict[str, Any]:
    """The document of a configuration: its principals and workflows in the document's shape (left out when
    there are none), every other field as given (a tuple or a set as a list)."""
    doc: dict[str, Any] = {}
    if made := [principal_document(p) for p in principals]:
        doc["principals"] = made
    if flows := [workflow_document(w) for w in workflows]:
        doc["workflows"] = flows
    for key, value in fields.items():
        doc[key] = list(value) if isinstance(value, tuple | list | set | frozenset) else value
    return doc


def harness_document(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc``, a document the harness made, once it is valid: one its own schema refuses is the harness's
    fault, never the agent's (a RuntimeError naming each error's path, so the check errs)."""
    found = document_errors(doc)
    if found:
        raise RuntimeError(f"harness: the configuration document it made does not match its schema: "
                           f"{'; '.join(found)}")
    return doc


# ---- the schemas -----------------------------------------------------------------------------------
@cache
def schema(name: Literal["document", "context"]) -> dict[str, Any]:
    """The JSON Schema of the document, or of a template's context."""
    doc: dict[str, Any] = json.loads((CONFIG_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return doc


@cache
def _validator(name: Literal["document", "context"]) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (schema("document"), schema("context")))
    return Draft202012Validator(schema(name), registry=registry)


def where(path: Iterable[str | int]) -> str:
    """A path inside the document, as its errors name it: ``workflows[0].send_to``; ``(top level)`` for the
    whole."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _message(err: Any) -> str:
    """One error's words: the failing rule's own ``$comment`` where the validator's words would only quote the
    schema (a pattern; an ``a2a.send`` step sends exactly one thing), else the most relevant of a ``oneOf``'s
    errors, else the validator's."""
    comment = err.schema.get("$comment") if isinstance(err.schema, dict) else None
    if comment and err.validator == "pattern":
        return f"{err.instance!r} is not {comment}"
    if err.validator in ("oneOf", "anyOf"):
        if comment:
            return str(comment)
        if err.context:
            from jsonschema.exceptions import best_match

            inner = best_match(err.context)
            return f"{inner.message} (at {where([*err.absolute_path, *inner.relative_path])})" \
                if inner.relative_path else str(inner.message)
    return str(err.message)


def errors(instance: Any, of: Literal["document", "context"] = "document") -> list[str]:
    """Every way ``instance`` breaks the schema of a document (or of a template's context), each as
    ``path: words``, in the order of their paths; empty when it is valid."""
    found = sorted(_validator(of).iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{where(e.absolute_path)}: {_message(e)}" for e in found]


def document_errors(doc: Any) -> list[str]:
    """Every way ``doc`` breaks the document's schema (see :func:`errors`)."""
    return errors(doc, "document")


def context_errors(context: Any) -> list[str]:
    """Every way ``context`` breaks the template context's schema (see :func:`errors`)."""
    return errors(context, "context")


def check_document(doc: Any, what: str = "the configuration document") -> None:
    """Refuse ``doc`` unless it is valid against the document's schema: a :class:`ConfigError` naming the path
    of each of its first errors, in one line (an agent refuses a bad configuration before it starts)."""
    found = document_errors(doc)
    if found:
        more = f" (and {len(found) - _IN_ONE_LINE} more)" if len(found) > _IN_ONE_LINE else ""
        raise ConfigError(f"{what} does not match its schema: {'; '.join(found[:_IN_ONE_LINE])}{more}")


def read(path: Path) -> Any:
    """A document's file: JSON when it ends in ``.json``, else YAML (JSON is YAML too)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.safe_load(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.agentd_page.launch",
        description="Validate a launch configuration document (what a config switch or a config file with "
                    "format=reference carries) against its JSON Schema, or with --context the context a "
                    "config-template reads. Exit 0: valid; 1: invalid (each error printed with its path); "
                    "2: the file cannot be read.")
    parser.add_argument("--context", action="store_true", help="FILE is a config-template's context")
    parser.add_argument("file", type=Path, metavar="FILE", help="YAML or JSON (JSON when it ends in .json)")
    ns = parser.parse_args(argv)
    what: Literal["document", "context"] = "context" if ns.context else "document"
    try:
        instance = read(ns.file)
    except (OSError, ValueError, yaml.YAMLError) as exc:  # a JSONDecodeError and a UnicodeDecodeError are ValueErrors
        print(f"{ns.file}: cannot read the {what}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    found = errors(instance, what)
    for line in found:
        print(f"{ns.file}: {line}")
    if found:
        print(f"{ns.file}: {len(found)} error(s): not a valid {what}", file=sys.stderr)
        return 1
    print(f"{ns.file}: a valid {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
