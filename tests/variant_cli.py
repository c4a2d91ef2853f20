"""The reference CLI with conforming variations that real tools have, to prove a check does not fail
them: a false fail of the harness, shown on a tool that differs from the reference only where the
specification leaves a choice.

Run as ``python tests/variant_cli.py ARGS`` with ``VARIANT_CLI=name[,name...]`` in the environment
(``--env VARIANT_CLI=...`` on the command line); every invocation no variant touches is the reference
CLI's own. :data:`VARIANTS` says what each one changes and where it was seen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

ENV_VAR = "VARIANT_CLI"

#: zsh's own completion system (`_arguments`, what Click, clap and cobra generate for zsh): an option that
#: takes a value is completed as ``--agent-card=``.
ZSH_ARGUMENTS_SCRIPT = r"""#compdef a2a-cli
_a2a_cli() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  _arguments -C \
    '--agent-card=[the agent card reference]:reference: ' \
    '1: :(card config send task help auth completion chat conformance demo-server)' \
    '*:: :->args'
  case $state in
    args)
      case $words[1] in
        card) _arguments '1: :(get)' ;;
        task) _arguments '1: :(get cancel list subscribe download push-config)' ;;
        send) _arguments '--agent-card=[the agent card reference]:reference: ' '--text=[a text part]:text: ' ;;
      esac ;;
  esac
}
compdef _a2a_cli a2a-cli
"""


def _zsh_arguments(argv: list[str]) -> list[str] | None:
    if argv == ["completion", "zsh"]:
        sys.stdout.write(ZSH_ARGUMENTS_SCRIPT)
        sys.exit(0)
    return argv


def _reject(feature: str, kind: str = "option") -> Callable[[list[str]], list[str] | None]:
    """A tool without ``feature``: an invocation using it is a usage error naming it (exit 2)."""
    def step(argv: list[str]) -> list[str] | None:
        if any(a == feature or a.startswith(feature + "=") for a in argv):
            sys.stderr.write(f"a2a-cli: unknown {kind} '{feature}'\nusage: a2a-cli <command> [options]\n")
            sys.exit(2)
        return argv
    return step


#: name -> (what it changes, the step: argv in, the argv the reference runs with out, or exit itself).
VARIANTS: dict[str, tuple[str, Callable[[list[str]], list[str] | None]]] = {
    "zsh-arguments": ("`completion zsh` prints an `_arguments` script, so zsh completes an option taking a "
                      "value as `--agent-card=`", _zsh_arguments),
    "no-verbose": ("no --verbose flag (a2a-handler 0.4.0's -v/--verbose is log verbosity; other tools have "
                   "none): it is an unknown option", _reject("--verbose")),
}


def main() -> None:
    argv = sys.argv[1:]
    for name in (n.strip() for n in os.environ.get(ENV_VAR, "").split(",") if n.strip()):
        if name not in VARIANTS:
            sys.stderr.write(f"variant-cli: no variant {name!r} (known: {', '.join(VARIANTS)})\n")
            sys.exit(70)
        out = VARIANTS[name][1](argv)
        argv = argv if out is None else out
    os.execv(sys.executable, [sys.executable, "-m", "conformance.fixtures.reference_cli", *argv])


if __name__ == "__main__":
    main()
