"""Running one suite against one target, and judging the finished report.

A run is :class:`RunOptions` (what the user asked of the run: scope, parallelism, where the report
goes, baseline, rerun) plus a target (``conformance.targets.model``). :func:`run_suite` starts pytest
on the suite in a child process with the run context; the plugin writes the report there
(``conformance.pipeline``); :func:`finish` reads it back, prints its summary and judges the exit code.

A run stopped by SIGINT, SIGTERM or SIGHUP (``conformance.interrupts``) ends as Ctrl-C always ended it:
the command forwards SIGINT to the suite's process group (pytest, its xdist workers), which cuts the
checks in flight short, tears every fixture down (the CLIs under test, launched agents, containers) and
writes the report as interrupted; after :data:`STOP_GRACE` whatever is left of the group is killed. Then
:func:`interrupted` shows and seals that report and the command exits 3, one line naming the signal.

A suite process that dies ends the run the same way (``conformance.interrupts.CRASHED``): an xdist
worker's death is the controller's to act on (``plugin/session.py``; ``--max-worker-restart 0`` keeps
xdist from replacing it), the death of pytest's own process the command's. Either way what is left of
the group is stopped, the report is the stopped run's, and :func:`crashed` seals it and exits 3.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final, NamedTuple

from conformance.baseline import (
    BaselineError,
    BaselineFile,
    compare,
    load_baseline,
    render_baseline,
    render_comparison,
)
from conformance.command.errors import (
    EXIT_HARNESS,
    EXIT_OK,
    EXIT_UNSATISFIED,
    HarnessFailure,
    NothingToRerun,
    SuiteCrashed,
    UsageFailure,
)
from conformance.context import RunContext, private_dir
from conformance.evidence import SecretSet, redact_tree, slug
from conformance.interrupts import CRASH_FILE, CRASHED, INTERRUPT_FILE, RunInterrupted, signame, unfinished
from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS
from conformance.paths import PLUGIN_ARGS, SUITES_DIR, python_module
from conformance.registry import default_registry
from conformance.report import ReportWriteError, RunInfo
from conformance.report.inputs import VERDICT_INPUTS, InputsError, read_inputs, selected_rows
from conformance.report.manifest import clear_earlier_run, write_manifest
from conformance.report.merge import latest_report, merge_into, rows_to_rerun
from conformance.report.model import CLI_FAMILY, REPORT_FILE, Report, ReportError, load_report

#: pytest exit codes of a run that completed: all passed, some checks failed, no check collected.
COMPLETED = (0, 1, 5)
#: Seconds the suite's processes get, once interrupted, to tear down and write the report before the
#: command kills what is left of them (xdist itself gives its workers 10 s to end).
STOP_GRACE = 10.0


@dataclass
class RunOptions:
    """What the user asked of one run, besides the target."""

    family: str = "a2acli"
    name: str | None = None
    only: list[str] | None = None
    #: CLI runs: run checks up to this tier.
    tier: int | None = None
    #: The summary group that must be satisfied for exit 0 (``tier_N`` / ``level_must``), if any.
    require: str | None = None
    #: ``--jobs``; None: chosen by :func:`workers`.
    jobs: int | None = None
    report_dir: str | None = None
    timeout: float | None = None
    allure_dir: str | None = None
    baseline: str | None = None
    write_baseline: str | None = None
    #: ``--rerun-failed``: "last", a report's path, or None.
    rerun_failed: str | None = None
    #: Agent runs: ours, target, or a folder of schema bundles.
    schema_source: str = "ours"

    @classmethod
    def from_args(cls, args: argparse.Namespace, family: str, require: str | None,
                  tier: int | None = None) -> RunOptions:
        if args.jobs is not None and args.jobs < 1:
            raise UsageFailure("--jobs must be at least 1")
        positive(args.timeout, "--timeout")
        folder_arg(args.report_dir, "--report-dir")
        folder_arg(args.allure_dir, "--allure-dir")
        return cls(family=family, name=args.name, only=args.only, tier=tier, require=require, jobs=args.jobs,
                   report_dir=args.report_dir, timeout=args.timeout, allure_dir=args.allure_dir,
                   baseline=args.baseline, write_baseline=args.write_baseline, rerun_failed=args.rerun_failed,
                   schema_source=getattr(args, "schema_source", "ours"))


def pairs(values: list[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` arguments of ``flag`` as a mapping (a usage error when malformed or repeated)."""
    out: dict[str, str] = {}
    for v in values:
        k, sep, val = v.partition("=")
        if not sep or not k or not val:
            raise UsageFailure(f"{flag}: expected KEY=VALUE, got {v!r}")
        if k in out:
            raise UsageFailure(f"{flag}: {k!r} given twice")
        out[k] = val
    return out


def positive(value: float | None, flag: str) -> None:
    """A bound in seconds must be positive (a usage error otherwise); None is no bound."""
    if value is not None and not value > 0:
        raise UsageFailure(f"{flag} must be a positive number of seconds, got {value:g}")


def folder_arg(given: str | None, flag: str) -> None:
    """A folder the run will write: a usage error when it, or a folder above it, is a file."""
    if not given:
        return
    path = Path(given).resolve()
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                raise UsageFailure(f"{flag}: {p} is a file, not a folder" if p == path
                                   else f"{flag}: {given} is below {p}, which is a file")
            return


def report_dir(given: str | None, target: str) -> Path:
    """``given`` (a usage error when it names a file), or a fresh ``reports/<target>/<timestamp>``."""
    if given:
        folder_arg(given, "--report-dir")
        return Path(given).resolve()
    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    base = Path("reports") / slug(target) / stamp
    n = 1
    out = base
    while out.exists():
        n += 1
        out = base.with_name(f"{stamp}-{n}")
    return out.resolve()


def scope(family: str, only: list[str] | None, tier: int | None) -> tuple[list[str] | None, str]:
    """The ids this run measures (None: all of the family) and the note of the rows left out."""
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


def started() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def command_line(argv: Sequence[str]) -> str:
    """The command as the report records it."""
    return shlex.join(["agentd-conformance", *argv])


#: Without ``--jobs``: the families whose checks wait enough (on the CLI under test, on the agentd reference's
#: configurations) for more processes to pay, how many each takes, and the least rows a run must select for it to.
#: Measured on 2 cores (benchmarks/cli_tiers.py, agentd_family.py): the CLI's 66 ids 45-53 s with two processes
#: against 89-90 s with one, and 37-42 s with three against 50-53 s with two (2026-12-04); the agentd family 17 s
#: in two against 27 s in one. Three for the CLI waited until a soak at three moved no row: the one failure seen
#: before was the reference CLI's, an interrupt left httpcore's pool lock taken (benchmarks/interrupt_race.py),
#: and its way out is now bounded. A run of a few rows pays more for another worker's start-up (it imports and
#: collects everything again) than it gains. The a2a family joins them only against an agent whose card declares
#: two bindings or more, with a process per binding (:func:`choose_jobs`): on one binding --jobs 2 was never
#: faster (issue 20).
AUTO_JOBS: Final[Mapping[str, int]] = MappingProxyType({"a2acli": 3, "agentd": 2})
AUTO_FAMILIES = tuple(AUTO_JOBS)
AUTO_MIN_ROWS = 16


class Jobs(NamedTuple):
    """How many test processes a run uses, and why (the report's ``run.jobs``, the command's first line)."""

    n: int
    why: str

    def line(self) -> str:
        return f"{self.n} ({self.why})"


def choose_jobs(family: str, rows: int, load: float | None, cpus: int, bindings: int | None = None) -> Jobs:
    """The automatic number of test processes (no ``--jobs``) for a run of ``rows`` rows of ``family`` on a
    machine whose 1-minute load is ``load`` (None: unknown) with ``cpus`` CPUs: the family's :data:`AUTO_JOBS` for
    a family of :data:`AUTO_FAMILIES` when the run has at least :data:`AUTO_MIN_ROWS` rows and the load is below the
    CPUs (a busy machine gives the second process no CPU to run on); else 1. The a2a family's checks run once
    per binding the agent's card declares (``bindings``: None when the command did not read the card): against
    one binding a second process's start-up costs more than it saves; against two or more it pays
    (benchmarks/side_by_side.py, 2026-12-03, idle machine: the reference agentd, one binding, 3.8 s in one
    process and 4.3 s in two; the scripted agent and the a2a-sdk agent, three bindings, 18.6 s and 7.1 s in one,
    11.8 s and 6.1 s in two). It takes one process per binding: the checks of a binding wait on the agent's
    answers, so a third process pays against three (the scripted agent: 9.4 s in two, 7.5 s in three; the
    a2a-sdk agent 3.6 s and 3.5 s; a soak of 10 runs in three processes moved no row)."""
    if family == "a2a" and (bindings is None or bindings < 2):
        said = "one binding" if bindings == 1 else "bindings not read from its card"
        return Jobs(1, f"automatic: the a2a family against an agent with {said} runs in one process")
    if family not in AUTO_FAMILIES and family != "a2a":
        return Jobs(1, f"automatic: the {family} family runs in one process, a second was never faster")
    if rows < AUTO_MIN_ROWS:
        return Jobs(1, f"automatic: {rows} row(s) selected, fewer than {AUTO_MIN_ROWS}")
    if load is None:
        return Jobs(1, "automatic: the machine's load is unknown")
    if load >= cpus:
        return Jobs(1, f"automatic: load {load:.2f} is not below the {cpus} CPU(s)")
    if family == "a2a" and bindings is not None:
        return Jobs(bindings, f"automatic: a2a family, one process per binding its card declares ({bindings}), "
                              f"{rows} rows selected, load {load:.2f} below the {cpus} CPU(s)")
    return Jobs(AUTO_JOBS[family], f"automatic: {family} family, {rows} rows selected, load {load:.2f} below the "
                                   f"{cpus} CPU(s)")


def workers(jobs: int | None, family: str, scope: Sequence[str] | None, bindings: int | None = None) -> Jobs:
    """The test processes a run uses: ``--jobs`` as given, else :func:`choose_jobs` on this machine; never more
    than the rows selected (``scope``; None: the whole family). Each worker imports and collects everything
    again, so more workers than rows only add start-up (a one-row run with --jobs 2 took 2.5 times as long as
    with --jobs 1)."""
    rows = len(scope) if scope is not None else len(default_registry().select(family=family))
    if jobs is None:
        try:
            load: float | None = os.getloadavg()[0]
        except (OSError, AttributeError):
            load = None
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        choice = choose_jobs(family, rows, load, cpus, bindings)
    else:
        choice = Jobs(jobs, f"--jobs {jobs}")
    if choice.n > max(1, rows):
        return Jobs(max(1, rows), f"{choice.why}, at most one per row selected ({rows})")
    return choice


def run_suite(suite: Path, ctx: RunContext, report_dir: Path, jobs: int, timeout: float | None,
              allure_dir: str | None = None) -> int:
    """Run one suite folder under pytest in a child process; returns pytest's exit code.

    The run context (the run's secrets in clear) goes to the child in a private folder (mode 0700) made only
    once the report folder is there, and removed whatever ends the run: nothing written outside the report
    folder outlives it."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        # A report left by an earlier run into the same folder must never be read as this run's result, nor
        # its evidence be signed as this run's by the manifest.
        if clear_earlier_run(report_dir):
            sys.stderr.write(f"agentd-conformance: note: {report_dir} held an earlier run's report; it is "
                             "replaced\n")
        (report_dir / REPORT_FILE).unlink(missing_ok=True)
        (report_dir / VERDICT_INPUTS).unlink(missing_ok=True)
    except OSError as exc:
        raise HarnessFailure(f"cannot write the report folder {report_dir}: {exc.strerror or exc}") from None
    tmp = private_dir()
    try:
        return _run_child(suite, ctx, tmp, report_dir, jobs, timeout, allure_dir)
    finally:
        _sweep([report_dir, *([Path(allure_dir).resolve()] if allure_dir else [])], ctx, tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def _run_child(suite: Path, ctx: RunContext, tmp: Path, report_dir: Path, jobs: int, timeout: float | None,
               allure_dir: str | None) -> int:
    """pytest on ``suite`` in a child process whose private folder is ``tmp``; its exit code."""
    ctx.secret_dir = str(tmp)
    ctx_path = tmp / "context.json"
    ctx.dump(ctx_path)
    # pytest, ended without the interpreter's teardown once it returns (conformance/pytest_main.py).
    cmd = [*python_module("conformance.pytest_main"), str(suite), "-c", str(SUITES_DIR / "pytest.ini"),
           "--rootdir", str(SUITES_DIR), *PLUGIN_ARGS, "-p", "no:cacheprovider",
           "--conformance-report", str(report_dir), "--conformance-context", str(ctx_path),
           "--conformance-family", ctx.family, "--conformance-progress", "-q", "-rN",
           "--basetemp", str(tmp / "basetemp")]
    # A worker per selected row at most: each worker imports and collects everything again, so more workers
    # than rows only add start-up (a one-row run with --jobs 2 took 2.5 times as long as with --jobs 1).
    workers = jobs if ctx.scope is None else min(jobs, len(ctx.scope))
    if workers > 1:
        # A worker that dies ends the run (the controller's pytest_testnodedown): never replaced.
        cmd += ["-p", "xdist", "-n", str(workers), "--max-worker-restart", "0"]
    if allure_dir:
        cmd += ["-p", "allure_pytest", "--alluredir", str(Path(allure_dir).resolve())]
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    # Only the plugins a run uses: every other installed pytest plugin would be imported by the child and by
    # each xdist worker (hypothesis's alone costs more than a second of start-up per process).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    # Every Python the run starts (xdist workers are ``python -c``) keeps the working directory off sys.path,
    # and the run itself starts in its private folder: a checkout there must not shadow the installed package.
    env["PYTHONSAFEPATH"] = "1"
    log = report_dir / "pytest.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=None, stdin=subprocess.DEVNULL, env=env,
                                cwd=tmp, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(proc, tmp / INTERRUPT_FILE, f"--timeout {timeout:g}s")
            _report_stop(report_dir, ctx, f"--timeout {timeout:g}s")
            raise HarnessFailure(f"the run exceeded --timeout {timeout:g}s and was stopped; its report is "
                                 f"incomplete; see {log}") from None
        except KeyboardInterrupt as exc:
            name = signame(exc)
            _stop(proc, tmp / INTERRUPT_FILE, name)
            _report_stop(report_dir, ctx, name)
            raise RunInterrupted(name, str(report_dir)) from None
    what = _crash(code, proc.pid, tmp)
    if what is not None:
        _stop_group(proc.pid)
        _report_stop(report_dir, ctx, CRASHED)
        raise SuiteCrashed(what, str(report_dir))
    return code


def _crash(code: int, pid: int, tmp: Path) -> str | None:
    """Which suite process died and how, when one did: an xdist worker, as the controller recorded it, or
    pytest's own process, killed by a signal. None for a run that ended by itself."""
    try:
        return (tmp / CRASH_FILE).read_text(encoding="utf-8").strip() or "an xdist worker died"
    except OSError:
        pass
    if code < 0:
        try:
            how = signal.Signals(-code).name
        except ValueError:
            how = f"signal {-code}"
        return f"pytest, pid {pid}, was killed by {how}"
    return None


def _stop_group(pgid: int) -> None:
    """Stop what is left of the suite's process group once its leader has gone (the workers of a killed
    controller): SIGINT, then SIGKILL to whatever is still there after :data:`STOP_GRACE`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGINT)
        deadline = time.monotonic() + STOP_GRACE
        while _group_alive(pgid):
            if time.monotonic() > deadline:
                os.killpg(pgid, signal.SIGKILL)
                return
            time.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    """Whether a live process (not a zombie waiting for its reaper) is still in the group ``pgid``."""
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc: ask the kernel (a zombie counts, until reaped)
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def _stop(proc: subprocess.Popen[bytes], marker: Path, name: str) -> None:
    """Stop the suite's process group as Ctrl-C does: SIGINT, then (after :data:`STOP_GRACE`) SIGKILL;
    ``name`` (the signal the command received, or ``--timeout``) is what the report says stopped it.
    Further signals to the command meanwhile are only noted (``conformance.interrupts``)."""
    with contextlib.suppress(OSError):
        marker.write_text(name, encoding="utf-8")
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _report_stop(report_dir: Path, ctx: RunContext, name: str) -> None:
    """Make sure a stopped run leaves a report that says so: the suite's own (it writes one as it stops),
    or, when it wrote none or was killed before it finished writing, one with every selected row
    "interrupted"."""
    try:
        if _complete(report_dir) and load_report(report_dir, default_registry()).identity.interrupted:
            return
    except ReportError:
        pass
    from conformance.pipeline import conclude

    run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
    run.finished = started()
    with contextlib.suppress(ReportWriteError, OSError):
        conclude(report_dir, default_registry(), ctx.family, [], run, SecretSet(ctx.secrets), scope=ctx.scope,
                 scope_note=ctx.scope_note, provided=ctx.provides, interrupted=name)


def _complete(report_dir: Path) -> bool:
    """Whether the suite finished writing its report (the verdict inputs are its last file)."""
    try:
        return any(seg.interrupted for seg in read_inputs(report_dir))
    except InputsError:
        return False


def interrupted(exc: KeyboardInterrupt) -> int:
    """The end of a stopped run: its (incomplete) report's summary printed and the folder sealed, then one
    line naming the signal; the exit code of a run that could not complete."""
    name = signame(exc)
    folder = Path(exc.report_dir) if isinstance(exc, RunInterrupted) and exc.report_dir else None
    where = _stopped_report(folder)
    sys.stderr.write(f"agentd-conformance: interrupted ({name}): the run was stopped before it finished{where}\n")
    return EXIT_HARNESS


def crashed(exc: SuiteCrashed) -> int:
    """The end of a run whose suite process died: as :func:`interrupted`, one line saying so."""
    where = _stopped_report(Path(exc.report_dir))
    sys.stderr.write(f"agentd-conformance: the suite process crashed ({exc.what}): the run was stopped before it "
                     f"finished{where}\n")
    return EXIT_HARNESS


def _stopped_report(folder: Path | None) -> str:
    """Print the table of a stopped run's report and seal it; the words the one line adds about it ("" when
    there is none to show)."""
    if folder is None or not (folder / REPORT_FILE).is_file():
        return ""
    try:
        print_summary(load_report(folder, default_registry()), folder)
        seal(folder)
    except (ReportError, HarnessFailure):
        return ""
    return f"; its report is incomplete and claims nothing: {folder}"


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


def read_report(report_dir: Path, code: int) -> Report:
    """The finished report of a run that ended with pytest exit ``code`` (a harness failure otherwise)."""
    path = report_dir / REPORT_FILE
    if code not in COMPLETED or not path.is_file():
        raise HarnessFailure(f"the harness could not complete the run (pytest exit {code}); "
                             f"see {report_dir / 'pytest.log'}")
    try:
        return load_report(path, default_registry())
    except ReportError as exc:
        raise HarnessFailure(f"the run's own report is not valid: {exc}") from exc


def print_summary(report: Report, report_dir: Path) -> None:
    print("")
    print(f"{'group':<14}{'total':>6}{'pass':>6}{'part':>6}{'fail':>6}{'n/m':>6}{'n/a':>6}  satisfied")
    for g, row in report.summary.items():
        c = row.counts
        print(f"{g:<14}{row.total:>6}{c[PASS]:>6}{c[PARTIAL]:>6}{c[FAIL]:>6}"
              f"{c[NOT_MEASURED]:>6}{c[NA]:>6}  {'yes' if row.satisfied else 'no'}")
    stopped = report.identity.interrupted
    if stopped:
        left = sum(1 for _, e in report.rows() if unfinished(e.status, e.note))
        print(f"Interrupted ({stopped}): the run did not finish; {left} row(s) not measured (\"interrupted\"); "
              "nothing is claimed" + ("; no COMPLIANCE.md" if report.family == CLI_FAMILY else ""))
    if report.family == CLI_FAMILY:
        tc = report.identity.tier_claimed
        print(f"Tier claimed: {tc if tc else 'none'}" + (f" (Tier {tc} satisfied)" if tc else "")
              + (" (interrupted)" if stopped else ""))
    print(f"Report: {report_dir / 'compliance-report.yaml'}")
    print(f"Summary: {report_dir / 'summary.md'}")


def rerun(opts: RunOptions, target: str, report_dir: Path,
          scope: list[str] | None) -> tuple[Path | None, list[str] | None]:
    """The earlier report to merge into and the narrowed scope, for ``--rerun-failed``."""
    which = opts.rerun_failed
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
        rows = rows_to_rerun(load_report(previous, default_registry()))
    except ReportError as exc:
        raise UsageFailure(f"--rerun-failed: {exc}") from exc
    if scope is not None:
        rows = [r for r in rows if r in scope]
    if not rows:
        raise NothingToRerun(f"nothing to rerun: every selected row of {previous} is pass or na")
    sys.stderr.write(f"agentd-conformance: rerunning {len(rows)} row(s) of {previous}\n")
    return previous, rows


def merge_rerun(report_dir: Path, code: int, previous: Path | None, scope: list[str] | None) -> None:
    if previous is None or code not in COMPLETED or not (report_dir / REPORT_FILE).is_file():
        return
    try:
        merge_into(report_dir, previous, scope or [], default_registry())
    except (ReportWriteError, ReportError, OSError) as exc:
        raise HarnessFailure(f"--rerun-failed: cannot merge into {report_dir}: {exc}") from exc


class Baseline(NamedTuple):
    expected: BaselineFile | None
    path: Path | None
    write: Path | None


def baseline(opts: RunOptions) -> Baseline:
    """Load ``--baseline`` (a usage error when malformed) and check ``--write-baseline`` can be written."""
    path = Path(opts.baseline) if opts.baseline else None
    expected = None
    if path is not None:
        if not path.is_file():
            raise UsageFailure(f"--baseline: no such file: {path}")
        try:
            expected = load_baseline(path, default_registry(), opts.family)
        except BaselineError as exc:
            raise UsageFailure(f"--baseline: {exc}") from exc
    write = Path(opts.write_baseline) if opts.write_baseline else None
    if write is not None and not write.resolve().parent.is_dir():
        raise UsageFailure(f"--write-baseline: no such folder: {write.resolve().parent}")
    if write is not None and write.is_dir():
        raise UsageFailure(f"--write-baseline: {write} is a folder; name the file to write")
    return Baseline(expected, path, write)


@dataclass
class Planned:
    """Where one run writes and what it measures: the ids in scope (None: all of the family, narrowed
    by ``--rerun-failed``) with the note of those left out, the baseline, the report's target name
    and folder, and the earlier report a rerun merges into."""

    ids: list[str] | None
    note: str
    expected: Baseline
    name: str
    out: Path
    previous: Path | None

    def conclude(self, code: int, opts: RunOptions) -> int:
        """Merge a rerun into its earlier report, then :func:`finish`, then seal the folder with its
        manifest (``report verify``); returns the exit code."""
        merge_rerun(self.out, code, self.previous, self.ids)
        result = finish(self.out, code, opts.require, self.expected)
        seal(self.out)
        return result


def seal(out: Path) -> None:
    """Write the report folder's manifest: the last write of a run."""
    registry = default_registry()
    try:
        write_manifest(out, load_report(out, registry), registry)
    except (ReportError, OSError) as exc:
        raise HarnessFailure(f"cannot write the manifest of {out}: {exc}") from exc


def plan(opts: RunOptions, family: str, tier: int | None, default_name: str) -> Planned:
    """The scope, baseline, report folder and rerun of a run (usage errors raised before it starts)."""
    ids, note = scope(family, opts.only, tier)
    expected = baseline(opts)
    name = opts.name or default_name
    out = report_dir(opts.report_dir, name)
    previous, ids = rerun(opts, name, out, ids)
    return Planned(ids, note, expected, name, out, previous)


def finish(report_dir: Path, code: int, required: str | None, baseline: Baseline | None = None) -> int:
    """Read the finished report, print its summary, and judge the required tier or level and the baseline."""
    report = read_report(report_dir, code)
    print_summary(report, report_dir)
    result = EXIT_OK
    group = report.summary.get(required) if required else None
    if required and (group is None or group.satisfied is not True):
        sys.stderr.write(f"agentd-conformance: {required.replace('_', ' ')} is not satisfied\n")
        result = EXIT_UNSATISFIED
    try:
        selected = selected_rows(read_inputs(report_dir))
    except InputsError:
        selected = None
    if baseline is not None and baseline.write is not None:
        try:
            baseline.write.write_text(render_baseline(report, selected), encoding="utf-8")
        except OSError as exc:
            raise HarnessFailure(f"--write-baseline: cannot write {baseline.write}: {exc}") from exc
        print(f"Baseline written: {baseline.write}")
    if baseline is not None and baseline.expected is not None and baseline.path is not None:
        cmp = compare(report, baseline.expected, selected)
        with open(report_dir / "summary.md", "a", encoding="utf-8") as fh:
            fh.write(render_comparison(cmp, baseline.path))
        print(f"Baseline {baseline.path}: {len(cmp.regressions)} regression(s), {len(cmp.stale)} stale "
              f"entr{'y' if len(cmp.stale) == 1 else 'ies'}, {len(cmp.known)} known gap(s)"
              + (f"; {cmp.outside} row(s) outside the comparison (not selected by this run or the baseline's)"
                 if cmp.outside else ""))
        for rid, exp, got, _ in cmp.regressions:
            sys.stderr.write(f"agentd-conformance: regression: {rid} expected {exp}, got {got}\n")
        for rid, exp, got, _ in cmp.stale:
            sys.stderr.write(f"agentd-conformance: stale baseline entry: {rid} expected {exp}, now {got} "
                             f"(update {baseline.path})\n")
        if not cmp.ok:
            result = EXIT_UNSATISFIED
    return result
