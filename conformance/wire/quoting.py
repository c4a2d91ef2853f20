"""Quoting what came back, short enough for a failure message (the evidence keeps it whole)."""

from __future__ import annotations

import json
from typing import Any

#: How much of each CLI stream a failure message quotes.
STREAM_QUOTE = 160


def quote(value: Any, limit: int = 600) -> str:
    """``value`` as a failure message quotes it: a string as is, anything else as JSON; cut to ``limit``."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip(text: str, limit: int = STREAM_QUOTE) -> str:
    """``text`` repr'd, cut to about ``limit`` characters, saying how much was cut."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"…(+{len(text) - limit} chars)"


def shown(result: Any) -> str:
    """A CLI run as a failure message shows it, after the expected-vs-seen lead: exit status, the start
    of stdout and stderr (the full streams are in the evidence)."""
    out = getattr(result, "stdout_text", "")
    err = getattr(result, "stderr_text", "")
    hung = " (killed at the harness bound)" if getattr(result, "timed_out", False) else ""
    return f"exit {getattr(result, 'exit_code', None)}{hung}; stdout: {clip(out)}; stderr: {clip(err)}"
