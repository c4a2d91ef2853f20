"""``agentd-conformance agent``: check an A2A agent (the agentd family, or the core A2A family)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
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
from conformance.paths import PACKAGE_DIR, SUITES_DIR, python_module
from conformance.pipeline import conclude
from conformance.registry import default_registry
from conformance.report import ReportWriteError, RunInfo
from conformance.targets import lifecycle
from conformance.targets.model import CONTAINER, LAUNCH, AgentTarget, TargetError
from conformance.targets.run_image import argv_for

#: The JSON Schema bundles of the agentd page (``--schema-source``).
BUNDLES = ("command", "events", "task-annotations")


def cmd_agent(args: argparse.Namespace) -> int:
    try:
        target = AgentTarget.build(
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
    planned = plan(opts, opts.family, None, target.default_name())
    name, out = planned.name, planned.out
    schema_dir = _schema_source(opts.schema_source, target, out)
    if schema_dir is not None:
        target.schema_dir = str(schema_dir)
    extra: dict[str, Any] = {"schema_source": opts.schema_source} if opts.family == "agentd" else {}
    if target.kind == CONTAINER:
        try:
            extra.update(lifecycle.preflight(target, out, target.secrets()))
        except lifecycle.PreflightUsage as exc:
            raise UsageFailure(str(exc)) from None
        except lifecycle.PreflightFailure as exc:
            raise HarnessFailure(str(exc)) from None
        if target.binary is None:  # the image's entry point
            target.binary = shlex.join(argv_for(str((target.container or {})["image"])))
    ctx = RunContext(
        family=opts.family, target=target.to_dict(), provides=target.provides(),
        run={"target": name, "agent_tested": target.where(), "bundled_target": target.bundled(),
             "env_given": sorted((target.container or {}).get("env") or {}),
             "command": command_line(public_argv(secret_free_argv(sys.argv[1:]))),
             "started": started(), "extra": extra},
        secrets=target.secrets(), scope=planned.ids, scope_note=planned.note)
    suite = SUITES_DIR / "agent" / ("agentd" if opts.family == "agentd" else "core")
    if target.running and (legacy := _preflight(target, ctx, out)) is not None:
        # Speaks only A2A 0.3: no 1.0 row applies; the report says so for each row, nothing is run.
        run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
        try:
            conclude(out, default_registry(), ctx.family, [], run, SecretSet(ctx.secrets), inapplicable=legacy)
        except ReportWriteError as exc:
            raise HarnessFailure(str(exc)) from exc
        return planned.conclude(0, opts)
    jobs = workers(opts.jobs, opts.family, planned.ids)
    ctx.run["jobs"] = jobs.line()
    sys.stderr.write(f"agentd-conformance: checking {name} ({opts.family}) → {out}; --jobs {jobs.line()}\n")
    try:
        code = run_suite(suite, ctx, out, jobs.n, opts.timeout, opts.allure_dir)
    finally:
        if target.kind == CONTAINER:
            lifecycle.cleanup(target)
    return planned.conclude(code, opts)


def _preflight(target: AgentTarget, ctx: RunContext, out: Path) -> str | None:
    """Stop before the checks when nothing answers (exit 3), or when the agent demands a credential
    the user did not give or refuses the one given (exit 3, with a report whose every row is
    not_measured, naming the reason). Returns why the a2a family does not apply when the agent speaks only
    A2A 0.3 (said in one line), else None."""
    # Here, not at the top: the probes' HTTP client (httpx, the A2A SDK) is start-up a run of a launched or
    # contained target never needs in this process (tests/test_front_imports.py).
    from conformance.targets.preflight import preflight
    from conformance.wire.versions import declares_0_3

    url = target.url or f"unix://{target.path}"
    tokens = target.tokens
    bearer = tokens.get("operator") or next(iter(tokens.values()), None)
    found = preflight(url, uds=target.path, credentials_given=bool(tokens), bearer=bearer, origins=target.origins())
    if found.verdict == "unreachable":
        raise HarnessFailure(found.message)
    if found.busy_note:
        sys.stderr.write(f"agentd-conformance: note: {found.busy_note}\n")
        ctx.run.setdefault("caveats", []).append(found.busy_note)
    if (ctx.family == "a2a" and found.verdict == "go" and found.location is not None
            and isinstance(found.location.card, Mapping) and declares_0_3(found.location.card)):
        # The wire probe (and the checks' caller, judge and SDK it imports: a quarter of a second of this
        # process's start-up, issue 20) only for a card that declares 0.3, as speaks_only_0_3 asks first.
        from conformance.targets.core import speaks_only_0_3

        legacy = speaks_only_0_3(found.location.card, token=bearer, timeout=target.call_timeout,
                                 origins=target.origins())
        if legacy is not None:
            sys.stderr.write(f"agentd-conformance: {url} {legacy}; every row is na\n")
            return legacy
    if found.verdict not in ("auth_required", "auth_refused"):
        return None
    run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
    try:
        conclude(out, default_registry(), ctx.family, [], run, SecretSet(ctx.secrets), scope=[],
                 scope_note=f"not measured: {found.message}")
    except ReportWriteError as exc:
        raise HarnessFailure(str(exc)) from exc
    print_summary(read_report(out, 0), out)
    raise HarnessFailure(found.message)


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
    if target.binary:
        prefix = shlex.split(target.binary)
    elif target.kind == LAUNCH and target.name == "reference":
        prefix = python_module("conformance.fixtures.reference_agentd")
    else:
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
