"""What the agentd checks share: a JSON-RPC client per role at the interface the card declares,
command messages, answers read strictly, refusals read through the one error table, and the schema
bundles.

Everything here speaks only the wire. The page's identifiers, tables and bundles are
``conformance.agentd_page`` (the oracle, written from the page; the reference agentd imports it,
never the reverse), so a check holds a target to the page.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, NoReturn
from urllib.parse import urlsplit

from a2a.types.a2a_pb2 import AgentCard
from google.protobuf.message import Message as ProtoMessage
from hypothesis import HealthCheck, Phase, settings
from jsonschema import Draft202012Validator

from conformance.agentd_page import (
    AGENTD_DOMAIN,
    ANNOTATIONS,
    COMMAND,
    DATA_PART_KEY,
    EVENTS,
    HEADER,
    SCHEMA_DIR,
    UNIX_BINDING,
)
from conformance.judge import Blocked, blocked_by
from conformance.outcome import fail, not_measured
from conformance.targets import Endpoint
from conformance.wire import Recorder
from conformance.wire.errors import ErrorView, from_jsonrpc
from conformance.wire.httpbase import HttpEndpoint, HttpReply, StreamReply
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply
from conformance.wire.methods import RESPONSE_TYPES
from conformance.wire.strict import read_strict

#: Hypothesis settings of the bad-input checks: bounded, deterministic, no database on disk, no
#: shrinking (the first failing example is the evidence).
BAD_INPUT = settings(
    max_examples=30,
    deadline=None,
    database=None,
    derandomize=True,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
)

_ids = itertools.count(1)


def unique(prefix: str) -> str:
    """A value no earlier request of this process used (message ids, markers)."""
    return f"{prefix}-{next(_ids)}-{id(_ids):x}"


# ---- what a check stands on: the card, the declarations, the listener (the blame rule) ---------

#: The row that fails when an extension is not declared; a check about how a *declared* extension
#: behaves is ``not_measured``, blocked by it (DESIGN.md §2.8). The events extension is declared
#: exactly while the feed is on (AGENTD_DECL_003): a card without it is a daemon with the feed off, or
#: not agentd, and the events rows cannot be measured on it.
DECLARED_BY: Final[Mapping[str, str]] = {
    COMMAND: "AGENTD_DECL_001", ANNOTATIONS: "AGENTD_DECL_002", EVENTS: "AGENTD_DECL_003",
}
#: The row whose own text demands a readable public card ("the public card always declares ...").
CARD_ROW: Final = "AGENTD_DECL_001"
#: The row whose own text demands a JSON-RPC listener answering the core method names.
LISTENER_ROW: Final = "AGENTD_DECL_013"
#: What every check that talks to the target stands on: the card and the listener.
BASE_ROWS: Final = (CARD_ROW, LISTENER_ROW)


def deps(*uris: str) -> tuple[str, ...]:
    """The ``depends_on`` ids of a check that talks to the target and needs ``uris`` declared."""
    return tuple(dict.fromkeys((*BASE_ROWS, *(DECLARED_BY[u] for u in uris))))


def card_of(instance: Any) -> dict[str, Any]:
    """The card the resolver found for ``instance``; blocked by :data:`CARD_ROW` when there is none."""
    loc = instance.location
    if loc.card is None:
        blocked_by(CARD_ROW, f"the agent card could not be read: {loc.error}")
    card: dict[str, Any] = loc.card
    return card


def require_declared(card: Mapping[str, Any], uri: str, where: str = "the card") -> dict[str, Any]:
    """The declaration of extension ``uri`` on ``card`` (matched byte for byte).

    The one place that says "the extension must be declared": a check of how ``uri`` behaves ends
    ``not_measured``, blocked by the row that declares it (:data:`DECLARED_BY`), when it is not."""
    decl = next((e for e in extensions_of(card) if e.get("uri") == uri), None)
    if decl is None:
        blocked_by(DECLARED_BY[uri], f"{where} declares no {uri} (declared: {declared_uris(card) or 'none'})")
    return decl


def lacking(need: str) -> NoReturn:
    """End the check ``not_measured`` for a registry need (``conformance.registry.NEEDS``) its target
    lacks, in the words the plugin's gate uses (for a run the gate did not stop, e.g. without the
    command around it)."""
    from conformance.verdict import needs_note

    not_measured(needs_note([need]))


def agentd_identifiers(card: Mapping[str, Any]) -> list[str]:
    """Every extension URI and URI-shaped protocol binding the card declares on agentd's host
    (the page's identifiers, and near misses of them)."""
    bindings = [i.get("protocolBinding") for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)]
    uris = declared_uris(card) + [b for b in bindings if isinstance(b, str) and "://" in b]
    return [u for u in uris if (urlsplit(u).hostname or "").lower() in ("agentd.dev", "www.agentd.dev")]


def require_agentd(card: Mapping[str, Any]) -> list[str]:
    """The agentd identifiers the card declares; blocked by :data:`CARD_ROW` when there is none (a
    statement about what agentd declares is not passed by a card that declares nothing of agentd's)."""
    found = agentd_identifiers(card)
    if not found:
        blocked_by(CARD_ROW, f"the card declares none of agentd's identifiers (declared extensions: "
                             f"{declared_uris(card) or 'none'})")
    return found


@contextmanager
def judged_here(*rows: str) -> Iterator[None]:
    """For a check measuring ``rows`` itself: a block by one of them is this check's fail."""
    try:
        yield
    except Blocked as exc:
        if exc.by in rows:
            fail(exc.missing)
        raise


def declaring(agent_targets: Any, *uris: str, fresh: bool = False, **needs: Any) -> Any:
    """An instance in the configuration ``needs`` whose card declares every extension of ``uris``.

    The card and the declarations are judged before the configuration: a running target whose card
    cannot be read, or lacks a declaration, is blocked by the row that governs it (and never told to
    declare a fact it cannot have); one whose card declares no security scheme is not asked for
    tokens it cannot have."""
    if not agent_targets.launchable:
        card = card_of(agent_targets.agentd())
        for uri in uris:
            require_declared(card, uri)
        _needs_it_can_have(agent_targets, card, needs)
    inst = agent_targets.agentd(fresh=fresh, **needs)
    card = card_of(inst)
    for uri in uris:
        require_declared(card, uri)
    return inst


#: Needs that ask for callers with roles (principals and their bearer tokens).
_ROLE_NEEDS: Final = ("auth", "principals", "grants")


def _needs_it_can_have(agent_targets: Any, card: Mapping[str, Any], needs: Mapping[str, Any]) -> None:
    """Say what is missing, for a need a running target could only meet with a credential."""
    if not any(needs.get(k) for k in _ROLE_NEEDS) or (agent_targets.target.get("tokens") or {}):
        return
    if not card.get("securitySchemes"):
        not_measured("needs callers with distinct roles (operator, user, agent); the card declares no security "
                     "scheme, so the target names no principals the harness could call as")
    not_measured("needs bearer tokens for the roles operator, user and agent that the card's security schemes "
                 "admit; give them with --token operator=TOKEN (and user=, agent=)")


# ---- clients ---------------------------------------------------------------------------------

def jsonrpc_endpoint(instance: Any) -> Endpoint:
    """The interface every agentd check calls: the card's JSON-RPC interface (on a unix socket the
    page's unix binding first, else ``JSONRPC``), as the one resolver finds it. Blocked by
    :data:`CARD_ROW` when the card cannot be read, by :data:`LISTENER_ROW` when it declares no such
    interface."""
    loc = instance.location
    card_of(instance)
    order = (UNIX_BINDING, "JSONRPC") if instance.uds_path else ("JSONRPC", UNIX_BINDING)
    ep: Endpoint | None = loc.endpoint(*order)
    if ep is None:
        blocked_by(LISTENER_ROW, f"the card ({loc.card_url}) declares no JSON-RPC interface ({' or '.join(order)}); "
                   f"its interfaces name {loc.declared_bindings()}")
    if ep.uds is None and not ep.url.startswith(("http://", "https://")):
        fail(f"the card's {ep.binding} interface has url {ep.url!r}, neither http(s):// nor unix:///")
    return ep


def rpc_client(
    instance: Any,
    role: str = "operator",
    *,
    recorder: Recorder,
    token: str | None = None,
    timeout: float = 10.0,
) -> JsonRpcClient:
    """A JSON-RPC client calling ``instance`` as ``role`` (or with an explicit bearer ``token``) at
    the JSON-RPC interface its card declares (:func:`jsonrpc_endpoint`; a socket is called at ``/``).

    Where the target knows no credentials at all (a loopback listener with nothing configured, a unix
    socket) every caller is the operator; any other role then cannot be measured.
    """
    headers: dict[str, str] = {}
    if token is None:
        if instance.tokens:
            token = instance.token(role)
        elif role != "operator":
            not_measured(f"needs a {role} principal; this target has no credentials configured")
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    ep = jsonrpc_endpoint(instance)
    if ep.uds is not None:
        return JsonRpcClient("/", uds=ep.uds, headers=headers, recorder=recorder, timeout=timeout)
    return JsonRpcClient(ep.url, headers=headers, recorder=recorder, timeout=timeout)


def http_endpoint(instance: Any, recorder: Recorder, timeout: float = 10.0) -> HttpEndpoint:
    """A plain HTTP endpoint on the origin the card was read from (card reads, CORS requests); send
    it absolute URLs (``instance.location.card_url``, ``jsonrpc_endpoint(instance).url``)."""
    if instance.uds_path:
        return HttpEndpoint("", binding="JSONRPC-UNIX", uds=instance.uds_path, recorder=recorder, timeout=timeout)
    return HttpEndpoint(instance.location.origin, binding="JSONRPC", recorder=recorder, timeout=timeout)


def card_url(instance: Any) -> str:
    """Where the instance's card was found (blocked by :data:`CARD_ROW` when it was not)."""
    loc = instance.location
    card_of(instance)
    url: str = loc.card_url
    return url


def card_reply(instance: Any, recorder: Recorder, token: str | None = None) -> HttpReply:
    """GET the public card where it was found, with a bearer ``token`` when given."""
    url = card_url(instance)
    http = http_endpoint(instance, recorder)
    headers = [("Accept", "application/json")]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    try:
        return http.send("GET", url, headers=headers)
    finally:
        http.close()


def served_card(instance: Any, recorder: Recorder, token: str | None = None) -> dict[str, Any]:
    """The public agent card as served (fails when it is not a JSON object); not read strictly."""
    reply = card_reply(instance, recorder, token)
    if reply.status != 200 or not isinstance(reply.json, dict):
        fail(f"GET {reply.exchange.url} answered HTTP {reply.status}: {reply.body[:300]!r}")
    card: dict[str, Any] = reply.json
    return card


def public_card(instance: Any, recorder: Recorder, token: str | None = None) -> dict[str, Any]:
    """The public card as served, held strictly to the A2A AgentCard type (fails otherwise)."""
    card = served_card(instance, recorder, token)
    strict(card, AgentCard, "$", "the public card")
    return card


def extensions_of(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    exts = (card.get("capabilities") or {}).get("extensions") or []
    return [e for e in exts if isinstance(e, dict)]


def declared_uris(card: Mapping[str, Any]) -> list[str]:
    return [str(e["uri"]) for e in extensions_of(card) if isinstance(e.get("uri"), str)]


def ext(*uris: str) -> dict[str, str]:
    """An ``A2A-Extensions`` header naming ``uris`` on one comma-separated line (no header for none)."""
    return {HEADER: ", ".join(uris)} if uris else {}


# ---- messages --------------------------------------------------------------------------------

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


def text_message(text: str, *, task_id: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "ROLE_USER", "messageId": unique("m"), "parts": [{"text": text}]}
    if task_id is not None:
        msg["taskId"] = task_id
    return msg


def send_params(message: Mapping[str, Any], *, accepted: Sequence[str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"message": dict(message)}
    if accepted is not None:
        params["configuration"] = {"acceptedOutputModes": list(accepted)}
    return params


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


# ---- answers ---------------------------------------------------------------------------------

def quote(value: Any, limit: int = 600) -> str:
    """A short rendering of what came back, for failure messages."""
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ok_result(reply: RpcReply, what: str) -> Any:
    """The ``result`` of a successful answer; fails quoting the answer otherwise."""
    if reply.status != 200:
        fail(f"{what}: HTTP {reply.status}, expected 200; body {quote(reply.json or reply.body)}")
    if reply.error is not None:
        fail(f"{what}: refused with {reply.error.code} {reply.error.message!r}; error {quote(reply.json)}")
    if reply.result is None:
        fail(f"{what}: no result in the answer {quote(reply.json or reply.body)}")
    return reply.result


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


def send_answer(reply: RpcReply, what: str) -> dict[str, Any]:
    """The strictly read result of a SendMessage: ``{"message": …}`` or ``{"task": …}``."""
    result = ok_result(reply, what)
    strict(result, RESPONSE_TYPES["SendMessage"], "$.result", f"{what}: the result")
    if not isinstance(result, dict):
        fail(f"{what}: the result is not an object: {quote(result)}")
    return result


def answer_message(reply: RpcReply, what: str) -> dict[str, Any]:
    result = send_answer(reply, what)
    if "message" not in result:
        fail(f"{what}: expected a Message reply, got {sorted(result)}: {quote(result)}")
    msg: dict[str, Any] = result["message"]
    return msg


def answer_task(reply: RpcReply, what: str) -> dict[str, Any]:
    result = send_answer(reply, what)
    if "task" not in result:
        fail(f"{what}: expected a Task reply, got {sorted(result)}: {quote(result)}")
    task: dict[str, Any] = result["task"]
    return task


def data_document(message: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The result document of a read: the one part of the Message, a DataPart holding an object."""
    parts = message.get("parts") or []
    if len(parts) != 1 or not isinstance(parts[0], dict) or not isinstance(parts[0].get("data"), dict):
        fail(f"{what}: expected exactly one DataPart holding the result document, got parts {quote(parts)}")
    doc: dict[str, Any] = parts[0]["data"]
    return doc


def result_artifact(task: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The ``<taskId>.result`` artifact's document (one DataPart)."""
    want = f"{task.get('id')}.result"
    arts = [a for a in task.get("artifacts") or [] if isinstance(a, dict) and a.get("artifactId") == want]
    if len(arts) != 1:
        have = [a.get("artifactId") for a in task.get("artifacts") or [] if isinstance(a, dict)]
        fail(f"{what}: expected one artifact {want!r}, got artifact ids {have!r}")
    return data_document(arts[0], f"{what}: artifact {want}")


def task_state(task: Mapping[str, Any]) -> Any:
    return (task.get("status") or {}).get("state")


TERMINAL: Final = frozenset({"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"})


def get_task(client: JsonRpcClient, task_id: str, what: str, *, uris: Sequence[str] = ()) -> dict[str, Any]:
    """GetTask, read strictly."""
    task = ok_result(client.call("GetTask", {"id": task_id}, headers=ext(*uris)), what)
    strict(task, RESPONSE_TYPES["GetTask"], "$.result", f"{what}: the task")
    out: dict[str, Any] = task
    return out


def settled(client: JsonRpcClient, task: dict[str, Any], what: str, *, timeout: float = 5.0) -> dict[str, Any]:
    """The task once it is terminal or input-required (polled with GetTask until ``timeout``)."""
    end = time.monotonic() + timeout
    while task_state(task) not in TERMINAL | {"TASK_STATE_INPUT_REQUIRED"}:
        if time.monotonic() > end:
            fail(f"{what}: task {task.get('id')} still {task_state(task)} after {timeout:g}s")
        time.sleep(0.05)
        task = get_task(client, str(task.get("id")), what)
    return task


# ---- refusals --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Refusal:
    """A refusal as it came back: the HTTP status, the normalised error and the raw body."""

    http_status: int
    view: ErrorView
    body: Any


def refusal(reply: RpcReply | StreamReply, what: str) -> Refusal:
    """The refusal a request got; fails when it was answered (or crashed the target)."""
    body = reply.json
    if reply.status >= 500:
        fail(f"{what}: HTTP {reply.status} (a server error, not a refusal); body {quote(body or reply.body)}")
    if isinstance(reply, StreamReply) and reply.events:
        frames = [e.data for e in reply.events[:3]]
        fail(f"{what}: expected a refusal, got an event stream; first frames {quote(frames)}")
    if not isinstance(body, dict) or "error" not in body:
        fail(f"{what}: expected a JSON-RPC error, got HTTP {reply.status} {quote(body or reply.body)}")
    return Refusal(reply.status, from_jsonrpc(body["error"]), body)


def refusal_problems(
    got: Refusal, *, code: int, reason: str, domain: str = AGENTD_DOMAIN, http_status: int | None = None
) -> list[str]:
    """Every way a refusal differs from the page's row (empty when it matches)."""
    v = got.view
    out = list(v.problems)
    if v.code != code:
        out.append(f"code {v.code!r}, expected {code}")
    if not v.has_error_info:
        out.append(f"no google.rpc.ErrorInfo in error.data (expected reason {reason})")
    else:
        if v.reason != reason:
            out.append(f"ErrorInfo.reason {v.reason!r}, expected {reason!r}")
        if v.domain != domain:
            out.append(f"ErrorInfo.domain {v.domain!r}, expected {domain!r}")
    if http_status is not None and got.http_status != http_status:
        out.append(f"HTTP status {got.http_status}, expected {http_status}")
    return out


def assert_refused(
    reply: RpcReply | StreamReply,
    what: str,
    *,
    code: int,
    reason: str,
    domain: str = AGENTD_DOMAIN,
    http_status: int | None = None,
) -> Refusal:
    got = refusal(reply, what)
    problems = refusal_problems(got, code=code, reason=reason, domain=domain, http_status=http_status)
    if problems:
        fail(f"{what}: {'; '.join(problems)}; error {quote(got.body.get('error'))}")
    return got


# ---- schema bundles --------------------------------------------------------------------------

#: Where the bundles come from by default: the harness's own copy, written from the page.
DEFAULT_BUNDLE_DIR: Final = SCHEMA_DIR


class Bundles:
    """The JSON Schema bundles (command, events, task-annotations) a target is validated against."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._docs: dict[str, dict[str, Any]] = {}
        self._validators: dict[tuple[str, str], Draft202012Validator] = {}

    def doc(self, name: str) -> dict[str, Any]:
        if name not in self._docs:
            path = self.directory / f"{name}.schema.json"
            self._docs[name] = json.loads(path.read_text(encoding="utf-8"))
        return self._docs[name]

    def validator(self, name: str, pointer: str = "") -> Draft202012Validator:
        key = (name, pointer)
        if key not in self._validators:
            root = self.doc(name)
            schema = {"$ref": f"#/{pointer}", "$defs": root.get("$defs", {})} if pointer else root
            self._validators[key] = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        return self._validators[key]

    def has(self, name: str, pointer: str) -> bool:
        node: Any = self.doc(name)
        for step in pointer.split("/"):
            if not isinstance(node, dict) or step not in node:
                return False
            node = node[step]
        return True

    def errors(self, name: str, pointer: str, instance: Any) -> list[str]:
        """Every schema error of ``instance`` against ``#/<pointer>`` of bundle ``name``."""
        out = []
        for err in sorted(self.validator(name, pointer).iter_errors(instance), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(root)"
            out.append(f"{where}: {err.message}")
        return out

    def check(self, name: str, pointer: str, instance: Any, what: str) -> None:
        errs = self.errors(name, pointer, instance)
        if errs:
            fail(f"{what} is not valid against the {name} bundle (#/{pointer}): {'; '.join(errs[:5])}; "
                 f"value {quote(instance)}")

    def kinds(self) -> dict[str, str]:
        """The closed event-kind vocabulary and each kind's audience (owner, everyone, operator)."""
        kinds: dict[str, str] = self.doc("events").get("x-agentd-kinds", {})
        return kinds


@cache
def _bundles_at(directory: str) -> Bundles:
    return Bundles(Path(directory))


def bundles(run_context: Any) -> Bundles:
    """The bundles of this run: ``target.schema_dir`` when the run names one, else the harness's copy."""
    target = getattr(run_context, "target", None) or {}
    return _bundles_at(str(target.get("schema_dir") or DEFAULT_BUNDLE_DIR))


# ---- configurations a launched reference is asked for ------------------------------------------

#: The argument schema of the workflow-declared command the checks configure (the page's example).
REVIEW_SCHEMA: Final = {"type": "object", "required": ["change"], "properties": {"change": {"type": "string"}}}
#: The answer an input-required gate asks for, and where it is announced.
ASK_SCHEMA: Final = {"type": "object", "required": ["approve"], "properties": {"approve": {"type": "boolean"}}}
ASK_CHANNEL: Final = "#reviews"


def workflows() -> tuple[Any, ...]:
    """The workflows of the standard configuration: ``build`` runs to completion, ``hold`` stays
    working until canceled, ``ask`` stops at an input-required gate, ``review`` declares the
    command ``review.change`` (roles operator and agent)."""
    from conformance.fixtures.reference_agentd import Workflow

    return (
        Workflow("build"),
        Workflow("hold", hold=True),
        Workflow("ask", ask=dict(ASK_SCHEMA), ask_channel=ASK_CHANNEL),
        Workflow("review", roles=("operator", "agent"), command="review.change", schema=dict(REVIEW_SCHEMA)),
    )


def standard(**more: Any) -> dict[str, Any]:
    """Needs of the standard instance: principals per role, the workflows, the agent granted review.change."""
    needs: dict[str, Any] = {"auth": True, "workflows": workflows(), "grants": {"agent": ("review.change",)}}
    needs.update(more)
    return needs


_PRINCIPALS: dict[tuple[tuple[str, str, tuple[str, ...]], ...], tuple[tuple[Any, ...], dict[str, str]]] = {}


def principals(
    agent_targets: Any, specs: Sequence[tuple[str, str, Sequence[str]]]
) -> tuple[tuple[Any, ...], dict[str, str]]:
    """Principals ``(name, role, grants)`` with fresh bearer tokens (registered as secrets), made
    once per spec list so a cached instance and its tokens stay together; returns them and
    name → token."""
    key = tuple((n, r, tuple(sorted(g))) for n, r, g in specs)
    if key not in _PRINCIPALS:
        from conformance.fixtures.reference_agentd import Principal

        # make(): a name like "agent-without-grant" in the token would redact "-without-" everywhere.
        tokens = {n: agent_targets.secrets.make(n) for n, _, _ in key}
        made = tuple(Principal(name=n, token=tokens[n], role=r, grants=frozenset(g)) for n, r, g in key)
        _PRINCIPALS[key] = (made, tokens)
    return _PRINCIPALS[key]
