"""The ``agentd-conformance`` command.

Exit codes: 0 the run completed (and any required tier or level is satisfied); 1 a required tier or
level is not satisfied; 2 a usage error (bad flag, missing executable, malformed adapter or target
file); 3 the harness could not run, or the run was stopped (SIGINT, SIGTERM, SIGHUP) before it
finished. Every error is one line on stderr, never a traceback.

One module per part of the way from the command line to the exit code:

* :mod:`~conformance.command.parser` — the flags;
* :mod:`~conformance.command.cli` and :mod:`~conformance.command.agent` — the target model built from
  the flags (``conformance.targets.model``), then one suite run against it;
* :mod:`~conformance.command.run` — what every run shares: the run context, pytest in a child
  process, the report read back, the summary printed, the exit judged (required group, baseline,
  rerun);
* :mod:`~conformance.command.matrix` — many targets from a targets file (``conformance.campaign``);
* :mod:`~conformance.command.tools` — the commands that run no suite.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from conformance import interrupts
from conformance.command.errors import (
    EXIT_HARNESS,
    EXIT_OK,
    EXIT_USAGE,
    HarnessFailure,
    NothingToRerun,
    SuiteCrashed,
    UsageFailure,
    one_line,
)
from conformance.command.parser import build_parser, merge_parser
from conformance.registry import RegistryError

#: Each subcommand's handler as ``module:function``, imported only when that subcommand runs: the modules
#: behind the others (the scripted agent behind ``adapter check``, the container engine behind ``image``)
#: cost seconds of start-up that a ``cli`` run, and every pytest process it starts, would pay for nothing.
#: The commands that run suites: SIGTERM and SIGHUP stop them as Ctrl-C does (``conformance.interrupts``).
RUNS = ("cli", "agent", "matrix")
HANDLERS: dict[str, str] = {
    "registry": "tools:cmd_registry", "template": "tools:cmd_template", "cli": "cli:cmd_cli",
    "agent": "agent:cmd_agent", "serve-agent": "tools:cmd_serve_agent", "matrix": "matrix:cmd_matrix",
    "matrix merge": "matrix:cmd_matrix_merge", "report": "tools:cmd_report", "image": "tools:cmd_image",
    "spec-diff": "tools:cmd_spec_diff", "adapter": "tools:cmd_adapter",
}


def handler(command: str) -> Callable[[argparse.Namespace], int]:
    """The function that runs ``command`` (a key of :data:`HANDLERS`), its module imported now."""
    module, _, name = HANDLERS[command].partition(":")
    fn: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(f"conformance.command.{module}"), name)
    return fn


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(argv) if argv is not None else sys.argv[1:]
    try:
        if argv[:1] == ["serve-agent"]:  # everything after it belongs to the scripted agent's own parser
            return handler("serve-agent")(argparse.Namespace(rest=argv[1:]))
        if argv[:2] == ["matrix", "merge"]:
            return handler("matrix merge")(merge_parser().parse_args(argv[2:]))
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            sys.stderr.write("agentd-conformance: expected a command (see the list above)\n")
            return EXIT_USAGE
        if args.command in RUNS:
            interrupts.install()
        return handler(args.command)(args)
    except UsageFailure as exc:
        text = one_line(exc)
        sys.stderr.write(f"agentd-conformance: {text}\n" if not text.startswith("agentd-conformance") else f"{text}\n")
        return EXIT_USAGE
    except SuiteCrashed as exc:
        from conformance.command.run import crashed

        return crashed(exc)
    except (HarnessFailure, RegistryError) as exc:
        sys.stderr.write(f"agentd-conformance: {one_line(exc)}\n")
        return EXIT_HARNESS
    except NothingToRerun as exc:
        print(f"agentd-conformance: {exc}")
        return EXIT_OK
    except KeyboardInterrupt as exc:
        from conformance.command.run import interrupted  # the run's module: imported by every run already

        return interrupted(exc)
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        sys.stderr.write(f"agentd-conformance: internal error: {type(exc).__name__}: {exc}\n")
        return EXIT_HARNESS


__all__ = ["main"]
