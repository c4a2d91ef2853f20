"""Pre-flight of ``agent --url``: nothing listening is exit 3 and one line (no report); an agent that
demands a credential the user did not give is exit 3, one line quoting ``WWW-Authenticate`` and naming
``--token``, and a report whose every row is not_measured; a credential given is sent to a card URL
that asks for one (and only then)."""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.targets.preflight import preflight
from tests.test_command import _env

TOKEN = "preflight-token-9f2c1d7e"


class _Server(http.server.ThreadingHTTPServer):
    card_needs_token = False
    rpc_needs_token = False
    seen_auth: list[str | None]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def _answer(self, status: int, body: bytes, ctype: str, challenge: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if challenge:
            self.send_header("WWW-Authenticate", 'Bearer realm="agents", scope="a2a"')
        self.end_headers()
        self.wfile.write(body)

    def _authorised(self) -> bool:
        got = self.headers.get("Authorization")
        self.server.seen_auth.append(got)
        return got == f"Bearer {TOKEN}"

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path != "/.well-known/agent-card.json":
            self._answer(404, b"<html>no</html>", "text/html")
        elif self.server.card_needs_token and not self._authorised():
            self._answer(401, b'{"error":"unauthorized"}', "application/json", challenge=True)
        else:
            port = self.server.server_address[1]
            card = {"name": "p", "description": "d", "version": "1", "capabilities": {},
                    "supportedInterfaces": [{"url": f"http://127.0.0.1:{port}/rpc", "protocolBinding": "JSONRPC",
                                             "protocolVersion": "1.0"}],
                    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []}
            self._answer(200, json.dumps(card).encode(), "application/json")

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.rpc_needs_token and not self._authorised():
            self._answer(401, b"", "text/plain", challenge=True)
        else:
            self._answer(200, b'{"jsonrpc":"2.0","id":"preflight","error":{"code":-32001,"message":"nope"}}',
                         "application/json")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.seen_auth = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv: _Server) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}"


def test_nothing_listening_is_unreachable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        found = preflight(f"http://127.0.0.1:{port}")
    assert found.verdict == "unreachable" and f"127.0.0.1:{port}" in found.message


def test_a_card_behind_a_challenge_is_auth_required_quoting_the_challenge(server: _Server) -> None:
    server.card_needs_token = True
    found = preflight(_url(server))
    assert found.verdict == "auth_required"
    assert 'WWW-Authenticate: Bearer realm="agents", scope="a2a"' in found.message and "--token" in found.message


def test_a_public_card_with_closed_interfaces_is_auth_required(server: _Server) -> None:
    server.rpc_needs_token = True
    found = preflight(_url(server))
    assert found.verdict == "auth_required" and "JSONRPC interface" in found.message


def test_an_open_agent_goes_on(server: _Server) -> None:
    assert preflight(_url(server)).verdict == "go"


def test_a_given_token_is_sent_only_to_a_card_url_that_asks(server: _Server) -> None:
    found = preflight(_url(server), credentials_given=True, bearer=TOKEN)
    assert found.verdict == "go" and server.seen_auth == [], "an open card is never offered a credential"
    server.card_needs_token = True
    found = preflight(_url(server), credentials_given=True, bearer=TOKEN)
    assert found.verdict == "go" and found.location is not None and found.location.card is not None
    assert server.seen_auth == [None, f"Bearer {TOKEN}"]


def _agent(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", "agent", *args], capture_output=True,
                          text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)


def test_command_ends_with_one_line_and_exit_3_when_nothing_listens(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        r = _agent("--family", "a2a", "--url", f"http://127.0.0.1:{port}", "--report-dir", str(tmp_path / "r"))
    assert r.returncode == 3 and r.stderr.count("\n") == 1, r.stderr
    assert f"nothing answers at http://127.0.0.1:{port}" in r.stderr
    assert not (tmp_path / "r" / "compliance-report.yaml").exists()


def test_command_reports_every_row_not_measured_when_authentication_is_required(server: _Server,
                                                                                tmp_path: Path) -> None:
    server.card_needs_token = True
    r = _agent("--family", "agentd", "--url", _url(server), "--report-dir", str(tmp_path / "r"))
    assert r.returncode == 3 and r.stderr.count("\n") == 1 and "requires authentication" in r.stderr, r.stderr
    report = yaml.safe_load((tmp_path / "r" / "compliance-report.yaml").read_text(encoding="utf-8"))
    rows = report["requirements"].values()
    assert {e["status"] for e in rows} == {"not_measured"}
    assert all("requires authentication" in e["note"] and "--token" in e["note"] for e in rows)


def test_a_refused_credential_is_auth_refused_at_the_card(server: _Server) -> None:
    server.card_needs_token = True
    found = preflight(_url(server), credentials_given=True, bearer="not-the-token-0000")
    assert found.verdict == "auth_refused", found
    assert "refused the credential given" in found.message and "HTTP 401" in found.message
    assert "not-the-token" not in found.message


def test_a_refused_credential_is_auth_refused_at_the_interface(server: _Server) -> None:
    server.rpc_needs_token = True
    found = preflight(_url(server), credentials_given=True, bearer="not-the-token-0000")
    assert found.verdict == "auth_refused" and "JSONRPC interface" in found.message, found
    assert preflight(_url(server), credentials_given=True, bearer=TOKEN).verdict == "go"


def test_command_ends_like_a_missing_credential_when_the_given_one_is_refused(server: _Server, tmp_path: Path) -> None:
    """A token given and refused: exit 3, one line, a report whose rows are all not_measured (never exit 0
    with a CARD_001 fail)."""
    server.card_needs_token = True
    r = _agent("--family", "a2a", "--url", _url(server), "--token", "operator=not-the-token-0000",
               "--report-dir", str(tmp_path / "r"))
    assert r.returncode == 3 and r.stderr.count("\n") == 1 and "refused the credential" in r.stderr, r.stderr
    report = yaml.safe_load((tmp_path / "r" / "compliance-report.yaml").read_text(encoding="utf-8"))
    rows = report["requirements"].values()
    assert {e["status"] for e in rows} == {"not_measured"}
    assert all("refused the credential" in e["note"] for e in rows)


def test_a_card_behind_the_credential_passes_card_001_with_the_right_token(server: _Server, tmp_path: Path) -> None:
    """The card check reads the card as the resolver did: with the user's credential where the card asked
    for one."""
    server.card_needs_token = True
    r = _agent("--family", "a2a", "--url", _url(server), "--token", f"operator={TOKEN}", "--only", "A2A_CARD_001",
               "--report-dir", str(tmp_path / "r"))
    assert r.returncode == 0, r.stderr
    report = yaml.safe_load((tmp_path / "r" / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert report["requirements"]["A2A_CARD_001"]["status"] == "pass", report["requirements"]["A2A_CARD_001"]
