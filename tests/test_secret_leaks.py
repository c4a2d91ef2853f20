"""End to end: no piece of a secret reaches any file a run writes, whatever the target echoes.

Two hostile targets, each driven through the real ``agentd-conformance`` command:

* a CLI under a deliberately long path that prints its argv and environment (repr, JSON, and shortened
  the way tools mask tokens) on stdout and stderr, and fails — so every check fails quoting it, and
  pytest's own shortening of long values (``CliResult(argv=[...])``) cuts through the tokens;
* an agent that answers every request with an error whose message quotes the request's headers, driven
  with ``--token operator=SECRET``.

Afterwards no file under the report folder or the allure folder (pytest.log included) may hold any
6 consecutive characters of any secret. This is the regression test of the fragment leak: the
redaction once matched only whole secrets, so a token cut by ``...`` survived minus two characters.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.killmatrix import run_command
from tests.wire_servers import RunningHttp, serve_http

WINDOW = 6
#: The shape of the credentials the CLI checks make up (``new_secret``: a prefix, then 24 random characters).
HARNESS_SECRET = re.compile(r"[a-z]+-[A-Za-z0-9_-]{24}")
CLI_IDS = ("A2ACLI_AUTH_001", "A2ACLI_AUTH_002", "A2ACLI_AUTH_003", "A2ACLI_AUTH_004", "A2ACLI_SEND_001")
CORE_IDS = ("A2A_SEND_001", "A2A_TASK_001", "A2A_ERR_006", "A2A_VER_001")
AGENTD_IDS = ("AGENTD_CMD_001", "AGENTD_CARD_001", "AGENTD_REFUSE_001", "AGENTD_EVT_001")

FAKE_CLI = """#!{python}
import json, os, sys
record = {{"argv": sys.argv, "env": dict(os.environ)}}
with open(os.environ["LEAK_LOG"], "a", encoding="utf-8") as fh:
    fh.write(json.dumps(record) + "\\n")
values = [*sys.argv, *os.environ.values()]
masked = " ".join(v[:10] + "..." + v[-2:] for v in values if len(v) > 12)
for stream in (sys.stdout, sys.stderr):
    stream.write(repr(record) + "\\n" + json.dumps(record) + "\\n" + masked + "\\n")
sys.exit(1)
"""


def windows(secret: str) -> set[str]:
    return {secret[i:i + WINDOW] for i in range(len(secret) - WINDOW + 1)}


def leaks(folders: list[Path], found: Iterable[str]) -> dict[str, list[str]]:
    """Every file under ``folders`` that holds a 6-window of a secret in ``found``, with the windows."""
    wanted = set().union(*(windows(s) for s in found))
    out: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            text = path.read_bytes().decode("utf-8", errors="surrogateescape")
            hits = sorted({text[i:i + WINDOW] for i in range(len(text) - WINDOW + 1)} & wanted)
            if hits:
                out[path.relative_to(folder.parent).as_posix()] = hits[:3]
    return out


@pytest.fixture
def long_dir(tmp_path: Path) -> Path:
    """A folder whose path is long enough that every repr quoting it is shortened by pytest."""
    folder = tmp_path / "a-deliberately-long-folder-name-so-that-pytest-shortens-every-repr" / ("x" * 60)
    folder.mkdir(parents=True)
    return folder


def test_a_cli_echoing_its_arguments_leaks_no_fragment_of_any_secret(long_dir: Path, tmp_path: Path) -> None:
    """Every failing check quotes the CLI's echo of the tokens it was given, whole and cut."""
    cli = long_dir / "fake-a2a-cli"
    cli.write_text(FAKE_CLI.format(python=sys.executable), encoding="utf-8")
    cli.chmod(0o755)
    log = tmp_path / "cli-calls.jsonl"
    report, allure = tmp_path / "report", tmp_path / "allure"
    run_command(["cli", "--exe", str(cli), "--env", f"LEAK_LOG={log}", "--allure-dir", str(allure),
                 "--only", *CLI_IDS], report)
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    found = {piece for c in calls for v in (*c["argv"], *c["env"].values())
             for piece in re.split(r"[\s/=:,;'\"]+", v) if HARNESS_SECRET.fullmatch(piece)}
    assert len(found) >= 3, f"the checks gave the CLI too few credentials to make this test mean anything: {found}"
    assert any(allure.iterdir()), "allure results were written"
    assert leaks([report, allure], found) == {}


def _echo_app(seen: list[str]) -> Starlette:
    """An agent that serves a card and answers everything else with an error quoting the request's headers."""

    async def card(request: Request) -> Response:
        base = str(request.base_url).rstrip("/")
        return JSONResponse({
            "name": "echo", "description": "echoes your headers", "version": "1.0.0",
            "supportedInterfaces": [{"url": base + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": False}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}],
            "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
            "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
        })

    async def anything(request: Request) -> Response:
        auth = request.headers.get("authorization", "")
        seen.append(auth)
        try:
            rid: Any = json.loads(await request.body()).get("id")
        except (ValueError, AttributeError):
            rid = None
        message = f"refused: you sent Authorization {auth!r} and headers {dict(request.headers)!r}"
        return JSONResponse({"jsonrpc": "2.0", "id": rid,
                             "error": {"code": -32603, "message": message, "data": [{"echo": auth}]}})

    return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                             Route("/{rest:path}", anything, methods=["GET", "POST", "PUT", "DELETE"])])


@pytest.fixture
def echo_agent() -> Iterator[tuple[RunningHttp, list[str]]]:
    seen: list[str] = []
    with serve_http(_echo_app(seen)) as running:
        yield running, seen


@pytest.mark.parametrize(("family", "ids"), [("a2a", CORE_IDS), ("agentd", AGENTD_IDS)])
def test_an_agent_echoing_the_token_leaks_no_fragment_of_it(
        echo_agent: tuple[RunningHttp, list[str]], tmp_path: Path, family: str, ids: tuple[str, ...]) -> None:
    """The user's own ``--token`` comes back in every error message the checks quote."""
    running, seen = echo_agent
    token = f"op-{secrets.token_urlsafe(24)}"
    report, allure = tmp_path / "report", tmp_path / "allure"
    run_command(["agent", "--url", running.url, "--token", f"operator={token}", "--family", family,
                 "--allure-dir", str(allure), "--only", *ids], report)
    assert any(token in auth for auth in seen), f"no request carried the token, so nothing was tested: {seen}"
    assert leaks([report, allure], {token}) == {}
