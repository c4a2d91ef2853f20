"""A2ACLI_CLI_002 (SPEC.md §7.1): `completion <shell>` prints a completion script for the named shell.

For each of bash, zsh and fish: the script the tool prints is accepted by that shell (``<shell> -n``)
and, loaded into a real shell, completes the spec's command surface — the command words (``send``,
``card``, ``task``, ``help``, ``completion``) at the start of a line, a word from its prefix, the
subcommands of ``task`` and ``card``, and a long option of ``send`` (``conformance.cli.shells`` says
how each shell is driven). A shell not installed on this machine leaves its check ``not_measured``,
naming the shell; a tool that prints nothing, or a script the shell rejects, fails.
"""

from __future__ import annotations

import pytest

from conformance.cli import shells
from conformance.clicheck.invocations import Cli
from conformance.evidence import Evidence
from conformance.judge import shown
from conformance.outcome import not_measured

CLI = "A2ACLI_CLI_002"

#: What TAB must offer after each prefix (the program name comes first): at least these words.
EXPECTED: dict[str, set[str]] = {
    "": {"send", "card", "task", "help", "completion"},
    "ta": {"task"},
    "task ": {"get", "cancel"},
    "card ": {"get"},
    "send --ag": {"--agent-card"},
}
DRIVERS = {"bash": shells.bash_complete, "zsh": shells.zsh_complete, "fish": shells.fish_complete}


@pytest.mark.requirement(CLI)
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_loads_and_completes_the_commands(cli: Cli, shell: str, evidence: Evidence) -> None:
    """`completion <shell>` exits 0 with a script the shell parses, and the shell, having loaded it,
    completes the command words, ``task``/``card`` subcommands and ``send --agent-card`` (offered as
    ``--agent-card=`` too: what zsh's ``_arguments`` inserts for an option taking a value).

    Catches defects `completion-bash-syntax` (bash) and `completion-misses-task` (every shell).
    """
    if shells.available(shell) is None:
        not_measured(f"{shell} is not installed on this machine, so its completion script cannot be loaded")
    r = cli.run("completion", shell)
    assert r.exit_code == 0 and r.stdout_text.strip(), (
        f"expected `completion {shell}` to print a script and exit 0; {shown(r)}")
    script = r.stdout_text
    try:
        shells.syntax_check(shell, script)
        prog, offered = DRIVERS[shell](script, list(EXPECTED))
    except shells.ShellProblem as exc:
        raise AssertionError(f"expected {shell} to load the script printed by `completion {shell}`: {exc}; "
                             f"{shown(r)}") from None
    evidence.add(f"{shell} completions", {"program": prog, "offered": offered})
    short = {f"{prog} {probe}<TAB>": sorted(want - shells.offered_words(offered.get(probe, [])))
             for probe, want in EXPECTED.items()}
    short = {k: v for k, v in short.items() if v}
    assert not short, (f"expected {shell}, with the script loaded, to complete the commands; not offered: "
                       f"{short}; {shown(r)}")
