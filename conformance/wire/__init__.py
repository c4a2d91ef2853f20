"""Wire drivers: the harness's own A2A clients for every binding.

Each client records every request/response pair as an :class:`~conformance.wire.exchange.Exchange`
so a check can attach exactly what went over the wire to its verdict. The clients never repair or
reinterpret what a target sends: parsing into SDK types is the job of :mod:`conformance.wire.strict`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.wire.exchange import Exchange, Recorder

#: Seconds the harness waits for one answer of the agent under test unless told otherwise
#: (``--call-timeout``): long enough for an agent that answers through a model (seconds per turn).
DEFAULT_CALL_TIMEOUT = 60.0
#: The protocol bindings the harness's checks speak, as a card's ``protocolBinding`` names them. Here, in the
#: package's light part: the command's own process counts them on a card (``targets.kinds.card_bindings``)
#: without importing the clients (tests/test_front_imports.py).
STANDARD_BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")

__all__ = ["DEFAULT_CALL_TIMEOUT", "STANDARD_BINDINGS", "Exchange", "Recorder"]


def __getattr__(name: str) -> Any:
    """``Exchange`` and ``Recorder`` are imported when first asked for: the package's HTTP client (httpx, and
    what it pulls in) costs start-up that the command's own process, which reads only
    :data:`DEFAULT_CALL_TIMEOUT` through the target model, never needs (tests/test_front_imports.py)."""
    if name in ("Exchange", "Recorder"):
        return getattr(importlib.import_module("conformance.wire.exchange"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
