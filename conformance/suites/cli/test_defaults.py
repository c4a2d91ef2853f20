"""A2ACLI_DEFAULT_001 (SPEC.md §6.5): the six baseline defaults, one check per row of COMPLIANCE.md
§4a. Each check observes the default behaviour with no flag ("shipped"), then passes the overriding
flag and observes that the behaviour changes ("overridable"), records both in the breakdown, and
fails unless both hold. Whether --help shows the effective defaults is checked in test_surface.py.

Each row is judged on its own evidence: the wait row reads the state wherever the output names it
and the agent's own clock, not a json document; a row whose default run gives no evidence at all
(the send reached no agent) is left out of the breakdown — the report writes it "not measured" —
and the check ends blocked by the requirement whose feature failed, never "no".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli, RecordBreakdown
from conformance.clicheck.output import (
    ONE_DOCUMENT_ROW,
    parse_json_document,
    parse_text_floor,
    several_documents,
    state_matches,
    without_escapes,
)
from conformance.fixtures.scripted_agent import (
    ArtifactSpec,
    CardSpec,
    Interface,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
    TLSConfig,
)
from conformance.judge import blocked_by, shown
from conformance.outcome import not_measured
from conformance.suites.cli.conftest import TWO_TRANSPORTS, card_ref, unspoken

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")


#: WORKING first, COMPLETED half a second later (with a status message and an artifact, so a
#: verbose view has something to add).
_SLOW_TASK = TaskFlow(
    states=(("TASK_STATE_WORKING", 0.0, "working on it"), ("TASK_STATE_COMPLETED", 0.5, "all done")),
    artifacts=(ArtifactSpec(parts=(Text("the answer is 42"),), name="answer"),),
)


def _yes(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "not measured"}[value]


def _verdict(record: RecordBreakdown, row: str, shipped: bool | None, overridable: bool | None, note: str,
             runs: dict[str, CliResult]) -> None:
    """Record the breakdown row (with a short ``note``), then end the check: fail unless the default is
    both shipped and overridable, showing each of the ``runs`` under its label; not measured when a side
    could not be observed."""
    record(row, shipped=shipped, overridable=overridable, note=note)
    assert shipped is not False and overridable is not False, (
        f"{row}: expected shipped and overridable; shipped={_yes(shipped)}, overridable={_yes(overridable)} — "
        f"{note}; " + "; ".join(f"{label}: {shown(r)}" for label, r in runs.items()))
    if shipped is None or overridable is None:
        not_measured(f"{row}: shipped={_yes(shipped)}, overridable={_yes(overridable)} — {note}")


def _provisional(record: RecordBreakdown, row: str, shipped: bool | None, flag: str) -> None:
    """Record the default's side before the override runs: a missing override flag ends the check in
    the run itself (a fail, DEFAULT_001 names every override), and the row must already say so."""
    record(row, shipped=shipped, overridable=False, note=f"{flag}: missing or rejected (see the evidence)")


def _send(cli: Cli, a: ScriptedAgent, *flag: str) -> CliResult:
    """``send`` a message to ``a`` with ``flag`` (none: with the tool's defaults)."""
    return cli.run("send", "--text", "hi", *card_ref(a), *flag)


def _override(cli: Cli, record: RecordBreakdown, row: str, a: ScriptedAgent, shipped: bool | None,
              *flag: str) -> CliResult:
    """Record the default's side (:func:`_provisional`), then ``send`` to ``a`` again with the overriding
    ``flag`` (the option, then its value if it takes one)."""
    _provisional(record, row, shipped, flag[0])
    return _send(cli, a, *flag)


def _unmeasured(record: RecordBreakdown, row: str, by: str, why: str) -> NoReturn:
    """The default run showed nothing about ``row``: record it not measured, saying why, and end the
    check blocked by ``by`` (whose feature failed)."""
    record(row, shipped=None, overridable=None, note=f"not measured: {why}")
    blocked_by(by, why)


def _sent_or_blocked(record: RecordBreakdown, row: str, a: ScriptedAgent, r: CliResult) -> None:
    if not a.a2a_requests():
        _unmeasured(record, row, "A2ACLI_SEND_001", f"`send` made no A2A request (exit {r.exit_code})")


def _task_or_blocked(record: RecordBreakdown, row: str, a: ScriptedAgent, r: CliResult) -> None:
    if not a.tasks:
        _unmeasured(record, row, "A2ACLI_SEND_001", f"`send` created no task (exit {r.exit_code})")


@pytest.mark.depends_on("A2ACLI_TX_004")  # the tool may speak one transport (Tier 1)
@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="transport_server_preference_order")
def test_default_transport_is_card_order_and_flag_overrides(cli: Cli, agent: AgentMaker,
                                                             record_breakdown: RecordBreakdown) -> None:
    """Against an HTTP+JSON-first card the tool uses HTTP+JSON unprompted, and ``--transport JSONRPC``
    moves it to JSON-RPC. Catches a fixed transport or an ignored --transport."""
    row = "transport_server_preference_order"
    for binding in ("HTTP+JSON", "JSONRPC"):
        why = unspoken(cli, agent, binding)
        if why is not None:
            _unmeasured(record_breakdown, row, TWO_TRANSPORTS, f"the tool does not speak {binding}: {why}")
    a = agent(Script(card=CardSpec(interfaces=(Interface("HTTP+JSON"), Interface("JSONRPC")))))
    r1 = _send(cli, a)
    _sent_or_blocked(record_breakdown, row, a, r1)
    default_used = sorted({q.binding for q in a.a2a_requests()})
    shipped = default_used == ["HTTP+JSON"]
    a.clear_requests()
    r2 = _override(cli, record_breakdown, row, a, shipped, "--transport", "JSONRPC")
    flag_used = sorted({q.binding for q in a.a2a_requests()})
    overridable = flag_used == ["JSONRPC"]
    _verdict(record_breakdown, row, shipped, overridable,
             f"card order HTTP+JSON, JSONRPC: default used {default_used}; --transport JSONRPC used {flag_used} "
             f"(exit {r2.exit_code})", {"default": r1, "--transport JSONRPC": r2})


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="task_completion_wait_by_default")
def test_default_send_waits_and_async_returns_early(cli: Cli, agent: AgentMaker,
                                                    record_breakdown: RecordBreakdown) -> None:
    """A task that completes 1 s after creation: plain ``send`` returns once it is COMPLETED and says so
    (in whatever output shape); ``send --async`` on a task completing 6 s later returns, exit 0, while
    the agent still holds it WORKING. Catches a send that returns on the first response, or an
    --async that still blocks."""
    row = "task_completion_wait_by_default"
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 1.0)))))
    r1 = _send(cli, a)
    _task_or_blocked(record_breakdown, row, a, r1)
    at_return = a.tasks[0].state()
    said = state_matches(r1.stdout_text, "TASK_STATE_COMPLETED")
    shipped = False if at_return != "TASK_STATE_COMPLETED" else (True if said else None)
    a.update_script(send=TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 6.0))))
    r2 = _override(cli, record_breakdown, row, a, shipped, "--async")
    later = a.tasks[1].state() if len(a.tasks) > 1 else None
    overridable = r2.exit_code == 0 and later == "TASK_STATE_WORKING"
    _verdict(record_breakdown, row, shipped, overridable,
             f"plain send returned with the task {at_return} (output {'names' if said else 'does not name'} "
             f"COMPLETED); --async returned with the task {later} (exit {r2.exit_code})",
             {"plain send": r1, "--async": r2})


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="output_human_readable_text")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_default_output_is_text_and_flag_selects_json(cli: Cli, agent: AgentMaker,
                                                      record_breakdown: RecordBreakdown) -> None:
    """With no -o, ``send`` prints the text floor (``Label: value`` lines carrying the task id, not
    JSON); ``-o json`` prints one JSON document. Catches a JSON default or an ignored --output."""
    row = "output_human_readable_text"
    a = agent(Script())
    r1 = _send(cli, a)
    _task_or_blocked(record_breakdown, row, a, r1)
    first_id = a.tasks[0].id
    try:
        json.loads(r1.stdout_text)
        is_json = True
    except ValueError:
        is_json = False
    # the text floor's shape is read as a terminal shows it: control sequences in it are OUT_005's
    doc = parse_text_floor(without_escapes(r1.stdout_text))
    shipped = (r1.exit_code == 0 and not is_json and not doc.problems
               and doc.label_of_value(first_id) is not None)
    r2 = _override(cli, record_breakdown, row, a, shipped, "--output", "json")
    parsed, problem = parse_json_document(r2.stdout_text)
    if several_documents(problem):
        _unmeasured(record_breakdown, row, ONE_DOCUMENT_ROW, str(problem))
    overridable = r2.exit_code == 0 and problem is None and isinstance(parsed, dict)
    id_seen = "found" if doc.label_of_value(first_id) else "missing"
    _verdict(record_breakdown, row, shipped, overridable,
             f"default output {'is JSON' if is_json else 'is not JSON'}, "
             f"{len(doc.problems)} text-floor problem(s), task id {id_seen} "
             f"(exit {r1.exit_code}); --output json: {problem or 'one JSON document'} (exit {r2.exit_code})",
             {"default": r1, "--output json": r2})


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="detail_level_concise")
def test_default_detail_is_concise_and_verbose_adds_detail(cli: Cli, agent: AgentMaker,
                                                          record_breakdown: RecordBreakdown) -> None:
    """For the same completed task (status message, one artifact), the default output is strictly
    shorter than the ``--verbose`` output. Catches a verbose-by-default tool or a missing/ineffective
    --verbose."""
    row = "detail_level_concise"
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_COMPLETED", 0.0, "all done"),),
                                   artifacts=_SLOW_TASK.artifacts)))
    r1 = _send(cli, a)
    _task_or_blocked(record_breakdown, row, a, r1)
    ids = [t.id for t in a.tasks]
    concise = r1.stdout_text.replace(ids[0], "<id>")
    r2 = _override(cli, record_breakdown, row, a, None, "--verbose")
    ids = [t.id for t in a.tasks]
    verbose = r2.stdout_text.replace(ids[-1], "<id>")
    shipped = r1.exit_code == 0 and bool(concise.strip()) and len(concise) < len(verbose)
    overridable = r2.exit_code == 0 and concise != verbose and len(verbose) > len(concise)
    _verdict(record_breakdown, row, shipped, overridable,
             f"default stdout {len(concise)} chars, --verbose stdout {len(verbose)} chars "
             f"(default exit {r1.exit_code}, --verbose exit {r2.exit_code})", {"default": r1, "--verbose": r2})


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="protocol_version_highest_mutual")
def test_default_version_is_highest_mutual_and_flag_overrides(cli: Cli, agent: AgentMaker,
                                                             record_breakdown: RecordBreakdown) -> None:
    """Against a card declaring A2A 1.1 (agent accepting 1.0 and 1.1) the tool signals a 1.x version
    no higher than 1.1 unprompted (1.0 or 1.1, depending on what it speaks); ``--a2a-version`` with the
    other value is then what every request signals. Catches an empty or pre-1.0 default and a
    missing --a2a-version."""
    row = "protocol_version_highest_mutual"
    a = agent(Script(card=CardSpec(interfaces=(Interface("JSONRPC", protocol_version="1.1"),)),
                     versions=("1.0", "1.1")))
    r1 = _send(cli, a)
    _sent_or_blocked(record_breakdown, row, a, r1)
    default_versions = sorted({str(q.a2a_version) for q in a.a2a_requests()})
    shipped = len(default_versions) == 1 and default_versions[0] in ("1.0", "1.1")
    a.clear_requests()
    other = "1.1" if default_versions == ["1.0"] else "1.0"
    r2 = _override(cli, record_breakdown, row, a, shipped, "--a2a-version", other)
    flag_versions = sorted({str(q.a2a_version) for q in a.a2a_requests()})
    overridable = r2.exit_code == 0 and flag_versions == [other]
    _verdict(record_breakdown, row, shipped, overridable,
             f"card declares 1.1: default signalled {default_versions} (exit {r1.exit_code}); "
             f"--a2a-version {other} signalled {flag_versions} (exit {r2.exit_code})",
             {"default": r1, f"--a2a-version {other}": r2})


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="transport_security_tls_on")
def test_default_verifies_tls_and_insecure_disables_with_warning(cli: Cli, agent: AgentMaker, tmp_path: Path,
                                                                record_breakdown: RecordBreakdown) -> None:
    """Against a TLS agent whose CA the tool was not given: with no flag the call fails before any A2A
    request arrives; with ``--insecure`` it goes through and warns. The refusal counts as
    verification only when --insecure then reaches the agent (a send that never works proves nothing).
    Catches verification off by default, a missing --insecure, and a silent one."""
    row = "transport_security_tls_on"
    a = agent(Script(), tls=TLSConfig.generate(tmp_path / "tls"))
    r1 = _send(cli, a)
    reached = len(a.a2a_requests())
    # reaching the agent unverified is a "no" on its own; a refusal is a "yes" only once --insecure shows
    # the agent was reachable (a send that never works proves nothing)
    r2 = _override(cli, record_breakdown, row, a, False if reached else None, "--insecure")
    reached_insecure = len(a.a2a_requests()) - reached
    # the row asks for a warning; that diagnostics go to stderr is OUT_001's (a warning on stdout still warns)
    where = [name for name, text in (("stderr", r2.stderr_text), ("stdout", r2.stdout_text))
             if any(w in text.lower() for w in ("warn", "insecure", "verif"))]
    warned = bool(where)
    note = (f"untrusted certificate without flags: exit {r1.exit_code}, {reached} A2A request(s) reached the "
            f"agent; --insecure: exit {r2.exit_code}, {reached_insecure} request(s), "
            f"{'warned on ' + where[0] if warned else 'no warning'}")
    if not reached and not reached_insecure:
        _unmeasured(record_breakdown, row, "A2ACLI_SEND_001", f"the tool reached the TLS agent in neither run ({note})")
    shipped = not reached and r1.exit_code not in (0, None)
    overridable = r2.exit_code == 0 and reached_insecure > 0 and warned
    _verdict(record_breakdown, row, shipped, overridable, note, {"no flag": r1, "--insecure": r2})
