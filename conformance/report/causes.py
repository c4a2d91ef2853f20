"""Fails that quote the same cause, found so a reader sees one problem once, not once per row.

Two failing rows share a cause when their notes quote the same text: the same error body, the same
transport failure, the same malformed answer. :func:`shared_causes` finds, among the notes of the rows
that fail, the longest stretches of text several of them quote (after the check's name, the lead and
the evidence path are set aside, and identifiers that differ per call are masked), and groups each row
under the stretch that covers the most rows. ``summary.md`` lists those groups before the failing rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from difflib import SequenceMatcher

#: A quoted stretch shorter than this says too little to call two fails one cause.
MIN_QUOTE = 40
_EVIDENCE = re.compile(r";? evidence: \S+$")
_LEAD = re.compile(r"^(passes [^.]*; fails [^.]*\. )?(fails over [^.]*\. )?(harness error in )?\S+( \([^)]*\))?: ")
_MORE = re.compile(r" \(\+\d+ more [^)]*\)")
#: Per-call identifiers: uuids, runs of 8+ hex digits (task ids, unique tags), JSON-RPC request ids.
_VOLATILE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]{8,}\b"
                       r"|(?<=request id )\d+|(?<=echo the request id )\S+")


def _quoted(note: str) -> str:
    """The part of a note that quotes what was seen, with per-call identifiers masked."""
    text = _EVIDENCE.sub("", note.strip())
    text = _MORE.sub("", _LEAD.sub("", text))
    return _VOLATILE.sub("#", text)


def _common(a: str, b: str) -> str:
    """The longest stretch ``a`` and ``b`` both quote, cut to whole words."""
    m = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    start, end = m.a, m.a + m.size
    if start > 0 and a[start - 1].isalnum() or m.b > 0 and b[m.b - 1].isalnum():
        space = a.find(" ", start, end)
        start = end if space < 0 else space + 1
    if end < len(a) and a[end].isalnum() or m.b + m.size < len(b) and b[m.b + m.size].isalnum():
        space = a.rfind(" ", start, end)
        end = start if space < 0 else space
    return a[start:end].strip(" ;,:.")


def shared_causes(notes: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    """Groups of rows (id → note of a failing row) whose notes quote the same text: ``(text, [ids])``,
    the largest groups first; each row in at most one group, every group of two rows or more."""
    quoted = {rid: _quoted(n) for rid, n in notes.items() if n}
    ids = sorted(quoted)
    candidates: set[str] = set()
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            common = _common(quoted[a], quoted[b])
            if len(common) >= MIN_QUOTE and re.search(r"[A-Za-z]{3}", common):
                candidates.add(common)
    covering = {c: [rid for rid in ids if c in quoted[rid]] for c in candidates}
    out: list[tuple[str, list[str]]] = []
    taken: set[str] = set()
    for text in sorted(covering, key=lambda c: (-len(covering[c]), -len(c), c)):
        rows = [rid for rid in covering[text] if rid not in taken]
        if len(rows) >= 2:
            out.append((text, rows))
            taken.update(rows)
    return out
