"""The report's YAML emitter (``conformance.report.yamlout``) keeps what it wrote of each plain scalar (a report
repeats most of its words; issue 20's fixed cost): what it writes must be what the emitter writes, whatever
was written before — values equal to Python but not in YAML (``True``, ``1``, ``1.0``; ``0.0``, ``-0.0``), words
YAML reads as something else, and the same value in block and in flow context."""

from __future__ import annotations

from typing import Any

import yaml

from conformance.report import yamlout

TRICKY: list[Any] = [True, 1, 1.0, False, 0, 0.0, -0.0, None, "", " ", " x", "x ", "yes", "no", "on", "null", "~",
                     "1", "1.0", "0x10", "a: b", "- a", "[a]", "{a}", "a, b", "#x", "a\nb", "\u2028", "é", "true",
                     "2026-12-03", "12:30", float("inf"), float("nan"), 10**20, "@x", "`x", "!x", "%x", "&x", "*x"]


def _fresh(value: Any, in_flow: bool) -> str:
    return yamlout._flow_plain(value) if in_flow else yamlout._scalar(value)


def test_what_is_kept_is_what_the_emitter_writes_in_any_order() -> None:
    for order in (TRICKY, list(reversed(TRICKY))):
        yamlout._WRITTEN.clear()
        for value in order:
            assert yamlout.scalar(value) == _fresh(value, False), value
            assert yamlout._flow_scalar(value) == _fresh(value, True), value
        for value in order:  # again, from what was kept
            assert yamlout.scalar(value) == _fresh(value, False), value
            assert yamlout._flow_scalar(value) == _fresh(value, True), value


def test_equal_values_of_different_types_read_back_as_written() -> None:
    yamlout._WRITTEN.clear()
    for value in (1, True, 1.0, 0.0, -0.0, False, 0):
        text = yamlout.scalar(value)
        back = yaml.safe_load(text)
        assert back == value and type(back) is type(value), (value, text)
    assert yamlout.scalar(-0.0) != yamlout.scalar(0.0)
