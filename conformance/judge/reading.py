"""Strict reading: every A2A object a target sends is held to the SDK's type (DESIGN.md §2.4).

:func:`strict` reads through the one second reader (:func:`conformance.wire.strict.read_strict`) and
fails listing every departure, with its JSON path and value.
"""

from __future__ import annotations

from typing import Any, TypeVar

from google.protobuf.message import Message

from conformance.outcome import fail
from conformance.wire.strict import Violation, read_strict

T = TypeVar("T")

#: REQUIRED fields whose empty value is itself meaningful (A2A §3.1.4: an empty page, "" on the last
#: page, a total of 0). The shared reader accepts them present and empty; a gRPC answer decoded to
#: ProtoJSON cannot show them at all (proto3 leaves a default value out), so they may also be absent.
_MAY_BE_EMPTY = {"ListTasksResponse": ("tasks", "nextPageToken", "pageSize", "totalSize")}


def _empty_allowed(v: Violation, message_type: type[Message], path: str) -> bool:
    fields = _MAY_BE_EMPTY.get(message_type.DESCRIPTOR.name, ())
    return (v.problem.startswith("required field") and v.value in (None, "", 0, [])
            and any(v.path == f"{path}.{f}" for f in fields))


def violations(obj: Any, message_type: type[Message], path: str = "$") -> list[str]:
    """Every way ``obj`` (at JSON path ``path``) departs from ``message_type``; empty when it reads strictly."""
    res = read_strict(obj, message_type, path=path)
    out = [str(v) for v in res.violations if not _empty_allowed(v, message_type, path)]
    if res.message is None and not out:
        out.append("protobuf ParseDict refused it")
    return out


def strict(obj: T, message_type: type[Message], what: str, *, path: str = "$") -> T:
    """Hold ``obj`` (found at JSON path ``path``) strictly to ``message_type``; fail quoting every
    violation. Returns ``obj``."""
    problems = violations(obj, message_type, path)
    if problems:
        fail(f"{what}: not a strictly valid {message_type.DESCRIPTOR.name}: {'; '.join(problems)}")
    return obj
