"""Redaction: a registered secret never survives into evidence, whole or in pieces, in any form the
harness can predict.

Hypothesis embeds random secrets (>= 4 characters, any non-surrogate code point, punctuation and
unicode included) in random text and encodes the whole the way a wire log would carry it: as is,
JSON-escaped (ASCII or not), URL-encoded (``quote`` with and without ``/`` kept, ``quote_plus``),
base64 standard and URL-safe at every alignment, and HTTP Basic ``user:password``. After
:meth:`SecretSet.redact` the secret's encoded form must not appear outside the redaction marks.
A secret of 6 characters or more must not leave any 6 consecutive characters of any of those forms,
even when the text is cut anywhere or shortened around ``...`` the way pytest shortens a long repr
(pytest's own ``saferepr`` is used for that). The oracle encodes the secret independently of
``conformance.redact``.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from _pytest._io.saferepr import saferepr
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.evidence import MARK, Evidence, EvidenceStore, SecretSet, redact_tree, slug
from conformance.redact import spellings

SENTINEL = "\x00"
# Every code point except surrogates and the sentinel: letters, digits, punctuation, spaces, controls, emoji.
CHARS = st.one_of(st.sampled_from("<>&\"'\\|:/+=%#@?\n\t\r \x1b"),
                  st.characters(blacklist_categories=["Cs"], blacklist_characters=SENTINEL))
SECRETS = st.text(CHARS, min_size=4, max_size=24)
LONG_SECRETS = st.text(CHARS, min_size=6, max_size=40)
TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
WINDOW = 6


def _outside_marks(text: str) -> str:
    """The text with every redaction mark replaced by a character no secret contains."""
    return text.replace(MARK, SENTINEL)


def _windows(form: str) -> set[str]:
    return {form[i:i + WINDOW] for i in range(len(form) - WINDOW + 1)}


def _survivors(form: str, text: str) -> set[str]:
    """The 6-character windows of ``form`` still standing in ``text`` outside the redaction marks."""
    out = _outside_marks(text)
    return {w for w in _windows(form) if w in out}


def _cut(text: str, where: float, how: str) -> str:
    """``text`` cut at a relative point: kept up to there, kept from there, or shortened around ``...``."""
    k = int(len(text) * where)
    return {"head": text[:k], "tail": text[k:], "dots": text[:k] + "..." + text[k + len(text) // 3:]}[how]


CUTS = st.sampled_from(["head", "tail", "dots"])
WHERE = st.floats(0, 1)


def _b64_core(encoded: str, prefix_len: int, secret_len: int) -> str:
    """The base64 characters determined by the secret's bytes alone (prefix and suffix bits excluded)."""
    start = -(-(prefix_len * 8) // 6)
    end = ((prefix_len + secret_len) * 8) // 6
    return encoded[start:end]


@given(SECRETS, TEXT, TEXT)
def test_plain_secret_never_survives(secret: str, before: str, after: str) -> None:
    out = SecretSet([secret]).redact(before + secret + after + secret)
    assert secret not in _outside_marks(out)
    assert MARK in out


@given(SECRETS, TEXT, TEXT, st.booleans())
def test_json_escaped_secret_never_survives(secret: str, before: str, after: str, ascii_only: bool) -> None:
    text = json.dumps({"headers": {"authorization": before + secret + after}}, ensure_ascii=ascii_only)
    out = _outside_marks(SecretSet([secret]).redact(text))
    assert json.dumps(secret, ensure_ascii=ascii_only)[1:-1] not in out
    assert secret not in out


@given(SECRETS, TEXT, TEXT)
def test_url_encoded_secret_never_survives(secret: str, before: str, after: str) -> None:
    s = SecretSet([secret])
    for encode in (quote, lambda t: quote(t, safe=""), quote_plus):
        out = _outside_marks(s.redact("https://127.0.0.1/cb?token=" + encode(before + secret + after)))
        assert encode(secret) not in out, encode


@given(SECRETS, st.binary(max_size=8), st.binary(max_size=8))
def test_base64_secret_never_survives_at_any_alignment(secret: str, before: bytes, after: bytes) -> None:
    raw = secret.encode()
    s = SecretSet([secret])
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        encoded = encode(before + raw + after).decode()
        core = _b64_core(encoded, len(before), len(raw))
        assert len(core) >= 4
        out = _outside_marks(s.redact(f"Authorization: Bearer {encoded}"))
        assert core not in out, (encode, len(before) % 3)


@given(st.text(CHARS.filter(lambda c: c != ":"), min_size=1, max_size=12), SECRETS)
def test_basic_credential_never_survives(user: str, password: str) -> None:
    s = SecretSet()
    s.add_basic(user, password)
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    out = _outside_marks(s.redact(json.dumps({"Authorization": f"Basic {token}", "url": f"https://{user}:{password}@h"},
                                             ensure_ascii=False)))
    assert token not in out
    assert password not in out


@given(SECRETS, TEXT)
def test_redact_obj_covers_keys_and_nested_values(secret: str, noise: str) -> None:
    s = SecretSet([secret])
    obj = {"a": [noise + secret, {"deep": (secret, 1, None, True)}], secret: "key is a secret",
           "b": secret.encode(), "n": 3.5}
    out = s.redact_obj(obj)
    for text in _strings(out):
        assert secret not in _outside_marks(text)
    assert out["n"] == 3.5 and out["a"][1]["deep"][1:] == [1, None, True]


@given(LONG_SECRETS, TEXT, TEXT, WHERE, CUTS)
def test_no_six_characters_of_a_secret_survive_a_cut(secret: str, before: str, after: str, where: float,
                                                       how: str) -> None:
    text = _cut(before + secret + after, where, how)
    assert _survivors(secret, SecretSet([secret]).redact(text)) == set()


@st.composite
def pieces(draw: st.DrawFn) -> tuple[str, str]:
    """A long secret and a piece of it of at least :data:`WINDOW` characters (drawn inside it, so no input is
    thrown away: filtering short pieces out failed Hypothesis's health check now and then)."""
    secret = draw(LONG_SECRETS)
    start = draw(st.integers(0, len(secret) - WINDOW))
    length = draw(st.integers(WINDOW, len(secret) - start))
    return secret, secret[start:start + length]


@given(pieces(), TEXT)
def test_any_piece_of_six_or_more_characters_is_redacted_whole(drawn: tuple[str, str], noise: str) -> None:
    secret, piece = drawn
    out = SecretSet([secret]).redact(f"{noise}|{piece}|{noise}")
    assert _survivors(secret, out) == set()
    assert piece not in out and MARK in out


@given(LONG_SECRETS, TEXT, TEXT, st.booleans(), WHERE, CUTS)
def test_no_piece_of_a_json_escaped_secret_survives(secret: str, before: str, after: str, ascii_only: bool,
                                                    where: float, how: str) -> None:
    text = _cut(json.dumps({"message": before + secret + after}, ensure_ascii=ascii_only), where, how)
    out = SecretSet([secret]).redact(text)
    assert _survivors(json.dumps(secret, ensure_ascii=ascii_only)[1:-1], out) == set()


@given(LONG_SECRETS, TEXT, TEXT, WHERE, CUTS)
def test_no_piece_of_a_url_encoded_secret_survives(secret: str, before: str, after: str, where: float,
                                                   how: str) -> None:
    s = SecretSet([secret])
    for encode in (quote, lambda t: quote(t, safe=""), quote_plus):
        out = s.redact(_cut("https://127.0.0.1/cb?token=" + encode(before + secret + after), where, how))
        assert _survivors(encode(secret), out) == set(), encode


@given(LONG_SECRETS, st.binary(max_size=8), st.binary(max_size=8), WHERE, CUTS)
def test_no_piece_of_a_base64_secret_survives(secret: str, before: bytes, after: bytes, where: float,
                                              how: str) -> None:
    raw = secret.encode()
    s = SecretSet([secret])
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        encoded = encode(before + raw + after).decode()
        core = _b64_core(encoded, len(before), len(raw))
        out = s.redact(_cut(f"Authorization: Basic {encoded}", where, how))
        assert _survivors(core, out) == set(), encode


@given(LONG_SECRETS, TEXT, st.integers(20, 300))
def test_no_piece_survives_pytests_shortened_repr(secret: str, path: str, maxsize: int) -> None:
    """What pytest prints for a failing check's objects: ``CliResult(argv=['/long/path', ...])`` cut to
    ``maxsize`` around ``...`` — through the secret, for some sizes."""
    obj = {"argv": [path * 3, "--token", secret, "--as", secret], "env": {"A2A_TOKEN": secret}}
    out = SecretSet([secret]).redact(saferepr(obj, maxsize=maxsize))
    assert _survivors(secret, out) == set()
    assert _survivors(repr(secret)[1:-1], out) == set()


@given(LONG_SECRETS, TEXT)
def test_text_holding_no_piece_of_a_secret_is_left_as_it_is(secret: str, text: str) -> None:
    assume(not any(_windows(f) & {text[i:i + WINDOW] for i in range(len(text))} or f in text
                   for f in spellings(secret)))
    assert SecretSet([secret]).redact(text) == text


def test_a_made_secret_does_not_redact_its_label() -> None:
    s = SecretSet()
    tok = s.make("operator")
    assert tok.startswith("oper-") and tok in s
    text = "needs a bearer token for role 'operator'; give one with --token operator=TOKEN"
    assert s.redact(text) == text
    assert s.redact(f"Bearer {tok[:14]}...") == f"Bearer {MARK}..."


def _strings(obj: object) -> list[str]:
    """Every string in a JSON-like structure, keys included."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(obj, list | tuple):
        return [t for v in obj for t in _strings(v)]
    return []


def test_redact_without_secrets_returns_text_unchanged() -> None:
    assert SecretSet().redact("nothing to hide") == "nothing to hide"


@pytest.mark.parametrize("bad", ["", "a", "abc"])
def test_short_secrets_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="at least 4"):
        SecretSet().add(bad)
    with pytest.raises(ValueError):
        SecretSet([bad])


def test_non_string_secret_is_refused() -> None:
    with pytest.raises(TypeError):
        SecretSet().add(b"bytes-secret")  # type: ignore[arg-type]


def test_basic_with_short_password_is_refused() -> None:
    with pytest.raises(ValueError):
        SecretSet().add_basic("user", "pw")


def test_secret_set_dump_is_private_and_loads_back(tmp_path: Path) -> None:
    s = SecretSet(["tok-ABCDEF", "pässwörd/+="])
    path = tmp_path / "secrets.json"
    s.dump(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    other = SecretSet()
    other.load(path)
    assert other.secrets == s.secrets and len(other) == 2 and "tok-ABCDEF" in other


class _Exchange:
    """Something with ``to_evidence()``, like a recorded wire exchange."""

    def __init__(self, token: str) -> None:
        self.token = token

    def to_evidence(self) -> dict[str, object]:
        return {"request": {"headers": {"Authorization": f"Bearer {self.token}"}}}


class _Opaque:
    def __init__(self, token: str) -> None:
        self.token = token

    def __str__(self) -> str:
        return f"<opaque {self.token}>"


PAYLOAD_WORDS = "attachments name data exchange request headers Authorization Bearer argv a2a --token opaque"


@given(SECRETS)
def test_evidence_store_writes_redacted_json(tmp_path_factory: pytest.TempPathFactory, secret: str) -> None:
    assume(secret not in PAYLOAD_WORDS)
    root = tmp_path_factory.mktemp("report")
    s = SecretSet([secret])
    ev = Evidence()
    ev.add("exchange", _Exchange(secret))
    ev.add("argv", ["a2a", "--token", secret])
    rel = EvidenceStore(root, s).write("A2ACLI_AUTH_004", "test_redacts[grpc]",
                                       {"attachments": ev.to_payload(), "opaque": _Opaque(secret), secret: 1})
    path = root / rel
    assert rel.startswith("evidence/A2ACLI_AUTH_004/") and rel.endswith(".json")
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["attachments"][0]["name"] == "exchange"
    assert secret not in _outside_marks(text)
    assert json.dumps(secret)[1:-1] not in _outside_marks(text)
    assert MARK in text


def test_evidence_store_never_overwrites_earlier_evidence(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, SecretSet())
    a = store.write("A2ACLI_SEND_001", "test_x", {"from": "suites/cli/test_a.py"})
    b = store.write("A2ACLI_SEND_001", "test_x", {"from": "suites/cli/test_b.py"})
    assert a != b
    assert json.loads((tmp_path / a).read_text())["from"] == "suites/cli/test_a.py"
    assert json.loads((tmp_path / b).read_text())["from"] == "suites/cli/test_b.py"


def test_slug_is_file_name_safe() -> None:
    assert slug("test_x[a/b c]") == "test_x_a_b_c"
    assert slug("///") == "test"
    assert len(slug("x" * 500)) == 120


def test_redact_tree_sweeps_every_text_file(tmp_path: Path) -> None:
    secret = "sk-live-0123456789"
    (tmp_path / "evidence" / "X").mkdir(parents=True)
    (tmp_path / "a.yaml").write_text(f"note: token {secret}\n", encoding="utf-8")
    (tmp_path / "evidence" / "X" / "b.json").write_text(json.dumps({"q": quote(secret, safe="")}), encoding="utf-8")
    (tmp_path / "clean.md").write_text("nothing here\n", encoding="utf-8")
    binary = b"\xff\xfe\x00binary"
    (tmp_path / "blob.bin").write_bytes(binary)
    # Mostly text, but not valid UTF-8: the secret goes, every other byte stays.
    (tmp_path / "mixed.log").write_bytes(b"\xff\xfe log " + secret[3:].encode() + b" \xc3 end")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text(secret, encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(outside)
    changed = redact_tree(tmp_path, SecretSet([secret]))
    assert changed == 3
    assert (tmp_path / "mixed.log").read_bytes() == b"\xff\xfe log " + MARK.encode() + b" \xc3 end"
    assert outside.read_text(encoding="utf-8") == secret, "a link out of the folder is not followed"
    for path in tmp_path.rglob("*.*"):
        if path.suffix not in (".bin", ".log") and not path.is_symlink():
            text = path.read_text(encoding="utf-8")
            assert secret not in text and quote(secret, safe="") not in text
    assert (tmp_path / "blob.bin").read_bytes() == binary
    assert redact_tree(tmp_path, SecretSet()) == 0
