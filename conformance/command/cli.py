"""``agentd-conformance cli``: check an a2a-cli client against the scripted agent."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Mapping

from conformance import revision
from conformance.cli.cost import Cost, cli_process_seconds
from conformance.command.errors import UsageFailure
from conformance.command.identity import (
    REFERENCE_CLI_FACTS,
    SCRIPTED_AGENT_TCK,
    VERSION_TIMEOUT,
    adapter_info,
    machine_caveats,
    public_argv,
    public_path,
    secret_free_argv,
    tool_version,
)
from conformance.command.run import RunOptions, command_line, pairs, plan, run_suite, started, workers
from conformance.context import RunContext
from conformance.paths import SUITES_DIR
from conformance.registry import default_registry
from conformance.targets.model import CliTarget, TargetError

SUITE = SUITES_DIR / "cli"
AGENT_TESTED = "agentd-conformance scripted agent (a2a-sdk 1.3, loopback)"


def cmd_cli(args: argparse.Namespace) -> int:
    try:
        target = CliTarget.build(exe=args.exe, adapter=args.adapter, skill=args.skill,
                                 env=pairs(args.env, "--env"), env_plain=pairs(args.env_plain, "--env-plain"),
                                 cli_timeout=args.cli_timeout)
    except TargetError as exc:
        raise UsageFailure(str(exc)) from None
    opts = RunOptions.from_args(args, "a2acli", args.require_tier and f"tier_{args.require_tier}", args.tier)
    facts = {k: getattr(args, k) for k in ("language", "repository", "maintainer") if getattr(args, k, None)}
    return run_cli(target, opts, facts)


def tool_facts(target: CliTarget, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """COMPLIANCE.md §1's language, repository and maintainer: as given (``--language`` ...), the bundled
    reference's own, or a sentence naming the flag that would fill the field."""
    given = dict(given or {})
    own = REFERENCE_CLI_FACTS if target.reference else {}
    return {k: given.get(k) or own.get(k) or f"not given (--{k})" for k in ("language", "repository", "maintainer")}


def run_cli(target: CliTarget, opts: RunOptions, facts: Mapping[str, str] | None = None) -> int:
    """Run the CLI suite against ``target``; returns the exit code."""
    revision.use(None)  # a matrix may have judged an agent by an older A2A text before this CLI
    planned = plan(opts, "a2acli", opts.tier, target.default_name())
    name, out = planned.name, planned.out
    adapter = target.adapter
    caveats = machine_caveats(default_registry(), planned.ids, "a2acli")
    for line in caveats:
        sys.stderr.write(f"agentd-conformance: {line}\n")
    ctx = RunContext(
        family="a2acli", target=target.to_dict(),
        run={"target": name, "tool": target.tool,
             "tool_version": tool_version(list(target.prefix), target.adapter_file, target.env,
                                         timeout=min(VERSION_TIMEOUT, target.timeout_cap or VERSION_TIMEOUT)),
             **tool_facts(target, facts), "agent_tck_conformant": SCRIPTED_AGENT_TCK,
             "extra": {"skill_given": target.skill is not None,
                       "skill": public_path(str(target.skill)) if target.skill else "none (no --skill given)"},
             "adapter": adapter_info(adapter) if adapter is not None else None, "agent_tested": AGENT_TESTED,
             "bundled_target": target.bundled(), "caveats": caveats, "env_given": target.env_given(),
             "command": command_line(public_argv(secret_free_argv(sys.argv[1:]))), "started": started()},
        secrets=target.secrets(), scope=planned.ids, scope_note=planned.note)
    jobs = workers(opts.jobs, "a2acli", planned.ids)
    ctx.run["jobs"] = jobs.line()
    sys.stderr.write(f"agentd-conformance: checking {shlex.join(target.prefix)} → {out}; --jobs {jobs.line()}\n")
    t0 = time.monotonic()
    code = run_suite(SUITE, ctx, out, jobs.n, opts.timeout, opts.allure_dir)
    wall = time.monotonic() - t0
    result = planned.conclude(code, opts)
    print(Cost(*cli_process_seconds(out), wall, jobs.n).line())
    return result
