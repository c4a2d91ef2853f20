"""The tool's own surface (SPEC.md §7.1, §7.2, §6.5, §8.3): ``help``, ``<command> --help``,
``-v/--version``, the effective defaults shown in --help, and what the tool persists between runs.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli.home import IsolatedHome
from conformance.cli.runner import CliResult
from conformance.evidence import Evidence
from conformance.fixtures.scripted_agent import Bearer, CardSpec, Script, ScriptedAgent, TaskFlow
from conformance.outcome import fail, na
from conformance.suites.cli.conftest import Cli, card_ref

AgentMaker = Callable[..., ScriptedAgent]

#: The Tier 1 commands whose --help must work (§7.1).
TIER1_COMMANDS = (("send",), ("card", "get"), ("task", "get"), ("task", "cancel"))


def _usage_ok(r: CliResult, what: str) -> str:
    """Assert ``r`` printed usage and exited 0; return what it printed."""
    assert r.exit_code == 0, f"{what}: expected exit 0, got {r.exit_code}; stderr: {r.stderr_text[:400]!r}"
    text = r.stdout_text + r.stderr_text
    assert text.strip(), f"{what}: printed nothing"
    assert re.search(r"usage|options|commands", text, re.I), f"{what}: no usage text; got {text[:400]!r}"
    return text


# ── A2ACLI_CLI_001 ────────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_CLI_001", part="help")
def test_help_command_prints_usage_naming_the_commands(cli: Cli) -> None:
    """``help`` (and ``--help``) print usage naming the Tier 1 commands and exit 0 without needing an
    agent. Catches a missing ``help`` command."""
    for args in (("help",), ("--help",)):
        text = _usage_ok(cli.run(*args), " ".join(args))
        missing = [" ".join(c) for c in TIER1_COMMANDS if not re.search(r"\s+".join(c), text)]
        assert not missing, f"{' '.join(args)} does not name the commands {missing}; got {text[:600]!r}"


@pytest.mark.requirement("A2ACLI_CLI_001", part="command_help")
@pytest.mark.parametrize("command", TIER1_COMMANDS, ids=lambda c: "-".join(c))
def test_command_help_prints_its_usage_and_exits(cli: Cli, command: tuple[str, ...]) -> None:
    """``<command> --help`` prints that command's usage and exits 0, with no agent given (it does not
    try to run the command). For ``send`` the usage names its ``--text`` option. Catches a --help that
    is ignored or that runs the command."""
    text = _usage_ok(cli.run(*command, "--help"), f"{' '.join(command)} --help")
    if command == ("send",):
        assert "--text" in text, f"send --help does not document --text; got {text[:600]!r}"


@pytest.mark.requirement("A2ACLI_CLI_001", part="version")
def test_version_flags_print_the_tool_version(cli: Cli) -> None:
    """``-v`` and ``--version`` each exit 0 and print the same line carrying a version number.
    Catches a missing or misrouted version flag."""
    outs = []
    for flag in ("-v", "--version"):
        r = cli.run(flag)
        assert r.exit_code == 0, f"{flag}: expected exit 0, got {r.exit_code}; stderr: {r.stderr_text[:400]!r}"
        out = (r.stdout_text or r.stderr_text).strip()
        assert re.search(r"\d+\.\d+", out), f"{flag}: no version number in {out[:200]!r}"
        outs.append(out)
    assert outs[0] == outs[1], f"-v and --version disagree: {outs[0]!r} vs {outs[1]!r}"


#: Each §6.5 default, and words by which a line of help can name its value.
_DEFAULT_WORDS: dict[str, str] = {
    "transport": r"supportedInterfaces|card'?s? (order|preference)|server preference|first (supported )?"
                 r"(interface|entry)",
    "task completion": r"\bwait",
    "output": r"\btext\b",
    "detail": r"concise",
    "protocol version": r"\b1\.0\b|highest",
    "transport security": r"\btls\b|verif|certificate",
}


def default_lines(help_text: str) -> list[str]:
    """The lines of help that state defaults: any line saying "default", and every line of a block
    (up to a blank line) whose heading says "default"."""
    out: list[str] = []
    in_block = False
    for line in help_text.splitlines():
        if not line.strip():
            in_block = False
            continue
        says_default = bool(re.search(r"default", line, re.I))
        if says_default and line.rstrip().endswith(":"):
            in_block = True
        if says_default or in_block:
            out.append(line)
    return out


@pytest.mark.requirement("A2ACLI_CLI_001", part="defaults_shown")
@pytest.mark.requirement("A2ACLI_DEFAULT_001")
def test_help_shows_each_effective_default(cli: Cli) -> None:
    """``--help`` or ``send --help`` states the value of each of the six §6.5 defaults on a line that
    says it is a default (or in a "defaults" section). Catches help that lists flags but hides what
    happens when they are not given."""
    texts = []
    for args in (("--help",), ("send", "--help")):
        texts.append(_usage_ok(cli.run(*args), " ".join(args)))
    lines = "\n".join(default_lines("\n".join(texts)))
    missing = [name for name, pattern in _DEFAULT_WORDS.items() if not re.search(pattern, lines, re.I)]
    assert not missing, (
        f"help does not show the effective default for: {', '.join(missing)}; lines stating defaults: "
        f"{lines[:800]!r}")


# ── A2ACLI_CONFIG_001 ─────────────────────────────────────────────────────────────────────

def _persisted(box: IsolatedHome) -> list[Path]:
    """Files the tool left in its home or working directory (TMPDIR is scratch, not persistence)."""
    return sorted(p for d in (box.home, box.work) if d.is_dir() for p in d.rglob("*") if p.is_file())


def _conventional(box: IsolatedHome, p: Path) -> bool:
    """Under the XDG configuration, data, state or cache directory (``~/.config/a2a-cli/`` and kin)."""
    return any(p.is_relative_to(d) for d in (box.config, box.data, box.state, box.cache))


@dataclass
class Observed:
    """What one isolated home held after a session of ordinary runs."""

    files: dict[Path, bytes]
    modes: dict[Path, int]
    ids: list[str]
    token: str
    show: CliResult
    show_changed: bool
    box: IsolatedHome


def _observe(cli: Cli, agent: AgentMaker, token: str, evidence: Evidence) -> Observed:
    """Two authenticated sends, a card get and a task get in one home, then ``config show``."""
    a = agent(Script(card=CardSpec(security=(Bearer(token),)), send=TaskFlow()))
    box = cli.runner.new_home()
    try:
        for args in (("send", "--text", "one", "--bearer", token), ("send", "--text", "two", "--bearer", token),
                     ("card", "get")):
            r = cli.run(*args, *card_ref(a), home=box)
            assert r.exit_code == 0, f"{' '.join(args[:2])}: exit {r.exit_code}; stderr: {r.stderr_text[:300]!r}"
        assert a.tasks, "the agent created no task"
        r = cli.run("task", "get", a.tasks[0].id, *card_ref(a), "--bearer", token, home=box)
        assert r.exit_code == 0, f"task get: exit {r.exit_code}; stderr: {r.stderr_text[:300]!r}"
        files = {p: p.read_bytes() for p in _persisted(box)}
        modes = {p: stat.S_IMODE(p.stat().st_mode) for p in files}
        show = cli.run("config", "show", home=box)
        after = {p: p.read_bytes() for p in _persisted(box)}
    except BaseException:
        box.cleanup()
        raise
    evidence.add("persisted files", [
        {"path": str(p.relative_to(box.root)), "mode": oct(modes[p]), "holds_credential": token.encode() in body}
        for p, body in files.items()])
    ids = [t.id for t in a.tasks] + [t.context_id for t in a.tasks]
    return Observed(files, modes, [i for i in ids if i], token, show, files != after, box)


def _config_problems(o: Observed, part: str) -> list[str]:
    """What is wrong with the stored configuration for one part of CONFIG_001."""
    problems: list[str] = []
    for p, body in o.files.items():
        where = p.relative_to(o.box.root)
        if part == "conventional_path" and not _conventional(o.box, p):
            problems.append(f"{where} is outside the XDG configuration/data/state/cache directories")
        if part == "secret_file_mode" and o.token.encode() in body and o.modes[p] & 0o077:
            problems.append(f"{where} holds the credential with mode {oct(o.modes[p])} (want 0600)")
        held = [i for i in o.ids if i.encode() in body]
        if part == "no_session_state" and held:
            problems.append(f"{where} stores the task/context identifier(s) {held}")
    if part == "config_show":
        if o.show.exit_code != 0:
            problems.append(f"the tool persists configuration but `config show` exits {o.show.exit_code}: "
                            f"{o.show.stderr_text[:200]!r}")
        elif o.show_changed:
            problems.append("`config show` changed the stored files (it must be read-only)")
    return problems


@pytest.mark.parametrize("part", [pytest.param(p, marks=pytest.mark.requirement("A2ACLI_CONFIG_001", part=p))
                                  for p in ("conventional_path", "secret_file_mode", "config_show",
                                            "no_session_state")])
def test_persisted_configuration_is_safe_and_holds_no_session(cli: Cli, agent: AgentMaker,
                                                              new_secret: Callable[[str], str],
                                                              evidence: Evidence, part: str) -> None:
    """After authenticated sends, a card get and a task get in one isolated home: whatever the tool
    stored sits under the XDG directories; a file holding the credential has no group/other permission
    bits; ``config show`` exists and changes nothing; no file holds a taskId or contextId the agent
    assigned. When nothing is stored and there is no ``config show``, the requirement does not apply.
    Catches session state kept for resume and world-readable tokens."""
    o = _observe(cli, agent, new_secret("bearer"), evidence)
    try:
        if not o.files and o.show.exit_code != 0:
            na("the tool persisted no configuration during the runs and has no `config show`")
        problems = _config_problems(o, part)
        if problems:
            fail(f"{part}: " + "; ".join(problems))
    finally:
        o.box.cleanup()
