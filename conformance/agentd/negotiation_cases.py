"""The negotiation matrix: every routed method × every subset of the offered URIs, on one instance.

Each :class:`Case` is one cheap request with valid-enough params, so the method is answered, or refused
for a reason the page or the core protocol names. :func:`run_negotiation` sends them all and keeps a
:class:`Negotiation` (once per instance and process); the echo checks then judge one statement each
over the recorded cases, so a verdict on one statement never rests on another. (Not to be confused with
:mod:`conformance.matrix`, the run of many targets.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any, Final

import httpx

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.cards import declared_uris
from conformance.agentd.clients import ext, public_card, rpc_client
from conformance.agentd.commands import command_message
from conformance.agentd.echo import UNKNOWN_URI, echo_of, expected_echo
from conformance.agentd.footing import feed_contradiction, list_unread
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
)
from conformance.judge import unique
from conformance.wire import Exchange, Recorder
from conformance.wire.jsonrpc import JsonRpcClient
from conformance.wire.methods import CORE_METHODS, STREAMING_METHODS

if TYPE_CHECKING:
    from conformance.targets.instances import Instance

#: Every method the listener routes: the SDK's core table and the events extension's method.
METHODS: Final = (*CORE_METHODS, EVENTS_METHOD)
#: What a request may name: the three extensions and one URI nobody implements.
OFFERED: Final = (COMMAND, EVENTS, ANNOTATIONS, UNKNOWN_URI)
#: Every subset of OFFERED, smallest first.
SUBSETS: Final = tuple(s for n in range(len(OFFERED) + 1) for s in combinations(OFFERED, n))
STREAMED: Final = frozenset(STREAMING_METHODS) | {EVENTS_METHOD}
#: Where push configs registered by the matrix point: loopback, a port nothing answers on.
HOOK_URL: Final = "http://127.0.0.1:9/agentd-conformance-matrix"
#: Text that keeps a reference agentd task working (any other agent just converses).
HOLD_TEXT: Final = "hold"

ANSWERED, REFUSED, BROKEN = "answered", "refused", "broken"


@dataclass
class Case:
    """One request of the matrix and what came back."""

    method: str
    requested: tuple[str, ...]
    expected: list[str]
    outcome: str = BROKEN
    status: int | None = None
    code: Any = None
    reason: str | None = None
    echo: list[str] | None = None
    #: (JSON path, object) of every result the answer carried (one per frame for a stream).
    results: list[tuple[str, Any]] = field(default_factory=list)
    exchange: Exchange | None = None
    note: str = ""

    def row(self) -> dict[str, Any]:
        """A compact line of evidence."""
        return {
            "method": self.method,
            "requested": list(self.requested),
            "outcome": self.outcome,
            "http": self.status,
            "error": None if self.outcome != REFUSED else {"code": self.code, "reason": self.reason},
            "echo": self.echo,
            "expected_echo": self.expected,
            **({"note": self.note} if self.note else {}),
        }

    def label(self) -> str:
        names = [_short(u) for u in self.requested] or ["none"]
        return f"{self.method}[{'+'.join(names)}]"


@dataclass
class Negotiation:
    """Every case on one instance, with what its card declared."""

    events: bool
    launched: bool
    card: dict[str, Any]
    declared: list[str]
    cases: list[Case]
    seconds: float
    setup_requests: int
    #: How the card contradicts the feed state the instance is known to have (AGENTD_DECL_003's), or None.
    contradiction: str | None = None
    #: What shows that a comma-separated A2A-Extensions line is read only in part (AGENTD_NEG_001's), or None.
    lists: str | None = None

    def of(self, method: str) -> list[Case]:
        return [c for c in self.cases if c.method == method]

    def case(self, method: str, requested: tuple[str, ...]) -> Case:
        return next(c for c in self.cases if c.method == method and c.requested == requested)

    @property
    def rate(self) -> float:
        return len(self.cases) / self.seconds if self.seconds > 0 else float("inf")

    def timing(self) -> dict[str, Any]:
        return {"cases": len(self.cases), "setup_requests": self.setup_requests,
                "seconds": round(self.seconds, 3), "cases_per_second": round(self.rate, 1)}


def _short(uri: str) -> str:
    return {COMMAND: "command", EVENTS: "events", ANNOTATIONS: "task-annotations", UNKNOWN_URI: "unknown"}.get(
        uri, uri)


class _Runner:
    """Builds valid-enough params per method and sends every case."""

    def __init__(self, client: JsonRpcClient, card: Mapping[str, Any]) -> None:
        self.client = client
        caps = card.get("capabilities") or {}
        self.push = caps.get("pushNotifications") is True
        self.setup_requests = 0
        self.held = self._task()
        self.config_id = self._push_config(self.held) if self.push and self.held else None

    # ---- fixtures of the cases ------------------------------------------------------------------
    def _task(self) -> str | None:
        """A task to read, cancel and subscribe to (None when the agent answers with a Message)."""
        self.setup_requests += 1
        reply = self.client.call("SendMessage", send_params(text_message(HOLD_TEXT)))
        task = (reply.result or {}).get("task") if isinstance(reply.result, dict) else None
        return task.get("id") if isinstance(task, dict) and isinstance(task.get("id"), str) else None

    def _push_config(self, task_id: str) -> str | None:
        self.setup_requests += 1
        reply = self.client.call("CreateTaskPushNotificationConfig", {"taskId": task_id, "url": HOOK_URL})
        cid = reply.result.get("id") if isinstance(reply.result, dict) else None
        return cid if isinstance(cid, str) else None

    def params(self, method: str) -> dict[str, Any]:
        held = self.held or unique("no-such-task")
        if method == "SendMessage":
            return send_params(command_message("status"))
        if method == "SendStreamingMessage":
            return send_params(text_message("negotiation matrix"))
        if method in ("GetTask", "SubscribeToTask"):
            return {"id": held}
        if method == "CancelTask":
            fresh = self._task()
            return {"id": fresh or unique("no-such-task")}
        if method == "ListTasks":
            return {"pageSize": 1}
        if method == "CreateTaskPushNotificationConfig":
            return {"taskId": held, "url": HOOK_URL}
        if method == "GetTaskPushNotificationConfig":
            return {"taskId": held, "id": self.config_id or unique("no-such-config")}
        if method == "ListTaskPushNotificationConfigs":
            return {"taskId": held}
        if method == "DeleteTaskPushNotificationConfig":
            return {"taskId": held, "id": unique("no-such-config")}
        return {}  # GetExtendedAgentCard, the events method (no cursor: hello, then live)

    # ---- one case ---------------------------------------------------------------------------------
    def run(self, case: Case) -> None:
        params = self.params(case.method)
        headers = ext(*case.requested)
        try:
            if case.method in STREAMED:
                self._stream(case, params, headers)
            else:
                self._call(case, params, headers)
        except httpx.HTTPError as exc:
            case.outcome, case.note = BROKEN, f"transport error: {type(exc).__name__}: {exc}"
            case.exchange = self.client.recorder.last if self.client.recorder else None

    def _call(self, case: Case, params: dict[str, Any], headers: Mapping[str, str]) -> None:
        reply = self.client.call(case.method, params, headers=headers)
        case.status, case.exchange, case.echo = reply.status, reply.exchange, echo_of(reply.headers)
        env = reply.envelope
        if env is not None and "error" in env:
            _refused(case, env["error"])
        elif env is not None and "result" in env and reply.status == 200:
            case.outcome = ANSWERED
            case.results.append(("$.result", env["result"]))
        else:
            case.outcome, case.note = BROKEN, f"neither a result nor an error: {reply.body[:200]!r}"

    def _stream(self, case: Case, params: dict[str, Any], headers: Mapping[str, str]) -> None:
        reply = self.client.stream(case.method, params, headers=headers, deadline=5.0, until=lambda _e: True)
        case.status, case.exchange, case.echo = reply.status, reply.exchange, echo_of(reply.headers)
        first = reply.payloads[0] if reply.payloads else None
        if isinstance(first, dict) and "error" in first:
            _refused(case, first["error"])
        elif isinstance(first, dict) and "result" in first and reply.is_sse:
            case.outcome = ANSWERED
            case.results.append(("$.result", first["result"]))
        elif not reply.events and isinstance(reply.json, dict) and "error" in reply.json:
            _refused(case, reply.json["error"])
        elif (case.method == EVENTS_METHOD and not reply.events and reply.status == 200
              and isinstance(reply.json, dict) and "result" in reply.json):
            # Routed and answered, only not as an event stream: that form is AGENTD_EVT_001's, not the
            # route table's nor the echo's.
            case.outcome = ANSWERED
            case.note = "answered with one plain JSON body, not an event stream"
            case.results.append(("$.result", reply.json["result"]))
        else:
            case.outcome = BROKEN
            case.note = f"no frame and no error (HTTP {reply.status}, closed by {reply.closed_by}, {reply.error})"


def _refused(case: Case, error: Any) -> None:
    case.outcome = REFUSED
    if isinstance(error, dict):
        case.code = error.get("code")
        data = error.get("data")
        details = data if isinstance(data, list) else [data]
        for d in details:
            if isinstance(d, dict) and str(d.get("@type", "")).endswith("google.rpc.ErrorInfo"):
                case.reason = d.get("reason") if isinstance(d.get("reason"), str) else None
                break


def run_negotiation(instance: Instance, events: bool, recorder: Recorder) -> Negotiation:
    """Send every (method, subset) case to ``instance`` and keep what came back. ``events`` is the feed
    state the instance was launched with (a running target's comes from its card)."""
    card = public_card(instance, recorder)
    declared = declared_uris(card)
    client = rpc_client(instance, recorder=recorder)
    try:
        runner = _Runner(client, card)
        cases = [Case(m, s, expected_echo(s, declared, m)) for m in METHODS for s in SUBSETS]
        t0 = time.monotonic()
        for case in cases:
            runner.run(case)
        seconds = time.monotonic() - t0
    finally:
        client.close()
    return Negotiation(events, instance.launched is not None, card, declared, cases, seconds, runner.setup_requests,
                       feed_contradiction(instance, card), list_unread(instance))


class NegotiationCache:
    """One matrix per instance for the whole test process; a failure is kept and re-raised."""

    def __init__(self) -> None:
        self._done: dict[str, Negotiation | BaseException] = {}

    def get(self, instance: Instance, make: Callable[[], Negotiation]) -> Negotiation:
        key = instance.url
        if key not in self._done:
            try:
                self._done[key] = make()
            except Exception as exc:  # noqa: BLE001 - kept so every check of the matrix reports it
                self._done[key] = exc
        got = self._done[key]
        if isinstance(got, BaseException):
            raise got
        return got


def iter_pairs(cases: list[Case]) -> Iterator[tuple[Case, Case]]:
    """(case with the unknown URI, the same case without it)."""
    by_key = {(c.method, c.requested): c for c in cases}
    for c in cases:
        if UNKNOWN_URI in c.requested:
            yield c, by_key[(c.method, tuple(u for u in c.requested if u != UNKNOWN_URI))]
