"""The pytest plugin: requirement markers, outcomes, evidence, and the report at session end.

A check names its requirements with ``@pytest.mark.requirement("ID", ..., part=None, transport=None)``.
The plugin validates every id against the registry at collection (an unknown id is a usage error),
turns each test's phases into one :class:`~conformance.outcome.Outcome` per id (see
``conformance.outcome`` for the rules), writes redacted evidence, and — on the controlling process,
also under pytest-xdist — computes the verdicts and writes the report folder.
"""

from __future__ import annotations

import json
import platform
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

import pytest

from conformance import allure_labels
from conformance.context import RunContext, private_dir
from conformance.evidence import Evidence, EvidenceStore, SecretSet, slug
from conformance.judge import DEPENDS_MARKER, Blocked, blame_violation
from conformance.outcome import FAIL, NA, NOT_MEASURED, PASS, CheckEnded, NotMeasured, Outcome
from conformance.registry import Registry, RegistryError, default_registry
from conformance.scrub import Scrubber

MARKER = "requirement"
_STATE = pytest.StashKey["_RunState"]()
_ITEM = pytest.StashKey["_ItemState"]()


class _Phase(NamedTuple):
    status: str
    message: str
    harness: bool = False
    blocked_by: str | None = None


class _ItemState:
    def __init__(self) -> None:
        self.evidence = Evidence()
        self.phases: dict[str, _Phase] = {}
        self.breakdown: dict[str, dict[str, Any]] = {}
        self.error_codes: dict[str, str] = {}
        self.transports: set[str] = set()
        self.duration = 0.0


class _RunState:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        report_dir = config.getoption("conformance_report")
        self.report_dir: Path | None = Path(report_dir).resolve() if report_dir else None
        ctx_path = config.getoption("conformance_context")
        self.context = RunContext.load(Path(ctx_path)) if ctx_path else RunContext()
        fam = config.getoption("conformance_family")
        if fam:
            self.context.family = fam
        scope = config.getoption("conformance_only")
        if scope:
            self.context.scope = [s.strip() for s in scope.split(",") if s.strip()]
        self.progress = bool(config.getoption("conformance_progress"))
        self.secrets = SecretSet(self.context.secrets)
        #: True when this process made the private folder itself (no command around it): remove it at the end.
        self.owns_secret_dir = not self.is_worker and not self.context.secret_dir
        if self.is_worker:
            self.secret_dir = Path(config.workerinput["conformance_secret_dir"])  # type: ignore[attr-defined]
        else:
            self.secret_dir = Path(self.context.secret_dir) if self.context.secret_dir else private_dir()
        self.worker_id = config.workerinput["workerid"] if self.is_worker else "main"  # type: ignore[attr-defined]
        self.outcomes: list[Outcome] = []
        self.breakdown: dict[str, dict[str, Any]] = {}
        self.error_codes: dict[str, str] = {}
        self.transports: set[str] = set()
        self.started: set[str] = set()
        self.reported: set[str] = set()
        self.mapping: dict[str, list[str]] | None = None
        self.resolved: set[str] = set()
        self.t0 = time.monotonic()
        self._registry: Registry | None = None

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = default_registry()
        return self._registry

    @property
    def store(self) -> EvidenceStore | None:
        return EvidenceStore(self.report_dir, self.secrets) if self.report_dir else None


# ── options and configuration ──────────────────────────────────────────────────────────────

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentd-conformance")
    group.addoption("--conformance-report", metavar="DIR", default=None,
                    help="write the compliance report, summary, junit.xml and evidence into DIR")
    group.addoption("--conformance-family", metavar="FAMILY", default=None,
                    help="registry family the report covers (a2acli, agentd, a2a)")
    group.addoption("--conformance-context", metavar="FILE", default=None,
                    help="run context file written by the agentd-conformance command")
    group.addoption("--conformance-only", metavar="IDS", default=None,
                    help="comma-separated requirement ids: run only their checks")
    group.addoption("--conformance-progress", action="store_true", default=False,
                    help="print requirements resolved / total on stderr")
    group.addoption("--conformance-collect-map", metavar="FILE", default=None,
                    help="write {nodeid: {ids, depends_on}} of the collected checks to FILE (for coverage)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*ids, part=None, transport=None): the requirement ids this check measures")
    config.addinivalue_line(
        "markers", f"{DEPENDS_MARKER}(*ids): requirements whose features this check relies on (the blame rule)")
    state = _RunState(config)
    config.stash[_STATE] = state
    config.pluginmanager.register(Scrubber(state.secrets), "agentd-conformance-scrubber")
    if not state.is_worker:
        config.pluginmanager.register(_Controller(state), "agentd-conformance-controller")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the private folder this process made: it holds the run's secrets in clear."""
    state = config.stash.get(_STATE, None)
    if state is not None and state.owns_secret_dir:
        shutil.rmtree(state.secret_dir, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: hand each worker the private folder where it leaves its secrets and its collection."""
    state = node.config.stash[_STATE]
    node.workerinput["conformance_secret_dir"] = str(state.secret_dir)


def _requirement_marks(item: pytest.Item) -> list[pytest.Mark]:
    return list(item.iter_markers(MARKER))


def _depends_of(item: pytest.Item) -> list[str]:
    return [rid for m in item.iter_markers(DEPENDS_MARKER) for rid in m.args]


def _ids_of(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for m in _requirement_marks(item):
        for rid in m.args:
            if rid not in ids:
                ids.append(rid)
    return ids


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    state = config.stash[_STATE]
    marked = [it for it in items if _requirement_marks(it)]
    if not marked:
        return
    try:
        registry = state.registry
    except RegistryError as exc:
        raise pytest.UsageError(f"cannot load the requirement registry: {exc}") from exc
    for it in marked:
        for m in _requirement_marks(it):
            if not m.args:
                raise pytest.UsageError(f"{it.nodeid}: @pytest.mark.requirement needs at least one id")
            for rid in m.args:
                if not isinstance(rid, str) or rid not in registry:
                    raise pytest.UsageError(f"{it.nodeid}: unknown requirement id {rid!r} (not in the registry)")
                part = m.kwargs.get("part")
                if part is not None and part not in registry[rid].parts:
                    raise pytest.UsageError(
                        f"{it.nodeid}: {rid} has no part {part!r} (registry parts: {list(registry[rid].parts)})")
        for rid in _depends_of(it):
            if not isinstance(rid, str) or rid not in registry:
                raise pytest.UsageError(f"{it.nodeid}: {DEPENDS_MARKER} names unknown requirement id {rid!r}")
            if rid in _ids_of(it):
                raise pytest.UsageError(f"{it.nodeid}: {DEPENDS_MARKER} names {rid}, which the check measures")
        if allure_labels.active(config):
            allure_labels.mark(it, [registry[rid] for rid in _ids_of(it)])
    scope = state.context.scope
    if scope is not None:
        wanted = set(scope)
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for it in items:
            (keep if set(_ids_of(it)) & wanted else drop).append(it)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    mapping = {it.nodeid: _ids_of(it) for it in items if _requirement_marks(it)}
    collect_map = config.getoption("conformance_collect_map")
    if collect_map and not state.is_worker:
        doc = {it.nodeid: {"ids": _ids_of(it), "depends_on": _depends_of(it)} for it in items
               if _requirement_marks(it)}
        Path(collect_map).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    if state.is_worker:
        path = state.secret_dir / f"collect-{state.worker_id}.json"
        path.write_text(json.dumps(mapping), encoding="utf-8")
    else:
        state.mapping = mapping


def run_state(config: pytest.Config) -> tuple[RunContext, SecretSet]:
    """The run context and secret set of this session, for hooks that run before fixtures exist
    (e.g. parametrizing checks at collection). Defaults when the plugin is not active."""
    if _STATE in config.stash:
        state = config.stash[_STATE]
        return state.context, state.secrets
    return RunContext(), SecretSet()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A check whose every requirement needs something this run lacks is not started at all."""
    ids = _ids_of(item)
    state = item.config.stash.get(_STATE, None)
    if not ids or state is None or state.context.provides is None:
        return
    provided = set(state.context.provides)
    registry = state.registry
    lacking = {rid: [n for n in registry[rid].needs if n not in provided] for rid in ids if rid in registry}
    if lacking and all(lacking.values()):
        from conformance.verdict import needs_note

        first = next(iter(lacking.values()))
        raise NotMeasured(needs_note(first))


# ── fixtures for checks ───────────────────────────────────────────────────────────────────

def _item_state(item: pytest.Item) -> _ItemState:
    if _ITEM not in item.stash:
        item.stash[_ITEM] = _ItemState()
    return item.stash[_ITEM]


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Attach evidence to the running check; written (redacted) with its outcome."""
    return _item_state(request.node).evidence


@pytest.fixture(scope="session")
def run_secrets(pytestconfig: pytest.Config) -> SecretSet:
    """The run's secret set. Register every credential a check makes up before using it."""
    return pytestconfig.stash[_STATE].secrets


@pytest.fixture(scope="session")
def run_context(pytestconfig: pytest.Config) -> RunContext:
    """What the command said about the target (executable, adapter, URL, tokens, facts)."""
    return pytestconfig.stash[_STATE].context


@pytest.fixture
def record_breakdown(request: pytest.FixtureRequest) -> Any:
    """``record_breakdown(row, shipped=bool|None, overridable=bool|None, note=str)`` for DEFAULT_001's
    table; None: that side could not be measured."""
    st = _item_state(request.node)

    def record(row: str, *, shipped: bool | None, overridable: bool | None, note: str | None = None) -> None:
        st.breakdown[row] = {"shipped": None if shipped is None else bool(shipped),
                             "overridable": None if overridable is None else bool(overridable), "note": note}

    return record


#: Binding names as the report's ``transports_covered`` spells them (the template's vocabulary).
TRANSPORT_NAMES = {"JSONRPC": "JSON-RPC", "JSON-RPC": "JSON-RPC", "JSONRPC-UNIX": "JSON-RPC",
                   "HTTP+JSON": "HTTP+JSON", "GRPC": "gRPC", "gRPC": "gRPC"}


@pytest.fixture
def record_transport(request: pytest.FixtureRequest) -> Any:
    """``record_transport(binding)``: a binding the check saw exercised (for ``transports_covered``)."""
    st = _item_state(request.node)

    def record(binding: str) -> None:
        if binding in TRANSPORT_NAMES:
            st.transports.add(TRANSPORT_NAMES[binding])

    return record


@pytest.fixture
def record_error_code(request: pytest.FixtureRequest) -> Any:
    """``record_error_code(code, note)``: an ``A2ACLI_ERR_*`` code the tool was seen to emit."""
    st = _item_state(request.node)

    def record(code: str, note: str = "") -> None:
        st.error_codes.setdefault(code, note or request.node.name)

    return record


# ── outcomes ──────────────────────────────────────────────────────────────────────────────

def _phase_result(item: pytest.Item, call: pytest.CallInfo[Any]) -> _Phase:
    """How one phase of a check ended."""
    if call.excinfo is None:
        return _Phase(PASS, "")
    exc = call.excinfo.value
    if isinstance(exc, Blocked):
        wrong = blame_violation(exc, _ids_of(item), _depends_of(item))
        if wrong:
            return _Phase(FAIL, f"{call.when}: {wrong} ({exc.reason})", True)
        return _Phase(NOT_MEASURED, exc.reason, False, exc.by)
    if isinstance(exc, CheckEnded):
        return _Phase(exc.status, exc.reason)
    if isinstance(exc, AssertionError):
        msg = str(exc).strip() or call.excinfo.exconly()
        return _Phase(FAIL, msg)
    if isinstance(exc, KeyboardInterrupt | pytest.exit.Exception):
        return _Phase(NOT_MEASURED, "the run was interrupted")
    return _Phase(FAIL, f"{call.when}: {call.excinfo.exconly()}", True)


def _final(phases: dict[str, _Phase]) -> _Phase:
    setup = phases.get("setup", _Phase(PASS, ""))
    if setup.status != PASS:
        return setup
    body = phases.get("call", _Phase(NOT_MEASURED, "the check body did not run"))
    teardown = phases.get("teardown", _Phase(PASS, ""))
    if teardown.status == FAIL and body.status != FAIL:
        return _Phase(FAIL, f"teardown: {teardown.message}", True)
    return body


def _transport_of(item: pytest.Item, mark_kwargs: Mapping[str, Any]) -> str | None:
    if mark_kwargs.get("transport"):
        return str(mark_kwargs["transport"])
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for key in ("binding", "transport"):
            if key in callspec.params:
                return str(callspec.params[key])
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    try:
        report = yield
    except Exception as exc:
        if not _requirement_marks(item):
            raise
        # pytest itself failed to format the failure (seen: CPython 3.11.7's "AST constructor recursion
        # depth mismatch" while rendering a traceback). The check's outcome is still known from
        # ``call``: report it plainly rather than let the session end in an internal error.
        report = _plain_report(item, call, exc)
    if not _requirement_marks(item):
        return report
    st = _item_state(item)
    st.phases[call.when] = _phase_result(item, call)
    st.duration += report.duration
    status, message = st.phases[call.when].status, st.phases[call.when].message
    if status in (NOT_MEASURED, NA) and report.failed:
        # Show it as a skip with its reason; the outcome itself travels in conformance_outcomes.
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"{status}: {message}")
    if call.when != "teardown":
        return report
    state = item.config.stash[_STATE]
    status, message, harness, blocked = _final(st.phases)
    message = state.secrets.redact(message)
    ev_paths: tuple[str, ...] = ()
    store = state.store
    ids = _ids_of(item)
    if store is not None and ids:
        payload = {"test": item.nodeid, "requirements": ids, "status": status, "message": message,
                   "harness_error": harness, "attachments": st.evidence.to_payload()}
        try:
            ev_paths = (store.write(ids[0], slug(item.nodeid.split("::", 1)[-1]), payload),)
        except OSError as exc:
            status, message, harness = FAIL, f"cannot write evidence: {exc}", True
        if allure_labels.active(item.config):
            allure_labels.attach(state.report_dir, ev_paths)
    outs = []
    for m in _requirement_marks(item):
        for rid in m.args:
            outs.append(Outcome(requirement=rid, status=status, nodeid=item.nodeid, message=message,
                                transport=_transport_of(item, m.kwargs), part=m.kwargs.get("part"),
                                harness_error=harness, evidence=ev_paths, duration=st.duration,
                                blocked_by=blocked if status == NOT_MEASURED else None).to_dict())
    report.conformance_outcomes = outs
    report.conformance_extra = {"breakdown": st.breakdown, "error_codes": st.error_codes,
                                "transports": sorted(st.transports)}
    if len(state.secrets):
        state.secrets.dump(state.secret_dir / f"secrets-{state.worker_id}.json")
    return report


def _plain_report(item: pytest.Item, call: pytest.CallInfo[Any], error: Exception) -> pytest.TestReport:
    """A report built without pytest's traceback formatting, for when that formatting crashed."""
    outcome: Literal["passed", "failed"] = "passed" if call.excinfo is None else "failed"
    longrepr = None if call.excinfo is None else (
        f"{call.excinfo.exconly()}\n(pytest could not format the traceback: {type(error).__name__}: {error})")
    when = call.when if call.when != "collect" else "setup"
    return pytest.TestReport(item.nodeid, item.location, dict.fromkeys(item.keywords, 1), outcome,
                             longrepr, when, duration=call.duration, start=call.start, stop=call.stop,
                             user_properties=item.user_properties)


def _load_mapping(state: _RunState) -> dict[str, list[str]]:
    if state.mapping is None:
        merged: dict[str, list[str]] = {}
        for path in sorted(state.secret_dir.glob("collect-*.json")):
            try:
                merged.update(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
        state.mapping = merged
    return state.mapping


class _Controller:
    """Hooks of the controlling process: gathers outcomes, shows progress, writes the report."""

    def __init__(self, state: _RunState) -> None:
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        _logreport(self.state, report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        _finish(self.state, session)


def _logreport(state: _RunState, report: pytest.TestReport) -> None:
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


def _progress(state: _RunState) -> None:
    mapping = _load_mapping(state)
    if not mapping:
        return
    per_req: dict[str, list[str]] = defaultdict(list)
    for nodeid, ids in mapping.items():
        for rid in ids:
            per_req[rid].append(nodeid)
    newly = [rid for rid, nodes in per_req.items()
             if rid not in state.resolved and all(n in state.reported for n in nodes)]
    from conformance.verdict import requirement_verdict

    for rid in sorted(newly):
        state.resolved.add(rid)
        word = requirement_verdict(state.registry[rid], state.outcomes).status if rid in state.registry else "?"
        elapsed = time.monotonic() - state.t0
        sys.stderr.write(f"[{len(state.resolved):>3}/{len(per_req)}] {rid:<34} {word:<13} {elapsed:6.1f}s\n")
    sys.stderr.flush()


def _finish(state: _RunState, session: pytest.Session) -> None:
    if state.report_dir is None:
        return
    from conformance.report import ReportWriteError, RunInfo, write_report
    from conformance.verdict import verdicts_for

    mapping = _load_mapping(state)
    for nodeid, ids in mapping.items():
        if nodeid in state.reported:
            continue
        if nodeid in state.started:
            status, msg, harness = FAIL, "the test started but never reported (crashed or killed)", True
        else:
            status, msg, harness = NOT_MEASURED, "the run ended before this check ran", False
        for rid in ids:
            state.outcomes.append(Outcome(requirement=rid, status=status, nodeid=nodeid, message=msg,
                                          harness_error=harness))
    for path in state.secret_dir.glob("secrets-*.json"):
        try:
            state.secrets.load(path)
        except (OSError, ValueError):
            continue
    ctx = state.context
    run = RunInfo(**{k: v for k, v in ctx.run.items() if k in RunInfo.__dataclass_fields__})
    run.finished = datetime.now(UTC).isoformat(timespec="seconds")
    if not run.environment:
        run.environment = (f"{platform.system()} {platform.release()} {platform.machine()}, "
                           f"Python {platform.python_version()}")
    seen = state.transports | {TRANSPORT_NAMES[o.transport] for o in state.outcomes
                               if o.transport in TRANSPORT_NAMES and o.status == PASS}
    run.transports_covered = sorted(set(run.transports_covered) | seen)
    try:
        verdicts = verdicts_for(state.registry, ctx.family, state.outcomes, state.breakdown,
                                scope=ctx.scope, out_of_scope_note=ctx.scope_note, provided=ctx.provides)
        write_report(state.report_dir, state.registry, ctx.family, verdicts, run, state.outcomes,
                     state.secrets, state.breakdown, state.error_codes)
    except (ReportWriteError, RegistryError) as exc:
        sys.stderr.write(f"agentd-conformance: {exc}\n")
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
