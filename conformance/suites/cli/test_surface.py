"""The tool's own surface (SPEC.md §7.1, §7.2, §6.5): ``help``, ``<command> --help``, ``-v/--version``
and the effective defaults shown in --help.
"""

from __future__ import annotations

import re

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import Cli
from conformance.judge import clip

#: The Tier 1 commands whose --help must work (§7.1).
TIER1_COMMANDS = (("send",), ("card", "get"), ("task", "get"), ("task", "cancel"))


def _usage_ok(r: CliResult, what: str) -> str:
    """Assert ``r`` printed usage and exited 0; return what it printed."""
    assert r.exit_code == 0, f"{what}: expected exit 0, got {r.exit_code}; stderr: {clip(r.stderr_text)}"
    text = r.stdout_text + r.stderr_text
    assert text.strip(), f"{what}: expected usage text, printed nothing"
    assert re.search(r"usage|options|commands", text, re.I), f"{what}: expected usage text; got {clip(text)}"
    return text


# ── A2ACLI_CLI_001 ────────────────────────────────────────────────────────────────────────

def _names_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def help_tree_gap(cli: Cli, words: list[str], top: str, groups: dict[tuple[str, ...], str]) -> str | None:
    """None when help reaches the command ``words`` (the tool's words): the top-level help names the
    whole path ("card get"), or names its group ("card") whose own ``card --help`` — exit 0 — names the
    next word, and so on down (a nested help tree, as Click, clap and cobra print it). Otherwise where
    the tree stops. ``groups`` caches each group's help text ("" when it printed no usage)."""
    if re.search(r"(?<![\w-])" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])", top):
        return None
    text = top
    for i, word in enumerate(words):
        if not _names_word(text, word):
            where = "the top-level help" if i == 0 else f"`{' '.join(words[:i])} --help`"
            return f"{where} does not name {word!r}"
        if i == len(words) - 1:
            return None
        prefix = tuple(words[: i + 1])
        if prefix not in groups:
            r = cli.run(*prefix, "--help")
            out = r.stdout_text + r.stderr_text
            groups[prefix] = out if r.exit_code == 0 and re.search(r"usage|commands", out, re.I) else ""
        text = groups[prefix]
    return None


@pytest.mark.requirement("A2ACLI_CLI_001", part="help")
def test_help_command_prints_usage_reaching_the_commands(cli: Cli) -> None:
    """``help`` (and ``--help``) print usage and exit 0 without needing an agent, and the help reaches
    each Tier 1 command: named in the top-level help ("card get"), or through a help tree — the top
    level names the group (``card``) and the group's own ``--help`` names the subcommand (``get``), as
    nested parsers (Click, clap, cobra) print it. Through an adapter the commands are looked for in the
    tool's own words (``send`` as ``message send``: ``message`` at the top, ``send`` under ``message
    --help``). Catches a missing ``help`` command, and help that never leads to a command."""
    groups: dict[tuple[str, ...], str] = {}
    for args in (("help",), ("--help",)):
        text = _usage_ok(cli.run(*args), " ".join(args))
        words = [cli.command_words(*c) for c in TIER1_COMMANDS]
        gaps = [f"{' '.join(w)} ({gap})" for w in words if (gap := help_tree_gap(cli, w, text, groups))]
        assert not gaps, f"{' '.join(args)} does not reach the commands {gaps}; got {clip(text)}"


@pytest.mark.requirement("A2ACLI_CLI_001", part="command_help")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_CARD_GET_001", "A2ACLI_TASK_GET_001", "A2ACLI_TASK_CANCEL_001")
@pytest.mark.parametrize("command", TIER1_COMMANDS, ids=lambda c: "-".join(c))
def test_command_help_prints_its_usage_and_exits(cli: Cli, command: tuple[str, ...]) -> None:
    """``<command> --help`` prints that command's usage and exits 0, with no agent given (it does not
    try to run the command). For ``send`` the usage names its ``--text`` option (the tool's spelling of
    it, through an adapter). Catches a --help that is ignored or that runs the command."""
    text = _usage_ok(cli.run(*command, "--help"), f"{' '.join(command)} --help")
    if command == ("send",):
        text_flag = cli.flag_spelling("--text")
        assert text_flag in text, f"send --help does not document {text_flag}; got {clip(text)}"


@pytest.mark.requirement("A2ACLI_CLI_001", part="version")
def test_version_flags_print_the_tool_version(cli: Cli) -> None:
    """``-v`` and ``--version`` each exit 0 and print the same line carrying a version number. Through an
    adapter each is asked in the tool's spelling (a tool whose ``-v`` means something else maps it; the
    report's identity records that rewrite). Catches a missing or misrouted version flag."""
    outs = []
    for flag in ("-v", "--version"):
        r = cli.run(flag)
        assert r.exit_code == 0, f"{flag}: expected exit 0, got {r.exit_code}; stderr: {clip(r.stderr_text)}"
        out = (r.stdout_text or r.stderr_text).strip()
        assert re.search(r"\d+\.\d+", out), f"{flag}: no version number in {out[:200]!r}"
        outs.append(out)
    assert outs[0] == outs[1], f"-v and --version disagree: {outs[0]!r} vs {outs[1]!r}"


#: Each §6.5 default, and words by which a line of help can name the value the spec gives it.
_DEFAULT_WORDS: dict[str, str] = {
    "transport": r"supportedInterfaces|card'?s? (order|preference)|server preference|first (supported )?"
                 r"(interface|entry)",
    "task completion": r"\bwait",
    "output": r"\btext\b",
    "detail": r"concise",
    "protocol version": r"\b1\.0\b|highest",
    "transport security": r"\btls\b|verif|certificate",
}

#: Each §6.5 default, and words by which a line of help can name *some* value of it (the spec's or
#: another): what CLI_001 asks is that the effective value is shown, whichever it is.
_ANY_VALUE_WORDS: dict[str, str] = {
    "transport": _DEFAULT_WORDS["transport"] + r"|json-?rpc|http\+json|\brest\b|grpc",
    "task completion": r"\bwait|\basync|\bblock|\breturn",
    "output": r"\btext\b|\bjson|\byaml\b|\btable\b",
    "detail": r"concise|verbose|brief|\bfull\b|detail",
    "protocol version": r"\b\d+\.\d+\b|highest|latest",
    "transport security": _DEFAULT_WORDS["transport security"] + r"|insecure|\bhttps?\b",
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


def _stated_defaults(cli: Cli) -> str:
    """The lines of ``--help`` and ``send --help`` that state defaults (each run must print usage)."""
    texts = [_usage_ok(cli.run(*args), " ".join(args)) for args in (("--help",), ("send", "--help"))]
    return "\n".join(default_lines("\n".join(texts)))


@pytest.mark.requirement("A2ACLI_CLI_001", part="defaults_shown")
@pytest.mark.depends_on("A2ACLI_SEND_001")
def test_help_shows_each_effective_default(cli: Cli) -> None:
    """``--help`` or ``send --help`` states a value for each of the six §6.5 defaults on a line that says
    it is a default (or in a "defaults" section): the effective value, whichever it is (that it is the
    spec's value is DEFAULT_001's, judged beside). Catches help that lists flags but hides what happens
    when they are not given."""
    lines = _stated_defaults(cli)
    missing = [name for name, pattern in _ANY_VALUE_WORDS.items() if not re.search(pattern, lines, re.I)]
    assert not missing, (
        f"help does not show the effective default for: {', '.join(missing)}; lines stating defaults: "
        f"{lines[:800]!r}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001")
@pytest.mark.depends_on("A2ACLI_SEND_001", "A2ACLI_CLI_001")
def test_help_states_the_spec_defaults(cli: Cli) -> None:
    """DEFAULT_001 asks that the six baseline defaults ship and that their effective values are shown (e.g.
    in --help): the defaults ``--help`` states are the §6.5 values (card order, wait, text, concise, 1.0 or
    the highest mutual version, TLS verified). Catches help stating another default, or none."""
    lines = _stated_defaults(cli)
    unstated = [name for name, pattern in _ANY_VALUE_WORDS.items() if not re.search(pattern, lines, re.I)]
    other = [name for name, pattern in _DEFAULT_WORDS.items()
             if name not in unstated and not re.search(pattern, lines, re.I)]
    assert not unstated and not other, (
        f"help states no default for: {', '.join(unstated) or '-'}; a default other than the spec's for: "
        f"{', '.join(other) or '-'}; lines stating defaults: {lines[:800]!r}")
