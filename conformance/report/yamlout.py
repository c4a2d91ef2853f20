"""A small, stable YAML emitter for compliance reports.

The reports keep the template's look (flow-style one-line rows for summaries and tables, one block
per requirement) so a person can diff them, and remain plain YAML that any parser reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

#: Characters YAML reads as line breaks: a scalar holding one is written double-quoted, escaped on one line.
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


def _style(value: Any) -> str | None:
    """Double quotes for a string holding a line break, or starting or ending in any whitespace (a
    plain scalar would lose it: ``"\xa0"`` would read back as null)."""
    if not isinstance(value, str):
        return None
    edge = bool(value) and (value[0].isspace() or value[-1].isspace())
    return '"' if edge or any(b in value for b in _BREAKS) else None


#: The YAML of scalars already written (a report repeats most of its words: of some 600 scalars, 200 differ),
#: keyed by type and repr, which tell apart what ``==`` would not (``True``/``1``/``1.0``, ``0.0``/``-0.0``).
_WRITTEN: dict[tuple[bool, type, str], str] = {}
_PLAIN = (str, int, float, bool, type(None))


def _cached(in_flow: bool, value: Any, render: Callable[[Any], str]) -> str:
    if not isinstance(value, _PLAIN):
        return render(value)
    key = (in_flow, type(value), repr(value))
    text = _WRITTEN.get(key)
    if text is None:
        if len(_WRITTEN) >= 8192:
            _WRITTEN.clear()
        text = _WRITTEN[key] = render(value)
    return text


def scalar(value: Any) -> str:
    """One YAML scalar (block context), quoted when it needs to be; always a single line."""
    return _cached(False, value, _scalar)


def _scalar(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6, allow_unicode=True,
                          default_style=_style(value))
    text = text.strip()
    if text.endswith("\n...") or text.endswith("..."):
        text = text.rsplit("\n", 1)[0].strip() if "\n" in text else text[:-3].strip()
    return text


def _flow_scalar(value: Any) -> str:
    """One scalar as it must be written inside a flow collection (where ``,{}[]`` are indicators)."""
    if isinstance(value, dict | list):
        return scalar(value)
    return _cached(True, value, _flow_plain)


def _flow_plain(value: Any) -> str:
    text = yaml.safe_dump([value], default_flow_style=True, width=10**6, allow_unicode=True,
                          default_style=_style(value)).strip()
    return text[1:-1]


def flow(mapping: dict[str, Any]) -> str:
    """A one-line flow mapping: ``{a: 1, b: no}``."""
    return "{" + ", ".join(f"{k}: {_flow_scalar(v)}" for k, v in mapping.items()) + "}"


def block(mapping: dict[str, Any], indent: int = 0, flow_keys: frozenset[str] = frozenset()) -> list[str]:
    """Lines of a block mapping; nested mappings in ``flow_keys`` (or small rows) are flow style."""
    pad = " " * indent
    lines: list[str] = []
    for key, value in mapping.items():
        if isinstance(value, dict) and value and (key in flow_keys or _is_row(value)):
            lines.append(f"{pad}{key}: {flow(value)}")
        elif isinstance(value, dict) and value:
            lines.append(f"{pad}{key}:")
            lines.extend(block(value, indent + 2, flow_keys))
        elif isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
            lines.append(f"{pad}{key}:")
            for item in value:
                lines.append(f"{pad}  - {scalar(item) if not isinstance(item, dict) else flow(item)}")
        else:
            lines.append(f"{pad}{key}: {scalar(value)}")
    return lines


def _is_row(value: dict[str, Any]) -> bool:
    return all(not isinstance(v, dict | list) for v in value.values()) and len(value) <= 8
