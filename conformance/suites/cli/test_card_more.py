"""Tier 2/3 card checks (SPEC.md §10.1): `card get --validate` (CARD_GET_002), signature verification
(CARD_GET_004) and catalog entries as `--agent-card` references (CARD_GET_005).

Invalid cards are written to local files, each breaking the A2A AgentCard schema in one way; signed
cards, their JWKS and the catalog are served by the scripted agent, which records every fetch, so a
verdict rests on what the tool fetched and on what it printed.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import ApiKey, CardSpec, Interface, Script, TaskFlow
from conformance.fixtures.scripted_agent.card import card_to_dict
from conformance.judge import blocked_by, shown, unique, violations
from conformance.suites.cli.conftest import first_spoken

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

# ── A2ACLI_CARD_GET_002 ───────────────────────────────────────────────────────────────────

#: Where the loopback card points (nothing listens there: `card get` only reads the card).
_NOWHERE = {"JSONRPC": "http://127.0.0.1:9/a2a/jsonrpc", "HTTP+JSON": "http://127.0.0.1:9/a2a/rest"}


def _base_card(name: str) -> dict[str, Any]:
    spec = CardSpec(name=name, security=(ApiKey("unused-key-value", scheme_name="apiKey"),))
    return card_to_dict(spec.build(_NOWHERE, "http://127.0.0.1:9"))


def _drop_name(c: dict[str, Any]) -> None:
    del c["name"]


def _drop_api_key_location(c: dict[str, Any]) -> None:
    del c["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["location"]


def _streaming_string(c: dict[str, Any]) -> None:
    c["capabilities"]["streaming"] = "yes"


#: One schema break per variant: (id, the field it breaks, how). Each breaks the normative schema, the
#: AgentCard of `a2a.proto` (A2A §1.4: the proto is the single normative definition): a REQUIRED field
#: missing at the top and inside a nested message, and a wrong JSON type.
_INVALID: tuple[tuple[str, str, Callable[[dict[str, Any]], None]], ...] = (
    ("missing-required-name", "name", _drop_name),
    ("missing-required-apikey-location", "location", _drop_api_key_location),
    ("wrong-type-streaming", "streaming", _streaming_string),
)
_SAYS_INVALID = re.compile(r"invalid|not valid|schema|validat|required|expected|must be|not one of", re.I)


def _card_file(tmp: pytest.TempPathFactory, card: dict[str, Any]) -> str:
    """Write ``card`` to a file of its own whose path names neither a field nor validation (not the
    check's name either), so that a tool echoing the path in an error never reads as judging the card."""
    path = tmp.mktemp("card") / "card.json"
    path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    return str(path.resolve())


def _said_without(r: CliResult, path: str) -> str:
    """What the run printed, with the card file's path (and its file:// form) taken out."""
    said = r.stdout_text + r.stderr_text
    return said.replace(Path(path).as_uri(), "").replace(path, "")


def _reads_card_files(cli: Cli, tmp: pytest.TempPathFactory) -> None:
    """Go on only if plain ``card get`` reads a valid card from a local file (A2ACLI_CARD_GET_001's
    file_path part); otherwise the check is ``not_measured``, blocked by it: ``--validate`` is asked of
    card files, and a tool that reads none cannot be judged on validating them."""
    name = unique("plain-card")
    r = cli.run("card", "get", "-a", _card_file(tmp, _base_card(name)))
    if r.exit_code != 0 or name not in r.stdout_text:
        blocked_by("A2ACLI_CARD_GET_001", f"`card get` does not read a valid card from a local file; {shown(r)}")


@pytest.mark.requirement("A2ACLI_CARD_GET_002")
def test_validate_accepts_a_valid_card(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> None:
    """`card get --validate` on a card that is a strictly valid A2A AgentCard exits 0 and presents it.
    The control for the invalid cards: catches a --validate that refuses everything."""
    name = unique("valid-card")
    card = _base_card(name)
    assert not violations(card, pb.AgentCard), "harness: the valid card must read strictly"
    r = cli.run("card", "get", "--validate", "-a", _card_file(tmp_path_factory, card))
    if r.exit_code != 0 or name not in r.stdout_text:
        _reads_card_files(cli, tmp_path_factory)
    assert r.exit_code == 0, f"expected exit 0 for --validate on a valid AgentCard; {shown(r)}"
    assert name in r.stdout_text, f"the validated card's name {name!r} is not presented; {shown(r)}"


@pytest.mark.requirement("A2ACLI_CARD_GET_002")
@pytest.mark.parametrize(("field", "breaks"), [(f, b) for _, f, b in _INVALID], ids=[i for i, _, _ in _INVALID])
def test_validate_reports_an_invalid_card(cli: Cli, tmp_path_factory: pytest.TempPathFactory, field: str,
                                          breaks: Callable[[dict[str, Any]], None]) -> None:
    """`card get --validate` on a card with one schema break — a REQUIRED field missing (`name`, and
    `apiKeySecurityScheme.location` inside a nested message), a wrong JSON type
    (`capabilities.streaming: "yes"`) — exits non-zero and says the card is invalid (or names the field).
    Catches a --validate that only parses JSON, or checks types but not required fields (defects
    `validate-accepts-anything`, `validate-no-required-fields`).

    Judged against the schema the row names, "the A2A schema": the AgentCard of `a2a.proto`, which A2A
    §1.4 makes the single normative definition of the data objects (its JSON form is a generated,
    non-normative artifact). Its types and REQUIRED fields are the MUST. A value set written only in a
    field's comment (`APIKeySecurityScheme.location`, a plain `string`: "query", "header" or "cookie")
    is prose beyond the schema: a `--validate` may check it, but a tool that accepts
    `location: "body"` is not failed for it (the official SDK's strict reader accepts it too).

    The card's path is taken out of the output before it is read for a verdict (a refusal that echoes
    the path is not a report on the card). When the tool does not report the card invalid and plain
    `card get` cannot read a card file either, the row is blocked by A2ACLI_CARD_GET_001 (file_path)."""
    card = copy.deepcopy(_base_card(unique("invalid-card")))
    breaks(card)
    assert violations(card, pb.AgentCard), f"harness: the {field} variant must break the AgentCard schema"
    path = _card_file(tmp_path_factory, card)
    r = cli.run("card", "get", "--validate", "-a", path)
    said = _said_without(r, path)
    assert r.exit_code != 0, f"expected a non-zero exit for --validate on a card whose {field} is invalid; {shown(r)}"
    if r.timed_out or not (field in said or _SAYS_INVALID.search(said)):
        _reads_card_files(cli, tmp_path_factory)
    assert not r.timed_out and (field in said or _SAYS_INVALID.search(said)), (
        f"expected the tool to report the card invalid (naming {field!r} or saying invalid); {shown(r)}")



# ── A2ACLI_CARD_GET_005 ───────────────────────────────────────────────────────────────────

def catalog_ref(catalog_url: str, entry: str) -> str:
    """The harness's form of a catalog-entry reference: ``<catalog URL>#<entry name>``. Neither A2A nor
    the a2a-cli specification defines a catalog (§10.1: "the catalog protocol itself is out of scope");
    the fragment never reaches the server, so the tool alone must read it."""
    return f"{catalog_url}#{entry}"


@pytest.mark.requirement("A2ACLI_CARD_GET_005")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006", "A2ACLI_TX_003")
def test_a_catalog_entry_resolves_to_its_card_before_any_other_request(cli: Cli, agent: AgentMaker) -> None:
    """The agent serves a catalog listing two entries whose cards differ (name, binding, tenant).
    ``card get -a <catalog>#<second entry>`` presents that entry's card, and ``send`` with the same
    reference fetches the catalog, then that entry's card, before any other request, and every A2A
    request goes to that card's interface with its tenant. Catches a tool that takes the first entry, or
    does not resolve catalog entries at all.

    Setting the tenant a card's interface declares is A2ACLI_TX_003's: requests on the entry's binding
    that carry no tenant, or one that is not the other entry's, show the entry was resolved and the
    tenant then dropped, so the row is ``not_measured``, blocked by A2ACLI_TX_003. The other entry's
    binding or tenant is this row's fail (the wrong entry was taken)."""
    first, second = unique("alpha-agent"), unique("beta-agent")
    # The entry's binding differs from the other's where the tool speaks both (Tier 1 lets it speak one).
    binding = first_spoken(cli, agent, ("HTTP+JSON", "JSONRPC"))
    entries = {
        "alpha": CardSpec(name=first, interfaces=(Interface("JSONRPC", tenant="alpha"),)),
        "beta": CardSpec(name=second, interfaces=(Interface(binding, tenant="beta"),)),
    }
    a = agent(Script(catalog=entries, send=TaskFlow.single("COMPLETED")))
    ref = catalog_ref(a.catalog_url, "beta")
    shown_card = cli.run("card", "get", "-a", ref)
    entry_card = "/catalog/beta/agent-card.json"
    if shown_card.exit_code != 0 and [q.path for q in a.requests if q.binding == "CARD"] == [entry_card]:
        # the entry was resolved and its card (alone) fetched: presenting it is CARD_GET_001's
        blocked_by("A2ACLI_CARD_GET_001", f"`card get -a {ref}` fetched the entry's card {entry_card} and no other, "
                                          f"but did not present it; {shown(shown_card)}")
    assert shown_card.exit_code == 0 and second in shown_card.stdout_text, (
        f"`card get -a {ref}` did not present the entry's card (name {second!r}); {shown(shown_card)}")
    assert first not in shown_card.stdout_text, f"`card get` presented the other entry's card; {shown(shown_card)}"
    before = len(a.requests)
    r = cli.run("send", "--text", "via the catalog", "-a", ref)
    seen = a.requests[before:]
    order = [(q.binding, q.path) for q in seen]
    card_path = "/catalog/beta/agent-card.json"
    assert order[:2] == [("CATALOG", "/catalog.json"), ("CARD", card_path)], (
        f"expected the catalog, then the entry's card {card_path}, before any other request; the agent "
        f"saw {order}; {shown(r)}")
    a2a = [q for q in seen if q.operation]
    assert r.exit_code == 0 and a2a, f"expected the send to reach the entry's agent and exit 0; {shown(r)}"
    wrong = [(q.binding, q.operation, q.tenant) for q in a2a if (q.binding, q.tenant) != (binding, "beta")]
    if wrong and all(b == binding and t != "alpha" for b, _, t in wrong):
        blocked_by("A2ACLI_TX_003", f"the send went to the entry's {binding} interface but without its declared "
                                    f"tenant 'beta': {wrong}")
    assert not wrong, (f"the entry's card offers {binding} with tenant 'beta', but requests came as {wrong}; "
                       f"{shown(r)}")


# ── A2ACLI_CARD_GET_004 ───────────────────────────────────────────────────────────────────

#: Negated forms are removed before looking for a claim of "verified".
_NEGATED = re.compile(r"\b(?:not|never|cannot be|could not be)[\s-]+(?:be[\s-]+)?verified\b|\bunverifi\w*", re.I)
_VERIFIED = re.compile(r"\bverified\b", re.I)
_UNVERIFIABLE = re.compile(r"unverifiable|unverified|not verified|could not be verified|cannot be verified"
                           r"|invalid signature|signature (?:is )?invalid|verification failed|bad signature", re.I)
_ABSENT = re.compile(r"\babsent\b|\bunsigned\b|no signatures?\b|not signed", re.I)


def _claims_verified(text: str) -> bool:
    return bool(_VERIFIED.search(_NEGATED.sub(" ", text)))


@pytest.mark.requirement("A2ACLI_CARD_GET_004")
@pytest.mark.parametrize("variant", ["valid", "tampered", "wrong-key", "unknown-kid", None],
                         ids=["valid", "tampered", "wrong-key", "unknown-kid", "absent"])
def test_card_signature_outcome_is_reported_truthfully(cli: Cli, agent: AgentMaker, variant: Any) -> None:
    """`card get` of a card signed per A2A §8.4 (JWS over the RFC 8785 form, key in the JWKS the agent
    serves, named by `kid` and `jku`) reports the outcome: a valid signature "verified", after the tool
    fetched the JWKS; a card changed after signing, one signed with another key under the published
    `kid`, or one under a `kid` the JWKS lacks: unverifiable, never "verified"; an unsigned card: absent,
    and still exit 0. Catches a tool that trusts a signature's presence or fails unsigned cards."""
    a = agent(Script(card=CardSpec(name=unique("signed-card"), signature=variant)))
    r = cli.run("card", "get", "-a", a.base_url)
    said = r.stdout_text + r.stderr_text
    jwks = [q.path for q in a.requests if q.binding == "JWKS"]
    if variant == "valid":
        assert r.exit_code == 0, f"expected exit 0 for a validly signed card; {shown(r)}"
        assert _claims_verified(said) and not _UNVERIFIABLE.search(said), (
            f"the signature is valid, but the tool does not report it verified; {shown(r)}")
        assert jwks, f"the tool reports the signature verified without fetching the agent's JWKS; {shown(r)}"
    elif variant is None:
        assert r.exit_code == 0, f"an absent signature is not a failure (A2A §8.4: signing is optional); {shown(r)}"
        assert _ABSENT.search(said) and not _claims_verified(said), (
            f"the card carries no signature: expected the tool to report it absent, not verified; {shown(r)}")
    else:
        assert not _claims_verified(said), (
            f"the card's signature ({variant}) does not verify, yet the tool calls it verified; {shown(r)}")
        assert _UNVERIFIABLE.search(said), (
            f"the card's signature ({variant}) does not verify: expected the tool to report it unverifiable; "
            f"{shown(r)}")
