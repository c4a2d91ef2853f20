"""From a check's phases to its outcomes: one :class:`~conformance.outcome.Outcome` per requirement id.

Each phase (setup, call, teardown) ends as pass, fail (an assertion, or a harness error), not
measured or na (``conformance.outcome``), or blocked by another requirement (``conformance.judge``).
At teardown the phases make the check's one status; its evidence is written (redacted), and the
outcomes travel on the test report (``conformance_outcomes``) to the controlling process, also under
pytest-xdist, where :mod:`conformance.plugin.session` gathers them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any, Literal

import pytest

from conformance import allure_labels
from conformance.evidence import slug
from conformance.judge import Blocked, Finding, blame_violation
from conformance.outcome import FAIL, NA, NOT_MEASURED, PASS, CheckEnded, Outcome
from conformance.plugin.markers import depends_of
from conformance.plugin.state import STATE, Phase, ids_of, item_state, requirement_marks


def phase_result(item: pytest.Item, call: pytest.CallInfo[Any]) -> Phase:
    """How one phase of a check ended."""
    if call.excinfo is None:
        return Phase(PASS, "")
    exc = call.excinfo.value
    if isinstance(exc, Blocked):
        wrong = blame_violation(exc, ids_of(item), depends_of(item))
        if wrong:
            return Phase(FAIL, f"{call.when}: {wrong} ({exc.reason})", True)
        return Phase(NOT_MEASURED, exc.reason, False, exc.by)
    if isinstance(exc, CheckEnded):
        return Phase(exc.status, exc.reason)
    if isinstance(exc, AssertionError):
        msg = str(exc).strip() or call.excinfo.exconly()
        return Phase(FAIL, msg)
    if isinstance(exc, KeyboardInterrupt | pytest.exit.Exception):
        return Phase(NOT_MEASURED, "the run was interrupted")
    return Phase(FAIL, f"{call.when}: {call.excinfo.exconly()}", True)


def final(phases: dict[str, Phase], gate: Phase | None = None) -> Phase:
    """The check's one status from its phases: a setup that did not pass, else the body, unless the
    teardown failed after a body that did not. ``gate`` (blocked by another requirement: the check never
    reached its subject, :func:`block_if_not_reached`) replaces a body that failed on an assertion or
    ended not measured, blocked by another requirement included: the gate is the root (the tool never asked
    for the card, so a send that made no request is its consequence, not a second cause); a pass, an ``na``
    and a harness error stand."""
    setup = phases.get("setup", Phase(PASS, ""))
    if setup.status != PASS:
        return setup
    body = phases.get("call", Phase(NOT_MEASURED, "the check body did not run"))
    teardown = phases.get("teardown", Phase(PASS, ""))
    if teardown.status == FAIL and body.status != FAIL:
        return Phase(FAIL, f"teardown: {teardown.message}", True)
    if gate is not None and not body.harness and body.status in (FAIL, NOT_MEASURED):
        return gate
    return body


def block_if_not_reached(item: pytest.Item, blocked: Blocked) -> None:
    """For a fixture that sees, once the check body has run, that the check never reached its subject
    (positive evidence: the tool never asked for the agent's card, so nothing it did afterwards was
    about the requirement): if the body failed or ended not measured, the check is ``blocked`` instead.
    The block must name a requirement the check declared and does not measure (the blame rule); a check
    measuring it keeps its own verdict."""
    if blame_violation(blocked, ids_of(item), depends_of(item)) is None:
        item_state(item).gates.append(blocked)


def _gate(st_gates: list[Blocked]) -> Phase | None:
    if not st_gates:
        return None
    first = st_gates[0]
    return Phase(NOT_MEASURED, first.reason, False, first.by)


def _transport_of(item: pytest.Item, mark_kwargs: Mapping[str, Any]) -> str | None:
    if mark_kwargs.get("transport"):
        return str(mark_kwargs["transport"])
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for key in ("binding", "transport"):
            if key in callspec.params:
                return str(callspec.params[key])
    return None


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_ended(item: pytest.Item, call: pytest.CallInfo[Any]) -> pytest.TestReport | None:
    """The report of a check phase that ended not measured or na (:class:`CheckEnded`, a :class:`Blocked`
    within the blame rule), built here as a skip with its reason, as the wrapper below shows it. pytest's own
    report would first render the exception's traceback with its source (parsing the module, about 15 ms a
    check), only for the wrapper to replace it: a third of a second of a run against the reference agentd,
    whose 20 not-measured and na checks took 0.3 s of pytest's 1.6 s session (py-spy, issue 20). (Its name
    starts with ``pytest_``: pytest registers no other function of a plugin as a hook.)"""
    if call.excinfo is None or call.when == "collect" or not isinstance(call.excinfo.value, CheckEnded):
        return None
    if not requirement_marks(item) or item.get_closest_marker("xfail") is not None:
        return None
    ended = phase_result(item, call)
    if ended.status not in (NOT_MEASURED, NA):
        return None  # a blame violation: a failure, shown with its traceback
    sections = [(f"Captured {key} {when}", content) for when, key, content in item._report_sections]
    return pytest.TestReport(item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "skipped",
                             _as_skip(item, ended), call.when, sections, duration=call.duration, start=call.start,
                             stop=call.stop, user_properties=item.user_properties)


def _as_skip(item: pytest.Item, ended: Phase) -> tuple[str, int, str]:
    """How a phase that ended not measured or na shows in pytest's report: a skip with its status and reason."""
    return (str(item.path), item.location[1] or 0, f"{ended.status}: {ended.message}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    try:
        report = yield
    except Exception as exc:
        if not requirement_marks(item):
            raise
        # pytest itself failed to format the failure (seen: CPython 3.11.7's "AST constructor recursion
        # depth mismatch" while rendering a traceback). The check's outcome is still known from
        # ``call``: report it plainly rather than let the session end in an internal error.
        report = _plain_report(item, call, exc)
    if not requirement_marks(item):
        return report
    st = item_state(item)
    st.phases[call.when] = phase_result(item, call)
    st.duration += report.duration
    if st.phases[call.when].status in (NOT_MEASURED, NA) and report.failed:
        # Show it as a skip with its reason (a report pytest built: the hook above builds most of them itself);
        # the outcome itself travels in conformance_outcomes.
        report.outcome = "skipped"
        report.longrepr = _as_skip(item, st.phases[call.when])
    if call.when != "teardown":
        return report
    state = item.config.stash[STATE]
    status, message, harness, blocked = final(st.phases, _gate(st.gates))
    message = state.secrets.redact(message)
    ev_paths: tuple[str, ...] = ()
    store = state.store
    ids = ids_of(item)
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
    for m in requirement_marks(item):
        for rid in m.args:
            outs.append(Outcome(requirement=rid, status=status, nodeid=item.nodeid, message=message,
                                transport=_transport_of(item, m.kwargs), part=m.kwargs.get("part"),
                                harness_error=harness, evidence=ev_paths, duration=st.duration,
                                blocked_by=blocked if status == NOT_MEASURED else None).to_dict())
    outs += [o.to_dict() for o in finding_outcomes(item, st.findings, ev_paths, state.secrets.redact)]
    report.conformance_outcomes = outs  # type: ignore[attr-defined]
    report.conformance_extra = {"breakdown": st.breakdown, "error_codes": st.error_codes,  # type: ignore[attr-defined]
                                "transports": sorted(st.transports)}
    if len(state.secrets):
        state.secrets.dump(state.secret_dir / f"secrets-{state.worker_id}.json")
    return report


def finding_outcomes(item: pytest.Item, findings: list[Finding], evidence: tuple[str, ...],
                     redact: Callable[[str], str]) -> list[Outcome]:
    """A failing outcome of each ``observed`` row a finding of this check names (not one it measures
    itself: its own check judges that), carrying the check's evidence; a finding for a row that is not
    observed is a harness error of the check's own rows."""
    own = ids_of(item)
    registry = item.config.stash[STATE].registry
    out: list[Outcome] = []
    for f in findings:
        if f.requirement in own:
            continue
        if f.requirement not in registry or not registry[f.requirement].observed:
            out += [Outcome(requirement=rid, status=FAIL, nodeid=item.nodeid, harness_error=True,
                            message=f"the check reported a finding for {f.requirement}, which is not an observed row")
                    for rid in own]
            continue
        seen = f"seen while checking {', '.join(own)}: " if own else ""
        out.append(Outcome(requirement=f.requirement, status=FAIL, nodeid=item.nodeid,
                           message=redact(seen + f.message), transport=f.transport, evidence=evidence,
                           finding=True))
    return out


def _plain_report(item: pytest.Item, call: pytest.CallInfo[Any], error: Exception) -> pytest.TestReport:
    """A report built without pytest's traceback formatting, for when that formatting crashed."""
    outcome: Literal["passed", "failed"] = "passed" if call.excinfo is None else "failed"
    longrepr = None if call.excinfo is None else (
        f"{call.excinfo.exconly()}\n(pytest could not format the traceback: {type(error).__name__}: {error})")
    when = call.when if call.when != "collect" else "setup"
    return pytest.TestReport(item.nodeid, item.location, dict.fromkeys(item.keywords, 1), outcome,
                             longrepr, when, duration=call.duration, start=call.start, stop=call.stop,
                             user_properties=item.user_properties)
