"""Targets: where the agent under test is, and how each of its interfaces is reached.

:func:`resolve` turns what the user gave (an origin, a card URL, an agent's base URL, or a unix
socket) into an :class:`AgentLocation`: the card as served and every interface it declares. Both
agent families reach the target only through it, so the card's interfaces decide every endpoint.
"""

from conformance.targets.resolve import WELL_KNOWN_PATH, AgentLocation, Attempt, Endpoint, resolve

__all__ = ["WELL_KNOWN_PATH", "AgentLocation", "Attempt", "Endpoint", "resolve"]
