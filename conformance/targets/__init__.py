"""Targets: what is under test, one model for every kind, and how the checks reach it.

* :mod:`~conformance.targets.model` — the description: :class:`AgentTarget` (an agent URL, a unix
  socket, a launched reference, a container image) and :class:`CliTarget` (a CLI executable and its
  adapter), built once from the command's flags or a targets-file entry, carried by the run context;
* :mod:`~conformance.targets.kinds` — one class per kind of agent target (launched, container, url, unix),
  which pre-flights, starts, describes and cleans up a target of it;
* :mod:`~conformance.targets.instances` — :class:`AgentTargets` hands a check an :class:`Instance` in
  the configuration it needs (launched, a container, or the running target as declared);
* :mod:`~conformance.targets.core` — :class:`CoreAgent`, the agent as the core checks see it;
  :mod:`~conformance.targets.control` — steering a launched target's tasks;
* :mod:`~conformance.targets.resolve` — :func:`resolve` turns what the user gave (an origin, a card URL,
  an agent's base URL, or a unix socket) into an :class:`AgentLocation`: the card as served and every
  interface it declares, so the card's interfaces decide every endpoint;
* :mod:`~conformance.targets.preflight` — is anything there, and does it let us in;
* containers: :mod:`~conformance.targets.engine`, :mod:`~conformance.targets.container`,
  :mod:`~conformance.targets.pool`, :mod:`~conformance.targets.lifecycle`,
  :mod:`~conformance.targets.forward`, :mod:`~conformance.targets.image` (the reference's image),
  :mod:`~conformance.targets.serve` (its entry point), :mod:`~conformance.targets.run_image`.
"""

import importlib
from typing import TYPE_CHECKING, Any

from conformance.targets.model import AgentTarget, CliTarget, TargetError

if TYPE_CHECKING:
    from conformance.targets.resolve import WELL_KNOWN_PATH, AgentLocation, Attempt, Endpoint

__all__ = ["WELL_KNOWN_PATH", "AgentLocation", "AgentTarget", "Attempt", "CliTarget", "Endpoint", "TargetError"]

#: What :mod:`~conformance.targets.resolve` lends the package, imported when first asked for: it pulls in the
#: A2A SDK and the HTTP client, which the command's own process does not need to describe a target. (Its
#: function ``resolve`` is not lent: the name is the module's, ``conformance.targets.resolve.resolve``.)
_RESOLVE = ("WELL_KNOWN_PATH", "AgentLocation", "Attempt", "Endpoint")


def __getattr__(name: str) -> Any:
    if name in _RESOLVE:
        return getattr(importlib.import_module("conformance.targets.resolve"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
