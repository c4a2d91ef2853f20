"""The agent half's reading of card signatures (``conformance.a2a.card_signatures``, A2A §8.4) against the
scripted agent's signed cards: a valid signature verifies, with its key set named by ``jku`` or found at
the origin's well-known place; a card changed after signing, one signed with an unpublished key under the
published ``kid``, and one naming a ``kid`` the key set lacks do not; a header without ``kid`` is the
header row's problem, and its signature still verifies with the published key."""

from __future__ import annotations

import httpx
import pytest

from conformance.a2a.card_signatures import header_problems, key_set_url, read_key_set, signatures, verify
from conformance.fixtures.scripted_agent import CardSpec, Script, ScriptedAgent


def _judged(spec: CardSpec, defects: frozenset[str] = frozenset()) -> tuple[str | None, list[str]]:
    with ScriptedAgent(Script(card=spec, defects=defects)) as agent:
        card = httpx.get(agent.card_url, timeout=10).json()
        sigs = signatures(card)
        assert sigs is not None and len(sigs) == 1, card.get("signatures")
        keys = read_key_set(httpx.get(key_set_url(sigs[0], agent.card_url), timeout=10).json())
        return verify(sigs[0], card, keys), header_problems(sigs[0])


@pytest.mark.parametrize("jku", [True, False], ids=["jku", "well-known"])
def test_a_valid_signature_verifies_and_its_header_names_alg_and_kid(jku: bool) -> None:
    assert _judged(CardSpec(signature="valid", signature_jku=jku)) == (None, [])


@pytest.mark.parametrize(("variant", "said"), [("tampered", "does not verify"), ("wrong-key", "does not verify"),
                                               ("unknown-kid", "is not in the key set")])
def test_a_signature_that_does_not_match_the_card_or_its_key_is_refused(variant: str, said: str) -> None:
    why, header = _judged(CardSpec(signature=variant))  # type: ignore[arg-type]  # a SignatureVariant
    assert why is not None and said in why, why
    assert header == []


def test_a_header_without_kid_is_a_header_problem_only() -> None:
    why, header = _judged(CardSpec(signature="valid"), frozenset({"card-signature-no-kid"}))
    assert why is None
    assert header == ["its protected header names no kid"]


def test_an_unsigned_card_has_no_signatures() -> None:
    assert signatures({"name": "x"}) is None and signatures({"signatures": []}) is None
