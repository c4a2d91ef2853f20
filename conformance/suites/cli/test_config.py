"""A2ACLI_CONFIG_001 (SPEC.md §8.3): persisted configuration sits under the conventional path, holds no
secret readable by others, is inspectable with the read-only `config show` and removable by the user,
and never records session state.

Each part is judged on positive evidence from real invocations in one isolated home (HOME, the XDG
directories, TMPDIR and the working directory), snapshotted before and after so that "what the tool
wrote" is exactly the files it created or changed:

* ``conventional_path`` — a setting the harness puts in ``~/.config/a2a-cli/.env`` takes effect (the
  credential there reaches the agent), and every file the tool wrote lies under the XDG directories;
* ``config_show`` — `config show` prints a value stored in that file, stops printing it once the user
  deletes the file, and writes nothing (naming the value's source is CONFIG_002's rule, Tier 2);
* ``secret_file_mode`` — after authenticated calls (the credential demonstrably reached the agent, so
  the tool held it), no file the tool wrote holds it with any group/other permission. A tool that
  stores it nowhere passes: the requirement binds persisted data "if any";
* ``no_session_state`` — after a `send` that created a task and a `task get` of it, no file the tool
  wrote holds the taskId or the contextId.

The evidence of each check lists the files scanned, their modes and what they hold.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.home import IsolatedHome
from conformance.clicheck.invocations import AgentMaker, Cli, SecretMaker
from conformance.clicheck.output import secret_forms
from conformance.evidence import Evidence
from conformance.fixtures.scripted_agent import Bearer, CardSpec, Script, ScriptedAgent, TaskFlow
from conformance.judge import blocked_by, shown, unique
from conformance.suites.cli.conftest import card_ref

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")

CONFIG = "A2ACLI_CONFIG_001"


def global_file(home: IsolatedHome, text: str) -> Path:
    """Write the global configuration file ``~/.config/a2a-cli/.env`` as a user would (mode 0600)."""
    path = home.config / "a2a-cli" / ".env"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def scanned(home: IsolatedHome, written: Iterable[Path], needles: dict[str, Iterable[str]]) -> list[dict[str, Any]]:
    """Every file of the isolated tree after the runs: path, mode, whether the tool wrote it, and which
    of ``needles`` (label -> forms) it holds — the evidence of the scan."""
    wrote = set(written)
    out = []
    for path, state in sorted(home.snapshot().items()):
        body = path.read_bytes()
        holds = sorted(label for label, forms in needles.items() if any(f.encode() in body for f in forms))
        out.append({"path": str(path.relative_to(home.root)), "mode": oct(state.mode),
                    "written_by_tool": path in wrote, "holds": holds})
    return out


def authorizations(a: ScriptedAgent) -> list[str | None]:
    return [q.headers.get("authorization") for q in a.a2a_requests()]


@pytest.mark.requirement(CONFIG, part="conventional_path")
@pytest.mark.depends_on("A2ACLI_AUTH_002", "A2ACLI_TASK_GET_001")
def test_global_config_file_is_read_and_nothing_is_stored_elsewhere(
        cli: Cli, agent: AgentMaker, new_secret: SecretMaker, evidence: Evidence) -> None:
    """A2ACLI_BEARER in ``~/.config/a2a-cli/.env`` authenticates a `send` and a `task get` given no
    credential, and every file the tool wrote is under the XDG directories. When the file's credential
    is not used, a control run with A2ACLI_BEARER in the environment tells "no global file" (a fail)
    from "no A2ACLI_BEARER at all" (AUTH_002's).

    Catches defects `global-config-ignored` and `stores-last-task` (a file in ~).
    """
    token = new_secret("bearer")
    a = agent(Script(card=CardSpec(security=(Bearer(token),)), send=TaskFlow()))
    home = cli.runner.new_home()
    try:
        global_file(home, f"# a2a-cli settings\nA2ACLI_BEARER={token}\n")
        before = home.snapshot()
        r = cli.run("send", "--text", "hi", *card_ref(a), home=home)
        if a.tasks:
            cli.run("task", "get", a.tasks[0].id, *card_ref(a), home=home)
        written = home.written_since(before)
        evidence.add("files scanned", scanned(home, written, {"credential": secret_forms(token).values()}))
        sent = authorizations(a)
        if not sent or any(h != f"Bearer {token}" for h in sent):
            a.clear_requests()
            control = cli.run("send", "--text", "hi", *card_ref(a), env={"A2ACLI_BEARER": token})
            if f"Bearer {token}" not in authorizations(a):
                blocked_by("A2ACLI_AUTH_002", f"A2ACLI_BEARER from the environment is not attached either "
                                              f"(exit {control.exit_code}), so the file's setting cannot show")
        assert sent and all(h == f"Bearer {token}" for h in sent), (
            f"expected A2ACLI_BEARER from ~/.config/a2a-cli/.env to authenticate every request; Authorization "
            f"sent: {sorted({'the token' if h == f'Bearer {token}' else repr(h) for h in sent}) or 'no request'}; "
            f"{shown(r)}")
        outside = [str(p.relative_to(home.root)) for p in written
                   if not home.conventional(p) and not p.is_relative_to(home.tmp)]
        assert not outside, \
            f"expected every file the tool stored under ~/.config, ~/.local or ~/.cache; outside: {outside}"
    finally:
        home.cleanup()


@pytest.mark.requirement(CONFIG, part="config_show")
def test_config_show_prints_a_stored_setting_and_writes_nothing(cli: Cli, evidence: Evidence) -> None:
    """With A2ACLI_AGENT_CARD stored in ``~/.config/a2a-cli/.env``, `config show` exits 0 and prints the
    value; after the user deletes the file, `config show` no longer prints it; neither run writes any
    file. That is what §8.3 asks of persisted data at Tier 1: "inspectable via the read-only `config
    show`". Naming the source of each value (the file's path) is CONFIG_002's rule (Tier 2), so a tool
    that says "(source: global .env file)" — or names no source — is not failed here.

    Catches defects `config-show-missing` and `config-show-writes`.
    """
    value = f"http://127.0.0.1:9/{unique('config-probe')}"
    home = cli.runner.new_home()
    try:
        path = global_file(home, f"A2ACLI_AGENT_CARD={value}\n")
        before = home.snapshot()
        r = cli.run("config", "show", home=home)
        written = home.written_since(before)
        evidence.add("files scanned", scanned(home, written, {"value": [value]}))
        assert r.exit_code == 0, f"expected `config show` to exit 0, got {r.exit_code}; {shown(r)}"
        assert value in r.stdout_text, (
            f"expected `config show` to print A2ACLI_AGENT_CARD={value} from ~/.config/a2a-cli/{path.name}; "
            f"{shown(r)}")
        assert not written, (f"expected `config show` to write nothing (read-only); it wrote "
                             f"{[str(p.relative_to(home.root)) for p in written]}")
        path.unlink()
        before = home.snapshot()
        gone = cli.run("config", "show", home=home)
        written = home.written_since(before)
        assert gone.exit_code == 0, \
            f"expected `config show` to exit 0 without the file, got {gone.exit_code}; {shown(gone)}"
        assert value not in gone.stdout_text, (
            f"expected the setting gone once the user deleted ~/.config/a2a-cli/.env; still shown; {shown(gone)}")
        assert not written, f"expected `config show` to write nothing; it wrote {[str(p) for p in written]}"
    finally:
        home.cleanup()


@pytest.mark.requirement(CONFIG, part="secret_file_mode")
@pytest.mark.depends_on("A2ACLI_AUTH_001", "A2ACLI_AUTH_002", "A2ACLI_TASK_GET_001")
def test_no_file_the_tool_wrote_holds_a_credential_readable_by_others(
        cli: Cli, agent: AgentMaker, new_secret: SecretMaker, evidence: Evidence) -> None:
    """Authenticated `send`s (credential by flag and by environment) and a `task get` in one home: the
    credential reaches the agent, and no file the tool wrote holds it (raw, percent-encoded or base64)
    with a group or other permission bit. Storing it nowhere passes ("if any").

    Catches defect `caches-token-world-readable`.
    """
    token = new_secret("bearer")
    a = agent(Script(card=CardSpec(security=(Bearer(token),)), send=TaskFlow()))
    home = cli.runner.new_home()
    try:
        before = home.snapshot()
        cli.run("send", "--text", "one", *card_ref(a), "--bearer", token, home=home)
        cli.run("send", "--text", "two", *card_ref(a), env={"A2ACLI_BEARER": token}, home=home)
        if a.tasks:
            cli.run("task", "get", a.tasks[0].id, *card_ref(a), "--bearer", token, home=home)
        written = home.written_since(before)
        forms = list(secret_forms(token).values())
        evidence.add("files scanned", scanned(home, written, {"credential": forms}))
        if f"Bearer {token}" not in authorizations(a):
            blocked_by("A2ACLI_AUTH_001", "the credential never reached the agent, so the tool was never seen "
                                          "holding it")
        exposed = []
        for p in written:
            mode = p.stat().st_mode & 0o777
            if mode & 0o077 and any(f.encode() in p.read_bytes() for f in forms):
                exposed.append(f"{p.relative_to(home.root)} (mode {oct(mode)})")
        assert not exposed, f"expected any file holding the credential to be mode 0600; readable by others: {exposed}"
    finally:
        home.cleanup()


@pytest.mark.requirement(CONFIG, part="no_session_state")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_no_file_the_tool_wrote_holds_a_task_or_context_id(cli: Cli, agent: AgentMaker, evidence: Evidence) -> None:
    """After a `send` that created a task (paused at INPUT_REQUIRED, the state a resume feature would
    keep) and a `task get` of it, no file the tool wrote holds the taskId or the contextId.

    Catches defects `stores-context-id` and `stores-last-task`.
    """
    tid, ctx = unique("cfg-task"), unique("cfg-ctx")
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_INPUT_REQUIRED", 0.0),), task_id=tid, context_id=ctx)))
    home = cli.runner.new_home()
    try:
        before = home.snapshot()
        r = cli.run("send", "--text", "start", *card_ref(a), home=home)
        if not a.tasks:
            blocked_by("A2ACLI_SEND_001", f"`send` created no task (exit {r.exit_code}), so there was no "
                                          "identifier to keep")
        cli.run("task", "get", tid, *card_ref(a), home=home)
        written = home.written_since(before)
        evidence.add("files scanned", scanned(home, written, {"taskId": [tid], "contextId": [ctx]}))
        kept = [f"{p.relative_to(home.root)} holds {[v for v in (tid, ctx) if v.encode() in p.read_bytes()]}"
                for p in written if re.search(re.escape(tid) + "|" + re.escape(ctx), p.read_text(errors="replace"))]
        assert not kept, f"expected no taskId/contextId stored by the tool; found {kept}"
    finally:
        home.cleanup()
