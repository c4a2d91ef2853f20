"""What the core checks of authentication share: the agent whose card declares a security scheme, a
caller that carries no credential, and how a refused call reads.

A launched target that declares no scheme as served is started once more as a variant that does
(``secured``: the scripted agent declares one bearer scheme; the reference agentd is configured with
principals), so a row about refusing callers is measured on every bundled target; an agent given by
URL is judged as served.
"""

from __future__ import annotations

from typing import Any

from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Answer, Caller


def declares_security(card: dict[str, Any] | None) -> bool:
    """Whether ``card`` declares a security scheme (``securitySchemes``) or requirement."""
    card = card or {}
    schemes, reqs = card.get("securitySchemes"), card.get("securityRequirements")
    return bool(isinstance(schemes, dict) and schemes) or bool(isinstance(reqs, list) and reqs)


def requires_credential(card: dict[str, Any] | None) -> bool:
    """Whether ``card`` requires every caller to satisfy a declared scheme: it lists security requirements
    (``securityRequirements``), none of them empty (an empty one lets a caller with no credential in)."""
    reqs = (card or {}).get("securityRequirements")
    if not isinstance(reqs, list) or not reqs:
        return False
    return all(isinstance(r, dict) and isinstance(r.get("schemes"), dict) and r["schemes"] for r in reqs)


def secured_side(core_agent: CoreAgent, *, extended: bool = False, required: bool = False) -> CoreAgent | None:
    """The agent as served when its card declares a security scheme (and, with ``extended``, the extended
    card; with ``required``, security requirements every caller must meet: :func:`requires_credential`);
    else, on a launched target, the variant started so; None when neither holds."""
    def fits(agent: CoreAgent | None) -> bool:
        return (agent is not None and declares_security(agent.card)
                and (not extended or agent.declares("extended"))
                and (not required or requires_credential(agent.card)))

    if fits(core_agent):
        return core_agent
    flips = {"secured": True, **({"extended": True} if extended else {})}
    variant = core_agent.variant(**flips)
    return variant if fits(variant) else None


def condition(extended: bool = False, required: bool = False) -> str:
    """The not-applicable reason: what the card does not declare."""
    what = ("capabilities.extendedAgentCard and a security scheme (securitySchemes)" if extended
            else "security requirements every caller must meet (securityRequirements, none empty)" if required
            else "a security scheme (securitySchemes)")
    return f"the card declares no {what}, and the target cannot be started declaring it"


def anonymous(agent: CoreAgent, binding: str, recorder: Recorder) -> Caller:
    """A caller of ``agent``'s ``binding`` interface that carries no credential at all."""
    return Caller(binding, agent.interfaces[binding], token=None, recorder=recorder, timeout=agent.call_timeout)


def refusal(ans: Answer) -> str:
    """How a call that got no result was answered, in a few words (the exchange is the evidence)."""
    if ans.transport_error:
        return f"a transport failure ({ans.transport_error[:120]})"
    what = f"gRPC status {ans.status}" if ans.binding == "GRPC" else f"HTTP {ans.status}"
    if ans.error is not None:
        name = ans.error.reason or ans.error.code
        what += f", error {name}" if name is not None else ""
    return what
