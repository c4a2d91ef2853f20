"""A2ACLI_DEFAULT_001 (SPEC.md §6.5): the six baseline defaults, one check per row of COMPLIANCE.md
§4a. Each check observes the default behaviour with no flag ("shipped"), then passes the overriding
flag and observes that the behaviour changes ("overridable"), records both in the breakdown, and
fails unless both hold. Whether --help shows the effective defaults is checked in test_surface.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli.output import parse_json_document, parse_text_floor
from conformance.cli.runner import CliResult
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
from conformance.suites.cli.conftest import Cli, card_ref

AgentMaker = Callable[..., ScriptedAgent]
Recorder = Callable[..., None]

#: WORKING first, COMPLETED half a second later (with a status message and an artifact, so a
#: verbose view has something to add).
_SLOW_TASK = TaskFlow(
    states=(("TASK_STATE_WORKING", 0.0, "working on it"), ("TASK_STATE_COMPLETED", 0.5, "all done")),
    artifacts=(ArtifactSpec(parts=(Text("the answer is 42"),), name="answer"),),
)


def _describe(r: CliResult) -> str:
    return f"exit {r.exit_code}; stdout: {r.stdout_text[:300]!r}; stderr: {r.stderr_text[:300]!r}"


def _verdict(record: Recorder, row: str, shipped: bool, overridable: bool, note: str, detail: str = "") -> None:
    """Record the breakdown row (with a short ``note``), then fail unless the default is both shipped
    and overridable (the message adds ``detail``: what the runs printed)."""
    record(row, shipped=shipped, overridable=overridable, note=note)
    yes_no = {True: "yes", False: "no"}
    assert shipped and overridable, (
        f"{row}: shipped={yes_no[shipped]}, overridable={yes_no[overridable]} — {note}"
        + (f"; {detail}" if detail else ""))


def _task_state(stdout: str) -> str | None:
    """``task.status.state`` of a ``send -o json`` document (SendMessageResponse), if there is one."""
    doc, problem = parse_json_document(stdout)
    if problem or not isinstance(doc, dict):
        return None
    task = doc.get("task")
    status = task.get("status") if isinstance(task, dict) else None
    state = status.get("state") if isinstance(status, dict) else None
    return state if isinstance(state, str) else None


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="transport_server_preference_order")
def test_default_transport_is_card_order_and_flag_overrides(cli: Cli, agent: AgentMaker,
                                                             record_breakdown: Recorder) -> None:
    """Against an HTTP+JSON-first card the tool uses HTTP+JSON unprompted, and ``--transport JSONRPC``
    moves it to JSON-RPC. Catches a fixed transport or an ignored --transport."""
    a = agent(Script(card=CardSpec(interfaces=(Interface("HTTP+JSON"), Interface("JSONRPC")))))
    r1 = cli.run("send", "--text", "hi", *card_ref(a))
    default_used = sorted({q.binding for q in a.a2a_requests()})
    a.clear_requests()
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "--transport", "JSONRPC")
    flag_used = sorted({q.binding for q in a.a2a_requests()})
    shipped = r1.exit_code == 0 and default_used == ["HTTP+JSON"]
    overridable = r2.exit_code == 0 and flag_used == ["JSONRPC"]
    _verdict(record_breakdown, "transport_server_preference_order", shipped, overridable,
             f"card order HTTP+JSON, JSONRPC: default used {default_used} (exit {r1.exit_code}); "
             f"--transport JSONRPC used {flag_used} (exit {r2.exit_code})",
             f"default: {_describe(r1)}; --transport JSONRPC: {_describe(r2)}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="task_completion_wait_by_default")
def test_default_send_waits_and_async_returns_early(cli: Cli, agent: AgentMaker, record_breakdown: Recorder) -> None:
    """A task that completes 0.5 s after creation: plain ``send`` reports it COMPLETED (it waited);
    ``send --async`` reports it before completion, with its id. Catches a send that returns on the
    first response, or an --async that still blocks."""
    a = agent(Script(send=_SLOW_TASK))
    r1 = cli.run("send", "--text", "hi", *card_ref(a), "-o", "json")
    waited = _task_state(r1.stdout_text)
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "-o", "json", "--async")
    early = _task_state(r2.stdout_text)
    ids = [t.id for t in a.tasks]
    shipped = r1.exit_code == 0 and waited == "TASK_STATE_COMPLETED"
    overridable = (r2.exit_code == 0 and early is not None and early != "TASK_STATE_COMPLETED"
                   and len(ids) == 2 and ids[1] in r2.stdout_text)
    _verdict(record_breakdown, "task_completion_wait_by_default", shipped, overridable,
             f"plain send reported state {waited!r} (exit {r1.exit_code}); --async reported {early!r} "
             f"(exit {r2.exit_code}, task id {'shown' if len(ids) == 2 and ids[1] in r2.stdout_text else 'missing'})",
             f"plain send: {_describe(r1)}; --async: {_describe(r2)}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="output_human_readable_text")
def test_default_output_is_text_and_flag_selects_json(cli: Cli, agent: AgentMaker, record_breakdown: Recorder) -> None:
    """With no -o, ``send`` prints the text floor (``Label: value`` lines carrying the task id, not
    JSON); ``-o json`` prints one JSON document. Catches a JSON default or an ignored --output."""
    a = agent(Script())
    r1 = cli.run("send", "--text", "hi", *card_ref(a))
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "--output", "json")
    first_id = a.tasks[0].id if a.tasks else "<no task>"
    try:
        json.loads(r1.stdout_text)
        is_json = True
    except ValueError:
        is_json = False
    doc = parse_text_floor(r1.stdout_text)
    shipped = (r1.exit_code == 0 and not is_json and not doc.problems
               and doc.label_of_value(first_id) is not None)
    parsed, problem = parse_json_document(r2.stdout_text)
    overridable = r2.exit_code == 0 and problem is None and isinstance(parsed, dict)
    id_seen = "found" if doc.label_of_value(first_id) else "missing"
    _verdict(record_breakdown, "output_human_readable_text", shipped, overridable,
             f"default output {'is JSON' if is_json else 'is not JSON'}, "
             f"{len(doc.problems)} text-floor problem(s), task id {id_seen} "
             f"(exit {r1.exit_code}); --output json: {problem or 'one JSON document'} (exit {r2.exit_code})",
             f"default: {_describe(r1)}; --output json: {_describe(r2)}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="detail_level_concise")
def test_default_detail_is_concise_and_verbose_adds_detail(cli: Cli, agent: AgentMaker,
                                                          record_breakdown: Recorder) -> None:
    """For the same completed task (status message, one artifact), the default text output is
    strictly shorter than the ``--verbose`` output, which keeps everything the default printed.
    Catches a verbose-by-default tool or a missing/ineffective --verbose."""
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_COMPLETED", 0.0, "all done"),),
                                   artifacts=_SLOW_TASK.artifacts)))
    # -o text pins the format, so this row measures detail alone, whatever the output default is.
    r1 = cli.run("send", "--text", "hi", *card_ref(a), "-o", "text")
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "-o", "text", "--verbose")
    ids = [t.id for t in a.tasks]
    concise = r1.stdout_text.replace(ids[0], "<id>") if ids else r1.stdout_text
    verbose = r2.stdout_text.replace(ids[-1], "<id>") if ids else r2.stdout_text
    shipped = r1.exit_code == 0 and bool(concise.strip()) and len(concise) < len(verbose)
    overridable = r2.exit_code == 0 and concise != verbose and len(verbose) > len(concise)
    _verdict(record_breakdown, "detail_level_concise", shipped, overridable,
             f"default stdout {len(concise)} chars, --verbose stdout {len(verbose)} chars "
             f"(default exit {r1.exit_code}, --verbose exit {r2.exit_code})",
             f"default: {_describe(r1)}; --verbose: {_describe(r2)}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="protocol_version_highest_mutual")
def test_default_version_is_highest_mutual_and_flag_overrides(cli: Cli, agent: AgentMaker,
                                                             record_breakdown: Recorder) -> None:
    """Against a card declaring A2A 1.1 (agent accepting 1.0 and 1.1) the tool signals a 1.x version
    no higher than 1.1 unprompted (1.0 or 1.1, depending on what it speaks); ``--a2a-version`` with the
    other value is then what every request signals. Catches an empty or pre-1.0 default and a
    missing --a2a-version."""
    a = agent(Script(card=CardSpec(interfaces=(Interface("JSONRPC", protocol_version="1.1"),)),
                     versions=("1.0", "1.1")))
    r1 = cli.run("send", "--text", "hi", *card_ref(a))
    default_versions = sorted({str(q.a2a_version) for q in a.a2a_requests()})
    a.clear_requests()
    other = "1.1" if default_versions == ["1.0"] else "1.0"
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "--a2a-version", other)
    flag_versions = sorted({str(q.a2a_version) for q in a.a2a_requests()})
    shipped = r1.exit_code == 0 and len(default_versions) == 1 and default_versions[0] in ("1.0", "1.1")
    overridable = r2.exit_code == 0 and flag_versions == [other]
    _verdict(record_breakdown, "protocol_version_highest_mutual", shipped, overridable,
             f"card declares 1.1: default signalled {default_versions} (exit {r1.exit_code}); "
             f"--a2a-version {other} signalled {flag_versions} (exit {r2.exit_code})",
             f"default: {_describe(r1)}; --a2a-version {other}: {_describe(r2)}")


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="transport_security_tls_on")
def test_default_verifies_tls_and_insecure_disables_with_warning(cli: Cli, agent: AgentMaker, tmp_path: Path,
                                                                record_breakdown: Recorder) -> None:
    """Against a TLS agent whose CA the tool was not given: with no flag the call fails before any A2A
    request arrives; with ``--insecure`` it goes through and stderr warns. Catches verification off by
    default, a missing --insecure, and a silent one."""
    a = agent(Script(), tls=TLSConfig.generate(tmp_path / "tls"))
    r1 = cli.run("send", "--text", "hi", *card_ref(a))
    reached = len(a.a2a_requests())
    r2 = cli.run("send", "--text", "hi", *card_ref(a), "--insecure")
    reached_insecure = len(a.a2a_requests()) - reached
    warned = any(w in r2.stderr_text.lower() for w in ("warn", "insecure", "verif"))
    shipped = r1.exit_code not in (0, None) and reached == 0
    overridable = r2.exit_code == 0 and reached_insecure > 0 and warned
    _verdict(record_breakdown, "transport_security_tls_on", shipped, overridable,
             f"untrusted certificate without flags: exit {r1.exit_code}, {reached} A2A request(s) reached the "
             f"agent; --insecure: exit {r2.exit_code}, {reached_insecure} request(s), "
             f"{'warned' if warned else 'no warning'} on stderr",
             f"no flag: {_describe(r1)}; --insecure: {_describe(r2)}")
