"""Evidence for verdicts: what each check saw, written redacted under ``<report>/evidence/<ID>/``.

The redaction itself (:class:`SecretSet`, :func:`redact_tree`) lives in :mod:`conformance.redact`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from conformance.redact import MARK, MIN_SECRET_LEN, SecretSet, redact_tree

__all__ = ["EVIDENCE_DIR", "MARK", "MIN_SECRET_LEN", "Evidence", "EvidenceStore", "SecretSet", "redact_tree", "slug"]

#: The report folder's subfolder that holds the evidence, one folder per requirement id.
EVIDENCE_DIR = "evidence"


def slug(text: str, limit: int = 120) -> str:
    """A file-name-safe form of a test id."""
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.")
    return s[:limit] or "test"


class EvidenceStore:
    """Writes redacted evidence under ``<report>/evidence/<ID>/``."""

    def __init__(self, root: Path, secrets: SecretSet) -> None:
        self.root = root
        self.secrets = secrets

    def write(self, requirement: str, name: str, payload: Any) -> str:
        """Write one evidence document; returns its path relative to the report folder."""
        folder = Path(EVIDENCE_DIR) / slug(requirement)
        (self.root / folder).mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.secrets.redact_obj(payload), indent=2, sort_keys=False, default=str)
        data = (self.secrets.redact(text) + "\n").encode("utf-8")
        base = slug(name)
        n = 1
        while True:
            # Two checks can slug to the same name (same test name in two modules, truncated ids, two
            # xdist workers): take the first free name atomically, never overwrite earlier evidence.
            rel = folder / (f"{base}.json" if n == 1 else f"{base}-{n}.json")
            try:
                fd = os.open(self.root / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                n += 1
                continue
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            return rel.as_posix()


class Evidence:
    """What one check collects while it runs: named attachments, written when it ends."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []

    def add(self, name: str, data: Any) -> None:
        """Attach ``data`` (JSON-like, or anything with ``to_evidence()``) under ``name``."""
        to_ev = getattr(data, "to_evidence", None)
        self.items.append((name, to_ev() if callable(to_ev) else data))

    def __bool__(self) -> bool:
        return bool(self.items)

    def to_payload(self) -> list[dict[str, Any]]:
        return [{"name": n, "data": d} for n, d in self.items]
