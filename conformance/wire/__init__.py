"""Wire drivers: the harness's own A2A clients for every binding.

Each client records every request/response pair as an :class:`~conformance.wire.exchange.Exchange`
so a check can attach exactly what went over the wire to its verdict. The clients never repair or
reinterpret what a target sends: parsing into SDK types is the job of :mod:`conformance.wire.strict`.
"""

from __future__ import annotations

from conformance.wire.exchange import Exchange, Recorder

__all__ = ["Exchange", "Recorder"]
