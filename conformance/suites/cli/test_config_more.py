"""A2ACLI_CONFIG_002 (SPEC.md §8.3, §7.2): a setting resolves flag > environment > local file (a `.env`
found walking up from the working directory, or the `--config` file in its place) > global file
(``~/.config/a2a-cli/.env``) > built-in default; settings can be scoped by agent-card reference (an
agent-specific file chosen with `--config`); `config show` names where each effective value came from.

One setting moves through the levels, one level at a time: the agent-card reference. Each level points
at a different scripted agent, so which agent received the `send` is what the tool resolved — judged
on the agents' recordings, never on the tool's own account of itself. All runs share one isolated home.

* ``precedence`` — with the agent set at a level and every level below it, the agent of that level
  (and only it) receives the message; the local `.env` sits in a parent of the working directory; a
  `--config` file replaces the local `.env`; with nothing set, no agent is contacted;
* ``show_source`` — `config show`, the agent card set at one level and the levels below, prints the
  winning value on a line naming its source (flag, environment, the file's path), and the built-in
  default of ``--output`` as a default;
* ``card_scope`` — two agent-specific files, each holding an agent-card reference and that agent's
  bearer token: `--config <file>` sends to that file's agent with that file's token, and neither
  token reaches the other agent.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli.home import IsolatedHome
from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli, SecretMaker
from conformance.evidence import Evidence
from conformance.fixtures.scripted_agent import Bearer, CardSpec, Script, ScriptedAgent, TaskFlow
from conformance.judge import blocked_by, shown, unique

pytestmark = [pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")]

CONFIG = "A2ACLI_CONFIG_002"
CARD_VAR = "A2ACLI_AGENT_CARD"


def write_env(path: Path, values: dict[str, str]) -> Path:
    """A dotenv file as a user writes one (mode 0600, one ``KEY=value`` per line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("# a2a-cli settings\n" + "".join(f"{k}={v}\n" for k, v in values.items()))
    return path


@dataclass
class Layout:
    """The isolated tree: the global file, a project whose `.env` is the local file (the tool runs in a
    subdirectory of it, so it must walk up), an explicit `--config` file, and a directory with no
    local file above it."""

    home: IsolatedHome
    global_file: Path
    local_file: Path
    config_file: Path
    in_project: Path
    outside: Path


def layout(home: IsolatedHome, *, global_card: str | None, local_card: str | None,
           config_card: str | None = None) -> Layout:
    project = home.work / "project"
    sub = project / "src" / "deep"
    sub.mkdir(parents=True, exist_ok=True)
    outside = home.work / "elsewhere"
    outside.mkdir(parents=True, exist_ok=True)
    g = home.config / "a2a-cli" / ".env"
    if global_card:
        write_env(g, {CARD_VAR: global_card})
    local = project / ".env"
    if local_card:
        write_env(local, {CARD_VAR: local_card})
    cfg = home.work / "agent-specific.env"
    if config_card:
        write_env(cfg, {CARD_VAR: config_card})
    return Layout(home, g, local, cfg, sub, outside)


def reached(agents: dict[str, ScriptedAgent]) -> list[str]:
    """The levels whose agent received an A2A request since the last clear."""
    return [level for level, a in agents.items() if a.a2a_requests()]


@pytest.mark.requirement(CONFIG, part="precedence")
def test_each_level_beats_the_ones_below_it(cli: Cli, agent: AgentMaker, evidence: Evidence) -> None:
    """The agent-card reference set at flag, environment, local `.env` (in a parent of the working
    directory), `--config` and global file, each run with one more level removed from the top: the
    message reaches the agent of the highest level set, and no other.

    Catches defects `local-config-not-walked-up` and `global-beats-local`.
    """
    agents = {lv: agent(Script(card=CardSpec(name=f"config-{lv}"), send=TaskFlow()))
              for lv in ("flag", "env", "local", "config", "global")}
    home = cli.runner.new_home()
    try:
        lay = layout(home, global_card=agents["global"].base_url, local_card=agents["local"].base_url,
                     config_card=agents["config"].base_url)
        env = {CARD_VAR: agents["env"].base_url}
        cases: list[tuple[str, tuple[str, ...], dict[str, str], Path, str | None]] = [
            ("flag", ("-a", agents["flag"].base_url), env, lay.in_project, "flag, environment, local and global set"),
            ("env", (), env, lay.in_project, "environment, local and global set"),
            ("config", ("--config", str(lay.config_file)), {}, lay.in_project,
             "--config, a local .env and the global file set: --config replaces the local .env"),
            ("local", (), {}, lay.in_project, "local (.env two directories up) and global set"),
            ("global", (), {}, lay.outside, "only the global file set"),
        ]
        seen: list[str] = []
        for level, extra, run_env, cwd, what in cases:
            for a in agents.values():
                a.clear_requests()
            r = cli.run("send", "--text", f"which {level}", *extra, env=run_env, home=home, cwd=cwd)
            got = reached(agents)
            seen.append(f"{level}: {got or 'no agent'} (exit {r.exit_code})")
            if level == "flag" and not got:
                blocked_by("A2ACLI_CARD_GET_001", f"`send -a <url>` reached no agent (exit {r.exit_code})")
            assert got == [level], (
                f"expected the {level} agent alone to receive the message ({what}); reached "
                f"{got or 'no agent'}; {shown(r)}")
        for a in agents.values():
            a.clear_requests()
        lay.global_file.unlink()
        none = cli.run("send", "--text", "no agent anywhere", home=home, cwd=lay.outside)
        got = reached(agents)
        evidence.add("levels", seen + [f"nothing set: {got or 'no agent'} (exit {none.exit_code})"])
        assert not got and none.exit_code not in (0, None), (
            f"expected no agent contacted and a non-zero exit with no agent card set anywhere (the built-in "
            f"default is none); reached {got}; {shown(none)}")
    finally:
        home.cleanup()


_SOURCE_WORDS = {
    "flag": re.compile(r"\bflags?\b|command[- ]?line|\bargument", re.I),
    "env": re.compile(r"\benv\b|environment", re.I),
    "default": re.compile(r"default|built[- ]?in", re.I),
}


def _file_forms(path: Path, home: IsolatedHome, cwd: Path) -> list[str]:
    """Ways a line may name ``path``: absolute, resolved, from ~, $HOME, $XDG_CONFIG_HOME, or relative
    to the working directory."""
    forms = [str(path), str(path.resolve())]
    if path.is_relative_to(home.home):
        forms += [f"~/{path.relative_to(home.home).as_posix()}", f"$HOME/{path.relative_to(home.home).as_posix()}"]
    if path.is_relative_to(home.config):
        forms.append(f"$XDG_CONFIG_HOME/{path.relative_to(home.config).as_posix()}")
    forms.append(os.path.relpath(path, cwd))
    return forms


def names_source(line: str, source: str | Path, home: IsolatedHome, cwd: Path) -> bool:
    if isinstance(source, Path):
        return any(f in line for f in _file_forms(source, home, cwd))
    return _SOURCE_WORDS[source].search(line) is not None


@pytest.mark.requirement(CONFIG, part="show_source")
@pytest.mark.depends_on("A2ACLI_CONFIG_001", "A2ACLI_DEFAULT_001")
def test_config_show_names_the_source_of_each_effective_value(cli: Cli, evidence: Evidence) -> None:
    """`config show` with the agent-card reference set at flag, environment, local and global level (one
    level removed from the top per run) prints the winning value on a line that names its source — the
    flag, the environment, the local `.env` or the global file by path (a tool may list the shadowed
    values too; which one it applies is the ``precedence`` part's question); the unset ``--output`` is
    shown as the built-in default.

    Catches defect `config-show-no-source`.
    """
    urls = {lv: f"http://127.0.0.1:9/{unique(f'show-{lv}')}" for lv in ("flag", "env", "local", "global")}
    home = cli.runner.new_home()
    try:
        lay = layout(home, global_card=urls["global"], local_card=urls["local"])
        env = {CARD_VAR: urls["env"]}
        cases: list[tuple[str, tuple[str, ...], dict[str, str], Path, str | Path]] = [
            ("flag", ("-a", urls["flag"]), env, lay.in_project, "flag"),
            ("env", (), env, lay.in_project, "env"),
            ("local", (), {}, lay.in_project, lay.local_file),
            ("global", (), {}, lay.outside, lay.global_file),
        ]
        last: CliResult | None = None
        for level, extra, run_env, cwd, source in cases:
            r = cli.run("config", "show", *extra, env=run_env, home=home, cwd=cwd)
            last = r
            assert r.exit_code == 0, f"expected `config show` to exit 0, got {r.exit_code}; {shown(r)}"
            lines = [ln for ln in cli.default_text(r).splitlines() if urls[level] in ln]
            if not lines and level == "global":
                # every other level's value was shown (asserted above): the global file is not read at all (CONFIG_001's
                # conventional path), so there is no global value whose source could be named
                blocked_by("A2ACLI_CONFIG_001", f"the global file's agent card {urls[level]} is not shown by "
                                                f"`config show` (exit {r.exit_code}), though each other level's is")
            assert lines, (f"expected `config show` to print the effective agent card {urls[level]} (set by "
                           f"{level}); {shown(r)}")
            wanted = source if isinstance(source, str) else f"the {level} file by path"
            assert any(names_source(ln, source, home, cwd) for ln in lines), (
                f"expected the agent card's line to name its source ({wanted}); got {lines[:2]!r}")
        assert last is not None
        out_lines = [ln for ln in last.stdout_text.splitlines()
                     if re.search(r"A2ACLI_OUTPUT|--output|\boutput\b", ln, re.I)]
        evidence.add("output lines", out_lines)
        # the value shown is the tool's effective default, whichever (that it is text is DEFAULT_001's)
        assert any(re.search(r"\b(?:text|json|yaml|table)\b", ln, re.I)
                   and names_source(ln, "default", home, lay.outside) for ln in out_lines), (
            f"expected the unset output format shown with the built-in default as its source; got {out_lines[:2]!r}")
    finally:
        home.cleanup()


def authorizations(a: ScriptedAgent) -> list[str | None]:
    return [q.headers.get("authorization") for q in a.a2a_requests()]


@pytest.mark.requirement(CONFIG, part="card_scope")
@pytest.mark.depends_on("A2ACLI_AUTH_002")
def test_an_agent_specific_config_file_scopes_card_and_credential(
        cli: Cli, agent: AgentMaker, new_secret: SecretMaker, evidence: Evidence) -> None:
    """Two agent-specific files, each with one agent's card reference and bearer token: `send --config
    <file>` reaches that file's agent with that file's token, and neither token is presented to the
    other agent. When a file's token is not used, a control run with A2ACLI_BEARER in the environment
    tells "ignores the file's credential" (a fail) from "no A2ACLI_BEARER at all" (AUTH_002's).

    Catches defect `config-file-credentials-ignored`.
    """
    tokens = {"a": new_secret("bearer"), "b": new_secret("bearer")}
    agents = {k: agent(Script(card=CardSpec(name=f"scoped-{k}", security=(Bearer(tokens[k]),)), send=TaskFlow()))
              for k in tokens}
    home = cli.runner.new_home()
    try:
        files = {k: write_env(home.work / f"agent-{k}.env", {CARD_VAR: agents[k].base_url,
                                                            "A2ACLI_BEARER": tokens[k]}) for k in tokens}
        runs = {k: cli.run("send", "--text", f"scoped to {k}", "--config", str(files[k]), home=home) for k in tokens}
        sent = {k: authorizations(agents[k]) for k in tokens}
        evidence.add("authorization per agent", {
            k: ["its own token" if h == f"Bearer {tokens[k]}" else "the other agent's token"
                if h == f"Bearer {tokens['b' if k == 'a' else 'a']}" else repr(h) for h in v]
            for k, v in sent.items()})
        for k in tokens:
            other = tokens["b" if k == "a" else "a"]
            assert f"Bearer {other}" not in sent[k], (
                f"expected agent {k} never to see the other agent's token; it did; {shown(runs[k])}")
        for k in tokens:
            if not sent[k]:
                # The agent asks for a bearer: a tool may rightly refuse to send without one, so the
                # control carries it the Tier 1 way (the environment).
                control = cli.run("send", "--text", "control", "-a", agents[k].base_url,
                                  env={"A2ACLI_BEARER": tokens[k]})
                if not agents[k].a2a_requests():
                    blocked_by("A2ACLI_CARD_GET_001", f"`send -a <url>` with A2ACLI_BEARER set reached no agent "
                                                      f"either (exit {control.exit_code})")
            assert sent[k], (f"expected `send --config <agent-{k} file>` to reach the agent the file names; "
                             f"agent {k} received nothing; {shown(runs[k])}")
            if any(h != f"Bearer {tokens[k]}" for h in sent[k]):
                agents[k].clear_requests()
                control = cli.run("send", "--text", "control", "-a", agents[k].base_url,
                                  env={"A2ACLI_BEARER": tokens[k]})
                if f"Bearer {tokens[k]}" not in authorizations(agents[k]):
                    blocked_by("A2ACLI_AUTH_002", f"A2ACLI_BEARER from the environment is not attached either "
                                                  f"(exit {control.exit_code}), so the file's cannot show")
            assert sent[k] and all(h == f"Bearer {tokens[k]}" for h in sent[k]), (
                f"expected every request to agent {k} to carry the token of its own --config file; {shown(runs[k])}")
    finally:
        home.cleanup()
