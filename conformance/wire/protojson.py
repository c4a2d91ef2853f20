"""Reading ProtoJSON the way proto3 defines it: an absent field holds its default.

A proto3 JSON printer leaves out ``false``, ``0``, ``""``, empty lists and empty maps, so an agent
built on a protobuf stack sends a card without ``capabilities.extendedAgentCard`` to say false, and
a Message without ``extensions`` to say none. A check that reads a field of an A2A object must take
absence (or ``null``, which ProtoJSON reads as the default) as that default, never as a violation;
the strict reader (``conformance.wire.strict``) already does. What is not a default is returned as
sent, so a wrong type is still seen and quoted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ABSENT = object()


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return _ABSENT
        obj = obj.get(key, _ABSENT)
        if obj is _ABSENT or obj is None:
            return _ABSENT
    return obj


def boolean(obj: Any, *path: str) -> Any:
    """The bool at ``path`` (e.g. ``"capabilities", "extendedAgentCard"``): False when absent or null,
    else the value as sent (True, False, or whatever else was sent there)."""
    value = _at(obj, path)
    return False if value is _ABSENT else value


def listed(obj: Any, *path: str) -> Any:
    """The list at ``path``: ``[]`` when absent or null, else the value as sent."""
    value = _at(obj, path)
    return [] if value is _ABSENT else value


def given(value: Any) -> bool:
    """Whether ``value`` carries anything: not absent, null, false, zero, empty string, list or map."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, (str, list, dict)):
        return len(value) > 0
    return True
