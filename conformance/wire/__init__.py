"""Wire drivers: the harness's own A2A clients for every binding.

Each client records every request/response pair as an :class:`~conformance.wire.exchange.Exchange`
so a check can attach exactly what went over the wire to its verdict. The clients never repair or
reinterpret what a target sends: parsing into SDK types is the job of :mod:`conformance.wire.strict`.
"""

from __future__ import annotations

from conformance.wire.exchange import Exchange, Recorder

#: Seconds the harness waits for one answer of the agent under test unless told otherwise
#: (``--call-timeout``): long enough for an agent that answers through a model (seconds per turn).
DEFAULT_CALL_TIMEOUT = 60.0

__all__ = ["DEFAULT_CALL_TIMEOUT", "Exchange", "Recorder"]
