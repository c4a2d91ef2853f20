"""Tier 2 and 3 authentication (SPEC.md §12.2-§12.4): `auth login` with OAuth 2 (device code,
client credentials) and OpenID Connect, the stored token on later calls, credentials on card
endpoints and the extended card, and a task paused in AUTH_REQUIRED.

The scripted agent runs the authorization server its card points at and records every OAuth
exchange; the harness plays the signing-in user (`conformance.cli.device_user`): it acts on the user
code only once the tool has shown it. Every token, refresh token, device code and client secret is a
registered secret, so no evidence shows one.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any, NoReturn

import pytest

from conformance.cli.device_user import DeviceUser, token_polls
from conformance.cli.runner import CliResult
from conformance.cli.trigger import when
from conformance.clicheck import output
from conformance.clicheck.invocations import CLI_TIMEOUT, AgentMaker, Cli, SecretMaker
from conformance.fixtures.scripted_agent import (
    ApiKey,
    AuthServerSpec,
    Bearer,
    CardSpec,
    MutualTls,
    OAuth2,
    OpenIdConnect,
    RecordedRequest,
    Script,
    ScriptedAgent,
    TaskFlow,
    TLSConfig,
)
from conformance.judge import blocked_by, clip, shown, unique
from conformance.outcome import fail
from conformance.suites.cli.conftest import card_ref, first_event_sent, subscriptions

PUBLIC_CLIENT = "a2a-cli"  # the authorization server's public client (device code)
CI_CLIENT = "a2a-ci"  # a confidential client (client credentials)
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
SLOW_DOWN_STEP = 5.0  # RFC 8628 §3.5
POLL_SLACK = 0.25
LOGIN_TIMEOUT = 12.0  # a login the harness approves at once ends well inside this (slow_down: 5 s)

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")


def _device_script(**server: Any) -> Script:
    return Script(card=CardSpec(security=(OAuth2("device_code"),)), send=TaskFlow(),
                  auth_server=AuthServerSpec(**{"interval": 0, **server}))


def _client_script(secret: str) -> Script:
    return Script(card=CardSpec(security=(OAuth2("client_credentials"),)), send=TaskFlow(),
                  auth_server=AuthServerSpec(clients={CI_CLIENT: secret}))


def _token_requests(a: ScriptedAgent, grant: str) -> list[RecordedRequest]:
    return [r for r in a.requests if r.binding == "OAUTH" and r.path.endswith("/token")
            and r.form.get("grant_type") == grant]


def _oauth_error(req: RecordedRequest) -> str:
    """What the token endpoint answered: "ok" or its `error` (never a token: the body is not quoted)."""
    if req.response_status == 200:
        return "ok"
    try:
        body = json.loads(req.response_body or b"{}")
    except ValueError:
        body = {}
    return str(body.get("error") or f"HTTP {req.response_status}") if isinstance(body, dict) else "?"


def _said(r: CliResult) -> str:
    return r.stdout_text + "\n" + r.stderr_text


def _device_login(cli: Cli, a: ScriptedAgent, user: DeviceUser, **kwargs: Any) -> CliResult:
    with user:
        return cli.run("auth", "login", *card_ref(a), "--client-id", PUBLIC_CLIENT, watch=user,
                       timeout=kwargs.pop("timeout", LOGIN_TIMEOUT), **kwargs)


def _no_code_shown(user: DeviceUser, a: ScriptedAgent, r: CliResult) -> str:
    started = a.auth_server.device_grants()
    if not started:
        return f"`auth login` never asked the card's authorization server for a device code; {shown(r)}"
    return ("`auth login` started a device flow but never showed its user code, so no user could approve "
            f"it; {shown(r)}")


def _login_failed(a: ScriptedAgent, login: CliResult, flow_row: str, flow: str) -> NoReturn:
    """A login that got no token: a tool that never spoke to the authorization server has no working
    `auth login` (AUTH_007 names it: a fail); one whose flow went wrong is blocked by that flow's row."""
    if not [q for q in a.requests if q.binding == "OAUTH"]:
        fail(f"`auth login` made no request to the card's authorization server, so there is no token to store "
             f"or attach; {shown(login)}")
    blocked_by(flow_row, f"`auth login` ({flow}) got no token (exit {login.exit_code})")


# ── A2ACLI_AUTH_006 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_006")
def test_client_credentials_login_gets_a_token_with_the_client_secret(cli: Cli, agent: AgentMaker,
                                                                      new_secret: SecretMaker) -> None:
    """`auth login --client-id --client-secret` against a card whose OAuth 2 scheme offers the
    client-credentials flow asks the scheme's token endpoint for a token, authenticating the client
    with its secret, and gets one. Catches a flow that never reaches the token endpoint or that leaves
    the secret out."""
    secret = new_secret("clientsecret")
    a = agent(_client_script(secret))
    r = cli.run("auth", "login", *card_ref(a), "--client-id", CI_CLIENT, "--client-secret", secret)
    asked = _token_requests(a, "client_credentials")
    assert asked, (f"expected a client_credentials request to the card's token endpoint; the authorization "
                   f"server saw {[(q.method, q.path) for q in a.requests if q.binding == 'OAUTH']}; {shown(r)}")
    answers = [_oauth_error(q) for q in asked]
    assert "ok" in answers, f"the token endpoint refused every client_credentials request: {answers}; {shown(r)}"
    issued = [t for t in a.issued_tokens() if t.grant_type == "client_credentials" and t.client_id == CI_CLIENT]
    assert issued, f"no token was issued to client {CI_CLIENT!r}; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 once the token was issued; {shown(r)}"


# ── A2ACLI_AUTH_005 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_005")
def test_device_code_login_shows_the_code_waits_for_approval_and_honours_slow_down(cli: Cli,
                                                                                   agent: AgentMaker) -> None:
    """`auth login` against a device-code scheme shows the user code, polls the token endpoint while
    the answer is authorization_pending, waits 5 s longer after slow_down (RFC 8628 §3.5), and exits 0
    with the token once the user (the harness, acting on the code it read) approves. Catches a tool
    that hides the code, gives up on authorization_pending or keeps its pace after slow_down."""
    a = agent(_device_script(slow_down_on=(2,)))
    user = DeviceUser(a, "approve", after_polls=2)
    r = _device_login(cli, a, user)
    grant = user.grant()
    assert grant is not None, _no_code_shown(user, a, r)
    polls = token_polls(a, grant.device_code)
    answers = [_oauth_error(q) for q in polls]
    assert answers[:2] == ["authorization_pending", "slow_down"] and "ok" in answers, (
        f"expected the token endpoint's answers to run authorization_pending, slow_down, ..., a token; got "
        f"{answers}{' (' + user.problem + ')' if user.problem else ''}; {shown(r)}")
    gap = polls[2].monotonic - polls[1].monotonic
    assert gap >= SLOW_DOWN_STEP - POLL_SLACK, (
        f"after slow_down the next poll came {gap:.2f} s later; RFC 8628 §3.5 asks for the interval "
        f"(announced 0 s) plus 5 s; answers: {answers}")
    assert r.exit_code == 0, f"expected exit 0 once the sign-in was approved and a token issued; {shown(r)}"


@pytest.mark.requirement("A2ACLI_AUTH_005")
def test_device_code_that_expires_ends_the_login_with_a_clear_error(cli: Cli, agent: AgentMaker) -> None:
    """When the device code expires before anyone approves it (the token endpoint answers
    expired_token), `auth login` stops polling and fails with a non-zero exit and a message naming the
    expiry. Catches a login that never ends (a bounded fail here) or that fails without saying why."""
    a = agent(_device_script())
    user = DeviceUser(a, "expire", after_polls=1)
    r = _device_login(cli, a, user, timeout=8.0)
    grant = user.grant()
    assert grant is not None, _no_code_shown(user, a, r)
    answers = [_oauth_error(q) for q in token_polls(a, grant.device_code)]
    assert "expired_token" in answers, f"the tool never polled after its code expired; answers {answers}; {shown(r)}"
    assert not r.timed_out, (f"`auth login` did not end after the token endpoint answered expired_token "
                             f"({answers.count('expired_token')} times); {shown(r)}")
    assert r.exit_code not in (0, None), f"expected a non-zero exit for an expired device code; {shown(r)}"
    assert re.search(r"expir", _said(r), re.I), (
        f"expected the error to say the code expired; stdout {clip(r.stdout_text)}; stderr {clip(r.stderr_text)}")


# ── A2ACLI_AUTH_007 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_007")
@pytest.mark.depends_on("A2ACLI_AUTH_005", "A2ACLI_AUTH_006", "A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_login_token_is_stored_0600_under_the_config_path_and_attached_to_a_later_send(
    cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
) -> None:
    """After a client-credentials `auth login`, the files holding the token lie under the XDG
    configuration (or data/state) directories with mode 0600, and a later `send` with no credential
    flag carries the token to the agent. Catches a world-readable token file and a token that is
    stored but never used."""
    secret = new_secret("clientsecret")
    a = agent(_client_script(secret))
    home = cli.runner.new_home()
    try:
        before = home.snapshot()
        login = cli.run("auth", "login", *card_ref(a), "--client-id", CI_CLIENT, "--client-secret", secret,
                        home=home)
        issued = [t.access_token for t in a.issued_tokens() if t.grant_type == "client_credentials"]
        if login.exit_code != 0 or not issued:
            _login_failed(a, login, "A2ACLI_AUTH_006", "client credentials")
        token = issued[-1]
        written = home.written_since(before)
        holding = [p for p in written if token.encode() in p.read_bytes()] or written
        assert holding, f"`auth login` wrote no file under the isolated home; the token is not stored; {shown(login)}"
        for p in holding:
            mode = stat.S_IMODE(p.stat().st_mode)
            where = p.relative_to(home.root)
            assert mode & 0o077 == 0, f"the token store {where} has mode {mode:04o}; secrets need 0600"
            assert home.conventional(p), f"the token store {where} is not under the XDG config/data/state dirs"
        start = len(a.requests)
        r = cli.run("send", "--text", "hi", *card_ref(a), home=home)
        sent = [q for q in a.requests[start:] if q.operation is not None]
        assert sent, f"the later send made no A2A request; {shown(r)}"
        unauth = [q.operation for q in sent if q.bearer != token]
        assert not unauth, (f"the later send did not attach the stored token on {unauth} "
                            f"(credentials seen: {[q.credentials for q in sent]}); {shown(r)}")
        assert r.exit_code == 0, f"expected the send with the stored token to exit 0; {shown(r)}"
    finally:
        home.cleanup()


@pytest.mark.requirement("A2ACLI_AUTH_007")
@pytest.mark.depends_on("A2ACLI_AUTH_005", "A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_an_expired_stored_token_is_refreshed_and_the_send_goes_through(cli: Cli, agent: AgentMaker) -> None:
    """After a device-code login (which issues a refresh token), the agent expires the access token;
    a later `send` refreshes it at the token endpoint and the agent receives the new one. Catches a tool
    that fails with the stale token instead of refreshing."""
    a = agent(_device_script())
    home = cli.runner.new_home()
    try:
        login = _device_login(cli, a, DeviceUser(a, "approve"), home=home)
        first = [t for t in a.issued_tokens() if t.grant_type == DEVICE_GRANT]
        if login.exit_code != 0 or not first:
            _login_failed(a, login, "A2ACLI_AUTH_005", "device code")
        a.expire_tokens()
        r = cli.run("send", "--text", "hi", *card_ref(a), home=home)
        refreshed = [t.access_token for t in a.issued_tokens() if t.grant_type == "refresh_token"]
        asked = [_oauth_error(q) for q in _token_requests(a, "refresh_token")]
        assert refreshed, f"no token was refreshed after the stored one expired (refresh answers {asked}); {shown(r)}"
        taken = [q for q in a.a2a_requests() if q.bearer in refreshed and q.accepted_by]
        assert taken, f"the agent never received the refreshed token; {shown(r)}"
        assert r.exit_code == 0, f"expected the send to succeed with the refreshed token; {shown(r)}"
    finally:
        home.cleanup()


# ── A2ACLI_CARD_GET_003 / A2ACLI_AUTH_008 ────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_CARD_GET_003")
@pytest.mark.depends_on("A2ACLI_AUTH_001", "A2ACLI_OUT_002", "A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_extended_card_is_fetched_with_the_scheme_the_public_card_declares(cli: Cli, agent: AgentMaker,
                                                                           new_secret: SecretMaker) -> None:
    """`card get --extended --api-key K` against a public card declaring an API-key scheme (header
    X-Team-Key) and capabilities.extendedAgentCard asks GetExtendedAgentCard with the key where the
    scheme says, and prints the extended card (its extra skill). Catches a tool that prints the
    public card or asks without the declared credential."""
    key = new_secret("apikey")
    a = agent(Script(card=CardSpec(security=(ApiKey(key, name="X-Team-Key"),), require_auth=False,
                                   extended_agent_card=True)))
    r = cli.run("card", "get", "--extended", *card_ref(a), "--api-key", key, "-o", "json")
    asked = [q for q in a.card_requests() if q.operation == "GetExtendedAgentCard"]
    assert asked, (f"expected a GetExtendedAgentCard request; the agent saw "
                   f"{[(q.binding, q.method) for q in a.requests]}; {shown(r)}")
    if not any(q.accepted_by == "apiKey" for q in asked):
        # where --api-key goes is AUTH_001's: a tool that puts it where no scheme says on every request
        # is blocked here; one that does so only on the extended-card request fails this row
        a.clear_requests()
        s = cli.run("send", "--text", "hi", *card_ref(a), "--api-key", key)
        sent = a.a2a_requests()
        if not sent:
            blocked_by("A2ACLI_SEND_001", f"`send` made no A2A request (exit {s.exit_code}), so where --api-key "
                                          "goes could not be told apart from the extended-card request")
        if not any(q.accepted_by == "apiKey" for q in sent):
            blocked_by("A2ACLI_AUTH_001", f"--api-key is not attached where the card's scheme says (header "
                                          f"X-Team-Key) on `send` either ({[q.credentials for q in sent]}, "
                                          f"exit {s.exit_code})")
        fail(f"the extended-card request did not carry the key where the public card's scheme says (header "
             f"X-Team-Key), though `send` does; it presented {[q.credentials for q in asked]}; {shown(r)}")
    assert r.exit_code == 0, f"expected exit 0 for card get --extended; {shown(r)}"
    doc, problem = output.parse_json_document(r.stdout_text)
    assert problem is None, f"{problem}; {shown(r)}"
    skills = [s.get("id") for s in (doc.get("skills") or [])] if isinstance(doc, dict) else []
    assert "extended" in skills, f"the card printed is not the extended one (skills {skills}); {shown(r)}"


@pytest.mark.requirement("A2ACLI_AUTH_008")
@pytest.mark.depends_on("A2ACLI_AUTH_001")
def test_public_card_fetch_carries_no_credential(cli: Cli, agent: AgentMaker, new_secret: SecretMaker) -> None:
    """`card get --bearer T` against an agent whose card declares a bearer scheme: the request for the
    public card (whose endpoint declares no scheme) carries no credential at all. Catches a tool that
    sends its credentials to every URL it fetches."""
    token = new_secret("bearer")
    a = agent(Script(card=CardSpec(security=(Bearer(token),))))
    r = cli.run("card", "get", *card_ref(a), "--bearer", token)
    fetched = [q for q in a.card_requests() if q.binding == "CARD"]
    if not fetched:
        blocked_by("A2ACLI_CARD_GET_001", f"card get fetched no card (exit {r.exit_code})")
    leaked = [q.credentials or ("the token",) for q in fetched if q.credentials or token in str(q.headers)]
    assert not leaked, f"the public card request presented {leaked}; no card endpoint declared a scheme; {shown(r)}"
    if r.exit_code != 0:  # the fetch carried nothing; presenting the card it got is CARD_GET_001's
        blocked_by("A2ACLI_CARD_GET_001", f"card get fetched the card without a credential but did not present it; "
                                          f"{shown(r)}")


@pytest.mark.requirement("A2ACLI_AUTH_008")
@pytest.mark.depends_on("A2ACLI_AUTH_001", "A2ACLI_CARD_GET_003")
def test_extended_card_request_carries_only_what_a_declared_scheme_accepts(cli: Cli, agent: AgentMaker,
                                                                           new_secret: SecretMaker) -> None:
    """`card get --extended --bearer T --api-key K` against a card declaring only an API-key scheme:
    neither card request carries the bearer token (no scheme accepts it), and the public one carries
    nothing. Catches credentials sprayed on every card endpoint."""
    token, key = new_secret("bearer"), new_secret("apikey")
    a = agent(Script(card=CardSpec(security=(ApiKey(key, name="X-Team-Key"),), require_auth=False,
                                   extended_agent_card=True)))
    r = cli.run("card", "get", "--extended", *card_ref(a), "--bearer", token, "--api-key", key)
    asked = [q for q in a.card_requests() if q.operation == "GetExtendedAgentCard"]
    for q in a.card_requests():
        what = "public card" if q.binding == "CARD" else f"{q.binding} GetExtendedAgentCard"
        assert token not in str(q.headers) and q.bearer is None, (
            f"the {what} request carried the bearer token, which no declared scheme accepts; {shown(r)}")
        if q.binding == "CARD":
            assert not q.credentials, f"the public card request presented {q.credentials}; {shown(r)}"
    if not asked:  # asking for the extended card at all is CARD_GET_003's (`card get --extended`)
        blocked_by("A2ACLI_CARD_GET_003", f"`card get --extended` asked for no extended card (exit {r.exit_code}), "
                                          "so no credential choice for it was made")


# ── A2ACLI_AUTH_011 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_011")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_auth_required_is_surfaced_and_followed_through_its_out_of_band_resolution(
    cli: Cli, agent: AgentMaker,
) -> None:
    """What "handle the in-task AUTH_REQUIRED state" (§12.3, a Tier 3 SHOULD) demands beyond Tier 1,
    read from A2A §7.6: the agent asks for authorization in the task's status message and receives the
    credential out of band, then "MAY immediately continue Task processing ... without a requirement
    that clients send a follow-up message"; a client without an open stream "risks missing Task updates"
    and SHOULD subscribe to the task (§7.6.2). So the tool must (1) show the agent's authorization
    request when `send` pauses at AUTH_REQUIRED, and (2) follow the task through that resolution:
    `task subscribe <id>` on the task waiting in AUTH_REQUIRED keeps following it — it does not stop at
    the state it started in — and reports the state the agent moves it to once authorized (COMPLETED).
    Replying with a credential (`send --task-id <id> --bearer T`) is Tier 1 behaviour (INTERACT_002,
    AUTH_001) and is not what this row adds; exit statuses and identifiers are other rows'.

    Catches defect `subscribe-stops-at-auth-required` (the subscription ends at the AUTH_REQUIRED it
    started in, so the resolution is never seen)."""
    ask = unique("authorize-the-calendar")
    a = agent(Script(card=CardSpec(streaming=True),
                     send=TaskFlow.single("AUTH_REQUIRED", message=f"{ask}, then reply")))
    r = cli.run("send", "--text", "book a meeting", *card_ref(a))
    if not a.tasks:
        blocked_by("A2ACLI_SEND_001", f"the send created no task (exit {r.exit_code}), so nothing paused in "
                                      "AUTH_REQUIRED")
    task = a.tasks[0]
    assert ask in _said(r), f"the agent's request for authorization ({ask!r}) is not shown; {shown(r)}"
    with when(lambda: first_event_sent(a, task.id), lambda: a.move_task(task.id, "COMPLETED"),
              timeout=CLI_TIMEOUT) as moved:
        f = cli.run("task", "subscribe", task.id, *card_ref(a))
    subs = subscriptions(a, task.id)
    assert subs, (f"`task subscribe` sent no SubscribeToTask for {task.id}; the agent saw "
                  f"{[q.operation for q in a.a2a_requests()]}; {shown(f)}")
    assert moved.fired, (f"the agent never sent the subscription's first event, so the out-of-band authorization "
                         f"was never given ({moved.error or 'no event'}); {shown(f)}")
    assert output.state_matches(f.stdout_text, "TASK_STATE_COMPLETED"), (
        f"`task subscribe` on a task waiting in AUTH_REQUIRED did not follow it to the state the agent moved it "
        f"to once authorized out of band (COMPLETED); {shown(f)}")


# ── A2ACLI_AUTH_009 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_009")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_SEND_006")
def test_mutual_tls_presents_the_configured_client_certificate(cli: Cli, agent: AgentMaker, tmp_path: Path) -> None:
    """Against an agent that requires a client certificate of the run's CA (trusted through
    SSL_CERT_FILE), `send --client-cert C --client-key K` completes over mutual TLS; the same send
    without them fails with a non-zero exit and an error naming the certificate. Catches a tool that
    never presents the configured certificate, or that fails the handshake without saying why."""
    tls = TLSConfig.generate(tmp_path / "mtls", mutual=True)
    assert tls.client_cert_pem is not None and tls.client_key_pem is not None
    a = agent(Script(card=CardSpec(security=(MutualTls(),))), tls=tls)
    trust = {"SSL_CERT_FILE": str(tls.ca_pem)}
    r = cli.run("send", "--text", "over mtls", *card_ref(a), "--client-cert", str(tls.client_cert_pem),
                "--client-key", str(tls.client_key_pem), env=trust)
    over = [q for q in a.a2a_requests() if q.accepted_by == "mtls"]
    assert over, (f"no A2A request reached the agent over mutual TLS with the configured certificate "
                  f"(the agent saw {[(q.binding, q.method) for q in a.requests]}); {shown(r)}")
    assert r.exit_code == 0, f"expected the send over mutual TLS to exit 0; {shown(r)}"
    seen = len(a.requests)
    bare = cli.run("send", "--text", "no certificate", *card_ref(a), env=trust)
    assert len(a.requests) == seen, "a request reached the agent without a client certificate"
    assert bare.exit_code not in (0, None) and not bare.timed_out, (
        f"expected the send without a client certificate to fail at once; {shown(bare)}")
    assert re.search(r"certificate|mutual|mtls|handshake", _said(bare), re.I), (
        f"expected the error to name the client certificate / handshake; {shown(bare)}")


# ── A2ACLI_AUTH_010 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_010")
@pytest.mark.parametrize("key", ["published", "unpublished"])
def test_openid_connect_login_validates_the_id_token(cli: Cli, agent: AgentMaker, key: str) -> None:
    """`auth login` against a card declaring only OpenID Connect reads the discovery document, asks
    for the `openid` scope, and checks the ID token against the provider's JWKS: a token signed with
    the published key is accepted (exit 0), one signed with another key under the same `kid` is
    refused with a non-zero exit naming the ID token. Catches a tool that skips discovery or trusts any
    ID token."""
    a = agent(Script(card=CardSpec(security=(OpenIdConnect(),)), send=TaskFlow(),
                     auth_server=AuthServerSpec(interval=0, id_token_key=key)))  # type: ignore[arg-type]
    user = DeviceUser(a, "approve")
    r = _device_login(cli, a, user)
    discovered = [q for q in a.requests if q.binding == "OIDC"]
    assert discovered, f"the tool never read the OpenID Connect discovery document; {shown(r)}"
    grant = user.grant()
    assert grant is not None, _no_code_shown(user, a, r)
    assert "openid" in grant.scope.split(), f"the sign-in asked for scope {grant.scope!r}, without openid"
    with_id = [t for t in a.issued_tokens() if t.id_token]
    assert with_id, f"no ID token was issued (scope {grant.scope!r}); {shown(r)}"
    if key == "published":
        assert r.exit_code == 0, f"expected exit 0 for a valid ID token; {shown(r)}"
        assert any(q.binding == "JWKS" for q in a.requests), (
            f"the tool never fetched the provider's JWKS, so it cannot have checked the ID token; {shown(r)}")
    else:
        assert r.exit_code not in (0, None), (
            f"expected `auth login` to refuse an ID token signed with a key the JWKS does not hold; {shown(r)}")
        assert re.search(r"id[ _-]?token|signature|jwk", _said(r), re.I), (
            f"expected the refusal to name the ID token or its signature; {shown(r)}")
