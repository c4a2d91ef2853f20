"""The ``agentd-conformance`` command.

Exit codes: 0 the run completed (and any required tier or level is satisfied); 1 a required tier or
level is not satisfied; 2 a usage error (bad flag, missing executable, malformed adapter or target
file); 3 the harness could not run. Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import yaml

from conformance import __version__
from conformance.context import RunContext, private_dir
from conformance.evidence import MIN_SECRET_LEN, SecretSet, redact_tree, slug
from conformance.paths import FIXTURES_DIR, PACKAGE_DIR, SUITES_DIR, python_module
from conformance.registry import FAMILIES, RegistryError, default_registry

EXIT_OK, EXIT_UNSATISFIED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3
#: pytest exit codes of a run that completed: all passed, some checks failed, no check collected.
COMPLETED = (0, 1, 5)
REFERENCE_CLI = python_module("conformance.fixtures.reference_cli")
ROLES = ("operator", "user", "agent")
#: Load the plugin exactly once: block its pytest11 entry point (present once the package is installed),
#: then load it by module name (which also works from a checkout, where no entry point exists).
PLUGIN_ARGS = ("-p", "no:agentd_conformance", "-p", "conformance.plugin")


class UsageFailure(Exception):
    """A usage error: reported as one line, exit 2."""


class HarnessFailure(Exception):
    """The harness could not run: reported as one line, exit 3."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageFailure(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="agentd-conformance", description="Black-box conformance harness for A2A agents and a2a-cli "
                "command-line clients. Writes per-requirement verdicts with evidence.")
    p.add_argument("--version", action="version", version=f"agentd-conformance {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("registry", help="list the requirement registry")
    r.add_argument("--family", choices=FAMILIES, help="only this family")
    r.add_argument("--tier", type=int, help="only this tier and below")
    r.add_argument("--format", choices=("text", "json", "yaml", "markdown"), default=None,
                   help="text (default), json, yaml; with --coverage: markdown (default) or json")
    r.add_argument("--coverage", action="store_true",
                   help="per requirement: the checks that measure it, the defects that kill it, its needs")

    t = sub.add_parser("template", help="print the blank compliance-report YAML")
    t.add_argument("--family", choices=FAMILIES, default="a2acli")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--only", nargs="+", metavar="ID", help="run only the checks of these requirement ids")
        sp.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="parallel test processes (default 1)")
        sp.add_argument("--report-dir", metavar="DIR",
                        help="where to write the report (default reports/<target>/<timestamp>)")
        sp.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="stop the whole run after S seconds (default: no limit)")
        sp.add_argument("--allure-dir", metavar="DIR", help="also write allure results into DIR")
        sp.add_argument("--baseline", metavar="FILE",
                        help="expected results (YAML: id -> {status, reason}); exit 1 on a regression or a stale entry")
        sp.add_argument("--write-baseline", metavar="FILE", help="write this run's results as a baseline file")
        sp.add_argument("--rerun-failed", nargs="?", const="last", metavar="REPORT",
                        help="rerun only the rows not pass/na in REPORT (default: this target's latest report) "
                             "and write a merged report")

    c = sub.add_parser("cli", help="check an a2a-cli client (default: the bundled reference CLI)")
    c.add_argument("--exe", metavar="CMD", help="the CLI under test as a command line (argv prefix)")
    c.add_argument("--adapter", metavar="FILE", help="adapter YAML mapping the spec's grammar onto the tool's")
    c.add_argument("--skill", metavar="PATH", help="the Agent Skill (SKILL.md) the tool ships, if any")
    c.add_argument("--tier", type=int, choices=(1, 2, 3), default=3, help="run checks up to this tier (default 3)")
    c.add_argument("--require-tier", type=int, choices=(1, 2, 3), metavar="N",
                   help="exit 1 unless tier N is satisfied")
    c.add_argument("--cli-timeout", type=float, default=None, metavar="S",
                   help="bound on each invocation of the CLI (default 20 s; also caps longer waits checks ask for)")
    c.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="environment variable for the CLI under test (repeatable; the run is otherwise isolated)")
    c.add_argument("--name", metavar="NAME", help="target name for the report folder")
    common(c)

    a = sub.add_parser("agent", help="check a running A2A agent (default: launch the reference agentd)")
    where = a.add_mutually_exclusive_group()
    where.add_argument("--url", help="base URL of the agent (loopback or a test network)")
    where.add_argument("--unix", metavar="PATH", help="unix socket of the agent's JSON-RPC binding")
    where.add_argument("--launch", metavar="NAME", help="start a bundled target: reference (default), scripted, sdk")
    where.add_argument("--container", metavar="IMAGE",
                       help="start IMAGE (a local image; nothing is pulled) once per configuration the checks need")
    a.add_argument("--container-env", action="append", default=[], metavar="KEY=VALUE",
                   help="(with --container) an environment variable for every container; repeatable")
    a.add_argument("--token", action="append", default=[], metavar="ROLE=TOKEN",
                   help=f"bearer token for a role ({', '.join(ROLES)}); repeatable")
    a.add_argument("--fact", action="append", default=[], metavar="KEY=VALUE",
                   help="a declared fact about the target the harness cannot switch (e.g. events=on)")
    a.add_argument("--long-running-text", metavar="TEXT",
                   help="a message text the agent answers with a task that stays working until canceled "
                        "(lets the core checks that need a working task measure a --url target)")
    a.add_argument("--family", choices=("agentd", "a2a"), default="agentd")
    a.add_argument("--defect", action="append", default=[], metavar="NAME",
                   help="(launched reference targets only) switch on a named defect, as the kill matrix does")
    a.add_argument("--schema-source", default="ours", metavar="ours|target|DIR",
                   help="JSON Schema bundles to validate frames, results and annotations against: ours (default), "
                        "target (printed by the target's binary: see --agentd-binary), or a folder holding "
                        "command.schema.json, events.schema.json and task-annotations.schema.json")
    a.add_argument("--agentd-binary", metavar="CMD",
                   help="the target's executable, for --schema-source target (default for --launch reference: "
                        "the bundled reference)")
    a.add_argument("--require-level", choices=("must", "should"), metavar="LEVEL",
                   help="exit 1 unless every requirement of this level is satisfied")
    a.add_argument("--name", metavar="NAME", help="target name for the report folder")
    common(a)

    m = sub.add_parser("matrix", help="run many (suite, target) pairs and write a requirement × target table "
                       "(`matrix merge DIR...` combines shards)")
    m.add_argument("--targets", required=True, metavar="FILE", help="targets YAML (see conformance/matrix.py)")
    m.add_argument("--previous", metavar="PATH", help="an earlier matrix.yaml (or its folder), to flag regressions")
    m.add_argument("--shard", metavar="I/N", help="run only shard I of N (targets at positions I-1 mod N)")
    m.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a regression is flagged")
    m.add_argument("--jobs", "-j", type=int, default=1, metavar="N")
    m.add_argument("--report-dir", metavar="DIR", help="default reports/matrix/<timestamp>")
    m.add_argument("--timeout", type=float, default=None, metavar="S", help="per-target time limit")

    sd = sub.add_parser("spec-diff", help="compare a revision's COMPLIANCE.md or report template with the registry")
    sd.add_argument("path", metavar="PATH", help="a COMPLIANCE.md or compliance-report.template.yaml of a revision")
    sd.add_argument("--against", metavar="PATH",
                    help="the revision the registry was transcribed from (same forms), for word diffs of rewordings")
    sd.add_argument("--format", choices=("markdown", "json"), default="markdown")

    ad = sub.add_parser("adapter", help="work on adapter files (`adapter check FILE --exe TOOL`)")
    adsub = ad.add_subparsers(dest="adapter_command", metavar="ACTION", parser_class=_Parser)
    ac = adsub.add_parser("check", help="validate an adapter, compare it with the tool's help, show translations")
    ac.add_argument("path", metavar="FILE", help="the adapter YAML")
    ac.add_argument("--exe", metavar="CMD", help="the tool as a command line; without it the help is not consulted")
    ac.add_argument("--strict", action="store_true", help="exit 1 when there is a warning")
    ac.add_argument("--cli-timeout", type=float, default=10.0, metavar="S", help="bound on each run of the tool")

    rp = sub.add_parser("report", help="work on saved reports")
    im = sub.add_parser("image", help="container images of the bundled targets, built locally")
    isub = im.add_subparsers(dest="image_command", metavar="ACTION", parser_class=_Parser)
    ib = isub.add_parser("build-reference", help="build (or find, by content hash) the reference agentd image")
    ib.add_argument("--tag", metavar="T", help="also tag the image T")
    ib.add_argument("--mirror", metavar="URL", help="Debian mirror for debootstrap (default deb.debian.org)")

    rsub = rp.add_subparsers(dest="report_command", metavar="ACTION", parser_class=_Parser)
    rr = rsub.add_parser("render", help="rebuild summary.md and COMPLIANCE.md from a saved compliance-report.yaml")
    rr.add_argument("path", metavar="REPORT", help="a compliance-report.yaml (or the folder holding it)")
    rr.add_argument("--out", metavar="DIR", help="write beside the report unless given")

    s = sub.add_parser("serve-agent", help="run the scripted A2A agent standalone (prints its URL)",
                       add_help=False)
    s.add_argument("rest", nargs=argparse.REMAINDER)
    return p


# ── registry and template ─────────────────────────────────────────────────────────────────

def _cmd_registry(args: argparse.Namespace) -> int:
    reg = default_registry()
    if args.coverage:
        from conformance.coverage import coverage_rows, render_coverage_md

        fmt = args.format or "markdown"
        if fmt not in ("markdown", "json"):
            raise UsageFailure("registry --coverage: --format must be markdown or json")
        rows = [r for r in coverage_rows(reg, args.family)
                if args.tier is None or reg[r["id"]].tier is not None and reg[r["id"]].tier <= args.tier]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n" if fmt == "json" else render_coverage_md(rows))
        return EXIT_OK
    if args.format == "markdown":
        raise UsageFailure("registry: --format markdown is for --coverage")
    args.format = args.format or "text"
    reqs = reg.select(family=args.family, tier=args.tier)
    rows = [{"id": r.id, "family": r.family, "tier": r.tier, "level": r.level, "area": r.area, "spec": r.spec,
             "kind": r.kind, "condition": r.condition, "summary": r.summary} for r in reqs]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    elif args.format == "yaml":
        print(yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=120), end="")
    else:
        for r in reqs:
            grp = f"T{r.tier}" if r.tier is not None else (r.level or "").upper()
            cond = " (conditional)" if r.conditional else ""
            print(f"{r.id:<34} {grp:<6} {r.spec:<18} {r.summary}{cond}")
        print(f"{len(reqs)} requirement(s)")
    return EXIT_OK


def _cmd_template(args: argparse.Namespace) -> int:
    from conformance.report import blank_template

    sys.stdout.write(blank_template(default_registry(), args.family))
    return EXIT_OK


# ── running suites ────────────────────────────────────────────────────────────────────────

def _resolve_exe(exe: str | None) -> tuple[list[str], str]:
    if not exe:
        return list(REFERENCE_CLI), "reference-cli"
    try:
        prefix = shlex.split(exe)
    except ValueError as exc:
        raise UsageFailure(f"--exe: cannot parse {exe!r}: {exc}") from exc
    if not prefix:
        raise UsageFailure("--exe: empty command")
    head = prefix[0]
    from conformance.cli.runner import ExecutableNotFound, check_executable

    try:
        check_executable(prefix)
    except ExecutableNotFound:
        raise UsageFailure(f"--exe: executable not found or not executable: {head}") from None
    if os.sep in head:
        prefix[0] = os.path.abspath(head)
    return prefix, Path(head).name


def _tool_version(prefix: list[str], adapter: str | None = None) -> str | None:
    """The version line the tool prints for --version (through the adapter, if any), if it prints one
    within a few seconds."""
    args = ["--version"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if adapter:
        from conformance.cli.adapter import Adapter, Unsupported

        try:
            args, extra = Adapter.load(adapter).translate(args)
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


def _load_adapter(path: str) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise UsageFailure(f"--adapter: no such file: {path}")
    try:
        from conformance.cli.adapter import Adapter, AdapterError
    except ImportError as exc:  # pragma: no cover - the driver ships with the package
        raise HarnessFailure(f"the adapter support is missing: {exc}") from exc
    try:
        adapter = Adapter.load(p)
    except AdapterError as exc:
        raise UsageFailure(f"--adapter: {exc}") from exc
    identity: dict[str, Any] = adapter.identity()
    return identity


def _report_dir(args: argparse.Namespace, target: str) -> Path:
    if args.report_dir:
        return Path(args.report_dir).resolve()
    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    base = Path("reports") / slug(target) / stamp
    n = 1
    out = base
    while out.exists():
        n += 1
        out = base.with_name(f"{stamp}-{n}")
    return out.resolve()


def _scope(family: str, only: list[str] | None, tier: int | None) -> tuple[list[str] | None, str]:
    reg = default_registry()
    if only:
        unknown = [i for i in only if i not in reg or reg[i].family != family]
        if unknown:
            raise UsageFailure(f"--only: not {family} requirement id(s): {', '.join(unknown)}")
        return list(only), "not selected for this run (--only)"
    if tier is not None and tier < 3:
        ids = [r.id for r in reg.select(family=family, tier=tier)]
        return ids, f"not run: this run was limited to tier {tier} and below (--tier {tier})"
    return None, ""


def run_suite(suite: Path, ctx: RunContext, report_dir: Path, jobs: int, timeout: float | None,
              allure_dir: str | None = None) -> int:
    """Run one suite folder under pytest in a child process; returns pytest's exit code."""
    tmp = private_dir()
    ctx.secret_dir = str(tmp)
    ctx_path = tmp / "context.json"
    ctx.dump(ctx_path)
    report_dir.mkdir(parents=True, exist_ok=True)
    # A report left by an earlier run into the same folder must never be read as this run's result.
    (report_dir / "compliance-report.yaml").unlink(missing_ok=True)
    cmd = [*python_module("pytest"), str(suite), "-c", str(SUITES_DIR / "pytest.ini"),
           "--rootdir", str(SUITES_DIR), *PLUGIN_ARGS, "-p", "no:cacheprovider",
           "--conformance-report", str(report_dir), "--conformance-context", str(ctx_path),
           "--conformance-family", ctx.family, "--conformance-progress", "-q", "-rN",
           "--basetemp", str(tmp / "basetemp")]
    if jobs > 1:
        cmd += ["-n", str(jobs)]
    if allure_dir:
        cmd += ["--alluredir", str(Path(allure_dir).resolve())]
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    # Every Python the run starts (xdist workers are ``python -c``) keeps the working directory off sys.path,
    # and the run itself starts in its private folder: a checkout there must not shadow the installed package.
    env["PYTHONSAFEPATH"] = "1"
    log = report_dir / "pytest.log"
    try:
        with open(log, "wb") as fh:
            proc = subprocess.Popen(cmd, stdout=fh, stderr=None, stdin=subprocess.DEVNULL, env=env,
                                    cwd=tmp, start_new_session=True)
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                raise HarnessFailure(f"the run exceeded --timeout {timeout:g}s and was stopped; "
                                     f"see {log}") from None
            except KeyboardInterrupt:
                os.killpg(proc.pid, signal.SIGINT)
                proc.wait(timeout=30)
                raise
    finally:
        _sweep([report_dir, *([Path(allure_dir).resolve()] if allure_dir else [])], ctx, tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def _sweep(folders: list[Path], ctx: RunContext, secret_dir: Path) -> None:
    """Redact every file the run wrote (the report folder, the allure folder) once the child has exited.

    pytest writes failure details to pytest.log after the plugin's own sweep, and allure writes its
    results from the raw failure, so a secret a check registered (kept by the plugin in ``secret_dir``)
    could otherwise survive there.
    """
    secrets = SecretSet(ctx.secrets)
    for path in secret_dir.glob("secrets-*.json"):
        try:
            secrets.load(path)
        except (OSError, ValueError):
            continue
    for folder in folders:
        redact_tree(folder, secrets)


def _read_report(report_dir: Path, code: int) -> dict[str, Any]:
    path = report_dir / "compliance-report.yaml"
    if code not in COMPLETED or not path.is_file():
        raise HarnessFailure(f"the harness could not complete the run (pytest exit {code}); "
                             f"see {report_dir / 'pytest.log'}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HarnessFailure(f"the report {path} is unreadable: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("summary"), dict):
        raise HarnessFailure(f"the report {path} is malformed")
    return data


def _print_summary(report: dict[str, Any], report_dir: Path) -> None:
    print("")
    print(f"{'group':<14}{'total':>6}{'pass':>6}{'part':>6}{'fail':>6}{'n/m':>6}{'n/a':>6}  satisfied")
    for g, row in report["summary"].items():
        print(f"{g:<14}{row['total']:>6}{row['pass']:>6}{row['partial']:>6}{row['fail']:>6}"
              f"{row['not_measured']:>6}{row['na']:>6}  {'yes' if row['satisfied'] else 'no'}")
    ident = report.get("report", {})
    if "tier_claimed" in ident:
        tc = ident["tier_claimed"]
        print(f"Tier claimed: {tc if tc else 'none'}" + (f" (Tier {tc} satisfied)" if tc else ""))
    print(f"Report: {report_dir / 'compliance-report.yaml'}")
    print(f"Summary: {report_dir / 'summary.md'}")


def _cmd_cli(args: argparse.Namespace) -> int:
    prefix, name = _resolve_exe(args.exe)
    if args.jobs < 1:
        raise UsageFailure("--jobs must be at least 1")
    if args.cli_timeout is not None and args.cli_timeout <= 0:
        raise UsageFailure("--cli-timeout must be positive")
    adapter = _load_adapter(args.adapter) if args.adapter else None
    if adapter is not None and args.exe:
        name = adapter["tool"]  # through an adapter, the tool is the one the adapter names
    if args.skill and not Path(args.skill).is_file():
        raise UsageFailure(f"--skill: no such file: {args.skill}")
    scope, note = _scope("a2acli", args.only, args.tier)
    baseline = _baseline(args, "a2acli")
    env = _pairs(args.env, "--env")
    if args.exe is None:
        # The bundled reference CLI runs from wherever this package is importable.
        env.setdefault("PYTHONPATH", str(PACKAGE_DIR.parent))
    target = args.name or name
    report_dir = _report_dir(args, target)
    previous, scope = _rerun(args, target, report_dir, scope)
    version = _tool_version(prefix, args.adapter)
    # The bundled reference ships its skill; any other tool's skill is what --skill names, if anything.
    skill = str(Path(args.skill).resolve()) if args.skill else (
        str(FIXTURES_DIR / "reference_cli" / "SKILL.md") if args.exe is None else None)
    ctx = RunContext(
        family="a2acli",
        target={"kind": "cli", "prefix": prefix, "adapter": str(Path(args.adapter).resolve()) if args.adapter else None,
                "skill": skill, "reference": args.exe is None, "env": env, "cli_timeout": args.cli_timeout},
        run={"target": target, "tool": name if args.exe else "agentd-conformance-refcli", "tool_version": version,
             "extra": {"skill_given": skill is not None, "skill": skill or "none (no --skill given)"},
             "adapter": adapter, "agent_tested": "agentd-conformance scripted agent (a2a-sdk 1.3, loopback)",
             "command": shlex.join(["agentd-conformance", *sys.argv[1:]]),
             "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")},
        scope=scope, scope_note=note)
    sys.stderr.write(f"agentd-conformance: checking {shlex.join(prefix)} → {report_dir}\n")
    t0 = time.monotonic()
    code = run_suite(SUITES_DIR / "cli", ctx, report_dir, args.jobs, args.timeout,
                     getattr(args, "allure_dir", None))
    wall = time.monotonic() - t0
    _merge_rerun(report_dir, code, previous, scope)
    result = _conclude(report_dir, code, args.require_tier and f"tier_{args.require_tier}", baseline)
    from conformance.cli.cost import Cost, cli_process_seconds

    print(Cost(*cli_process_seconds(report_dir), wall, args.jobs).line())
    return result


def _pairs(values: list[str], flag: str, keys: Sequence[str] | None = None) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        k, sep, val = v.partition("=")
        if not sep or not k or not val:
            raise UsageFailure(f"{flag}: expected KEY=VALUE, got {v!r}")
        if keys is not None and k not in keys:
            raise UsageFailure(f"{flag}: unknown role {k!r} (expected one of {', '.join(keys)})")
        if k in out:
            raise UsageFailure(f"{flag}: {k!r} given twice")
        out[k] = val
    return out


def _cmd_agent(args: argparse.Namespace) -> int:
    tokens = _pairs(args.token, "--token", ROLES)
    short = [role for role, tok in tokens.items() if len(tok) < MIN_SECRET_LEN]
    if short:
        raise UsageFailure(f"--token: the token for {', '.join(short)} is shorter than {MIN_SECRET_LEN} "
                           "characters and could not be redacted safely")
    facts = _pairs(args.fact, "--fact")
    if args.jobs < 1:
        raise UsageFailure("--jobs must be at least 1")
    if args.url:
        if not args.url.startswith(("http://", "https://")):
            raise UsageFailure(f"--url: expected an http:// or https:// URL, got {args.url!r}")
        target = {"kind": "url", "url": args.url}
        name = args.name or args.url
    elif args.unix:
        target = {"kind": "unix", "path": str(Path(args.unix).resolve())}
        name = args.name or f"unix-{Path(args.unix).name}"
    elif args.container or getattr(args, "container_entry", None):
        entry = dict(getattr(args, "container_entry", None) or {"image": args.container})
        entry["env"] = {**(entry.get("env") or {}), **_pairs(getattr(args, "container_env", []), "--container-env")}
        # Every container and network of this run carries the id (CI may set it: its job's id).
        entry.setdefault("run_id", os.environ.get("AGENTD_CONFORMANCE_RUN_ID") or f"{os.getpid()}-{time.time_ns()}")
        target = {"kind": "container", "container": entry}
        name = args.name or f"container-{entry['image']}"
    else:
        launch = args.launch or "reference"
        if launch not in ("reference", "scripted", "sdk"):
            raise UsageFailure(f"--launch: unknown target {launch!r} (expected reference, scripted or sdk)")
        target = {"kind": "launch", "name": launch}
        default_names = {"reference": "reference-agentd", "scripted": "scripted-agent", "sdk": "plain-sdk-agent"}
        name = args.name or default_names[launch]
    if getattr(args, "container_env", None) and target["kind"] != "container":
        raise UsageFailure("--container-env applies only with --container")
    if args.defect:
        if target.get("kind") not in ("launch", "container"):
            raise UsageFailure("--defect applies only to a launched reference target (--launch) or its image")
        _check_defects(target.get("name", "reference"), args.defect)
    target.update({"tokens": tokens, "facts": facts, "defects": list(args.defect)})
    if getattr(args, "long_running_text", None):  # absent from a matrix target's namespace
        target["long_running"] = {"text": args.long_running_text}
    if getattr(args, "agentd_binary", None):
        target["binary"] = args.agentd_binary  # the executable the DECL_011/012 checks run
    scope, note = _scope(args.family, args.only, None)
    baseline = _baseline(args, args.family)
    report_dir = _report_dir(args, name)
    previous, scope = _rerun(args, name, report_dir, scope)
    schema_dir = _schema_source(args, target, report_dir)
    if schema_dir is not None:
        target["schema_dir"] = str(schema_dir)
    extra: dict[str, Any] = {"schema_source": args.schema_source} if args.family == "agentd" else {}
    if target["kind"] == "container":
        from conformance.targets.lifecycle import PreflightFailure, PreflightUsage, preflight

        try:
            extra.update(preflight(target, report_dir, tokens.values()))
        except PreflightUsage as exc:
            raise UsageFailure(str(exc)) from None
        except PreflightFailure as exc:
            raise HarnessFailure(str(exc)) from None
        from conformance.targets.run_image import argv_for

        target.setdefault("binary", shlex.join(argv_for(target["container"]["image"])))  # its entry point
    ctx = RunContext(
        family=args.family, target=target, provides=provided_needs(target, args),
        run={"target": name, "agent_tested": target.get("url") or target.get("path") or target.get("name"),
             "command": shlex.join(["agentd-conformance", *_redacted_argv(sys.argv[1:])]),
             "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
             "extra": extra},
        secrets=list(tokens.values()), scope=scope, scope_note=note)
    suite = SUITES_DIR / "agent" / ("agentd" if args.family == "agentd" else "core")
    if target.get("kind") in ("url", "unix"):
        _preflight(target, tokens, ctx, report_dir)
    sys.stderr.write(f"agentd-conformance: checking {name} ({args.family}) → {report_dir}\n")
    try:
        code = run_suite(suite, ctx, report_dir, args.jobs, args.timeout, getattr(args, "allure_dir", None))
    finally:
        if target["kind"] == "container":
            from conformance.targets.lifecycle import cleanup

            cleanup(target)
    _merge_rerun(report_dir, code, previous, scope)
    return _conclude(report_dir, code, args.require_level and f"level_{args.require_level}", baseline)


BUNDLES = ("command", "events", "task-annotations")


def _preflight(target: dict[str, Any], tokens: dict[str, str], ctx: RunContext, report_dir: Path) -> None:
    """Stop before the checks when nothing answers (exit 3), or when the agent demands a credential
    the user did not give (exit 3, with a report whose every row is not_measured, naming the reason)."""
    from conformance.report import ReportWriteError, RunInfo, write_report
    from conformance.targets.preflight import preflight
    from conformance.verdict import verdicts_for

    url = target.get("url") or f"unix://{target['path']}"
    bearer = tokens.get("operator") or next(iter(tokens.values()), None)
    found = preflight(url, uds=target.get("path"), credentials_given=bool(tokens), bearer=bearer)
    if found.verdict == "unreachable":
        raise HarnessFailure(found.message)
    if found.verdict != "auth_required":
        return
    reg = default_registry()
    verdicts = verdicts_for(reg, ctx.family, [], scope=[], out_of_scope_note=f"not measured: {found.message}")
    run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
    try:
        write_report(report_dir, reg, ctx.family, verdicts, run, secrets=SecretSet(ctx.secrets))
    except ReportWriteError as exc:
        raise HarnessFailure(str(exc)) from exc
    _print_summary(_read_report(report_dir, 0), report_dir)
    raise HarnessFailure(found.message)


def provided_needs(target: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """The registry needs (``conformance.registry.NEEDS``) an agent target gives a run."""
    have: set[str] = set()
    if target.get("kind") == "launch" and target.get("name") == "reference":
        have |= {"executable", "launch_config", "restartable", "unix_socket"}
    if target.get("kind") == "unix":
        have.add("unix_socket")
    if target.get("kind") == "container":
        # docker restart is a real restart; the image's entry point is its executable; the socket folder
        # is bind-mounted on this host. Not launch_config: an image is configured only through the
        # switches its environment offers.
        have |= {"restartable", "executable"}  # the image's entry point, run with no network
        if target.get("socket_dir"):
            have.add("unix_socket")
    if getattr(args, "agentd_binary", None):
        have.add("executable")
    if os.geteuid() == 0:
        have.add("root")
    return sorted(have)


def _schema_source(args: argparse.Namespace, target: dict[str, Any], report_dir: Path) -> Path | None:
    """Where the run's schema bundles come from; ``target`` copies them out of the target's binary."""
    source = getattr(args, "schema_source", "ours") or "ours"
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
    binary = getattr(args, "agentd_binary", None)
    if binary:
        prefix = shlex.split(binary)
    elif target.get("kind") == "launch" and target.get("name") == "reference":
        prefix = python_module("conformance.fixtures.reference_agentd")
    else:
        raise UsageFailure("--schema-source target needs --agentd-binary CMD (the target's own executable)")
    out = report_dir / "schemas"
    out.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "PYTHONPATH": str(PACKAGE_DIR.parent), "HOME": str(out)}
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
        (out / f"{b}.schema.json").write_bytes(proc.stdout)
    return out


class NothingToRerun(Exception):
    """``--rerun-failed`` found every row of the earlier report settled."""


def _rerun(args: argparse.Namespace, target: str, report_dir: Path,
           scope: list[str] | None) -> tuple[Path | None, list[str] | None]:
    """The earlier report to merge into and the narrowed scope, for ``--rerun-failed``."""
    from conformance.report import ReportWriteError
    from conformance.report.merge import latest_report, load_report, rows_to_rerun

    which = getattr(args, "rerun_failed", None)
    if which is None:
        return None, scope
    if which == "last":
        found = latest_report(Path("reports") / slug(target))
        if found is None:
            raise UsageFailure(f"--rerun-failed: no earlier report of {target!r} under reports/{slug(target)}/; "
                               "name one: --rerun-failed PATH")
        previous = found
    else:
        previous = Path(which)
        previous = previous.parent if previous.is_file() else previous
    if previous.resolve() == report_dir.resolve():
        raise UsageFailure("--rerun-failed: the rerun needs a --report-dir other than the earlier report's")
    try:
        rows = rows_to_rerun(load_report(previous))
    except ReportWriteError as exc:
        raise UsageFailure(f"--rerun-failed: {exc}") from exc
    if scope is not None:
        rows = [r for r in rows if r in scope]
    if not rows:
        raise NothingToRerun(f"nothing to rerun: every selected row of {previous} is pass or na")
    sys.stderr.write(f"agentd-conformance: rerunning {len(rows)} row(s) of {previous}\n")
    return previous, rows


def _merge_rerun(report_dir: Path, code: int, previous: Path | None, scope: list[str] | None) -> None:
    if previous is None or code not in COMPLETED or not (report_dir / "compliance-report.yaml").is_file():
        return
    from conformance.report import ReportWriteError
    from conformance.report.merge import merge_into

    try:
        merge_into(report_dir, previous, scope or [], default_registry())
    except (ReportWriteError, OSError) as exc:
        raise HarnessFailure(f"--rerun-failed: cannot merge into {report_dir}: {exc}") from exc


class _Baseline(NamedTuple):
    expected: dict[str, Any] | None
    path: Path | None
    write: Path | None


def _baseline(args: argparse.Namespace, family: str) -> _Baseline:
    """Load ``--baseline`` (a usage error when malformed) and check ``--write-baseline`` can be written."""
    from conformance.baseline import BaselineError, load_baseline

    path = Path(args.baseline) if getattr(args, "baseline", None) else None
    expected = None
    if path is not None:
        if not path.is_file():
            raise UsageFailure(f"--baseline: no such file: {path}")
        try:
            expected = load_baseline(path, default_registry(), family)
        except BaselineError as exc:
            raise UsageFailure(f"--baseline: {exc}") from exc
    write = Path(args.write_baseline) if getattr(args, "write_baseline", None) else None
    if write is not None and not write.resolve().parent.is_dir():
        raise UsageFailure(f"--write-baseline: no such folder: {write.resolve().parent}")
    return _Baseline(expected, path, write)


def _conclude(report_dir: Path, code: int, required: str | None, baseline: _Baseline | None = None) -> int:
    """Read the finished report, print its summary, and judge the required tier or level and the baseline."""
    from conformance.baseline import compare, render_baseline, render_comparison

    report = _read_report(report_dir, code)
    _print_summary(report, report_dir)
    result = EXIT_OK
    if required and report["summary"].get(required, {}).get("satisfied") is not True:
        sys.stderr.write(f"agentd-conformance: {required.replace('_', ' ')} is not satisfied\n")
        result = EXIT_UNSATISFIED
    if baseline is not None and baseline.write is not None:
        try:
            baseline.write.write_text(render_baseline(report), encoding="utf-8")
        except OSError as exc:
            raise HarnessFailure(f"--write-baseline: cannot write {baseline.write}: {exc}") from exc
        print(f"Baseline written: {baseline.write}")
    if baseline is not None and baseline.expected is not None and baseline.path is not None:
        cmp = compare(report, baseline.expected)
        with open(report_dir / "summary.md", "a", encoding="utf-8") as fh:
            fh.write(render_comparison(cmp, baseline.path))
        print(f"Baseline {baseline.path}: {len(cmp.regressions)} regression(s), {len(cmp.stale)} stale "
              f"entr{'y' if len(cmp.stale) == 1 else 'ies'}, {len(cmp.known)} known gap(s)")
        for rid, exp, got, _ in cmp.regressions:
            sys.stderr.write(f"agentd-conformance: regression: {rid} expected {exp}, got {got}\n")
        for rid, exp, got, _ in cmp.stale:
            sys.stderr.write(f"agentd-conformance: stale baseline entry: {rid} expected {exp}, now {got} "
                             f"(update {baseline.path})\n")
        if not cmp.ok:
            result = EXIT_UNSATISFIED
    return result


def _check_defects(launch: str, names: list[str]) -> None:
    if launch == "sdk":
        raise UsageFailure("--defect: the sdk target is the plain a2a-sdk agent and has no defects")
    module = {"reference": "conformance.fixtures.reference_agentd.defects",
              "scripted": "conformance.fixtures.scripted_agent.defects"}[launch]
    defects = importlib.import_module(module).DEFECTS
    unknown = [n for n in names if n not in defects]
    if unknown:
        raise UsageFailure(f"--defect: unknown defect(s) of the {launch} target: {', '.join(unknown)}")


def _redacted_argv(argv: list[str]) -> list[str]:
    out: list[str] = []
    hide = False
    for a in argv:
        if hide:
            k, _, _ = a.partition("=")
            out.append(f"{k}=[REDACTED]")
            hide = False
        elif a == "--token":
            out.append(a)
            hide = True
        elif a.startswith("--token="):
            k, _, _ = a[len("--token="):].partition("=")
            out.append(f"--token={k}=[REDACTED]")
        else:
            out.append(a)
    return out


def _run_target_quietly(t: dict[str, Any], ns: argparse.Namespace) -> dict[str, Any]:
    code = (_cmd_cli if t["kind"] == "cli" else _cmd_agent)(ns)
    report: dict[str, Any] = yaml.safe_load((Path(ns.report_dir) / "compliance-report.yaml").read_text("utf-8"))
    report.setdefault("report", {})["exit"] = code
    return report


def _shard_arg(text: str) -> tuple[int, int]:
    i, sep, n = text.partition("/")
    if not sep or not i.isdigit() or not n.isdigit() or not 1 <= int(i) <= int(n):
        raise UsageFailure(f"--shard: expected I/N with 1 <= I <= N, got {text!r}")
    return int(i), int(n)


def _cmd_matrix(args: argparse.Namespace) -> int:
    from conformance.matrix import TargetFileError, load_targets, run_matrix, shard

    if args.jobs < 1:
        raise UsageFailure("--jobs must be at least 1")
    path = Path(args.targets)
    if not path.is_file():
        raise UsageFailure(f"--targets: no such file: {args.targets}")
    try:
        targets = load_targets(path)
        shard_of = None
        if args.shard:
            index, count = _shard_arg(args.shard)
            shard_of = (index, count, [t["name"] for t in targets])
            targets = shard(targets, index, count)
        out = _report_dir(argparse.Namespace(report_dir=args.report_dir), "matrix")
        doc = run_matrix(targets, out, args.jobs, args.timeout, Path(args.previous) if args.previous else None,
                         _run_target_quietly, shard_of)
    except TargetFileError as exc:
        raise UsageFailure(str(exc)) from exc
    return _matrix_exit(doc, out, args.fail_on_regression)


def _matrix_exit(doc: dict[str, Any], out: Path, fail_on_regression: bool) -> int:
    errors = [n for n, v in doc["targets"].items() if isinstance(v, str) and v.startswith("error:")]
    print(f"Matrix: {out / 'matrix.md'} ({len(doc['targets'])} targets, {len(doc['no_target_passes'])} "
          f"requirement(s) passed by no target, {len(doc['regressions'])} regression(s))")
    for r in doc["regressions"]:
        sys.stderr.write(f"agentd-conformance: regression: {r['requirement']} on {r['target']}: "
                         f"{r['before']} -> {r['now']}\n")
    if errors:
        sys.stderr.write(f"agentd-conformance: target(s) could not run: {', '.join(errors)}\n")
        return EXIT_HARNESS
    if fail_on_regression and doc["regressions"]:
        return EXIT_UNSATISFIED
    return EXIT_OK


def _merge_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="agentd-conformance matrix merge",
                description="Combine the folders of `matrix --shard I/N` runs into one requirement × target table.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="the shards' report folders (each holds matrix.yaml)")
    p.add_argument("--previous", metavar="PATH", help="an earlier merged matrix (folder or matrix.yaml)")
    p.add_argument("--report-dir", metavar="DIR", help="default reports/matrix/<timestamp>")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a regression is flagged")
    return p


def _cmd_matrix_merge(args: argparse.Namespace) -> int:
    from conformance.matrix import TargetFileError, load_previous
    from conformance.matrix_merge import MergeError, merge_shards

    try:
        previous = load_previous(Path(args.previous)) if args.previous else None
        out = _report_dir(argparse.Namespace(report_dir=args.report_dir), "matrix")
        doc = merge_shards([Path(d) for d in args.dirs], out, previous)
    except TargetFileError as exc:
        raise UsageFailure(str(exc)) from exc
    except MergeError as exc:
        raise HarnessFailure(str(exc)) from exc
    return _matrix_exit(doc, out, args.fail_on_regression)


def _cmd_spec_diff(args: argparse.Namespace) -> int:
    """Exit 0 when the registry matches the revision, 1 when it differs, 2 for an unreadable file."""
    import dataclasses

    from conformance.coverage import scan_checks, scan_defects
    from conformance.specdiff import SpecFileError, diff, read_revision, render

    try:
        new = read_revision(Path(args.path))
        against = read_revision(Path(args.against)) if args.against else None
    except SpecFileError as exc:
        raise UsageFailure(f"spec-diff: {exc}") from exc
    d = diff(default_registry(), new, against)
    checks, _ = scan_checks() if not d.empty else ({}, {})
    defects = scan_defects() if not d.empty else {}
    coverage = {rid: (checks.get(rid, []), defects.get(rid, [])) for rid in d.changed_ids()}
    if args.format == "json":
        doc = dataclasses.asdict(d)
        doc["coverage"] = {rid: {"checks": c, "defects": df} for rid, (c, df) in coverage.items()}
        print(json.dumps(doc, indent=2))
    else:
        sys.stdout.write(render(d, coverage))
    return EXIT_OK if d.empty else EXIT_UNSATISFIED


def _cmd_report(args: argparse.Namespace) -> int:
    from conformance.report import ReportWriteError, render_saved

    if args.report_command != "render":
        raise UsageFailure("report: expected an action: render")
    path = Path(args.path)
    if path.is_dir():
        path = path / "compliance-report.yaml"
    if not path.is_file():
        raise UsageFailure(f"report render: no such report: {path}")
    try:
        written = render_saved(path, default_registry(), Path(args.out) if args.out else None)
    except ReportWriteError as exc:
        raise UsageFailure(f"report render: {exc}") from exc
    for w in written:
        print(w)
    return EXIT_OK


def _cmd_adapter(args: argparse.Namespace) -> int:
    from conformance.cli.adapter import AdapterError
    from conformance.cli.adapter_check import check_adapter, render

    if args.adapter_command != "check":
        raise UsageFailure("adapter: expected an action: check")
    prefix = _resolve_exe(args.exe)[0] if args.exe else None
    try:
        result = check_adapter(args.path, prefix, timeout=args.cli_timeout)
    except AdapterError as exc:
        raise UsageFailure(str(exc)) from exc
    sys.stdout.write(render(result))
    return EXIT_UNSATISFIED if args.strict and result.warnings else EXIT_OK


def _cmd_image(args: argparse.Namespace) -> int:
    from conformance.targets.engine import EngineUnavailable
    from conformance.targets.image import ImageBuildError, build_reference

    if args.image_command != "build-reference":
        raise UsageFailure("image: expected an action: build-reference")
    try:
        def log(message: str) -> None:
            sys.stderr.write(f"agentd-conformance: {message}\n")

        built = build_reference(args.tag, mirror=args.mirror, log=log)
    except (EngineUnavailable, ImageBuildError) as exc:
        raise HarnessFailure(str(exc)) from exc
    print(f"{built.tag} {built.image_id} ({'cached' if built.cached else 'built'} in {built.seconds:.1f}s)")
    if args.tag:
        print(args.tag)
    return EXIT_OK


def _cmd_serve_agent(args: argparse.Namespace) -> int:
    try:
        from conformance.fixtures.scripted_agent.__main__ import main as serve
    except ImportError as exc:
        raise HarnessFailure(f"the scripted agent is not available: {exc}") from exc
    result: int = serve(args.rest)
    return result


def _one_line(exc: BaseException) -> str:
    """Errors are one line on stderr, whatever the exception's text holds (YAML errors span several)."""
    return " ".join(str(exc).split())


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(argv) if argv is not None else sys.argv[1:]
    try:
        if argv[:1] == ["serve-agent"]:  # everything after it belongs to the scripted agent's own parser
            return _cmd_serve_agent(argparse.Namespace(rest=argv[1:]))
        if argv[:2] == ["matrix", "merge"]:
            return _cmd_matrix_merge(_merge_parser().parse_args(argv[2:]))
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        handler = {"registry": _cmd_registry, "template": _cmd_template, "cli": _cmd_cli, "agent": _cmd_agent,
                   "serve-agent": _cmd_serve_agent, "matrix": _cmd_matrix, "report": _cmd_report,
                   "image": _cmd_image, "spec-diff": _cmd_spec_diff, "adapter": _cmd_adapter}[args.command]
        return handler(args)
    except UsageFailure as exc:
        text = _one_line(exc)
        sys.stderr.write(f"agentd-conformance: {text}\n" if not text.startswith("agentd-conformance") else f"{text}\n")
        return EXIT_USAGE
    except (HarnessFailure, RegistryError) as exc:
        sys.stderr.write(f"agentd-conformance: {_one_line(exc)}\n")
        return EXIT_HARNESS
    except NothingToRerun as exc:
        print(f"agentd-conformance: {exc}")
        return EXIT_OK
    except KeyboardInterrupt:
        sys.stderr.write("agentd-conformance: interrupted\n")
        return EXIT_HARNESS
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        sys.stderr.write(f"agentd-conformance: internal error: {type(exc).__name__}: {exc}\n")
        return EXIT_HARNESS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
