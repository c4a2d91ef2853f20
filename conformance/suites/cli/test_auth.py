"""Tier 1 authentication (SPEC.md §12.1): scriptable credentials, their environment twins, the
--insecure warning, and redaction of credential material from diagnostics.

Every credential is made with ``new_secret`` so the evidence is redacted; the scripted agent records
where each credential arrived (header, query parameter, cookie).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli, RecordCode, SecretMaker
from conformance.clicheck.output import find_error_envelope, secret_forms
from conformance.fixtures.scripted_agent import (
    ApiKey,
    Bearer,
    CardSpec,
    RecordedRequest,
    Script,
    ScriptedAgent,
    TaskFlow,
    TLSConfig,
)
from conformance.fixtures.scripted_agent.card import ApiKeyLocation
from conformance.judge import blocked_by, clip, shown
from conformance.outcome import fail, not_measured
from conformance.suites.cli.conftest import card_ref

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


def _secured(*creds: Bearer | ApiKey, require_auth: bool = True) -> Script:
    """A completed-task script behind a card declaring ``creds`` as its security schemes."""
    return Script(card=CardSpec(security=creds, require_auth=require_auth), send=TaskFlow())


def _protocol_requests(agent: ScriptedAgent) -> list[RecordedRequest]:
    reqs = agent.a2a_requests()
    seen = [(r.binding, r.method) for r in agent.requests]
    assert reqs, f"expected A2A requests, the CLI sent none; agent saw: {seen}"
    return reqs


def _run_ok(cli: Cli, *args: str, env: dict[str, str | None] | None = None) -> None:
    r = cli.run(*args, env=env or {})
    assert r.exit_code == 0, f"expected exit 0 for an authenticated send, got {r.exit_code}; {shown(r)}"


# ── A2ACLI_AUTH_001 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_001", part="bearer")
def test_bearer_flag_is_sent_as_authorization_header(cli: Cli, agent: AgentMaker, new_secret: SecretMaker) -> None:
    """--bearer reaches the agent as ``Authorization: Bearer <token>`` on every A2A request, per the
    card's HTTP bearer scheme. Catches a bearer flag that is dropped or sent in another form."""
    token = new_secret("bearer")
    a = agent(_secured(Bearer(token)))
    _run_ok(cli, "send", "--text", "hi", *card_ref(a), "--bearer", token)
    for req in _protocol_requests(a):
        got = req.headers.get("authorization")
        assert got == f"Bearer {token}", (
            f"{req.binding} {req.method}: expected the bearer token in Authorization, got {got!r}")


@pytest.mark.requirement("A2ACLI_AUTH_001", part="api_key")
@pytest.mark.parametrize("location,name", [("header", "X-Team-Key"), ("query", "team_key"), ("cookie", "team_key")])
def test_api_key_is_attached_where_the_scheme_declares(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                                      location: ApiKeyLocation, name: str) -> None:
    """--api-key goes exactly where the card's apiKey scheme says — a header, query parameter or cookie
    under the declared name (A2A §4.5.2). Catches a key always sent as a fixed header."""
    key = new_secret("apikey")
    a = agent(_secured(ApiKey(key, name=name, location=location)))
    _run_ok(cli, "send", "--text", "hi", *card_ref(a), "--api-key", key)
    for req in _protocol_requests(a):
        if location == "header":
            got = req.headers.get(name.lower())
        elif location == "query":
            values = req.query_params.get(name)
            got = values[0] if values else None
        else:
            got = req.cookies.get(name)
        assert got == key, (
            f"{req.binding} {req.method}: expected the API key in {location} {name!r}, got {got!r}; "
            f"headers: {sorted(req.headers)}, query: {req.query!r}")


def _attached(cli: Cli, agent: AgentMaker, kind: str, secret: str, *flag: str,
              env: dict[str, str | None] | None = None) -> tuple[CliResult, list[str]]:
    """An authenticated `send` to a card declaring one ``kind`` scheme (bearer, or an API key in header
    X-Team-Key), the credential given by ``flag`` or ``env``: the run, and for each A2A request that did
    not carry ``secret`` where the scheme says, what it carried instead (empty: attached on every one)."""
    scheme: Bearer | ApiKey = Bearer(secret) if kind == "bearer" else ApiKey(secret, name="X-Team-Key")
    a = agent(_secured(scheme))
    r = cli.run("send", "--text", "hi", *card_ref(a), *flag, env=env or {})
    wrong = []
    for req in a.a2a_requests():
        got = req.headers.get("authorization" if kind == "bearer" else "x-team-key")
        if got != (f"Bearer {secret}" if kind == "bearer" else secret):
            wrong.append(f"{req.binding} {req.method}: {'Authorization' if kind == 'bearer' else 'X-Team-Key'}: "
                         f"{got!r}")
    if not a.a2a_requests():
        wrong.append(f"no A2A request (the agent saw {[(q.binding, q.method) for q in a.requests]})")
    return r, wrong


@pytest.mark.requirement("A2ACLI_AUTH_001", part="environment")
@pytest.mark.parametrize("kind", ["bearer", "api_key"])
def test_credential_from_environment_variable_is_attached(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                                          kind: str) -> None:
    """A2ACLI_BEARER / A2ACLI_API_KEY alone authenticate a scripted call, attached per the card's
    scheme. Catches a tool whose credentials work only as flags, or puts them where no scheme says."""
    var = "A2ACLI_BEARER" if kind == "bearer" else "A2ACLI_API_KEY"
    secret = new_secret(kind)
    r, wrong = _attached(cli, agent, kind, secret, env={var: secret})
    assert not wrong, f"{var} was not attached as the card's scheme says: {wrong}; {shown(r)}"
    assert r.exit_code == 0, f"expected exit 0 for an authenticated send, got {r.exit_code}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_AUTH_002")
@pytest.mark.depends_on("A2ACLI_AUTH_001")
@pytest.mark.parametrize("kind", ["bearer", "api_key"])
def test_environment_variable_is_the_twin_of_its_flag(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                                     kind: str) -> None:
    """A2ACLI_BEARER / A2ACLI_API_KEY alone authenticate a scripted call as --bearer / --api-key would.
    Where the credential goes is AUTH_001's (the card's scheme): when the variable is not attached as
    the scheme says, the flag is tried on the same kind of card; a flag placed wrongly as well blocks
    this row (AUTH_001 fails for it), a flag that works while its variable does not is this row's fail.
    Catches a tool whose credentials work only as flags."""
    var, flag = ("A2ACLI_BEARER", "--bearer") if kind == "bearer" else ("A2ACLI_API_KEY", "--api-key")
    secret = new_secret(kind)
    r, wrong = _attached(cli, agent, kind, secret, env={var: secret})
    if wrong:
        f, flag_wrong = _attached(cli, agent, kind, secret, flag, secret)
        if flag_wrong:
            blocked_by("A2ACLI_AUTH_001", f"{flag} itself is not attached as the card's scheme says "
                                          f"({clip('; '.join(flag_wrong), 120)}; exit {f.exit_code})")
        fail(f"{flag} is attached as the card's scheme says but its twin {var} is not: {wrong}; {shown(r)}")
    assert r.exit_code == 0, f"expected exit 0 for a send authenticated by {var}, got {r.exit_code}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_AUTH_001", part="svc_param")
def test_svc_param_reaches_the_agent_as_a_header(cli: Cli, agent: AgentMaker) -> None:
    """--svc-param k:v is carried as an HTTP header on every A2A request, never as a query parameter
    (A2A §3.2.6). Catches a missing flag or a parameter put in the URL."""
    a = agent(Script())
    _run_ok(cli, "send", "--text", "hi", *card_ref(a), "--svc-param", "x-trace-id:trace-4711")
    for req in _protocol_requests(a):
        got = req.headers.get("x-trace-id")
        assert got == "trace-4711", (
            f"{req.binding} {req.method}: expected header x-trace-id: trace-4711, got {got!r}")
        assert "trace-4711" not in req.query, f"service parameter sent in the query string: {req.query!r}"


# ── A2ACLI_AUTH_002 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_002")
@pytest.mark.depends_on("A2ACLI_AUTH_001")
def test_credential_flag_beats_environment_variable(cli: Cli, agent: AgentMaker, new_secret: SecretMaker) -> None:
    """With both A2ACLI_BEARER and --bearer set, the flag's token is the one sent (§6.5 precedence).
    Catches an environment credential that overrides the flag."""
    from_env, from_flag = new_secret("envtok"), new_secret("flagtok")
    a = agent(_secured(Bearer(from_flag), require_auth=False))
    _run_ok(cli, "send", "--text", "hi", *card_ref(a), "--bearer", from_flag, env={"A2ACLI_BEARER": from_env})
    for req in _protocol_requests(a):
        got = req.headers.get("authorization")
        assert got == f"Bearer {from_flag}", (
            f"{req.binding} {req.method}: expected the --bearer token to win over A2ACLI_BEARER, "
            f"got {'the environment token' if got == f'Bearer {from_env}' else repr(got)}")


@pytest.mark.requirement("A2ACLI_AUTH_002")
@pytest.mark.depends_on("A2ACLI_CLI_001")
def test_help_documents_env_credentials_and_process_table_exposure(cli: Cli) -> None:
    """The tool's help names A2ACLI_BEARER and A2ACLI_API_KEY and warns that a flag credential is
    visible in the process table or shell history. Catches undocumented env twins or no warning."""
    r = cli.run("--help")
    text = r.stdout_text + r.stderr_text
    if r.exit_code != 0 or not text.strip():
        blocked_by("A2ACLI_CLI_001", f"--help printed no usage (exit {r.exit_code}, {len(text)} chars)")
    missing = [v for v in ("A2ACLI_BEARER", "A2ACLI_API_KEY") if v not in text]
    assert not missing, f"expected --help to name A2ACLI_BEARER and A2ACLI_API_KEY; it lacks {missing}; {shown(r)}"
    assert re.search(r"process[ -](table|list)|shell history|\bps\b|command[- ]line history", text, re.I), (
        f"expected --help to warn that a flag credential shows in the process table / shell history; "
        f"no such warning; {shown(r)}")


# ── A2ACLI_AUTH_003 ───────────────────────────────────────────────────────────────────────

_TLS_WORDS = re.compile(r"insecure|verif|certificate|tls|ssl", re.I)
_CRED_WORDS = re.compile(r"credential|token|api[- ]?key|secret|authori[sz]", re.I)


@pytest.mark.requirement("A2ACLI_AUTH_003")
@pytest.mark.depends_on("A2ACLI_AUTH_001")
def test_insecure_with_credential_warns_on_stderr(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                                  tmp_path: Path) -> None:
    """Sending a bearer token with --insecure to a TLS agent whose CA the tool does not trust works,
    and stderr carries a warning naming both the unverified connection and the credential.
    Catches a silent --insecure."""
    token = new_secret("bearer")
    a = agent(_secured(Bearer(token)), tls=TLSConfig.generate(tmp_path / "tls"))
    r = cli.run("send", "--text", "hi", *card_ref(a), "--bearer", token, "--insecure")
    assert r.exit_code == 0, f"expected exit 0 with --insecure, got {r.exit_code}; {shown(r)}"
    assert a.a2a_requests(), f"expected the send to reach the TLS agent under --insecure; no A2A request; {shown(r)}"
    warned = [ln for ln in r.stderr_text.splitlines() if _TLS_WORDS.search(ln) and _CRED_WORDS.search(ln)]
    assert warned, (
        "expected a stderr warning that a credential is sent over an unverified TLS connection; none; "
        f"stderr: {clip(r.stderr_text)}")
    on_stdout = [ln for ln in r.stdout_text.splitlines() if _TLS_WORDS.search(ln) and _CRED_WORDS.search(ln)]
    assert not on_stdout, f"the security warning (also) went to stdout: {on_stdout}"


@pytest.mark.requirement("A2ACLI_AUTH_003")
@pytest.mark.depends_on("A2ACLI_AUTH_001")
def test_untrusted_certificate_fails_without_insecure(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                                      tmp_path: Path, record_error_code: RecordCode) -> None:
    """Without --insecure, a TLS agent whose certificate the tool cannot verify is refused — exit 3
    (or 1 where 3 is not implemented), no credential and no A2A request delivered — while the same
    send with --insecure reaches it (so the refusal was the certificate check, not a broken send).
    Catches TLS verification switched off silently."""
    token = new_secret("bearer")
    a = agent(_secured(Bearer(token)), tls=TLSConfig.generate(tmp_path / "tls"))
    r = cli.run("send", "--text", "hi", *card_ref(a), "--bearer", token)
    sent = [req for req in a.requests if token in str(req.headers) or req.binding != "CARD"]
    assert not sent, (f"expected no request over an unverified connection; {len(sent)} reached the agent "
                      f"({[x.method for x in sent][:4]}); {shown(r)}")
    assert r.exit_code in (1, 3), \
        f"expected exit 3 (or 1) for an unverifiable certificate, got {r.exit_code}; {shown(r)}"
    env, _ = find_error_envelope(r.stdout_text, r.stderr_text)
    if env is not None and env.get("code") == "A2ACLI_ERR_UNREACHABLE":
        record_error_code("A2ACLI_ERR_UNREACHABLE", "TLS certificate not verifiable")
    control = cli.run("send", "--text", "hi", *card_ref(a), "--bearer", token, "--insecure")
    if not a.a2a_requests():
        not_measured(f"the tool did not reach the TLS agent even with --insecure (exit {control.exit_code}), so "
                     "its refusal without --insecure cannot be told from a send that never works")


# ── A2ACLI_AUTH_004 ───────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_AUTH_004")
@pytest.mark.depends_on("A2ACLI_AUTH_001", "A2ACLI_OUT_007")
@pytest.mark.parametrize("which", ["bearer", "api_key", "svc_param"])
def test_debug_output_never_shows_credentials(cli: Cli, agent: AgentMaker, new_secret: SecretMaker,
                                              which: str) -> None:
    """Under --debug, neither stdout nor stderr carries the credential in raw, percent-encoded or base64
    (Basic) form; and where the tool has a verbosity flag (--verbose), adding it does not defeat the
    redaction (§12.1: "not defeasible by a verbosity or debug flag"). A tool without --verbose has no
    such flag to defeat it with, so it is judged on --debug alone, never failed for lacking the flag
    (that is DEFAULT_001's surface, not this row's). Redaction is judged on the diagnostics whatever the
    agent answered (the agent does not insist on the credential; where the tool attached it is AUTH_001's
    business), once the tool has talked to the agent and --debug printed diagnostics. Catches debug wire
    logs that print the Authorization header, the API key or a credential-bearing --svc-param (defects
    `leak-bearer-in-debug`, `leak-svc-param-in-debug`), and redaction that --verbose switches off
    (`verbose-defeats-redaction`)."""
    secret = new_secret(which)
    if which == "bearer":
        a = agent(_secured(Bearer(secret), require_auth=False))
        args = ["--bearer", secret]
    elif which == "api_key":
        a = agent(_secured(ApiKey(secret, name="X-Team-Key"), require_auth=False))
        args = ["--api-key", secret]
    else:
        a = agent(Script())
        args = ["--svc-param", f"X-Auth-Token:{secret}"]
    r = cli.run("send", "--text", "hi", *card_ref(a), *args, "--debug")
    if not a.a2a_requests():  # a debug log of no A2A request would show no credential either
        blocked_by("A2ACLI_SEND_001", f"`send` made no A2A request to the agent (exit {r.exit_code})")
    if not r.stderr_text.strip():
        blocked_by("A2ACLI_OUT_007", f"--debug printed no diagnostics on stderr (exit {r.exit_code})")
    assert not _leaks(r, secret), (f"expected the {which} credential redacted under --debug; it appears: "
                                   f"{', '.join(_leaks(r, secret))}")
    v = cli.run_unless_missing("--verbose", "send", "--text", "hi", *card_ref(a), *args, "--debug", "--verbose")
    if v is not None:
        assert not _leaks(v, secret), (f"expected the {which} credential still redacted under --debug --verbose "
                                       f"(a verbosity flag must not defeat redaction); it appears: "
                                       f"{', '.join(_leaks(v, secret))}")


def _leaks(r: CliResult, secret: str) -> list[str]:
    return [f"{form} on {name}" for name, text in (("stdout", r.stdout_text), ("stderr", r.stderr_text))
            for form, needle in secret_forms(secret).items() if needle in text]
