"""``agentd-conformance cli``: check an a2a-cli client against the scripted agent."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from conformance.cli.adapter import Adapter, Unsupported
from conformance.cli.cost import Cost, cli_process_seconds
from conformance.command.errors import UsageFailure
from conformance.command.run import RunOptions, command_line, pairs, plan, run_suite, started
from conformance.context import RunContext, private_dir
from conformance.paths import SUITES_DIR
from conformance.targets.model import CliTarget, TargetError

SUITE = SUITES_DIR / "cli"
AGENT_TESTED = "agentd-conformance scripted agent (a2a-sdk 1.3, loopback)"


def cmd_cli(args: argparse.Namespace) -> int:
    try:
        target = CliTarget.build(exe=args.exe, adapter=args.adapter, skill=args.skill,
                                 env=pairs(args.env, "--env"), cli_timeout=args.cli_timeout)
    except TargetError as exc:
        raise UsageFailure(str(exc)) from None
    opts = RunOptions.from_args(args, "a2acli", args.require_tier and f"tier_{args.require_tier}", args.tier)
    return run_cli(target, opts)


def run_cli(target: CliTarget, opts: RunOptions) -> int:
    """Run the CLI suite against ``target``; returns the exit code."""
    planned = plan(opts, "a2acli", opts.tier, target.default_name())
    name, out = planned.name, planned.out
    adapter = target.adapter
    ctx = RunContext(
        family="a2acli", target=target.to_dict(),
        run={"target": name, "tool": target.tool, "tool_version": _tool_version(list(target.prefix),
                                                                                 target.adapter_file),
             "extra": {"skill_given": target.skill is not None,
                       "skill": str(target.skill) if target.skill else "none (no --skill given)"},
             "adapter": adapter.identity() if adapter is not None else None, "agent_tested": AGENT_TESTED,
             "command": command_line(sys.argv[1:]), "started": started()},
        scope=planned.ids, scope_note=planned.note)
    sys.stderr.write(f"agentd-conformance: checking {shlex.join(target.prefix)} → {out}\n")
    t0 = time.monotonic()
    code = run_suite(SUITE, ctx, out, opts.jobs, opts.timeout, opts.allure_dir)
    wall = time.monotonic() - t0
    result = planned.conclude(code, opts)
    print(Cost(*cli_process_seconds(out), wall, opts.jobs).line())
    return result


def _tool_version(prefix: list[str], adapter: str | None = None) -> str | None:
    """The version line the tool prints for --version (through the adapter, if any), if it prints one
    within a few seconds."""
    args = ["--version"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if adapter:
        try:
            args, extra = Adapter.load(Path(adapter)).translate(args)
        except Unsupported:
            return None
        env.update({k: v for k, v in extra.items() if v is not None})
    home = private_dir("agentd-conformance-version-")
    env["HOME"] = str(home)
    try:
        proc = subprocess.run([*prefix, *args], capture_output=True, timeout=10, env=env,
                              stdin=subprocess.DEVNULL, cwd=home)
    except (OSError, subprocess.TimeoutExpired):
        return None
    finally:
        shutil.rmtree(home, ignore_errors=True)
    text = proc.stdout.decode("utf-8", errors="replace").strip().splitlines()
    if proc.returncode != 0 or not text:
        return None
    return text[0].strip()[:120]
