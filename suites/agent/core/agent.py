"""The agent under test as the core checks see it: its card, the interface per binding, its control.

A :class:`CoreAgent` is built once per test process from the run's target: the harness launches it
(reference, scripted, sdk) or is given its URL. The card is found by the one resolver every check
uses (``conformance.targets``: the given URL may be the origin, the card URL or the agent's base),
and the checks are parametrized over the standard bindings its interfaces declare. Launched targets
can also be started as *variants* with a capability flipped, so that both sides of a capability
claim are measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.outcome import fail, na, not_measured
from conformance.suites.agent.core.caller import STANDARD_BINDINGS, Caller
from conformance.suites.agent.core.control import NO_CONTROL, Control, control_for
from conformance.targets import AgentLocation
from conformance.wire import Recorder

#: Parameter values of ``binding`` that are not bindings: the card could not be read / declares none.
UNAVAILABLE = "card-unavailable"
NONE = "no-standard-binding"
#: Capability names on the card, by the short name a check uses.
CAPABILITIES = {"streaming": "streaming", "push": "pushNotifications", "extended": "extendedAgentCard"}


@dataclass
class CoreAgent:
    """One agent under test (or one variant of a launched one)."""

    location: AgentLocation
    tokens: dict[str, str] = field(repr=False)  # pytest prints a failing check's fixtures
    launched: Any
    targets: Any = None
    _variants: dict[tuple[tuple[str, bool], ...], CoreAgent | None] = field(default_factory=dict)

    @classmethod
    def open(cls, instance: Any, targets: Any) -> CoreAgent:
        return cls(location=instance.location, tokens=dict(instance.tokens), launched=instance.launched,
                   targets=targets)

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
        """End the check ``na`` when the card does not declare ``capability`` (conditional rows)."""
        if not self.declares(capability):
            na(f"the card does not declare capabilities.{CAPABILITIES[capability]}")

    @property
    def token(self) -> str | None:
        for role in ("operator", "user", "agent"):
            if self.tokens.get(role):
                return self.tokens[role]
        return None

    @property
    def control(self) -> Control | None:
        return control_for(self.launched)

    def need_control(self) -> Control:
        ctl = self.control
        if ctl is None:
            not_measured(NO_CONTROL)
        return ctl

    # ---- talking to it ------------------------------------------------------------------------

    def caller(self, binding: str, recorder: Recorder, wanted: tuple[str, ...] = STANDARD_BINDINGS) -> Caller:
        """A caller for ``binding`` (a parameter value from :func:`binding_params`)."""
        if binding == UNAVAILABLE or self.card is None:
            fail(f"the agent card could not be read, so no interface is known: {self.card_error}")
        if binding == NONE:
            declared = [e.get("protocolBinding") for e in self.card.get("supportedInterfaces") or []
                        if isinstance(e, dict)]
            if tuple(wanted) != STANDARD_BINDINGS:
                na(f"the card declares no {' or '.join(wanted)} interface (it declares {declared})")
            not_measured(f"the card declares none of {', '.join(STANDARD_BINDINGS)} (it declares {declared}); "
                         "the harness speaks only the standard bindings")
        itf = self.interfaces.get(binding)
        if itf is None:
            fail(f"the card no longer declares a {binding} interface")
        version = str(itf.get("protocolVersion") or "")
        if version.split(".")[:2] != ["1", "0"]:
            not_measured(f"the card's {binding} interface declares protocol version {version!r}, not 1.0; "
                         "the harness speaks A2A 1.0")
        return Caller(binding, itf, token=self.token, recorder=recorder)

    def variant(self, **card: bool) -> CoreAgent | None:
        """The same launched target started with capabilities flipped (``streaming``, ``push``,
        ``extended``), or None when this target cannot be switched so."""
        key = tuple(sorted(card.items()))
        if key not in self._variants:
            inst = self.targets.core(**card) if self.targets is not None else None
            self._variants[key] = CoreAgent.open(inst, self.targets) if inst is not None else None
        return self._variants[key]


def binding_params(agent: CoreAgent, wanted: tuple[str, ...] = STANDARD_BINDINGS) -> list[str]:
    """The ``binding`` parameter values for a check: the declared bindings it applies to, in card
    order; a single :data:`UNAVAILABLE` / :data:`NONE` when the card is unreadable / declares none."""
    if agent.card is None:
        return [UNAVAILABLE]
    chosen = [b for b in agent.bindings if b in wanted]
    return chosen or [NONE]
