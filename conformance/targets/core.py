"""The agent under test as the core checks see it: its card, the interface per binding, its control.

A :class:`CoreAgent` is built once per test process from the run's target: the harness launches it
(reference, scripted, sdk) or is given its URL. The card is found by the one resolver every check
uses (``conformance.targets``: the given URL may be the origin, the card URL or the agent's base),
and the checks are parametrized over the standard bindings its interfaces declare. Launched targets
can also be started as *variants* with a capability flipped, so that both sides of a capability
claim are measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.agentd_page import ROLES
from conformance.judge import blocked_by
from conformance.outcome import fail, na, not_measured
from conformance.targets.control import NO_CONTROL, NO_LONG_RUNNING, Control
from conformance.targets.instances import AgentTargets, Instance, Reach
from conformance.targets.origins import another_port, outside, outside_note, unconfirmed_note
from conformance.targets.resolve import AgentLocation
from conformance.wire import DEFAULT_CALL_TIMEOUT, STANDARD_BINDINGS, Recorder
from conformance.wire.caller import Answer, Caller
from conformance.wire.errors import current
from conformance.wire.versions import declared_versions, declares_0_3

#: Parameter values of ``binding`` that are not bindings: the card could not be read / declares none.
UNAVAILABLE = "card-unavailable"
NONE = "no-standard-binding"
#: Capability names on the card, by the short name a check uses.
CAPABILITIES = {"streaming": "streaming", "push": "pushNotifications", "extended": "extendedAgentCard"}
#: The row whose own text demands the card at the well-known path: every other row stands on it.
CARD_ROW = "A2A_CARD_001"
#: The row whose own text demands that each declared interface speaks its binding: every row measured
#: over an interface stands on it.
INTERFACE_ROW = "A2A_CARD_007"
#: The row whose own text demands that each interface declares its protocolVersion.
VERSION_ROW = "A2A_CARD_003"
#: What every core check stands on (the blame rule, DESIGN.md §2.8).
#: The row whose own text demands that a request carrying A2A-Version 1.0 is processed: the harness speaks
#: 1.0, so an interface refusing it blocks every other row measured over it.
VERSION_1_0_ROW = "A2A_VER_001"
BASE_ROWS = (CARD_ROW, INTERFACE_ROW, VERSION_ROW, VERSION_1_0_ROW)
#: The method and task id every interface is first asked about (an unknown task: an A2A error is due).
PROBE_METHOD, PROBE_TASK = "GetTask", "conformance-no-such-task"
#: :data:`PROBE_METHOD` as A2A 0.3 spelled it on JSON-RPC (1.0 renamed every method).
PROBE_METHOD_0_3 = "tasks/get"


def not_a2a(ans: Answer, url: str) -> str | None:
    """Why ``ans`` (to GetTask for an unknown task) is no A2A answer of its binding; None when it is
    one. The one reading of "the interface speaks its binding" (A2A_CARD_007 judges with it, and every
    other check is blocked by that row when it holds)."""
    where = f"the {ans.binding} interface at {url!r}"
    if ans.transport_error:
        return f"{where} is not reachable: {ans.transport_error}"
    if ans.binding == "GRPC":
        if ans.status in ("UNAVAILABLE", "UNIMPLEMENTED", "UNKNOWN"):
            return f"{where} does not serve the A2A service: {ans.quote()}"
    elif ans.binding == "JSONRPC":
        # A response object (result or error) is JSON-RPC; how well its envelope is formed (the id echo,
        # the version member) is A2A_DATA_003's question, not whether the interface speaks at all.
        if not (isinstance(ans.body, dict) and ("result" in ans.body or "error" in ans.body)):
            return f"{where} did not answer JSON-RPC: {'; '.join(ans.problems)}; {ans.quote()}"
        if ans.error is not None and ans.error.code == -32601:
            return f"{where} answers {PROBE_METHOD} with -32601 (method not found): no A2A service there; {ans.quote()}"
    elif not (ans.error is not None and isinstance(ans.body, dict)) and not (ans.error is None and ans.result):
        return f"{where} did not answer an A2A body for an unknown task: {ans.quote()}"
    if ans.error is None and ans.result is None:
        return f"{where} gave no A2A answer: {ans.quote()}"
    return None


@dataclass(frozen=True)
class WireVersion:
    """Which method names a JSON-RPC interface answers: :data:`PROBE_METHOD` (1.0, with A2A-Version 1.0)
    and :data:`PROBE_METHOD_0_3` (0.3, with no A2A-Version, as a 0.3 client sends it), both for an
    unknown task."""

    new: Answer
    old: Answer

    @property
    def only_1_0(self) -> bool:
        """The interface speaks 1.0 and not 0.3: the 1.0 name gets an A2A answer, the 0.3 name is not
        routed (-32601) or its version is refused (VersionNotSupportedError)."""
        old, refused = self.old.error, current().by_name["VersionNotSupportedError"]
        return (not_a2a(self.new, "") is None and old is not None
                and (old.code in (-32601, refused.jsonrpc_code) or old.reason == refused.reason))

    @property
    def only_0_3(self) -> bool:
        """The interface speaks 0.3 and not 1.0: the 0.3 name gets an A2A answer, the 1.0 name is not routed
        (-32601), its version refused, or it gets no JSON-RPC answer at all."""
        new, refused = self.new.error, current().by_name["VersionNotSupportedError"]
        old_speaks = not_a2a(self.old, "") is None  # -32601 (not routed) is no A2A answer
        new_refused = not_a2a(self.new, "") is not None or (
            new is not None and (new.code in (-32601, refused.jsonrpc_code) or new.reason == refused.reason))
        return old_speaks and new_refused

    def quote(self) -> str:
        """The two answers in a few words (the whole exchanges are the evidence)."""
        return f"{PROBE_METHOD} → {_gist(self.new)}, {PROBE_METHOD_0_3} → {_gist(self.old)}"


def _gist(ans: Answer) -> str:
    if ans.transport_error:
        return ans.transport_error[:80]
    if ans.error is not None:
        return f"error {ans.error.code if ans.error.code is not None else ans.error.reason}"
    return "a result" if ans.has_result else f"HTTP {ans.status}"


#: The note of every row of an agent that speaks only A2A 0.3 (they are ``na``): it starts so.
SPEAKS_0_3 = "speaks A2A 0.3"


def jsonrpc_interface_0_3(card: Mapping[str, Any]) -> dict[str, Any] | None:
    """Where a 0.3-speaking card says its JSON-RPC endpoint is: a JSONRPC entry of supportedInterfaces, else
    (the 0.3 shape) its ``url`` when its preferredTransport is JSON-RPC, else a JSONRPC additionalInterfaces
    entry; None when it declares none."""
    for e in card.get("supportedInterfaces") or []:
        if isinstance(e, Mapping) and e.get("protocolBinding") == "JSONRPC" and e.get("url"):
            return {"url": str(e["url"]), "protocolBinding": "JSONRPC"}
    if card.get("url") and str(card.get("preferredTransport") or "JSONRPC").upper() in ("JSONRPC", "JSON-RPC"):
        return {"url": str(card["url"]), "protocolBinding": "JSONRPC"}
    for e in card.get("additionalInterfaces") or []:
        if isinstance(e, Mapping) and str(e.get("transport") or "").upper() == "JSONRPC" and e.get("url"):
            return {"url": str(e["url"]), "protocolBinding": "JSONRPC"}
    return None


def speaks_only_0_3(card: Mapping[str, Any] | None, *, token: str | None = None,
                    timeout: float = DEFAULT_CALL_TIMEOUT, origins: tuple[str, ...] | None = None) -> str | None:
    """Why the agent whose card is ``card`` speaks only A2A 0.3 — its card declares 0.3 and its JSON-RPC
    interface answers the 0.3 method name but not the 1.0 one (:func:`wire_version`) — as the note its rows
    get (``na``: no A2A 1.0 requirement applies to it); None when it does not, or when that cannot be told
    (no JSON-RPC interface, one outside the target, nothing answering)."""
    if not isinstance(card, Mapping) or not declares_0_3(card):
        return None
    itf = jsonrpc_interface_0_3(card)
    if itf is None or (origins is not None and outside(itf["url"], origins)):
        return None
    with Caller("JSONRPC", itf, token=token, recorder=Recorder(), timeout=timeout) as probe:
        wire = wire_version(probe)
    if not wire.only_0_3:
        return None
    declared = str(card.get("protocolVersion") or "0.3")
    return (f"{SPEAKS_0_3}: its card declares protocol version {declared!r} and its JSON-RPC interface "
            f"{itf['url']} answers only the 0.3 method names ({wire.quote()}); the A2A 1.0 requirements do not "
            "apply to it — check it with an A2A 0.3 tool, or check its 1.0 release with this one")


def wire_version(caller: Caller) -> WireVersion:
    """Ask the JSON-RPC interface of ``caller`` which method names it answers (two cheap calls)."""
    new = caller.call(PROBE_METHOD, {"id": PROBE_TASK})
    old = caller.call(PROBE_METHOD_0_3, {"id": PROBE_TASK}, service={"A2A-Version": None})
    return WireVersion(new, old)


@dataclass
class CoreAgent(Reach):
    """One agent under test (or one variant of a launched one)."""

    location: AgentLocation
    tokens: dict[str, str] = field(repr=False)  # pytest prints a failing check's fixtures
    launched: Any
    targets: AgentTargets | None = None
    #: The target's long-running hint: ``{"text": ..., "metadata": {...}}``, a message the agent answers
    #: with a task that stays working until canceled (``--long-running-text``); None when not given.
    long_running: dict[str, Any] | None = None
    _variants: dict[tuple[tuple[str, bool], ...], CoreAgent | None] = field(default_factory=dict)
    _silent: dict[str, str | None] = field(default_factory=dict)
    _refuses_1_0: dict[str, str | None] = field(default_factory=dict)
    _wire: dict[str, WireVersion | None] = field(default_factory=dict)

    @classmethod
    def open(cls, instance: Instance, targets: AgentTargets | None) -> CoreAgent:
        hint = targets.target.long_running if targets is not None else None
        return cls(location=instance.location, tokens=dict(instance.tokens), launched=instance.launched,
                   targets=targets, long_running=dict(hint) if hint else None, **instance.reach())

    @classmethod
    def broken(cls, why: str) -> CoreAgent:
        return cls(location=AgentLocation("", None, None, None, why), tokens={}, launched=None)

    # ---- what the card says ------------------------------------------------------------------

    @property
    def card(self) -> dict[str, Any] | None:
        return self.location.card

    @property
    def card_error(self) -> str | None:
        return self.location.error

    @property
    def uds(self) -> str | None:
        return self.location.uds

    @property
    def interfaces(self) -> dict[str, dict[str, Any]]:
        """Per standard binding the card declares, the interface the harness talks to (the first
        declaring protocol version 1.0, else the first of that binding), in card order."""
        return {b: dict(ep.interface) for b, ep in self.location.endpoints(STANDARD_BINDINGS).items()}

    @property
    def bindings(self) -> list[str]:
        return list(self.interfaces)

    def declares(self, capability: str) -> bool:
        caps = (self.card or {}).get("capabilities")
        return isinstance(caps, dict) and caps.get(CAPABILITIES[capability]) is True

    def require(self, capability: str) -> None:
        """End the check ``na`` when the card does not declare ``capability`` (conditional rows); a card
        that could not be read says nothing either way (blocked by :data:`CARD_ROW`)."""
        self.readable()
        if not self.declares(capability):
            na(f"the card does not declare capabilities.{CAPABILITIES[capability]}")

    @property
    def token(self) -> str | None:
        for role in ROLES:
            if self.tokens.get(role):
                return self.tokens[role]
        return None

    @property
    def card_token(self) -> str | None:
        """The credential to read the card with: the user's, where the card refused a request without
        one (a deployment may put its card behind the credential); None for a public card (a credential
        is never offered up front)."""
        return self.token if self.location.with_credential else None

    def need_control(self, *, working: bool = False) -> Control:
        """The control of a launched target; on any other, the check ends not_measured saying how it
        could be measured (``working``: the check needs only a task that stays working)."""
        ctl = self.control
        if ctl is None:
            not_measured(NO_LONG_RUNNING if working else NO_CONTROL)
        return ctl

    # ---- talking to it ------------------------------------------------------------------------

    def readable(self) -> dict[str, Any]:
        """The card; blocked by :data:`CARD_ROW` when it could not be read."""
        if self.card is None:
            blocked_by(CARD_ROW, f"the agent card could not be read, so no interface is known: {self.card_error}")
        return self.card

    def outside(self, binding: str) -> str | None:
        """Why the declared ``binding`` interface is not the target's (its URL names another listener than
        the target's, :mod:`conformance.targets.origins`); None when it is. Nothing is ever sent there."""
        url = str(self.interfaces[binding].get("url") or "")
        if self.origins is None or not outside(url, self.origins):
            return None
        if self.unconfirmed(binding):
            return unconfirmed_note(binding, url)
        return outside_note(binding, url, self.origin_remedy)

    def unconfirmed(self, binding: str) -> bool:
        """Whether the ``binding`` interface, not called, is on another port of the host given (``--url``):
        the rows needing it are then not measured, the card row not failed (:func:`origins.another_port`)."""
        url = str(self.interfaces[binding].get("url") or "")
        return (self.other_ports_unconfirmed and self.origins is not None and outside(url, self.origins)
                and another_port(url, self.origins))

    def declared_version(self, binding: str) -> str:
        """The protocolVersion the card declares for the ``binding`` interface ("" when none)."""
        return str(self.interfaces[binding].get("protocolVersion") or "")

    def wire(self, binding: str) -> WireVersion | None:
        """Which method names the ``binding`` interface answers, asked once per process: only for a
        JSON-RPC interface of the target declaring a version other than 1.0 (None otherwise)."""
        if binding not in self._wire:
            self._wire[binding] = None
            version = self.declared_version(binding)
            if binding == "JSONRPC" and version and not _is_1_0(version) and self.outside(binding) is None:
                with Caller(binding, self.interfaces[binding], token=self.token, recorder=Recorder(),
                            timeout=self.call_timeout) as probe:
                    self._wire[binding] = wire_version(probe)
        return self._wire[binding]

    def speaks_1_0(self, binding: str) -> bool:
        """Whether the ``binding`` interface speaks A2A 1.0: it declares 1.0, or it declares another
        version and the wire answers only the 1.0 method names (A2A_CARD_003 fails for the card; the 1.0
        rows are judged on what the wire does)."""
        if _is_1_0(self.declared_version(binding)):
            return True
        wire = self.wire(binding)
        return wire is not None and wire.only_1_0

    def versions(self, interface: Mapping[str, Any]) -> frozenset[str]:
        """The versions (``Major.Minor``) the endpoint ``interface`` names supports: those the card declares
        for it, except where the wire answers only the 1.0 method names: then 1.0 alone."""
        declared = declared_versions(self.card, interface)
        binding = str(interface.get("protocolBinding") or "")
        if binding in self.interfaces and not _is_1_0(self.declared_version(binding)) and self.speaks_1_0(binding):
            return frozenset({"1.0"})
        return declared

    def silence(self, binding: str) -> str | None:
        """Why the declared ``binding`` interface gives no A2A answer (None when it does): one outside the
        target gives none of the target's (:meth:`outside`); else asked once per process, GetTask for an
        unknown task."""
        if binding not in self._silent and (away := self.outside(binding)) is not None:
            self._silent[binding] = away
        if binding not in self._silent:
            itf = self.interfaces[binding]
            with Caller(binding, itf, token=self.token, recorder=Recorder(), timeout=self.call_timeout) as probe:
                ans = probe.call(PROBE_METHOD, {"id": PROBE_TASK})
                self._silent[binding] = not_a2a(ans, probe.url)
                refused = current().by_name["VersionNotSupportedError"]
                err = ans.error
                self._refuses_1_0[binding] = (
                    f"the {binding} interface at {probe.url!r} refuses A2A-Version 1.0, the version the harness "
                    f"speaks: {ans.quote(300)}"
                    if err is not None and (err.reason == refused.reason or err.code == refused.jsonrpc_code) else None)
        return self._silent[binding]

    def caller(self, binding: str, recorder: Recorder, wanted: tuple[str, ...] = STANDARD_BINDINGS, *,
               probe: bool = True, timeout: float | None = None, role: str | None = None,
               measures: tuple[str, ...] = ()) -> Caller:
        """A caller for ``binding`` (a parameter value from :func:`binding_params`), carrying the credential
        of ``role`` (one of :attr:`tokens`; by default :attr:`token`, the first role held). With ``probe`` (for
        every check but A2A_CARD_007's own) its first call is blocked by :data:`INTERFACE_ROW` when the
        interface gives no A2A answer at all, so a silent interface is blamed on that row alone. ``timeout``
        bounds each call below the run's per-call timeout (for a row whose own text demands an answer at once).
        ``measures``: the rows the calling check measures (a check of :data:`VERSION_1_0_ROW` is not blocked by
        its own row when the interface refuses version 1.0)."""
        card = self.readable()
        if binding == NONE:
            declared = [e.get("protocolBinding") for e in card.get("supportedInterfaces") or []
                        if isinstance(e, dict)]
            if tuple(wanted) != STANDARD_BINDINGS:
                na(f"the card declares no {' or '.join(wanted)} interface (it declares {declared})")
            not_measured(f"the card declares none of {', '.join(STANDARD_BINDINGS)} (it declares {declared}); "
                         "the harness speaks only the standard bindings")
        itf = self.interfaces.get(binding)
        if itf is None:
            fail(f"the card no longer declares a {binding} interface")
        version = str(itf.get("protocolVersion") or "")
        if not version:
            blocked_by(VERSION_ROW, f"the card's {binding} interface declares no protocolVersion, so the version "
                                    "it speaks is unknown")
        if not self.speaks_1_0(binding):
            not_measured(f"the card's {binding} interface declares protocol version {version!r}, not 1.0; "
                         "the harness speaks A2A 1.0")
        wait = self.call_timeout if timeout is None else min(timeout, self.call_timeout)
        token = self.token if role is None else self.tokens[role]
        caller = Caller(binding, itf, token=token, recorder=recorder, timeout=wait)
        if probe:
            caller.before = lambda: self._answering(binding, measures)
        elif (away := self.outside(binding)) is not None:
            # The check measures the interface row itself: an interface outside the target is its fail.
            caller.before = (lambda: not_measured(away)) if self.unconfirmed(binding) else (lambda: fail(away))
        return caller

    def _answering(self, binding: str, measures: tuple[str, ...] = ()) -> None:
        why = self.silence(binding)
        if why is not None:
            if self.unconfirmed(binding):
                not_measured(why)
            blocked_by(INTERFACE_ROW, why)
        refused = self._refuses_1_0.get(binding)
        if refused is not None and VERSION_1_0_ROW not in measures:
            blocked_by(VERSION_1_0_ROW, refused)

    def variant(self, **card: bool) -> CoreAgent | None:
        """The same launched target started with capabilities flipped (``streaming``, ``push``,
        ``extended``, ``required_extension``, ``secured``: a declared security scheme, the variant holding
        its credential), or None when this target cannot be switched so."""
        key = tuple(sorted(card.items()))
        if key not in self._variants:
            inst = self.targets.core(**card) if self.targets is not None else None
            self._variants[key] = CoreAgent.open(inst, self.targets) if inst is not None else None
        return self._variants[key]


def _is_1_0(version: str) -> bool:
    return version.split(".")[:2] == ["1", "0"]


def binding_params(agent: CoreAgent, wanted: tuple[str, ...] = STANDARD_BINDINGS) -> list[str]:
    """The ``binding`` parameter values for a check: the declared bindings it applies to, in card
    order; a single :data:`UNAVAILABLE` / :data:`NONE` when the card is unreadable / declares none."""
    if agent.card is None:
        return [UNAVAILABLE]
    chosen = [b for b in agent.bindings if b in wanted]
    return chosen or [NONE]
