"""The reference CLI with conforming variations that real tools have, to prove a check does not fail
them: a false fail of the harness, shown on a tool that differs from the reference only where the
specification leaves a choice. A variant marked NOT conforming shows the other side: a behaviour that
must not earn a passing part of a row it says nothing about.

Run as ``python tests/variant_cli.py ARGS`` with ``VARIANT_CLI=name[,name...]`` in the environment
(``--env-plain VARIANT_CLI=...`` on the command line); every invocation no variant touches is the reference
CLI's own. :data:`VARIANTS` says what each one changes and where it was seen.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from collections.abc import Callable

ENV_VAR = "VARIANT_CLI"
REFERENCE = "conformance.fixtures.reference_cli"

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


def _config_source_label(argv: list[str]) -> list[str] | None:
    """`config show` names a file's values by the kind of file, not its path (and prints no path)."""
    if argv[:2] != ["config", "show"]:
        return argv
    p = subprocess.run([sys.executable, "-m", REFERENCE, *argv], capture_output=True, text=True, check=False)
    out = []
    for line in p.stdout.splitlines():
        if line.startswith("Global-Config:"):
            continue
        m = re.search(r"\(from file (\S+)\)", line)
        if m:
            kind = "global" if "/.config/a2a-cli/" in m.group(1) else "local"
            line = line[:m.start()] + f"(source: {kind} .env file)" + line[m.end():]
        out.append(line + "\n")
    sys.stdout.write("".join(out))
    sys.stderr.write(p.stderr)
    sys.exit(p.returncode)


class _AnyString:
    def __contains__(self, item: object) -> bool:
        return isinstance(item, str)


def _validate_schema_only(argv: list[str]) -> list[str] | None:
    """`card get --validate` checks the card against the proto's types and REQUIRED fields only: the
    reference's extra check of `APIKeySecurityScheme.location` against the values its comment lists is
    switched off, so `location: "body"` passes (as in the SDK's own strict reader)."""
    if "--validate" in argv:
        from conformance.fixtures.reference_cli import card_more

        card_more.API_KEY_LOCATIONS = _AnyString()  # type: ignore[assignment]
    return argv


_GROUPS = {"card": "Agent card commands", "config": "Configuration commands", "task": "Task commands",
           "auth": "Sign-in commands"}


def _nested_help(argv: list[str]) -> list[str] | None:
    """Help as Click, clap and cobra print it: the top level lists the groups (`card`, `task`, ...), each
    group's own `--help` lists its subcommands by their last word (`get`, `cancel`)."""
    group = argv[0] if len(argv) == 2 and argv[1] in ("--help", "-h") and argv[0] in _GROUPS else None
    if argv not in (["help"], ["--help"], ["-h"]) and group is None:
        return argv
    p = subprocess.run([sys.executable, "-m", REFERENCE, *argv], capture_output=True, text=True, check=False)
    out: list[str] = []
    listed: set[str] = set()
    for line in p.stdout.splitlines():
        m = re.match(r"^  (card|config|task|auth) (\S+)\s+(.*)$", line)
        if m and group is None:
            if m.group(1) not in listed:
                listed.add(m.group(1))
                out.append(f"  {m.group(1):<12} {_GROUPS[m.group(1)]}")
            continue
        if m and group == m.group(1):
            line = f"  {m.group(2):<12} {m.group(3)}"
        out.append(line)
    sys.stdout.write("".join(ln + "\n" for ln in out))
    sys.stderr.write(p.stderr)
    sys.exit(p.returncode)


def _card_at_old_path(argv: list[str]) -> list[str] | None:
    """NOT conforming: `send` fetches the card at the pre-1.0 path `/.well-known/agent.json` (a 404 on a
    1.0 agent) and gives up — a tool that never learns what the card says."""
    if not argv or argv[0] != "send" or "-a" not in argv:
        return argv
    import urllib.error
    import urllib.request

    url = argv[argv.index("-a") + 1].rstrip("/") + "/.well-known/agent.json"
    try:
        urllib.request.urlopen(url, timeout=5).close()  # noqa: S310 - a loopback test agent
    except urllib.error.HTTPError as exc:
        sys.stderr.write(f"a2a-cli: error: cannot fetch the agent card {url}: HTTP {exc.code}\n")
        sys.exit(1)
    return argv


#: name -> (what it changes, the step: argv in, the argv the reference runs with out, or exit itself).
VARIANTS: dict[str, tuple[str, Callable[[list[str]], list[str] | None]]] = {
    "zsh-arguments": ("`completion zsh` prints an `_arguments` script, so zsh completes an option taking a "
                      "value as `--agent-card=`", _zsh_arguments),
    "no-verbose": ("no --verbose flag (a2a-handler 0.4.0's -v/--verbose is log verbosity; other tools have "
                   "none): it is an unknown option", _reject("--verbose")),
    "config-source-label": ("`config show` says \"(source: global .env file)\" instead of the file's path",
                            _config_source_label),
    "nested-help": ("help is a tree (Click, clap, cobra): the top level names the groups `card`, `task`, "
                    "`config`, `auth`; `<group> --help` names its subcommands", _nested_help),
    "card-at-old-path": ("NOT conforming: `send` asks for /.well-known/agent.json (404) and gives up",
                         _card_at_old_path),
    "validate-schema-only": ("`card get --validate` checks types and REQUIRED fields, not the values a "
                             "field's comment lists (apiKey `location: \"body\"` is accepted)", _validate_schema_only),
}


def main() -> None:
    argv = sys.argv[1:]
    for name in (n.strip() for n in os.environ.get(ENV_VAR, "").split(",") if n.strip()):
        if name not in VARIANTS:
            sys.stderr.write(f"variant-cli: no variant {name!r} (known: {', '.join(VARIANTS)})\n")
            sys.exit(70)
        out = VARIANTS[name][1](argv)
        argv = argv if out is None else out
    if "validate-schema-only" in os.environ.get(ENV_VAR, ""):  # patched in this process: run it here
        sys.argv = [sys.argv[0], *argv]
        runpy.run_module(REFERENCE, run_name="__main__", alter_sys=True)
        return
    os.execv(sys.executable, [sys.executable, "-m", REFERENCE, *argv])


if __name__ == "__main__":
    main()
