"""Evidence for verdicts, and the redaction that keeps every known secret out of it.

A run has one :class:`SecretSet`: tokens, API keys, passwords and private keys that the harness
made or was given. Everything written under a report folder goes through :meth:`SecretSet.redact`,
which removes each secret in every form the harness can predict: as is, JSON-escaped, URL-encoded,
base64 (standard and URL-safe, at any alignment inside a longer base64 text), and the
``user:password`` pair in HTTP Basic form.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

MARK = "[REDACTED]"
MIN_SECRET_LEN = 4


def _b64_forms(raw: bytes) -> set[str]:
    """Substrings that appear in the base64 of any text containing ``raw``, at each alignment."""
    forms: set[str] = set()
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw + b"\0\0").decode()
        # Characters fully determined by ``raw``: skip those touching the prefix or the suffix.
        start = -(-(shift * 8) // 6)  # ceil(shift*8/6)
        end = ((shift + len(raw)) * 8) // 6
        core = enc[start:end]
        if len(core) >= MIN_SECRET_LEN:
            forms.add(core)
            forms.add(core.replace("+", "-").replace("/", "_"))
    return forms


class SecretSet:
    """The secrets of one run. Thread-safe; :meth:`redact` is cheap enough to call per write."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._forms: list[str] = []
        self._pattern: re.Pattern[str] | None = None
        for s in secrets:
            self.add(s)

    def __len__(self) -> int:
        return len(self._secrets)

    def __contains__(self, item: object) -> bool:
        return item in self._secrets

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def add(self, secret: str) -> None:
        """Register a secret. Values shorter than 4 characters are refused (they would redact noise)."""
        if not isinstance(secret, str):
            raise TypeError("a secret must be a string")
        if len(secret) < MIN_SECRET_LEN:
            raise ValueError(f"a secret must have at least {MIN_SECRET_LEN} characters to be redacted safely")
        forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                 quote(secret), quote(secret, safe=""), quote_plus(secret, safe="")}
        forms |= _b64_forms(secret.encode())
        with self._lock:
            self._secrets.add(secret)
            self._forms = sorted(set(self._forms) | forms, key=len, reverse=True)
            self._pattern = None

    def add_basic(self, user: str, password: str) -> None:
        """Register a ``user:password`` pair: the password and the Basic credential made of both."""
        self.add(password)
        self.add(f"{user}:{password}")

    def redact(self, text: str) -> str:
        with self._lock:
            if not self._forms:
                return text
            if self._pattern is None:
                self._pattern = re.compile("|".join(re.escape(f) for f in self._forms))
            pattern = self._pattern
        # Repeat: removing one form can join neighbours into another (e.g. "sec" + MARK...). Bounded.
        for _ in range(4):
            new = pattern.sub(MARK, text)
            if new == text:
                break
            text = new
        return text

    def redact_obj(self, obj: Any) -> Any:
        """Redact every string (keys too) in a JSON-like structure."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, bytes):
            return self.redact(obj.decode("utf-8", errors="replace"))
        if isinstance(obj, dict):
            return {self.redact(str(k)): self.redact_obj(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.redact_obj(v) for v in obj]
        return obj

    def dump(self, path: Path) -> None:
        """Persist the set for another process of the same run (a private file, mode 0600)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(sorted(self._secrets), fh)

    def load(self, path: Path) -> None:
        for s in json.loads(path.read_text(encoding="utf-8")):
            self.add(s)


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
        folder = Path("evidence") / slug(requirement)
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


def redact_tree(root: Path, secrets: SecretSet) -> int:
    """Redact every text file under ``root`` in place (the final sweep of a report). Returns files changed."""
    changed = 0
    if not len(secrets):
        return 0
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        new = secrets.redact(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed
