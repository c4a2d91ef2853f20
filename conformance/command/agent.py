"""``agentd-conformance agent``: check an A2A agent (the agentd family, or the core A2A family)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from conformance import revision
from conformance.command.errors import HarnessFailure, UsageFailure
from conformance.command.identity import public_argv, secret_free_argv
from conformance.command.run import (
    RunOptions,
    command_line,
    pairs,
    plan,
    print_summary,
    read_report,
    run_suite,
    started,
    workers,
)
from conformance.context import RunContext
from conformance.evidence import SecretSet
from conformance.paths import PACKAGE_DIR, SUITES_DIR
from conformance.pipeline import conclude
from conformance.registry import default_registry
from conformance.report import ReportWriteError, RunInfo
from conformance.targets.kinds import build_target, kind_of
from conformance.targets.lifecycle import PreflightFailure, PreflightUsage
from conformance.targets.model import AgentTarget, TargetError

#: The JSON Schema bundles of the agentd page (``--schema-source``).
BUNDLES = ("command", "events", "task-annotations")


def cmd_agent(args: argparse.Namespace) -> int:
    try:
        target = build_target(
            url=args.url, unix=args.unix, launch=args.launch,
            container={"image": args.container} if args.container else None,
            container_env=pairs(args.container_env, "--container-env"),
            container_env_plain=pairs(args.container_env_plain, "--container-env-plain"),
            tokens=pairs(args.token, "--token"), facts=pairs(args.fact, "--fact"), defects=args.defect,
            long_running_text=args.long_running_text, binary=args.agentd_binary, call_timeout=args.call_timeout,
            allow_origins=args.allow_origin, spec_revision=args.spec_revision)
    except TargetError as exc:
        raise UsageFailure(str(exc)) from None
    opts = RunOptions.from_args(args, args.family, args.require_level and f"level_{args.require_level}")
    return run_agent(target, opts)


def run_agent(target: AgentTarget, opts: RunOptions) -> int:
    """Run the family's suite against ``target``; returns the exit code."""
    revision.use(target.spec_revision)  # this process's tables and rows: the report names the revision
    kind = kind_of(target)
    planned = plan(opts, opts.family, None, kind.default_name())
    name, out = planned.name, planned.out
    schema_dir = _schema_source(opts.schema_source, target, out)
    if schema_dir is not None:
        target.schema_dir = str(schema_dir)
    extra: dict[str, Any] = {"schema_source": opts.schema_source} if opts.family == "agentd" else {}
    try:
        found = kind.preflight(opts.family, out)
    except PreflightUsage as exc:
        raise UsageFailure(str(exc)) from None
    except PreflightFailure as exc:
        raise HarnessFailure(str(exc)) from None
    extra.update(found.extra)
    ctx = RunContext(
        family=opts.family, target=target.to_dict(), provides=kind.provides(),
        run={"target": name, "agent_tested": kind.where(), "bundled_target": kind.bundled(),
             "env_given": kind.env_given(),
             "command": command_line(public_argv(secret_free_argv(sys.argv[1:]))),
             "started": started(), "extra": extra, **({"caveats": found.caveats} if found.caveats else {})},
        secrets=target.secrets(), scope=planned.ids, scope_note=planned.note)
    suite = SUITES_DIR / "agent" / ("agentd" if opts.family == "agentd" else "core")
    if found.inapplicable is not None:
        # Speaks only A2A 0.3: no 1.0 row applies; the report says so for each row, nothing is run.
        _conclude_unrun(out, ctx, inapplicable=found.inapplicable)
        return planned.conclude(0, opts)
    if found.refused is not None:
        # The agent demands a credential the user did not give, or refuses the one given: exit 3, with a
        # report whose every row is not_measured, naming the reason.
        _conclude_unrun(out, ctx, scope=[], scope_note=f"not measured: {found.refused}")
        print_summary(read_report(out, 0), out)
        raise HarnessFailure(found.refused)
    jobs = workers(opts.jobs, opts.family, planned.ids, found.bindings)
    ctx.run["jobs"] = jobs.line()
    sys.stderr.write(f"agentd-conformance: checking {name} ({opts.family}) → {out}; --jobs {jobs.line()}\n")
    try:
        code = run_suite(suite, ctx, out, jobs.n, opts.timeout, opts.allure_dir)
    finally:
        kind.cleanup()
    return planned.conclude(code, opts)


def _conclude_unrun(out: Path, ctx: RunContext, **how: Any) -> None:
    """Write the report of a run whose checks did not run (``how``: why, for ``pipeline.conclude``)."""
    run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
    try:
        conclude(out, default_registry(), ctx.family, [], run, SecretSet(ctx.secrets), **how)
    except ReportWriteError as exc:
        raise HarnessFailure(str(exc)) from exc


def _schema_source(source: str, target: AgentTarget, out: Path) -> Path | None:
    """Where the run's schema bundles come from; ``target`` copies them out of the target's binary."""
    source = source or "ours"
    if source == "ours":
        return None
    if source != "target":
        folder = Path(source)
        missing = [b for b in BUNDLES if not (folder / f"{b}.schema.json").is_file()]
        if missing:
            raise UsageFailure(f"--schema-source: {source} lacks {', '.join(f'{b}.schema.json' for b in missing)}")
        for b in BUNDLES:
            try:
                json.loads((folder / f"{b}.schema.json").read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise UsageFailure(f"--schema-source: {folder / f'{b}.schema.json'} is not JSON: {exc}") from exc
        return folder.resolve()
    prefix = shlex.split(target.binary) if target.binary else kind_of(target).executable()
    if prefix is None:
        raise UsageFailure("--schema-source target needs --agentd-binary CMD (the target's own executable)")
    folder = out / "schemas"
    folder.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "PYTHONPATH": str(PACKAGE_DIR.parent), "HOME": str(folder)}
    for b in BUNDLES:
        try:
            proc = subprocess.run([*prefix, "--extension-schema", b], capture_output=True, timeout=30, env=env,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise UsageFailure(f"--schema-source target: cannot run {shlex.join(prefix)}: {exc}") from exc
        try:
            json.loads(proc.stdout)
        except ValueError:
            raise UsageFailure(f"--schema-source target: `{shlex.join(prefix)} --extension-schema {b}` printed "
                               f"no JSON (exit {proc.returncode})") from None
        (folder / f"{b}.schema.json").write_bytes(proc.stdout)
    return folder
