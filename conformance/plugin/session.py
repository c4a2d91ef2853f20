"""The session: options, the run's state, and on the controlling process the end of the run.

The controller (also under pytest-xdist, where the workers run the checks) gathers every check's
outcomes, prints progress (requirements resolved / total), and at session end records a check that
never reported, then hands everything to :func:`conformance.pipeline.conclude`: outcomes → verdicts
→ rollup → report folder.

A run stopped by a signal (SIGINT, SIGTERM or SIGHUP: ``conformance.interrupts``, installed in every
process of the suite) ends like Ctrl-C: the check in flight is cut off, every fixture is torn down (the
CLIs under test, launched agents, containers), and the report says the run was interrupted, each check
that did not report ``not_measured`` "interrupted" — never a fail of the tool. An xdist worker that dies
ends the run the same way (:meth:`Controller.pytest_testnodedown`), the report naming
:data:`~conformance.interrupts.CRASHED`: xdist would replace the worker and go on, the crashed check
reported as a fail of the target, and a run whose suite was killed would not end.
"""

from __future__ import annotations

import contextlib
import json
import platform
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from datetime import UTC, datetime
from typing import Any

import pytest

from conformance import interrupts
from conformance.cli.runner import let_children_take_sigint
from conformance.outcome import FAIL, NOT_MEASURED, PASS, Outcome
from conformance.pipeline import conclude
from conformance.plugin.state import STATE, TRANSPORT_NAMES, RunState
from conformance.registry import RegistryError
from conformance.report import ReportWriteError, RunInfo
from conformance.scrub import Scrubber
from conformance.verdict import requirement_verdict

#: The plugin's command-line options, in --help order: (name, metavar, help); no metavar: a switch.
_OPTIONS: tuple[tuple[str, str | None, str], ...] = (
    ("--conformance-report", "DIR", "write the compliance report, summary, junit.xml and evidence into DIR"),
    ("--conformance-family", "FAMILY", "registry family the report covers (a2acli, agentd, a2a)"),
    ("--conformance-context", "FILE", "run context file written by the agentd-conformance command"),
    ("--conformance-only", "IDS", "comma-separated requirement ids: run only their checks"),
    ("--conformance-progress", None, "print requirements resolved / total on stderr"),
    ("--conformance-collect-map", "FILE",
     "write {nodeid: {ids, depends_on}} of the collected checks to FILE (for coverage)"),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentd-conformance")
    for name, metavar, text in _OPTIONS:
        if metavar is None:
            group.addoption(name, action="store_true", default=False, help=text)
        else:
            group.addoption(name, metavar=metavar, default=None, help=text)


def pytest_configure(config: pytest.Config) -> None:
    let_children_take_sigint()
    state = RunState(config)
    if state.report_dir is not None:  # a conformance run (not merely a session with the plugin loaded)
        interrupts.install()
    config.stash[STATE] = state
    config.pluginmanager.register(Scrubber(state.secrets), "agentd-conformance-scrubber")
    if not state.is_worker:
        config.pluginmanager.register(Controller(state), "agentd-conformance-controller")
    elif state.report_dir is not None:
        config.add_cleanup(_end_worker)


def _end_worker() -> None:
    """The end of an xdist worker of a conformance run, once pytest is done with it (the last of its cleanups;
    the controller has had "workerfinished", its last word): the exit handlers, then the process ends without
    the interpreter's module teardown, which the controller waits for before it writes the report (1.3-2.4 s
    of every ``--jobs 2`` run on this 2-core machine at load 7-8, against 0.02-0.04 s; issue 20, figures in
    benchmarks/results/README.md). ``conformance/pytest_main.py`` does the same for the controller."""
    import atexit
    import os

    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(0)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the private folder this process made: it holds the run's secrets in clear."""
    state = config.stash.get(STATE, None)
    if state is not None and state.report_dir is not None:
        interrupts.uninstall()
    if state is not None and state.owns_secret_dir:
        shutil.rmtree(state.secret_dir, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: hand each worker the private folder where it leaves its secrets and its collection."""
    state = node.config.stash[STATE]
    node.workerinput["conformance_secret_dir"] = str(state.secret_dir)


class Controller:
    """Hooks of the controlling process: gathers outcomes, shows progress, writes the report."""

    def __init__(self, state: RunState) -> None:
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        _logreport(self.state, report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker that died (``error``: killed, crashed; None for one that finished) ends the run as
        Ctrl-C does, unless the run is already stopping: the other workers are interrupted, every check
        that did not report is "interrupted", and the report names :data:`~conformance.interrupts.CRASHED`.
        The command's own run passes ``--max-worker-restart 0`` besides, so that xdist never replaces it."""
        state = self.state
        if error is None or state.report_dir is None or interrupts.received() is not None:
            return
        marker = state.secret_dir / interrupts.INTERRUPT_FILE
        if marker.exists():  # the command is stopping the run (a signal, --timeout): a worker's end is part of it
            return
        worker = getattr(getattr(node, "gateway", None), "id", None) or "?"
        try:
            (state.secret_dir / interrupts.CRASH_FILE).write_text(f"xdist worker {worker} died: {error}",
                                                                  encoding="utf-8")
            marker.write_text(interrupts.CRASHED, encoding="utf-8")
        except OSError:
            pass
        interrupts.stop_group(interrupts.CRASHED)

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
        """The report after every other session-finish hook; a stopped run's before them, so that it is
        written while the workers and fixtures tear down (xdist waits up to 10 s for its workers)."""
        if _interrupted(self.state, session) is not None:
            _finish(self.state, session)
            return (yield)
        result = yield
        _finish(self.state, session)
        return result


def _load_mapping(state: RunState) -> dict[str, list[str]]:
    """Every collected check's requirement ids (the workers leave theirs in the private folder)."""
    if state.mapping is None:
        merged: dict[str, list[str]] = {}
        for path in sorted(state.secret_dir.glob("collect-*.json")):
            try:
                merged.update(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
        state.mapping = merged
    return state.mapping


def _logreport(state: RunState, report: pytest.TestReport) -> None:
    if report.when == "setup":
        state.started.add(report.nodeid)
    outs = getattr(report, "conformance_outcomes", None)
    if report.when != "teardown" or outs is None:
        return
    state.reported.add(report.nodeid)
    for d in outs:
        state.outcomes.append(Outcome.from_dict(d))
    extra = getattr(report, "conformance_extra", None) or {}
    for row, val in (extra.get("breakdown") or {}).items():
        prev = state.breakdown.get(row)
        if prev is None:
            state.breakdown[row] = dict(val)
        else:
            prev["shipped"] = _all_of(prev["shipped"], val["shipped"])
            prev["overridable"] = _all_of(prev["overridable"], val["overridable"])
            prev["note"] = "; ".join(n for n in (prev.get("note"), val.get("note")) if n) or None
    for code, note in (extra.get("error_codes") or {}).items():
        state.error_codes.setdefault(code, note)
    state.transports.update(extra.get("transports") or ())
    if state.progress:
        _progress(state)


def _all_of(a: bool | None, b: bool | None) -> bool | None:
    """Two observations of one breakdown cell: any no is no; else any not-measured is not measured."""
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _progress(state: RunState) -> None:
    mapping = _load_mapping(state)
    if not mapping:
        return
    # Only the rows the run selected: a check also tagged with a row outside --only does not make it one.
    selected = set(state.context.scope) if state.context.scope is not None else None
    per_req: dict[str, list[str]] = defaultdict(list)
    for nodeid, ids in mapping.items():
        for rid in ids:
            if selected is None or rid in selected:
                per_req[rid].append(nodeid)
    registry = state.registry

    def waits_on(rid: str, nodes: list[str]) -> list[str] | dict[str, list[str]]:
        # An observed row takes findings from every check of the run: it is resolved only at the end.
        return mapping if rid in registry and registry[rid].observed else nodes

    newly = [rid for rid, nodes in per_req.items()
             if rid not in state.resolved and all(n in state.reported for n in waits_on(rid, nodes))]
    for rid in sorted(newly):
        state.resolved.add(rid)
        word = requirement_verdict(state.registry[rid], state.outcomes).status if rid in state.registry else "?"
        elapsed = time.monotonic() - state.t0
        sys.stderr.write(f"[{len(state.resolved):>3}/{len(per_req)}] {rid:<34} {word:<13} {elapsed:6.1f}s\n")
    sys.stderr.flush()


def _unreported(state: RunState, interrupted: str | None) -> list[Outcome]:
    """An outcome for each id of every collected check that never reported: a crash, or the end came first
    — or, in a run stopped by the signal ``interrupted``, the stop (not measured, "interrupted")."""
    out: list[Outcome] = []
    for nodeid, ids in _load_mapping(state).items():
        if nodeid in state.reported:
            continue
        if interrupted is not None:
            out += [Outcome(requirement=rid, status=NOT_MEASURED, nodeid=nodeid, message=interrupts.note(interrupted),
                            interrupted=True) for rid in ids]
            continue
        if nodeid in state.started:
            status, msg, harness = FAIL, "the test started but never reported (crashed or killed)", True
        else:
            status, msg, harness = NOT_MEASURED, "the run ended before this check ran", False
        out += [Outcome(requirement=rid, status=status, nodeid=nodeid, message=msg, harness_error=harness)
                for rid in ids]
    return out


def _run_info(state: RunState) -> RunInfo:
    """The report's identity: what the command said, when the run finished, the transports it covered."""
    run = RunInfo(**{k: v for k, v in state.context.run.items() if k in RunInfo.__dataclass_fields__})
    run.finished = datetime.now(UTC).isoformat(timespec="seconds")
    if not run.environment:
        run.environment = (f"{platform.system()} {platform.release()} {platform.machine()}, "
                           f"Python {platform.python_version()}")
    seen = state.transports | {TRANSPORT_NAMES[o.transport] for o in state.outcomes
                               if o.transport in TRANSPORT_NAMES and o.status == PASS}
    run.transports_covered = sorted(set(run.transports_covered) | seen)
    return run


def _interrupted(state: RunState, session: pytest.Session) -> str | None:
    """The signal that stopped the run, if one did: as the command names the one it forwarded, else as
    this process received it (a signal sent to the suite directly)."""
    try:
        named = (state.secret_dir / interrupts.INTERRUPT_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        named = ""
    if named:
        return named
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:
        return interrupts.received() or "SIGINT"
    return None


def _finish(state: RunState, session: pytest.Session) -> None:
    if state.report_dir is None:
        return
    interrupted = _interrupted(state, session)
    state.outcomes.extend(_unreported(state, interrupted))
    for path in state.secret_dir.glob("secrets-*.json"):
        try:
            state.secrets.load(path)
        except (OSError, ValueError):
            continue
    ctx = state.context
    try:
        conclude(state.report_dir, state.registry, ctx.family, state.outcomes, _run_info(state), state.secrets,
                 breakdown=state.breakdown, error_codes=state.error_codes, scope=ctx.scope,
                 scope_note=ctx.scope_note, provided=ctx.provides, interrupted=interrupted)
    except (ReportWriteError, RegistryError) as exc:
        sys.stderr.write(f"agentd-conformance: {exc}\n")
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
