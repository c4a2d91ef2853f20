"""What the core checks of authentication share: the agent whose card declares a security scheme, a
caller that carries no credential, and how a refused call reads.

A launched target that declares no scheme as served is started once more as a variant that does
(``secured``: the scripted agent declares one bearer scheme; the reference agentd is configured with
principals), so a row about refusing callers is measured on every bundled target; an agent given by
URL is judged as served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.agentd_page import ROLES
from conformance.outcome import na, not_measured
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


def secured_for(core_agent: CoreAgent, binding: str, *, extended: bool = False, required: bool = False) -> CoreAgent:
    """The agent as served with a card declaring what the check needs (:func:`secured_side`), to be judged on
    its ``binding`` interface. Ends the check na when no such agent is at hand, not_measured when that card
    offers no ``binding`` interface."""
    core_agent.readable()
    agent = secured_side(core_agent, extended=extended, required=required)
    if agent is None:
        na(condition(extended=extended, required=required))
    if binding not in agent.interfaces:
        what = "security requirements" if required else "a security scheme"
        not_measured(f"the card declaring {what} offers no {binding} interface")
    return agent


def condition(extended: bool = False, required: bool = False) -> str:
    """The not-applicable reason: what the card does not declare."""
    what = ("capabilities.extendedAgentCard and a security scheme (securitySchemes)" if extended
            else "security requirements every caller must meet (securityRequirements, none empty)" if required
            else "security scheme (securitySchemes)")
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


#: The role whose authority may reach every caller's task (A2A §13.1 leaves the authorization model to the
#: agent): never taken for the caller from whom a task must be hidden.
OPERATOR = "operator"


def two_principals(tokens: Mapping[str, str]) -> tuple[str, str] | None:
    """Two roles of ``tokens`` whose credentials name two callers the harness expects kept apart: (the one
    making a task, the one it must be hidden from). The second is never the operator's; the first is a
    non-operator role when two are held (two peers: user, agent), else the operator. Two roles holding the
    same credential are one caller. None: no such pair."""
    held = {r: t for r, t in tokens.items() if t and r in ROLES}
    peers = [r for r in ROLES if r != OPERATOR and r in held]
    pair: tuple[str, str]
    if len(peers) >= 2:
        pair = (peers[0], peers[1])
    elif peers and OPERATOR in held:
        pair = (OPERATOR, peers[0])
    else:
        return None
    return pair if held[pair[0]] != held[pair[1]] else None


def separate_callers(core_agent: CoreAgent) -> tuple[CoreAgent, str, str]:
    """The agent whose card declares a security scheme (:func:`secured_side`) and the roles of two callers
    of it (:func:`two_principals`): a task the first makes must be hidden from the second. Ends the check
    na when no such agent is at hand, not_measured when the harness holds fewer than two such credentials."""
    core_agent.readable()
    agent = secured_side(core_agent)
    if agent is None:
        na(condition() + ", so no two callers can be told apart")
    pair = two_principals(agent.tokens)
    if pair is None:
        held = ", ".join(sorted(r for r, t in agent.tokens.items() if t)) or "no role"
        not_measured(f"whether one caller's task is hidden from another needs two callers of different principals; "
                     f"the harness holds credentials for {held}: give two with --token ROLE=TOKEN (e.g. --token "
                     "user=TOKEN --token agent=TOKEN), the second not an operator (it may reach every task)")
    return agent, pair[0], pair[1]
