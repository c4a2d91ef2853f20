"""An agent whose JSON-RPC endpoint is not the root of its host is judged exactly as one that is.

The reference agentd is served twice as a running target (``--url``): once with JSON-RPC at ``/``,
once at ``/a2a/jsonrpc`` with the root answering an HTML 404. Every check must call the interface
the card declares, so both runs must give the same verdict on every requirement; above all, the
rows that once posted to the ``--url`` root must not fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.fixtures.reference_agentd import Config, ReferenceAgentd
from conformance.registry import default_registry
from conformance.report import Report
from tests.killmatrix import run_command

RPC_PATH = "/a2a/jsonrpc"
#: What the harness cannot switch on a running target, declared as the reference is configured.
FACTS = ("--fact", "events=on", "--fact", "introspection=off", "--fact", "device_grant=off", "--fact", "push=on")
#: The rows that posted to the --url root instead of the card's interface.
ONCE_AT_THE_ROOT = (
    "AGENTD_CMD_001", "AGENTD_CMD_002", "AGENTD_CMD_003", "AGENTD_CMD_004", "AGENTD_CMD_005", "AGENTD_CMD_006",
    "AGENTD_CMD_010",
    "AGENTD_EVT_001", "AGENTD_EVT_002", "AGENTD_EVT_003", "AGENTD_EVT_005", "AGENTD_EVT_006", "AGENTD_EVT_011",
    "AGENTD_EVT_015",
    "AGENTD_ANN_011",
)  # fmt: skip
#: What CI compares for the agentd family: the rows above and the first row of every area (each area's checks
#: reach the daemon their own way). Two whole-family runs cost minutes of a 2-core CI; the whole family is
#: compared by ``python -m benchmarks.not_at_root``.
AGENTD_SAMPLE = sorted({*ONCE_AT_THE_ROOT, *(r.id for r in default_registry().select(family="agentd")
                                              if r.id.endswith("_001"))})


Statuses = dict[str, tuple[str, str | None]]


def _statuses(report: Report) -> Statuses:
    return {rid: (e.status, e.note) for rid, e in report.requirements.items()}


def _differences(at_root: Statuses, moved: Statuses) -> dict[str, Any]:
    return {rid: {"at the root": at_root[rid], "at " + RPC_PATH: moved.get(rid)}
            for rid in at_root if moved.get(rid, (None,))[0] != at_root[rid][0]}


def _moved() -> ReferenceAgentd:
    agent = ReferenceAgentd(Config(rpc_path=RPC_PATH)).start()
    root = httpx.post(agent.url, json={"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}})
    assert root.status_code == 404 and root.headers["content-type"].startswith("text/html"), "the trap is not set"
    assert agent.card["supportedInterfaces"][0]["url"] == agent.url.rstrip("/") + RPC_PATH
    return agent


@pytest.mark.slow
def test_agentd_family_judges_an_agent_off_the_root_as_at_the_root(tmp_path: Path) -> None:
    with ReferenceAgentd(Config()) as root:
        at_root = _statuses(run_command(["agent", "--url", root.url, "--family", "agentd", *FACTS, "--only",
                                         *AGENTD_SAMPLE], tmp_path / "root"))
    moved_agent = _moved()
    try:  # --url as the bare origin (no trailing slash): the card's interface names the endpoint
        moved = _statuses(run_command(["agent", "--url", moved_agent.url.rstrip("/"), "--family", "agentd", *FACTS,
                                       "--only", *AGENTD_SAMPLE], tmp_path / "moved"))
    finally:
        moved_agent.stop()
    failing = {rid: moved[rid] for rid in ONCE_AT_THE_ROOT if moved[rid][0] in ("fail", "partial")}
    assert not failing, f"rows that must call the card's interface fail off the root: {failing}"
    failing_at_root = {rid: at_root[rid] for rid in ONCE_AT_THE_ROOT if at_root[rid][0] != "pass"
                       and at_root[rid][0] != "not_measured"}
    assert not failing_at_root, f"the comparison proves nothing for rows failing at the root: {failing_at_root}"
    passed = sum(at_root[rid][0] == "pass" for rid in AGENTD_SAMPLE)
    assert passed >= len(AGENTD_SAMPLE) // 2, f"too little measured at the root: {at_root}"
    diff = _differences(at_root, moved)
    assert not diff, f"verdicts differ between the root and {RPC_PATH}: {diff}"


@pytest.mark.slow
def test_core_family_judges_an_agent_off_the_root_as_at_the_root(tmp_path: Path) -> None:
    with ReferenceAgentd(Config()) as root:
        at_root = _statuses(run_command(["agent", "--url", root.url, "--family", "a2a"], tmp_path / "root"))
    moved_agent = _moved()
    try:  # --url as the card URL
        card_url = moved_agent.url.rstrip("/") + "/.well-known/agent-card.json"
        moved = _statuses(run_command(["agent", "--url", card_url, "--family", "a2a"], tmp_path / "moved"))
    finally:
        moved_agent.stop()
    assert sum(s == "pass" for s, _ in at_root.values()) >= 40, f"too little measured at the root: {at_root}"
    diff = _differences(at_root, moved)
    assert not diff, f"verdicts differ between the root and {RPC_PATH}: {diff}"
