"""The agent card: where it is served, its strict shape, and whether its capability claims are true.

Capability checks judge the card as served; on a launched target they also start a variant with the
capability flipped, so both the declared and the undeclared side are measured.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from a2a.types import a2a_pb2 as pb

from conformance.a2a.card_signatures import (
    CardSignature,
    header_problems,
    key_set_url,
    read_key_set,
    signatures,
    verify,
)
from conformance.a2a.security import anonymous, refusal, secured_for
from conformance.a2a.steps import card_of, held_task, new_task, well_known_card
from conformance.a2a.streams import STREAM_ROW, must_stream
from conformance.judge import blocked_by, expect_error, quote, strict, succeeded
from conformance.outcome import fail, na, not_measured
from conformance.receiver import Receiver
from conformance.targets.core import (
    CAPABILITIES,
    CARD_ROW,
    PROBE_METHOD,
    PROBE_TASK,
    CoreAgent,
    not_a2a,
    wire_version,
)
from conformance.targets.origins import outside
from conformance.wire import Recorder
from conformance.wire.caller import Caller
from conformance.wire.card import fetch_card
from conformance.wire.httpbase import HttpReply


@pytest.mark.requirement("A2A_CARD_001")
def test_card_is_a_json_object_at_the_well_known_path(core_agent: CoreAgent, recorder: Recorder) -> None:
    """GET /.well-known/agent-card.json answers 200 with a JSON object. Defect: card-wrong-path."""
    reply = well_known_card(core_agent, recorder)
    text = quote(reply.body.decode("utf-8", "replace"))
    assert reply.status == 200, f"GET {reply.exchange.url} answered HTTP {reply.status}: {text}"
    ctype = reply.content_type.split(";")[0].strip().lower()
    assert ctype == "application/json" or ctype.endswith("+json"), f"the card is served as {reply.content_type!r}"
    assert isinstance(reply.json, dict), f"the card is not a JSON object: {text}"


@pytest.mark.requirement("A2A_CARD_002")
def test_card_parses_strictly_with_its_required_fields(core_agent: CoreAgent, recorder: Recorder) -> None:
    """The card as served is a strictly valid AgentCard. Defect: card-unknown-member."""
    reply = well_known_card(core_agent, recorder)
    if reply.status != 200 or not isinstance(reply.json, dict):
        blocked_by(CARD_ROW, f"no card to read: GET {reply.exchange.url} answered HTTP {reply.status}")
    strict(reply.json, pb.AgentCard, "the agent card")


#: An absolute URL's beginning (RFC 3986 §4.3: a scheme, then "//" and an authority).
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _not_absolute(url: str) -> str | None:
    """Why ``url`` is not an absolute URL naming where the interface is (None when it is one): it needs a
    scheme, and a host unless it names a unix socket (``unix:///path``)."""
    if not _ABSOLUTE.match(url):
        return "it has no scheme:// (an interface URL is absolute, as http://host:port/path)"
    parts = urlsplit(url)
    if parts.scheme.lower() != "unix" and not parts.hostname:
        return "it names no host"
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        return "its port is not a number"
    return None


@pytest.mark.requirement("A2A_CARD_003")
def test_card_declares_interfaces_with_url_binding_and_version(core_agent: CoreAgent, recorder: Recorder) -> None:
    """supportedInterfaces is non-empty and each entry names url, protocolBinding and protocolVersion —
    the url an absolute URL (§8.3.1: each interface MUST accurately declare its URL; the AgentInterface
    type: "a valid absolute HTTPS URL in production", so ``127.0.0.1:8781`` names no URL at all; plain
    http is allowed, a test deployment is no production one), and the version the one the interface
    speaks (§4.4.6: "the version of the A2A protocol this interface exposes"): a JSON-RPC interface
    declaring another version that answers only the 1.0 method names (GetTask served, the 0.3
    ``tasks/get`` not routed or its version refused) declares the wrong one.
    Defects: interface-without-version, card-declares-0.3, interface-url-not-absolute."""
    card = card_of(core_agent)
    entries = card.get("supportedInterfaces")
    assert isinstance(entries, list) and entries, f"supportedInterfaces is {entries!r}"
    for i, entry in enumerate(entries):
        assert isinstance(entry, dict), f"supportedInterfaces[{i}] is {entry!r}"
        for key in ("url", "protocolBinding", "protocolVersion"):
            value = entry.get(key)
            assert isinstance(value, str) and value.strip(), f"supportedInterfaces[{i}].{key} is {value!r} in {entry}"
        why = _not_absolute(entry["url"].strip())
        if why is not None:
            fail(f"supportedInterfaces[{i}] ({entry['protocolBinding']}) names url {entry['url']!r}: {why}")
    if "JSONRPC" in core_agent.interfaces and core_agent.wire("JSONRPC") is not None:
        itf = core_agent.interfaces["JSONRPC"]
        with Caller("JSONRPC", itf, token=core_agent.token, recorder=recorder, timeout=core_agent.call_timeout) as c:
            wire = wire_version(c)  # asked again, for this row's evidence
        if wire.only_1_0:
            fail(f"the JSONRPC interface declares protocolVersion {itf.get('protocolVersion')!r} but speaks 1.0 "
                 f"only ({wire.quote()})")


@pytest.mark.requirement("A2A_CARD_007")
def test_each_declared_interface_speaks_its_binding(caller: Caller) -> None:
    """A request at the declared url gets an A2A answer of the declared binding (here: an error for an
    unknown task), not a transport failure, a foreign body or "method not found". Every other check
    over that interface is blocked by this row when it does not. Defect: grpc-url-wrong."""
    why = not_a2a(caller.call(PROBE_METHOD, {"id": PROBE_TASK}), caller.url)
    if why is not None:
        fail(why)


def _served_card(core_agent: CoreAgent, recorder: Recorder) -> HttpReply:
    reply = well_known_card(core_agent, recorder)
    if reply.status != 200 or not isinstance(reply.json, dict):
        blocked_by(CARD_ROW, f"no card to read: GET {reply.exchange.url} answered HTTP {reply.status}")
    return reply


@pytest.mark.requirement("A2A_CARD_008")
def test_card_comes_with_a_cache_control_max_age(core_agent: CoreAgent, recorder: Recorder) -> None:
    """§8.6.1: the card's endpoint SHOULD send Cache-Control with a max-age directive. Defect: card-no-cache-control."""
    reply = _served_card(core_agent, recorder)
    value = reply.headers.get("cache-control")
    assert value is not None, f"GET {reply.exchange.url} answered the card without a Cache-Control header"
    directives = [d.strip().split("=", 1) for d in value.split(",")]
    ages = [d[1].strip().strip('"') for d in directives if d[0].strip().lower() == "max-age" and len(d) == 2]
    assert ages and ages[0].isdigit(), f"the card's Cache-Control {value!r} has no max-age=<seconds> directive"


@pytest.mark.requirement("A2A_CARD_009")
def test_card_comes_with_an_etag_that_holds_while_the_card_does(core_agent: CoreAgent, recorder: Recorder) -> None:
    """§8.6.1: the card's endpoint SHOULD send an ETag derived from the card (its version or a hash of it):
    two fetches of the same card carry the same ETag. Defect: card-no-etag."""
    first = _served_card(core_agent, recorder)
    tag = first.headers.get("etag")
    assert tag, f"GET {first.exchange.url} answered the card without an ETag header"
    second = _served_card(core_agent, recorder)
    if second.json != first.json:
        not_measured("the card changed between two fetches, so whether its ETag follows the card cannot be told")
    assert second.headers.get("etag") == tag, (
        f"the same card came with ETag {tag!r}, then {second.headers.get('etag')!r}: not derived from the card")


#: RFC 9110 §5.6.7: the form an HTTP-date is sent in (IMF-fixdate), e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
_IMF_FIXDATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                          r"\d{4} \d{2}:\d{2}:\d{2} GMT$")


@pytest.mark.requirement("A2A_CARD_013")
def test_card_comes_with_a_last_modified_date(core_agent: CoreAgent, recorder: Recorder) -> None:
    """§8.6.1: the card's endpoint MAY send Last-Modified. Sent, it is an HTTP-date in the form RFC 9110
    §5.6.7 has senders write (IMF-fixdate) that names a real moment, and it stays the same while the card
    does (two fetches of the same card). Not sent fails this MAY row only: the row's level is what keeps
    an optional header from touching the must and should levels (as A2A_TASK_005, A2A_VER_005).
    Defect: card-no-last-modified."""
    first = _served_card(core_agent, recorder)
    value = first.headers.get("last-modified")
    if value is None:
        fail(f"GET {first.exchange.url} answered the card without a Last-Modified header (sending one is "
             "optional: this row is a MAY)")
    if not _IMF_FIXDATE.match(value.strip()):
        fail(f"the card's Last-Modified {value!r} is not an HTTP-date as RFC 9110 §5.6.7 has it sent "
             "(e.g. 'Sun, 06 Nov 1994 08:49:37 GMT')")
    try:
        parsedate_to_datetime(value.strip())
    except (TypeError, ValueError) as exc:
        fail(f"the card's Last-Modified {value!r} names no real moment ({exc})")
    second = _served_card(core_agent, recorder)
    if second.json != first.json:
        not_measured("the card changed between two fetches, so whether its Last-Modified follows the card cannot "
                     "be told")
    assert second.headers.get("last-modified") == value, (
        f"the same card came with Last-Modified {value!r}, then {second.headers.get('last-modified')!r}")


def _sides(core_agent: CoreAgent, capability: str) -> list[CoreAgent]:
    """The agent as served, plus (on a launched target) a variant declaring the opposite."""
    agents = [core_agent]
    flipped = core_agent.variant(**{capability: not core_agent.declares(capability)})
    if flipped is not None and flipped.card is not None \
            and flipped.declares(capability) != core_agent.declares(capability):
        agents.append(flipped)
    return agents


def _caller_of(agent: CoreAgent, binding: str, recorder: Recorder, primary: CoreAgent) -> Caller | None:
    """A caller for ``binding`` on ``agent``; a variant lacking the binding is skipped (None)."""
    if agent is not primary and binding not in agent.interfaces:
        return None
    return agent.caller(binding, recorder)


@pytest.mark.requirement("A2A_CARD_004")
@pytest.mark.depends_on(STREAM_ROW)
def test_streaming_capability_matches_behaviour(core_agent: CoreAgent, binding: str, recorder: Recorder) -> None:
    """Declared streaming streams; undeclared, both streaming methods answer UnsupportedOperationError.
    Defect: streaming-declared-not-served."""
    for agent in _sides(core_agent, "streaming"):
        c = _caller_of(agent, binding, recorder, core_agent)
        if c is None:
            continue
        with c:
            side = "declared" if agent.declares("streaming") else "undeclared"
            if agent.declares("streaming"):
                ans = c.stream("SendStreamingMessage", {"message": _msg()}, deadline=10.0)
                if ans.error is not None and not ans.events:  # refused: the claim is untrue (this row's)
                    fail(f"SendStreamingMessage with streaming declared: answered an error instead of a stream: "
                         f"{ans.quote()}")
                # Served, but not as a stream the harness can read (its form is A2A_STREAM_001's).
                must_stream(ans, "SendStreamingMessage with streaming declared", STREAM_ROW)
            else:
                ans = c.stream("SendStreamingMessage", {"message": _msg()}, deadline=10.0)
                expect_error(ans, "UnsupportedOperationError", f"SendStreamingMessage with streaming {side}")
                tid = held_task(agent, c, "working") if agent.control is not None else new_task(c)["id"]
                sub = c.stream("SubscribeToTask", {"id": tid}, deadline=10.0)
                expect_error(sub, "UnsupportedOperationError", f"SubscribeToTask with streaming {side}")


@pytest.mark.requirement("A2A_CARD_005")
def test_push_capability_matches_behaviour(core_agent: CoreAgent, binding: str, recorder: Recorder,
                                           webhook: Receiver) -> None:
    """Undeclared push: all four config methods answer PushNotificationNotSupportedError; declared:
    creating a config is accepted. Defect: push-undeclared-wrong-error."""
    for agent in _sides(core_agent, "push"):
        c = _caller_of(agent, binding, recorder, core_agent)
        if c is None:
            continue
        with c:
            tid = new_task(c)["id"]
            if agent.declares("push"):
                ans = c.call("CreateTaskPushNotificationConfig", {"taskId": tid, "url": webhook.url})
                if ans.error is not None and ans.error.reason == "PUSH_NOTIFICATION_NOT_SUPPORTED":
                    fail(f"the card declares pushNotifications, but creating a config was refused: {ans.quote()}")
                created = succeeded(ans, "CreateTaskPushNotificationConfig with push declared")
                if isinstance(created, dict) and created.get("id"):
                    c.call("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": created["id"]})
                continue
            calls: list[tuple[str, dict[str, Any]]] = [
                ("CreateTaskPushNotificationConfig", {"taskId": tid, "url": webhook.url}),
                ("GetTaskPushNotificationConfig", {"taskId": tid, "id": "conformance-config"}),
                ("ListTaskPushNotificationConfigs", {"taskId": tid}),
                ("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": "conformance-config"}),
            ]
            for method, params in calls:
                expect_error(c.call(method, params), "PushNotificationNotSupportedError",
                             f"{method} with pushNotifications undeclared")


@pytest.mark.requirement("A2A_CARD_006")
def test_extended_card_capability_matches_behaviour(core_agent: CoreAgent, binding: str, recorder: Recorder) -> None:
    """Undeclared: GetExtendedAgentCard answers UnsupportedOperationError; declared: an AgentCard (or
    ExtendedAgentCardNotConfiguredError) for an authenticated caller. Defect: extended-undeclared-not-configured."""
    measured = False
    for agent in _sides(core_agent, "extended"):
        c = _caller_of(agent, binding, recorder, core_agent)
        if c is None:
            continue
        with c:
            ans = c.call("GetExtendedAgentCard", {})
            if not agent.declares("extended"):
                expect_error(ans, "UnsupportedOperationError", "GetExtendedAgentCard with extendedAgentCard undeclared")
                measured = True
                continue
            if agent.token is None and (agent.card or {}).get("securityRequirements"):
                continue  # declared, but the harness holds no credential to authenticate with
            if ans.error is not None and ans.error.reason == "EXTENDED_AGENT_CARD_NOT_CONFIGURED":
                expect_error(ans, "ExtendedAgentCardNotConfiguredError", "GetExtendedAgentCard")
            else:
                card = succeeded(ans, "GetExtendedAgentCard with extendedAgentCard declared")
                assert isinstance(card, dict), f"GetExtendedAgentCard answered {quote(card)}, not a card"
            measured = True
    if not measured:
        not_measured(f"the card declares {CAPABILITIES['extended']} and security requirements, and the harness "
                     "holds no credential to authenticate with (give one with --token)")


def _msg() -> dict[str, Any]:
    from conformance.a2a.messages import text_message

    return text_message("conformance streaming check")


@pytest.mark.requirement("A2A_CARD_010")
def test_extended_card_needs_a_credential(core_agent: CoreAgent, binding: str, recorder: Recorder) -> None:
    """§3.1.11 and §13.3: GetExtendedAgentCard MUST require authentication with a scheme the public card
    declares. On a card declaring the extended card and a security scheme (a launched target is started
    so when it does not), the call from a caller carrying no credential at all is refused (no card),
    and the same call with the harness's credential is served: an AgentCard, or
    ExtendedAgentCardNotConfiguredError where the anonymous caller was told something else (a refusal
    that tells the two apart is about the credential). Defect: extended-card-anonymous."""
    agent = secured_for(core_agent, binding, extended=True)
    if agent.token is None:
        not_measured(f"the card declares {CAPABILITIES['extended']} and security schemes "
                     f"{sorted(agent.card.get('securitySchemes') or {}) if agent.card else []}, and the harness holds "
                     "no credential to tell a refusal for its lack from any other (give one with --token)")
    with agent.caller(binding, recorder) as authed:
        authed.ready()
        with anonymous(agent, binding, recorder) as stranger:
            anon = stranger.call("GetExtendedAgentCard", {})
        if anon.timed_out is not None:
            not_measured(f"GetExtendedAgentCard without a credential got no answer within {anon.timed_out:g}s")
        if anon.has_result:
            fail(f"GetExtendedAgentCard from a caller carrying no credential was served: {anon.quote(300)}")
        ans = authed.call("GetExtendedAgentCard", {})
    if ans.error is not None and ans.error.reason == "EXTENDED_AGENT_CARD_NOT_CONFIGURED":
        if anon.error is not None and anon.error.reason == ans.error.reason:
            fail("GetExtendedAgentCard answered the caller carrying no credential as the one carrying it "
                 f"(ExtendedAgentCardNotConfiguredError): it was processed without authentication; {anon.quote(300)}")
        return
    card = succeeded(ans, "GetExtendedAgentCard with the harness's credential")
    assert isinstance(card, dict), (
        f"GetExtendedAgentCard with the harness's credential answered {quote(card)}, not a card "
        f"(without a credential: {refusal(anon)})")


def _signed_card(core_agent: CoreAgent, recorder: Recorder) -> tuple[CoreAgent, dict[str, Any], str,
                                                                       list[CardSignature]]:
    """The card that carries signatures, as served (fetched again, for the evidence), its URL and its
    signatures: the target's, else (launched) a variant signing its card; na when neither is signed."""
    core_agent.readable()
    agent = core_agent
    if signatures(core_agent.card or {}) is None:
        variant = core_agent.variant(signed=True)
        if variant is None or variant.card is None or signatures(variant.card) is None:
            na("the card carries no signatures (signing a card is a MAY, §8.4), so there is none to verify")
        agent = variant
    reply = _served_card(agent, recorder)
    card = reply.json
    sigs = signatures(card)
    if sigs is None:
        not_measured(f"the card fetched again from {reply.exchange.url} carries no signatures, though it did before")
    return agent, card, str(reply.exchange.url), sigs


@pytest.mark.requirement("A2A_CARD_011")
def test_card_signatures_verify(core_agent: CoreAgent, recorder: Recorder) -> None:
    """§8.4: where the card carries ``signatures``, each is a JWS whose detached payload is the card
    without ``signatures`` in its RFC 8785 form (§8.4.1), verifying with the key its header names (§8.4.3:
    by ``kid`` in the key set at ``jku``; without a ``jku``, the card origin's /.well-known/jwks.json). A
    pass needs every signature verified; an unsigned card is na (signing is a MAY).
    Defect: card-signature-tampered."""
    agent, card, url, sigs = _signed_card(core_agent, recorder)
    problems: list[str] = []
    for sig in sigs:
        if sig.header is None:
            problems.append(f"{sig.where}: {sig.problem}, so it cannot be verified")
            continue
        where = key_set_url(sig, url)
        named = isinstance(sig.header.get("jku"), str)
        if outside(where, agent.origins):
            not_measured(f"{sig.where} names its key set at {where!r}, outside the target: not fetched "
                         "(--allow-origin it if it is your agent's)")
        try:
            reply = fetch_card(where, recorder, timeout=agent.call_timeout)
            got = f"HTTP {reply.status}"
        except httpx.HTTPError as exc:
            reply = None
            got = f"{type(exc).__name__}: {exc}"
        if reply is None or reply.status != 200:
            if not named:
                not_measured(f"{sig.where} names no jku and the card's origin publishes no key set at {where} "
                             f"({got}): the harness has no key to verify it with")
            problems.append(f"{sig.where}: its jku {where} cannot be read ({got})")
            continue
        try:
            keys = read_key_set(reply.json)
        except ValueError as exc:
            problems.append(f"{sig.where}: the key set at {where} is unusable: {exc}")
            continue
        why = verify(sig, card, keys)
        if why is not None:
            problems.append(f"{sig.where} (kid {sig.kid!r}, keys from {where}): {why}")
    if problems:
        fail("; ".join(problems))


@pytest.mark.requirement("A2A_CARD_012")
def test_card_signature_headers_name_their_algorithm_and_key(core_agent: CoreAgent, recorder: Recorder) -> None:
    """§8.4.2: the protected header of each card signature is base64url JSON that MUST name ``alg`` and
    ``kid`` (``jku`` is a MAY, ``typ`` a SHOULD: neither is judged here). An unsigned card is na.
    Defect: card-signature-no-kid."""
    _, _, _, sigs = _signed_card(core_agent, recorder)
    problems = [f"{sig.where}: {p}" for sig in sigs for p in header_problems(sig)]
    if problems:
        fail("; ".join(problems))
