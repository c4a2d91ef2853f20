"""Unique tags: values no other request of any run used (message and task ids, markers, probe texts)."""

from __future__ import annotations

import uuid


def unique(label: str) -> str:
    """``<label>-<12 hex digits>``: a fresh value a check can later find by value (in an answer, an
    output, a listing), unique across processes."""
    return f"{label}-{uuid.uuid4().hex[:12]}"
