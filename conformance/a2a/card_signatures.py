"""Agent card signatures (A2A §8.4) as an outside verifier checks an agent's own card.

A signature is a JWS (RFC 7515) whose payload is detached: the card as served without its
``signatures`` member, in its RFC 8785 (JCS) form (§8.4.1). Each ``AgentCardSignature`` carries the
base64url protected header and the signature; the header MUST name ``alg`` and ``kid`` (§8.4.2), MAY
name ``jku``, where the verifier finds the key (§8.4.3). The same libraries as the CLI half's card
verification (``rfc8785``, ``joserfc``) do the canonical form and the JWS; this module only says
what to verify and why a signature does not.

The payload is tried as served, then (when that differs) re-serialised through the AgentCard type,
which drops members left at their defaults the way §8.4.1 rule 1 asks a signer to: a signature over
either form is one over the card's content.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import rfc8785

if TYPE_CHECKING:
    from joserfc.jwk import KeySet

# joserfc (and through it cryptography) is imported by the two functions that verify, not with this module:
# every run imports this module, few cards are signed, and the import is a tenth of a second (issue 20).

#: The JWS algorithms the harness verifies (asymmetric: a card's reader holds no shared secret).
ALGORITHMS = ("ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA")
#: Where a key set is looked for when a signature's header names no ``jku`` (a common place; §8.4.3
#: leaves it to "a trusted key store" otherwise).
WELL_KNOWN_JWKS = "/.well-known/jwks.json"


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class CardSignature:
    """One entry of the card's ``signatures``: its place, its protected header read (None when it cannot
    be read, with ``problem`` saying why), and the entry as served."""

    index: int
    entry: Any
    header: dict[str, Any] | None
    problem: str | None = None

    @property
    def where(self) -> str:
        return f"signatures[{self.index}]"

    @property
    def kid(self) -> str | None:
        kid = (self.header or {}).get("kid")
        return kid if isinstance(kid, str) and kid else None

    @property
    def alg(self) -> str | None:
        alg = (self.header or {}).get("alg")
        return alg if isinstance(alg, str) and alg else None


def signatures(card: dict[str, Any]) -> list[CardSignature] | None:
    """The card's signatures, each with its protected header read; None when the card carries none (no
    ``signatures`` member, or an empty list)."""
    raw = card.get("signatures")
    if raw is None or raw == []:
        return None
    if not isinstance(raw, list):
        return [CardSignature(0, raw, None, f"signatures is {type(raw).__name__}, not a list")]
    out: list[CardSignature] = []
    for i, entry in enumerate(raw):
        protected = entry.get("protected") if isinstance(entry, dict) else None
        if not isinstance(protected, str) or not protected:
            out.append(CardSignature(i, entry, None, "it has no protected header"))
            continue
        try:
            header = json.loads(b64url_decode(protected))
        except (ValueError, binascii.Error) as exc:
            out.append(CardSignature(i, entry, None, f"its protected header is not base64url JSON ({exc})"))
            continue
        if not isinstance(header, dict):
            shown = json.dumps(header)[:80]
            out.append(CardSignature(i, entry, None, f"its protected header is {shown}, not an object"))
            continue
        out.append(CardSignature(i, entry, header))
    return out


def header_problems(sig: CardSignature) -> list[str]:
    """What §8.4.2 requires of the protected header and ``sig``'s lacks: readable, ``alg`` and ``kid``."""
    if sig.header is None:
        return [sig.problem or "its protected header cannot be read"]
    out = []
    if sig.alg is None:
        out.append("its protected header names no alg")
    if sig.kid is None:
        where = " (the unprotected header names one)" if isinstance(sig.entry.get("header"), dict) \
            and sig.entry["header"].get("kid") else ""
        out.append(f"its protected header names no kid{where}")
    return out


def payloads(card: dict[str, Any]) -> list[bytes]:
    """The bytes a signature of ``card`` covers (§8.4.1): the card without ``signatures``, RFC 8785; then,
    when it differs, the same card with its default-valued members dropped (through the AgentCard type)."""
    bare = {k: v for k, v in card.items() if k != "signatures"}
    out = [rfc8785.dumps(bare)]
    try:
        from a2a.types import a2a_pb2 as pb
        from google.protobuf.json_format import MessageToDict, ParseDict

        msg = ParseDict(bare, pb.AgentCard(), ignore_unknown_fields=True)
        again = rfc8785.dumps(MessageToDict(msg, preserving_proto_field_name=False))
    except Exception:  # noqa: BLE001 - a card the type cannot read has only its served form
        return out
    if again != out[0]:
        out.append(again)
    return out


def key_set_url(sig: CardSignature, card_url: str) -> str:
    """Where the key of ``sig`` is published: its ``jku`` (against the card's URL), else the card origin's
    :data:`WELL_KNOWN_JWKS`."""
    jku = (sig.header or {}).get("jku")
    if isinstance(jku, str) and jku:
        return urljoin(card_url, jku)
    return urljoin(card_url, WELL_KNOWN_JWKS)


def read_key_set(doc: Any) -> KeySet:
    """The JWKS document ``doc`` as keys; ValueError when it is none."""
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise ValueError("not a JWK Set (no keys list)")
    from joserfc.errors import JoseError
    from joserfc.jwk import KeySet

    try:
        return KeySet.import_key_set(doc)  # type: ignore[arg-type]  # a JSON object, checked above
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"its keys cannot be read ({type(exc).__name__}: {exc})") from None


def verify(sig: CardSignature, card: dict[str, Any], keys: KeySet) -> str | None:
    """None when ``sig`` verifies over ``card`` with a key of ``keys`` (the one its ``kid`` names; every
    key when it names none: that lack is the header's row, not this one); else why not."""
    if sig.header is None:
        return sig.problem or "its protected header cannot be read"
    alg = sig.alg
    if alg is None:
        return "its protected header names no alg, so there is no algorithm to verify with"
    if alg not in ALGORITHMS:
        return f"its alg {alg!r} is not an asymmetric JWS algorithm a card's reader can verify"
    entry = sig.entry if isinstance(sig.entry, dict) else {}
    signature = entry.get("signature")
    if not isinstance(signature, str) or not signature:
        return "it carries no signature value"
    kid = sig.kid
    if kid is not None:
        key = next((k for k in keys if k.kid == kid), None)
        if key is None:
            return f"kid {kid!r} is not in the key set (it holds {sorted(str(k.kid) for k in keys)})"
        candidates = [key]
    else:
        candidates = list(keys)
    from joserfc import jws
    from joserfc.errors import JoseError

    for payload in payloads(card):
        compact = f"{entry['protected']}.{b64url_encode(payload)}.{signature}"
        for key in candidates:
            try:
                jws.deserialize_compact(compact, key, algorithms=[alg])
            except (JoseError, ValueError, TypeError):
                continue
            return None
    named = f"the key {kid!r}" if kid is not None else f"any of the {len(candidates)} published key(s)"
    return f"the signature does not verify with {named} over the card's RFC 8785 form without signatures"
