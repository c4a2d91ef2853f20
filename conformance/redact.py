"""Redaction: no known secret, and no piece of one, in any text a run writes.

A run has one :class:`SecretSet`: tokens, API keys, passwords and private keys that the harness made or
was given. :meth:`SecretSet.redact` replaces every run of :data:`WINDOW` (6) or more consecutive characters
of a secret, in every spelling the harness can predict: as is; JSON-escaped (ASCII or not), Python
``repr`` (of the text and of its UTF-8 bytes), XML/HTML-escaped, each of those escaped once more (JSON
inside JSON, a repr of a JSON string); URL-encoded (``quote`` with and without ``/`` kept,
``quote_plus``; upper- or lower-case hex); and base64 (standard and URL-safe, at any alignment inside a
longer base64 text). Pieces matter because renderers cut long values — pytest shortens a repr to its
first and last characters around ``...`` — and a cut through a token must not leave most of it behind.
A secret shorter than 6 characters is matched whole.

How: every 6-character window of every spelling goes into one set; every place in the text where a
window stands is found (see :class:`_Matcher` for how this stays fast on large texts), and the union of
those places — whole runs, not just 6 characters — is replaced, each run by one :data:`MARK`.

:func:`redact_tree` is the final sweep of a report folder: every file, also one that is not valid UTF-8
(its other bytes are kept as they are).
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import secrets as _random
import struct
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

MARK = "[REDACTED]"
MIN_SECRET_LEN = 4
#: Any run of this many consecutive characters of a secret (in any predictable spelling) is redacted.
WINDOW = 6
#: At most this many characters of a label stand before the random part of a secret made by :meth:`SecretSet.make`
#: (then a ``-``), so every 6-character window of the secret holds some of its random characters.
LABEL_LEN = 4
_BLOCK = 4096
assert struct.calcsize("I") == 4, "the 4-gram scan reads the text as 32-bit integers"


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


def _escapes(text: str) -> set[str]:
    """``text`` as escapers write it inside a quoted string (for repr: in either quote style)."""
    raw = text.encode("utf-8")
    # A repr quotes with " when the whole string holds ' but no ", else with ' (escaping any '): both spellings.
    both = text + "'\""
    return {json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1],
            repr(text)[1:-1], repr(both)[1:-4], ascii(text)[1:-1], ascii(both)[1:-4],
            repr(raw)[2:-1], repr(raw + b"'\"")[2:-4], html.escape(text), html.escape(text, quote=False)}


def _url_forms(text: str) -> set[str]:
    forms = {quote(text), quote(text, safe=""), quote_plus(text, safe="")}
    return forms | {re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), f) for f in forms}


def spellings(secret: str) -> set[str]:
    """Every spelling of ``secret`` the harness can predict (see the module's docstring)."""
    once = _escapes(secret)
    twice = set().union(*(_escapes(f) for f in once))
    return {secret} | once | twice | _url_forms(secret) | _b64_forms(secret.encode("utf-8"))


def _pack(text: str) -> bytes:
    """One byte per character (those beyond Latin-1 become ``?``): text and grams fold the same way."""
    return text.encode("latin-1", errors="replace")


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans joined, in order."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


class _Matcher:
    """The compiled form of a set of spellings: finds every span of a text that is a piece of one.

    Any run of 6 characters holds a whole 4-character block that starts at an even position. So the text,
    folded to one byte per character, is read twice as 32-bit integers (its 4-grams at positions 0 and 2
    mod 4, at C speed), and only where one of them is a 4-gram of a secret are the three 6-character
    windows around it looked up.
    """

    def __init__(self, forms: Iterable[str]) -> None:
        windows: set[str] = set()
        short: set[str] = set()
        for f in forms:
            if len(f) >= WINDOW:
                windows.update(f[i:i + WINDOW] for i in range(len(f) - WINDOW + 1))
            else:
                short.add(f)
        self.windows = frozenset(windows)
        self.grams = frozenset(int.from_bytes(_pack(w[i:i + 4]), sys.byteorder)
                               for w in windows for i in range(WINDOW - 3))
        longest_first = sorted(short, key=lambda f: (-len(f), f))
        self.short = re.compile("|".join(map(re.escape, longest_first))) if short else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Maximal non-overlapping spans made of secret windows (and whole short secrets), in order."""
        n, windows = len(text), self.windows
        found: list[tuple[int, int]] = []
        if windows and n >= WINDOW:
            mine = self.grams
            packed = _pack(text)
            step = _BLOCK // 4
            for shift in (0, 2):
                rest = n - shift
                grams = memoryview(packed)[shift: shift + rest - rest % 4].cast("I")
                for b in range(0, len(grams), step):
                    block = grams[b:b + step]
                    if mine.isdisjoint(block):
                        continue
                    for k, gram in enumerate(block, b):
                        if gram in mine:
                            # The windows that hold the 4-gram at p start at p-(WINDOW-4) .. p.
                            p = 4 * k + shift
                            found += [(i, i + WINDOW)
                                      for i in range(max(0, p - (WINDOW - 4)), min(p + 1, n - WINDOW + 1))
                                      if text[i:i + WINDOW] in windows]
        if self.short is not None:
            found += [m.span() for m in self.short.finditer(text)]
        return _merge(found)

    def sub(self, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        out: list[str] = []
        last = 0
        for s, e in spans:
            out += (text[last:s], MARK)
            last = e
        out.append(text[last:])
        return "".join(out)


class SecretSet:
    """The secrets of one run. Thread-safe; :meth:`redact` is cheap enough to call per write."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._forms: set[str] = set()
        self._matcher: _Matcher | None = None
        for s in secrets:
            self.add(s)

    def __len__(self) -> int:
        return len(self._secrets)

    def __contains__(self, item: object) -> bool:
        return item in self._secrets

    def __repr__(self) -> str:
        return f"SecretSet(<{len(self._secrets)} secret(s)>)"

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def add(self, secret: str) -> None:
        """Register a secret. Values shorter than 4 characters are refused (they would redact noise)."""
        if not isinstance(secret, str):
            raise TypeError("a secret must be a string")
        if len(secret) < MIN_SECRET_LEN:
            raise ValueError(f"a secret must have at least {MIN_SECRET_LEN} characters to be redacted safely")
        if secret in self._secrets:
            return
        forms = spellings(secret)
        with self._lock:
            self._secrets.add(secret)
            self._forms |= forms
            self._matcher = None

    def add_basic(self, user: str, password: str) -> None:
        """Register a ``user:password`` pair: the password and the Basic credential made of both."""
        self.add(password)
        self.add(f"{user}:{password}")

    def make(self, label: str = "secret") -> str:
        """A fresh random credential, registered. Only the label's first 4 characters stand before the
        random part, so no 6-character window of the secret is plain text that reports also hold."""
        value = f"{label[:LABEL_LEN]}-{_random.token_urlsafe(18)}"
        self.add(value)
        return value

    def redact(self, text: str) -> str:
        """``text`` with every run of 6 or more characters of a secret (and every whole secret) replaced."""
        with self._lock:
            if not self._forms:
                return text
            if self._matcher is None:
                self._matcher = _Matcher(self._forms)
            matcher = self._matcher
        # Repeat while it changes: a mark can only join neighbours into a secret that itself spells part of it.
        for _ in range(4):
            new = matcher.sub(text)
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


def redact_file(path: Path, secrets: SecretSet) -> bool:
    """Redact one file in place, whatever its encoding (bytes that are not UTF-8 are kept). True if changed."""
    data = path.read_bytes()
    text = data.decode("utf-8", errors="surrogateescape")
    new = secrets.redact(text)
    if new == text:
        return False
    path.write_bytes(new.encode("utf-8", errors="surrogateescape"))
    return True


def redact_tree(root: Path, secrets: SecretSet) -> int:
    """Redact every file under ``root`` in place (the final sweep of a report). Returns files changed.

    Symbolic links are not followed: a link could point out of the folder, at something not the run's."""
    if not len(secrets) or not root.is_dir():
        return 0
    changed = 0
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            changed += redact_file(path, secrets)
        except OSError:
            continue
    return changed
