"""What agentd declares (AGENTD_DECL_*): the card's declarations and identifiers, the core protocol
without extensions, the route table, the ``--extensions`` / ``--extension-schema`` output and the
schema bundles a running daemon's output must validate against.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, Final
from urllib.parse import urlsplit

import pytest
from a2a.types.a2a_pb2 import ListTasksResponse, StreamResponse, Task
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.answers import READ_REPLY_ROW, read_document
from conformance.agentd.bundles import DEFAULT_BUNDLE_DIR
from conformance.agentd.cards import declared_uris, extensions_of
from conformance.agentd.clients import ext, public_card, rpc_client
from conformance.agentd.commands import command_message
from conformance.agentd.feed import STREAM_ROW, unstreamed
from conformance.agentd.footing import (
    BASE_ROWS,
    CARD_ROW,
    FEED_ROW,
    LISTENER_ROW,
    agentd_identifiers,
    card_of,
    deps,
    feed_contradiction,
    instance_for,
    lacking,
    require_agentd,
)
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    EXTENSIONS,
    PAGE_URIS,
    UNIX_BINDING,
)
from conformance.cli.runner import CliResult, CliRunner
from conformance.evidence import Evidence, SecretSet
from conformance.judge import Blocked, blocked_by, judged_here, quote, strict
from conformance.outcome import fail, not_measured
from conformance.paths import PACKAGE_DIR
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient, RpcReply
from conformance.wire.methods import CORE_METHODS, RESPONSE_TYPES, STREAMING_METHODS

#: The instance configurations the card checks look at.
CONFIGS: Final[dict[str, dict[str, Any]]] = {
    "events-on": {"events": True}, "events-off": {"events": False}, "unix": {"listen": "unix"},
}
FEED_CONFIGS: Final = ("events-on", "events-off")
#: What the launched reference's binary is, as a command line.
REFERENCE_BINARY: Final = (sys.executable, "-m", "conformance.fixtures.reference_agentd")
#: Method names the listener must not route (-32601): older spellings, near misses, made-up ones.
UNROUTED: Final = (
    "agentd.debug/Dump", "agentd.events/Subscribe", "agentd.events/subscribeToEvents", "agentd.command/Run",
    "message/send", "tasks/get", "sendMessage", "SendMessage/", "GetAuthenticatedExtendedCard",
)  # fmt: skip
#: A last path segment that reads as a version: v1, v2.1, 1.0, or a name with such a suffix.
_VERSIONED = re.compile(r"(^|[-_.@~])v?\d+([._]\d+)*$", re.IGNORECASE)


def _instance(agent_targets: AgentTargets, config: str) -> Instance:
    """The launched reference in ``config``; a running target as it is (these statements hold whatever
    it has switched on), except that a unix configuration needs a target on a socket."""
    if config == "unix":
        return agent_targets.agentd(**CONFIGS[config])
    return instance_for(agent_targets, **CONFIGS[config])


# ---- declarations on the card ---------------------------------------------------------------------
def _card_declares(agent_targets: AgentTargets, config: str, recorder: Recorder, uri: str, own: str) -> None:
    """The public card of the instance in ``config`` declares ``uri``. An unreadable card is the card row's
    fail when ``own`` is that row, and blocks any other (a2a-lite 1.2.1's card, missing a skill's tags,
    once failed DECL_002 for DECL_001's sake)."""
    if own == CARD_ROW:
        with judged_here(CARD_ROW):
            card = public_card(_instance(agent_targets, config), recorder)
    else:
        card = public_card(_instance(agent_targets, config), recorder)
    if uri not in declared_uris(card):
        fail(f"capabilities.extensions lacks {uri}; declared: {declared_uris(card)}")


@pytest.mark.requirement("AGENTD_DECL_001")
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_card_always_declares_the_command_extension(agent_targets: AgentTargets, config: str,
                                                    recorder: Recorder) -> None:
    """The public card declares the command extension, with the feed on and off. Catches
    no-command-declaration."""
    _card_declares(agent_targets, config, recorder, COMMAND, "AGENTD_DECL_001")


@pytest.mark.requirement("AGENTD_DECL_002")
@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_card_always_declares_task_annotations(agent_targets: AgentTargets, config: str, recorder: Recorder) -> None:
    """The public card declares the task-annotations extension, with the feed on and off. Catches
    no-annotations-declaration."""
    _card_declares(agent_targets, config, recorder, ANNOTATIONS, "AGENTD_DECL_002")


@pytest.mark.requirement("AGENTD_DECL_003")
@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_events_declared_exactly_while_the_feed_is_on(agent_targets: AgentTargets, config: str,
                                                      recorder: Recorder) -> None:
    """The events extension is on the card while the feed is enabled and absent while it is off.
    Catches events-declared-when-off."""
    on = CONFIGS[config]["events"]
    if not agent_targets.launchable:
        # A running target is judged only as agentd: a card declaring nothing of agentd's says nothing
        # about a feed, and no fact about one could help.
        require_agentd(card_of(agent_targets.agentd()))
    # An unreadable card in either feed setting is DECL_001's fail (it reads both): here it blocks.
    declared = declared_uris(public_card(agent_targets.agentd(**CONFIGS[config]), recorder))
    if (EVENTS in declared) != on:
        fail(f"feed {'on' if on else 'off'}, yet the events extension is "
             f"{'absent from' if on else 'declared on'} the card; declared: {declared}")


@pytest.mark.requirement("AGENTD_DECL_004")
@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_no_agentd_extension_is_required(agent_targets: AgentTargets, config: str, recorder: Recorder) -> None:
    """No declaration of an agentd extension says ``required: true``; a card declaring none of them is
    no evidence (blocked by AGENTD_DECL_001). Catches extension-required."""
    card = public_card(_instance(agent_targets, config), recorder)
    if not [e for e in extensions_of(card) if e.get("uri") in EXTENSIONS]:
        blocked_by(CARD_ROW, "the card declares none of agentd's extensions; declared: "
                             f"{declared_uris(card) or 'none'}")
    required = [e.get("uri") for e in extensions_of(card) if e.get("uri") in EXTENSIONS and e.get("required")]
    if required:
        fail(f"declared as required: {required}; the page says none is")


def _declared_identifiers(card: dict[str, Any]) -> list[str]:
    """Every extension URI and every URI-shaped protocol binding the card declares."""
    bindings = [i.get("protocolBinding") for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)]
    return declared_uris(card) + [b for b in bindings if isinstance(b, str) and "://" in b]


def _agentd_cards(agent_targets: AgentTargets, config: str, recorder: Recorder) -> list[dict[str, Any]]:
    """:func:`_cards`, blocked by AGENTD_DECL_001 when none of them declares an agentd identifier (a
    statement about the identifiers agentd declares has nothing to judge)."""
    cards = _cards(agent_targets, config, recorder)
    if not any(agentd_identifiers(c) for c in cards):
        require_agentd(cards[0])
    return cards


def _fold(uri: str) -> str:
    return uri.lower().rstrip("/")


def _cards(agent_targets: AgentTargets, config: str, recorder: Recorder) -> list[dict[str, Any]]:
    """The card of the instance in ``config``; with the launched reference and the feed on, also the
    card of a unix listener (where the binding URI is declared). A running target: its own card."""
    cards = [public_card(_instance(agent_targets, config), recorder)]
    if agent_targets.launchable and config == "events-on":
        cards.append(public_card(agent_targets.agentd(**CONFIGS["unix"]), recorder))
    return cards


@pytest.mark.requirement("AGENTD_DECL_008")
@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_declared_uris_are_byte_exact(agent_targets: AgentTargets, config: str, recorder: Recorder) -> None:
    """Every agentd identifier a card declares (extensions, and the unix binding on a socket's card)
    is byte for byte one the page lists: no case change, no trailing slash, no suffix. Catches
    uri-trailing-slash-declared (and versioned-uri)."""
    problems: list[str] = []
    for uri in (u for card in _agentd_cards(agent_targets, config, recorder) for u in _declared_identifiers(card)):
        if uri in PAGE_URIS:
            continue
        near = [p for p in PAGE_URIS if _fold(uri) == _fold(p) or _fold(uri).startswith(_fold(p) + "/")]
        if near:
            problems.append(f"{uri!r} is declared where the page lists {near[0]!r}")
        elif urlsplit(uri).hostname in ("agentd.dev", "www.agentd.dev"):
            problems.append(f"{uri!r} is not an identifier the page lists")
    if problems:
        fail("; ".join(problems))


@pytest.mark.requirement("AGENTD_DECL_009")
@pytest.mark.depends_on(CARD_ROW)
@pytest.mark.parametrize("config", FEED_CONFIGS)
def test_no_declared_uri_is_versioned(agent_targets: AgentTargets, config: str, recorder: Recorder) -> None:
    """No declared extension URI or binding carries a version (a /v1 segment, a -v2 or @1 suffix, a
    version query). Catches versioned-uri."""
    versioned = []
    for uri in (u for card in _agentd_cards(agent_targets, config, recorder) for u in _declared_identifiers(card)):
        parts = urlsplit(uri)
        segments = [s for s in parts.path.split("/") if s]
        if any(_VERSIONED.search(s) for s in segments) or re.search(r"(^|&)v(ersion)?=", parts.query):
            versioned.append(uri)
    if versioned:
        fail(f"versioned identifiers declared: {versioned}")


# ---- the core protocol with no extension ----------------------------------------------------------
#: The core row whose own text demands each method DECL_005 walks through (what blocks it when the
#: method fails whether or not extensions are activated: a core bug, not one about extensions).
CORE_ROWS: Final = {"SendMessage": "A2A_SEND_001", "GetTask": "A2A_TASK_001", "ListTasks": "A2A_LIST_001",
                    "SubscribeToTask": "A2A_SUB_002", "CancelTask": "A2A_CANCEL_002",
                    "SendStreamingMessage": "A2A_STREAM_001", "CreateTaskPushNotificationConfig": "A2A_PUSH_001",
                    "GetTaskPushNotificationConfig": "A2A_PUSH_002", "ListTaskPushNotificationConfigs": "A2A_PUSH_003",
                    "DeleteTaskPushNotificationConfig": "A2A_PUSH_004"}
#: One attempt at a method: given the request's extra headers, (whether it worked, what came back).
Attempt = Callable[[dict[str, str]], tuple[bool, Any]]


def _refused_as(reply: Any, codes: tuple[int, ...]) -> bool:
    body = reply.payloads[0] if getattr(reply, "payloads", None) else reply.json
    err = body.get("error") if isinstance(body, dict) else None
    return isinstance(err, dict) and err.get("code") in codes


def _result(reply: RpcReply, what: str) -> Any:
    if reply.error is not None and reply.error.code == -32601:
        # A method not routed is the route table's (AGENTD_DECL_013's) fail: there is no answer to read.
        blocked_by(LISTENER_ROW, f"{what} was answered -32601 (not routed): {quote(reply.json or reply.body)}")
    if reply.error is not None or reply.status != 200 or "result" not in (reply.envelope or {}):
        fail(f"{what}: HTTP {reply.status}, answer {quote(reply.json or reply.body)}")
    return reply.result


def _without_extensions(method: str, declared: list[str], attempt: Attempt) -> Any:
    """What ``method`` answers a client naming no extension. When it does not work, it is tried again
    with every declared extension activated: working then, the core needs an extension (this row's
    fail); failing then too, the fault is the core method's own, not about extensions (blocked by the
    core row that demands it)."""
    ok, seen = attempt({})
    if ok:
        return seen
    if declared:
        ok_with, _ = attempt(ext(*declared))
        if ok_with:
            fail(f"{method} with no A2A-Extensions header: {quote(seen)} (with {', '.join(declared)} activated "
                 "it works)")
    blocked_by(CORE_ROWS[method], f"{method} fails whether or not extensions are activated, so the fault is not "
                                  f"about extensions: {quote(seen, 300)}")


def _unary(client: JsonRpcClient, method: str, params: dict[str, Any],
           accept: Callable[[RpcReply], bool] | None = None) -> Attempt:
    def attempt(headers: dict[str, str]) -> tuple[bool, Any]:
        reply = client.call(method, params, headers=headers)
        worked = reply.error is None and reply.status == 200 and "result" in (reply.envelope or {})
        if worked or (accept is not None and accept(reply)):
            return True, reply.result
        return False, f"HTTP {reply.status}, answer {quote(reply.json or reply.body)}"
    return attempt


def _streamed(client: JsonRpcClient, method: str, params: dict[str, Any], accept: Callable[[Any], bool]) -> Attempt:
    def attempt(headers: dict[str, str]) -> tuple[bool, Any]:
        reply = client.stream(method, params, headers=headers, deadline=5.0, until=lambda _e: True)
        first = reply.payloads[0] if reply.payloads else reply.json
        if (isinstance(first, dict) and "result" in first) or accept(reply):
            return True, first
        return False, first
    return attempt


@pytest.mark.requirement("AGENTD_DECL_005")
@pytest.mark.depends_on(*BASE_ROWS, *sorted(set(CORE_ROWS.values())))
def test_core_protocol_works_without_extensions(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """A client that names no extension converses, reads, lists, subscribes to and cancels its task
    and, where the card offers push, registers, lists and deletes a webhook. A method that fails just
    the same with every declared extension activated is a core fault, blocked by its core row (the
    row is about what extensions change). Catches core-needs-extension."""
    inst = instance_for(agent_targets, events=True)
    card = public_card(inst, recorder)
    declared = declared_uris(card)
    with rpc_client(inst, recorder=recorder) as client:
        sent = _without_extensions("SendMessage", declared,
                                   _unary(client, "SendMessage", send_params(text_message("hold"))))
        task = sent.get("task") if isinstance(sent, dict) else None
        if not isinstance(task, dict):
            not_measured(f"a plain message was answered without a task, so there is nothing to read: {quote(sent)}")
        tid, ctx = task["id"], task.get("contextId")
        got = _without_extensions("GetTask", declared, _unary(client, "GetTask", {"id": tid}))
        if not isinstance(got, dict) or got.get("id") != tid:
            fail(f"GetTask {tid!r} answered another task: {quote(got)}")
        listed = _without_extensions("ListTasks", declared,
                                     _unary(client, "ListTasks", {"contextId": ctx, "pageSize": 100}))
        if tid not in [t.get("id") for t in (listed or {}).get("tasks") or [] if isinstance(t, dict)]:
            fail(f"ListTasks of context {ctx!r} does not list task {tid!r}: {quote(listed)}")
        terminal = str((got.get("status") or {}).get("state")) in (
            "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED")
        _without_extensions("SubscribeToTask", declared, _streamed(
            client, "SubscribeToTask", {"id": tid}, lambda r: terminal and _refused_as(r, (-32004,))))
        _without_extensions("CancelTask", declared, _unary(
            client, "CancelTask", {"id": tid}, lambda r: terminal and _refused_as(r, (-32002,))))
        _without_extensions("SendStreamingMessage", declared, _streamed(
            client, "SendStreamingMessage", send_params(text_message("no extensions")), lambda _r: False))
        if (card.get("capabilities") or {}).get("pushNotifications") is True:
            _push_round_trip(client, tid, declared)


def _push_round_trip(client: JsonRpcClient, task_id: str, declared: list[str]) -> None:
    made = _without_extensions("CreateTaskPushNotificationConfig", declared, _unary(
        client, "CreateTaskPushNotificationConfig",
        {"taskId": task_id, "url": "http://127.0.0.1:9/agentd-conformance-decl"}))
    cid = made.get("id") if isinstance(made, dict) else None
    if not isinstance(cid, str):
        fail(f"CreateTaskPushNotificationConfig returned no config id: {quote(made)}")
    for method, params in (("GetTaskPushNotificationConfig", {"taskId": task_id, "id": cid}),
                           ("ListTaskPushNotificationConfigs", {"taskId": task_id}),
                           ("DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": cid})):
        _without_extensions(method, declared, _unary(client, method, params))


def _metadata_keys(obj: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """(path, key) of every key of every ``metadata`` map under ``obj``."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "metadata" and isinstance(v, dict):
                yield from ((f"{path}.metadata", key) for key in v)
            yield from _metadata_keys(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _metadata_keys(v, f"{path}[{i}]")


@pytest.mark.requirement("AGENTD_DECL_007")
@pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS))
def test_extension_data_rides_in_data_parts_and_uri_keys(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """With every extension activated, answers stay strict A2A objects: a command's result is the data
    of a DataPart, and agentd's facts sit in metadata maps under URI keys only (about extension data:
    blocked by the declaration rows where there is none). Catches reply-extra-field."""
    inst = instance_for(agent_targets, COMMAND, ANNOTATIONS, events=True)
    everything = ext(COMMAND, ANNOTATIONS)
    problems: list[str] = []
    with rpc_client(inst, recorder=recorder) as client:
        status = _result(client.call("SendMessage", send_params(command_message("status")), headers=everything),
                         "the status command")
        strict(status, RESPONSE_TYPES["SendMessage"], "the status command's answer", path="$.result")
        reply = (status or {}).get("message") if isinstance(status, dict) else None
        parts = (reply or {}).get("parts") or []
        if reply is not None and not any(isinstance(p, dict) and isinstance(p.get("data"), dict) for p in parts):
            problems.append(f"the status command's result is not in a DataPart: {quote(parts)}")
        sent = _result(client.call("SendMessage", send_params(text_message("decl")), headers=everything), "a message")
        strict(sent, RESPONSE_TYPES["SendMessage"], "the message's answer", path="$.result")
        task = sent.get("task") if isinstance(sent, dict) else None
        answers: list[tuple[str, Any]] = [("SendMessage", sent)]
        if isinstance(task, dict):
            got = _result(client.call("GetTask", {"id": task["id"]}, headers=everything), "GetTask")
            strict(got, Task, "the GetTask answer", path="$.result")
            listed = _result(client.call("ListTasks", {"pageSize": 5}, headers=everything), "ListTasks")
            strict(listed, ListTasksResponse, "the ListTasks answer", path="$.result")
            sub = client.stream("SubscribeToTask", {"id": task["id"]}, headers=everything, deadline=5.0,
                                until=lambda _e: True)
            for i, frame in enumerate(sub.results):
                strict(frame, StreamResponse, "a SubscribeToTask frame", path=f"$.frames[{i}].result")
            answers += [("GetTask", got), ("ListTasks", listed), ("SubscribeToTask", sub.results)]
    for what, answer in answers:
        for where, key in _metadata_keys(answer):
            parsed = urlsplit(key)
            if not (parsed.scheme and (parsed.netloc or parsed.scheme == "urn")):
                problems.append(f"{what}: metadata key {key!r} at {where} is not a URI")
    if problems:
        fail("; ".join(problems))


# ---- the route table ------------------------------------------------------------------------------
@pytest.mark.requirement("AGENTD_DECL_013")
@pytest.mark.depends_on(CARD_ROW, FEED_ROW)
def test_only_core_and_declared_methods_are_routed(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """The eleven core method names of the official SDK are routed (never -32601, whatever the
    params), the declared feed method is answered when activated (in whatever form: the event stream is
    AGENTD_EVT_001's), and every other name — older
    spellings, near misses, made-up methods, the feed method where it is not declared — gets -32601.
    Which methods are declared is the card's word; a card contradicting the feed state the instance is
    known to have (AGENTD_DECL_003's fail) leaves the feed method unjudged there, and blocks when the rest
    holds. Catches extra-method."""
    problems: list[str] = []
    contradicted: list[str] = []
    instances = [instance_for(agent_targets, events=True)]
    if agent_targets.launchable:
        instances.append(agent_targets.agentd(events=False))
    for n, inst in enumerate(instances):
        card = public_card(inst, recorder)
        feed_declared = EVENTS in declared_uris(card)
        with judged_here(LISTENER_ROW):
            client = rpc_client(inst, recorder=recorder)
        with client:
            if n == 0:
                problems += _core_and_unknown_names(client)
            seen = feed_contradiction(inst, card)
            if seen is not None:
                contradicted.append(seen)
                continue
            feed = client.stream(EVENTS_METHOD, {}, headers=ext(EVENTS), deadline=5.0, until=lambda _e: True)
            # Routed and answered is this row's; answered as an event stream is AGENTD_EVT_001's.
            first = feed.payloads[0] if feed.payloads else feed.json if not feed.events else None
            answered = isinstance(first, dict) and "result" in first
            if feed_declared and not answered:
                problems.append(f"the declared, activated {EVENTS_METHOD} was not answered: "
                                f"{quote(feed.payloads or feed.json)}")
            if not feed_declared and not _refused_as(feed, (-32601,)):
                problems.append(f"{EVENTS_METHOD} where the card does not declare it answered "
                                f"{quote(feed.payloads or feed.json, 160)}, expected -32601")
    if problems:
        fail("; ".join(problems))
    if contradicted:
        blocked_by(FEED_ROW, f"{contradicted[0]}: where the feed method is routed cannot be judged against that card")


def _core_and_unknown_names(client: JsonRpcClient) -> list[str]:
    """Each core method is routed (anything but -32601, even with empty params); each name of
    UNROUTED is -32601 (every extension named, so none is left out for want of activation)."""
    problems: list[str] = []
    for method in CORE_METHODS:
        if method in STREAMING_METHODS:
            reply: Any = client.stream(method, {}, deadline=5.0, until=lambda _e: True)
        else:
            reply = client.call(method, {})
        if _refused_as(reply, (-32601,)):
            problems.append(f"core method {method} is not routed (-32601)")
    for name in UNROUTED:
        got = client.call(name, {}, headers=ext(COMMAND, EVENTS, ANNOTATIONS))
        if not _refused_as(got, (-32601,)):
            problems.append(f"method {name!r} answered {quote(got.json or got.body, 160)}, expected -32601")
    return problems


# ---- the binary's registry and bundles ------------------------------------------------------------
def _offline_prefix() -> list[str]:
    """``unshare -n`` when it works here (no network namespace but loopback), else nothing."""
    if shutil.which("unshare") is None:
        return []
    probe = CliRunner(["unshare", "-n", "true"], timeout=10).run([])
    return ["unshare", "-n"] if probe.exit_code == 0 else []


@cache
def _offline() -> tuple[str, ...]:
    return tuple(_offline_prefix())


def _run_binary(agent_targets: AgentTargets, args: list[str], evidence: Evidence) -> CliResult:
    """Run the target's binary with ``args`` (the launched reference's, or the one given with
    ``--agentd-binary``): no configuration (a fresh empty HOME, nothing in its environment but PATH and
    the import path) and, where the kernel allows, no network."""
    given = agent_targets.target.get("binary")
    if not agent_targets.launchable and not given:
        lacking("executable")
    prefix = [*_offline(), *(shlex.split(given) if given else REFERENCE_BINARY)]
    defects = [a for d in sorted(agent_targets.defects) for a in ("--defect", d)]
    runner = CliRunner(prefix, base_env={"PYTHONPATH": str(PACKAGE_DIR.parent)}, timeout=60)
    result = runner.run([*args, *defects])
    evidence.add("binary run", {**result.to_evidence(), "network": "none (unshare -n)" if _offline() else "host"})
    if result.exit_code != 0:
        fail(f"{' '.join(args)} exited {result.exit_code}; stderr {result.stderr_text[-400:]!r}")
    return result


@pytest.mark.requirement("AGENTD_DECL_011")
def test_extensions_output_lists_the_registry(agent_targets: AgentTargets, evidence: Evidence) -> None:
    """``--extensions``, with no configuration and no network, prints the registry: the three extension
    URIs and the binding, byte for byte, and no other agentd identifier; where it is JSON, each entry
    names its kind (profile, method, profile, protocol binding). Catches extensions-output-missing-events."""
    out = _run_binary(agent_targets, ["--extensions"], evidence).stdout_text
    found = re.findall(r"https?://[^\s\"',)\]}>]+", out)
    agentd = [u for u in found if urlsplit(u).hostname == "agentd.dev" and not u.endswith("/schema.json")]
    problems = [f"{u!r} missing" for u in PAGE_URIS if u not in agentd]
    problems += [f"{u!r} is not an identifier the page lists" for u in dict.fromkeys(agentd) if u not in PAGE_URIS]
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    if doc is not None:
        kinds = {COMMAND: "profile", EVENTS: "method", ANNOTATIONS: "profile", UNIX_BINDING: "protocol binding"}
        entries = [e for e in _dicts(doc) if e.get("uri") in kinds]
        for e in entries:
            if "kind" in e and e["kind"] != kinds[e["uri"]]:
                problems.append(f"{e['uri']} has kind {e['kind']!r}, the page says {kinds[e['uri']]!r}")
    if problems:
        fail(f"--extensions output: {'; '.join(problems)}; output {out[:600]!r}")


def _dicts(obj: Any) -> Iterator[dict[str, Any]]:
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _dicts(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _dicts(v)


@pytest.mark.requirement("AGENTD_DECL_012")
@pytest.mark.parametrize("name", ["command", "events", "task-annotations"])
def test_extension_schema_prints_a_valid_bundle(agent_targets: AgentTargets, name: str, evidence: Evidence) -> None:
    """``--extension-schema <last URI segment>``, with no configuration and no network, prints that
    extension's bundle: a valid JSON Schema whose ``$id`` is ``<uri>/schema.json``. Catches
    schema-output-wrong."""
    uri = next(u for u in EXTENSIONS if u.rsplit("/", 1)[1] == name)
    out = _run_binary(agent_targets, ["--extension-schema", name], evidence).stdout_text
    try:
        doc = json.loads(out)
    except ValueError as exc:
        fail(f"--extension-schema {name} printed no JSON ({exc}): {out[:300]!r}")
    if not isinstance(doc, dict):
        fail(f"--extension-schema {name} printed {type(doc).__name__}, not a schema object")
    try:
        validator_for(doc, default=Draft202012Validator).check_schema(doc)
    except SchemaError as exc:
        fail(f"--extension-schema {name} is not a valid JSON Schema: {exc.message} at {list(exc.path)}")
    if doc.get("$id") != f"{uri}/schema.json":
        fail(f"--extension-schema {name} printed the bundle with $id {doc.get('$id')!r}, expected {uri}/schema.json")


# ---- output validated against the bundles --------------------------------------------------------
@cache
def _bundle(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DEFAULT_BUNDLE_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return doc


def _schema_errors(name: str, pointer: str, instance: Any) -> list[str]:
    root = _bundle(name)
    schema = {"$ref": f"#/{pointer}", "$defs": root.get("$defs", {})} if pointer else root
    v = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in sorted(v.iter_errors(instance), key=lambda e: list(e.absolute_path))]



@pytest.mark.requirement("AGENTD_DECL_014")
@pytest.mark.depends_on(*deps(COMMAND, ANNOTATIONS), "AGENTD_ANN_001", READ_REPLY_ROW, STREAM_ROW)
def test_daemon_output_validates_against_the_bundles(agent_targets: AgentTargets, recorder: Recorder,
                                                     evidence: Evidence,
                                                     run_secrets: SecretSet) -> None:
    """Command replies (status, config, workflow.status, subagent.status), task annotations and, where
    the feed is declared, its frames (replayed from the start, annotations activated) all validate
    against the schema bundles. A task answer carrying no annotations at all leaves them unjudged: that is
    AGENTD_ANN_001's fail, and when the rest validates this check is blocked by it. Likewise a read whose
    reply holds no DataPart document (AGENTD_CMD_005's) and a feed answering no event stream
    (AGENTD_EVT_001's) leave nothing to validate there. Catches status-reply-off-schema."""
    inst = instance_for(agent_targets, COMMAND, ANNOTATIONS, events=True)
    feed = EVENTS in declared_uris(public_card(inst, recorder))
    evidence.add("bundles", {"source": str(DEFAULT_BUNDLE_DIR), "feed declared": feed})
    problems: list[str] = []
    unreached: list[Blocked] = []
    with rpc_client(inst, recorder=recorder) as client:
        for op in ("status", "config", "workflow.status", "subagent.status"):
            try:
                doc = read_document(client.call("SendMessage", send_params(command_message(op)),
                                                headers=ext(COMMAND)), op)
            except Blocked as exc:
                unreached.append(exc)
                continue
            problems += [f"{op} result: {e}" for e in _schema_errors("command", f"$defs/result/{op}", doc)]
        sent = client.call("SendMessage", send_params(text_message("bundles")), headers=ext(ANNOTATIONS))
        task = (sent.result or {}).get("task") if isinstance(sent.result, dict) else None
        ann = ((task or {}).get("metadata") or {}).get(ANNOTATIONS)
        unannotated = ann is None
        if not unannotated:
            problems += [f"annotations: {e}" for e in _schema_errors("task-annotations", "", ann)]
        try:
            frames = _replay(client) if feed else []
        except Blocked as exc:
            unreached.append(exc)
            frames = []
    for i, frame in enumerate(frames):
        problems += [f"feed frame {i}: {e}" for e in _schema_errors("events", "", frame)]
        data = (frame.get("event") or {}).get("data") if isinstance(frame, dict) else None
        f_ann = (((data or {}).get("task") or {}).get("metadata") or {}).get(ANNOTATIONS)
        if f_ann is not None:
            problems += [f"feed frame {i} annotations: {e}" for e in _schema_errors("task-annotations", "", f_ann)]
    if problems:
        fail("; ".join(problems[:8]) + (f"; and {len(problems) - 8} more" if len(problems) > 8 else ""))
    if unannotated:
        blocked_by("AGENTD_ANN_001", f"a task answered with task-annotations activated carries none, so no "
                                     f"annotations could be held to the bundle: {quote(sent.json, 300)}")
    if unreached:
        raise unreached[0]


def _replay(client: JsonRpcClient) -> list[Any]:
    """The feed from its start: hello, then every replayed event up to hello's newest seq."""
    newest: list[int] = []

    def replayed(ev: Any) -> bool:
        try:
            res = ev.json().get("result") or {}
        except (ValueError, AttributeError):
            return True
        if "hello" in res:
            newest.append(int(res["hello"].get("seq") or 0))
            return newest[0] <= 0
        return "goodbye" in res or int((res.get("event") or {}).get("seq") or 0) >= (newest[0] if newest else 0)

    reply = client.stream(EVENTS_METHOD, {"fromSeq": 0}, headers=ext(EVENTS, ANNOTATIONS), deadline=10.0,
                          until=replayed)
    unstreamed(reply)
    if not reply.results:
        fail(f"the feed answered no frames: {quote(reply.json or reply.undispatched)}")
    return reply.results
