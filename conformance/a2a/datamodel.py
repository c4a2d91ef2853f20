"""The rows that own the data model, and what the answers a check read say of them.

Every A2A object the caller reads is handed to the check leniently and noted in the recorder's
``reads`` (``conformance.wire.caller``). At the end of each check, :func:`findings_of` holds those
reads to the rules of the ``observed`` rows: strict typing, UTC timestamps with ``Z``, the JSON-RPC
envelope. What breaks one becomes a finding of that row (``conformance.judge.findings``), never a fail
of the check that happened to read it (DESIGN.md §2.11).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from conformance.a2a.tasks import TIMESTAMP, timestamps
from conformance.judge import Finding, violations
from conformance.wire.exchange import Exchange, Read, Recorder
from conformance.wire.methods import RESPONSE_TYPES
from conformance.wire.strict import lenient


@dataclass(frozen=True)
class Owners:
    """Which row of a family judges each rule every answer must keep (None: no row of the family does)."""

    strict: str | None
    timestamps: str | None = None
    envelope: str | None = None


#: Where a read may come from that is a binding (a per-transport result of the row); else a webhook, a socket.
BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")
#: The core family: A2A_DATA_001 (strict types), A2A_DATA_002 (timestamps), A2A_DATA_003 (envelopes).
CORE = Owners("A2A_DATA_001", "A2A_DATA_002", "A2A_DATA_003")
#: agentd's page: every answer parses strictly into the A2A 1.0 types (AGENTD_DECL_007).
AGENTD = Owners("AGENTD_DECL_007")
BY_FAMILY = {"a2a": CORE, "agentd": AGENTD}


def findings_of(reads: Iterable[Read], owners: Owners) -> list[Finding]:
    """What ``reads`` show breaking the rules ``owners`` judge; one finding per read and rule."""
    out: list[Finding] = []
    for r in reads:
        binding = r.binding if r.binding in BINDINGS else None
        where = f"{r.what} over {binding}" if binding else r.what
        if owners.strict:
            problems = violations(r.raw, r.message_type)
            if problems:
                kind = r.message_type.DESCRIPTOR.name
                out.append(Finding(owners.strict, f"{where}: not a strictly valid {kind}: {'; '.join(problems)}",
                                   binding))
        if owners.timestamps:
            bad = [f"{path} is {value!r}" for path, value in timestamps(r.raw)
                   if not (isinstance(value, str) and TIMESTAMP.match(value))]
            if bad:
                out.append(Finding(owners.timestamps, f"{where}: not UTC with Z: {'; '.join(bad[:5])}", binding))
        if owners.envelope and r.problems and r.binding == "JSONRPC":
            out.append(Finding(owners.envelope, f"{where}: {'; '.join(r.problems)}", binding))
    return out


def read_object(recorder: Recorder, what: str, raw: Any, message_type: type[Message], where: str) -> Any:
    """An A2A object that reached the harness outside a call (a webhook body): noted in ``recorder``'s
    reads for the data-model rows, and handed back leniently read."""
    recorder.reads.append(Read(where, "", what, raw, message_type))
    return lenient(raw, message_type)


def exchange_reads(exchanges: Iterable[Exchange]) -> list[Read]:
    """The A2A objects in the JSON-RPC results (and stream frames' results) of ``exchanges`` whose request
    asked in A2A 1.0, for checks that call JSON-RPC through the plain client rather than the caller
    (the agentd family's)."""
    out: list[Read] = []
    for ex in exchanges:
        rtype = RESPONSE_TYPES.get(ex.rpc_method or "")
        if ex.binding not in ("JSONRPC", "JSONRPC-UNIX") or rtype is None:
            continue
        asked = [v for k, v in ex.request_headers if k.lower() == "a2a-version"]
        if asked != ["1.0"]:
            continue
        bodies: list[Any] = [ex.response_body] if ex.frames is None else []
        for frame in ex.frames or ():
            try:
                bodies.append(frame.json())
            except ValueError:
                continue
        for i, body in enumerate(bodies):
            if isinstance(body, dict) and body.get("result") is not None:
                what = f"the {ex.rpc_method} result" if ex.frames is None else f"frame {i} of {ex.rpc_method}"
                out.append(Read("JSONRPC", ex.rpc_method or "", what, body["result"], rtype))
    return out
