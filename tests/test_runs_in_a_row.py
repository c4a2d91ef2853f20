"""A run does not depend on the one before (issue 22 §2).

The agent is the real a2a-sdk server (fixtures/plain_sdk_agent, JSON-RPC only) running at most two held
tasks at once: a new task beyond is refused. A2A_SUB_001 holds a task of the long-running hint and
never cancels it; before, that task outlived the run, and the second run in a row found the agent at its
limit — A2A_VER_001 and VER_004 failed and VER_005 was not measured. Now every task a run made and left
running is canceled at its end, so two runs in a row give the same verdicts. A task the run did not
make is left alone, and the pre-flight says in one line that the agent was already busy.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.a2a.messages import send_params
from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.fixtures.plain_sdk_agent.executor import LONG_RUNNING_TEXT
from conformance.fixtures.plain_sdk_agent.server import JSONRPC_PATH
from conformance.registry import default_registry
from conformance.report import load_report
from conformance.wire.jsonrpc import JsonRpcClient
from tests.test_command import _env

ROWS = ("A2A_SUB_001", "A2A_VER_001", "A2A_VER_004", "A2A_VER_005")


def _run(url: str, out: Path, *rows: str) -> tuple[dict[str, Any], str]:
    """The rows' (status, note) of one run against ``url`` with the agent's hold text, and its stderr."""
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", "--family", "a2a", "--url", url,
                           "--long-running-text", LONG_RUNNING_TEXT, "--only", *rows, "--report-dir", str(out)],
                          capture_output=True, text=True, timeout=300, env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}"
    reqs = load_report(out, default_registry()).to_dict()["requirements"]
    return {rid: (reqs[rid]["status"], reqs[rid].get("note") or "") for rid in rows}, proc.stderr


@pytest.fixture(scope="module")
def agent() -> Iterator[PlainSdkAgent]:
    with PlainSdkAgent(bindings=("JSONRPC",), limit=2) as running:
        yield running


def test_two_runs_in_a_row_give_the_same_verdicts(agent: PlainSdkAgent, tmp_path: Path) -> None:
    first, said = _run(agent.url, tmp_path / "first", *ROWS)
    assert first["A2A_SUB_001"][0] == "pass", first  # it held a task of the hint (and left it working)
    assert "canceled 1 task(s) this run left running" in said, said
    assert not agent.executor.holding, "a task the run made is still held working after it"
    second, said = _run(agent.url, tmp_path / "second", *ROWS)
    assert second == first
    assert "already has" not in said, said


def test_a_busy_agent_is_noted_and_a_task_the_run_did_not_make_is_left_alone(agent: PlainSdkAgent,
                                                                            tmp_path: Path) -> None:
    params = send_params(LONG_RUNNING_TEXT, configuration={"returnImmediately": True})
    with JsonRpcClient(agent.base_url + JSONRPC_PATH) as client:
        theirs = client.call("SendMessage", params).result["task"]["id"]
    try:
        _, said = _run(agent.url, tmp_path / "r", "A2A_VER_001")
        notes = [line for line in said.splitlines() if "already has" in line]
        assert len(notes) == 1 and "1 task(s) not in a terminal state" in notes[0], said
        assert theirs in agent.executor.holding, "the run canceled a task it did not make"
    finally:
        with JsonRpcClient(agent.base_url + JSONRPC_PATH) as client:
            client.call("CancelTask", {"id": theirs})


def test_an_interrupted_run_cancels_what_it_left_running(tmp_path: Path) -> None:
    """Ctrl-C while the run goes (each turn takes 2 s, so the run is still at the version rows when it is
    interrupted, with the hint's task held): the tasks it made are canceled on the way out."""
    with PlainSdkAgent(bindings=("JSONRPC",), delay=2.0) as slow:
        proc = subprocess.Popen([sys.executable, "-m", "conformance.command", "agent", "--family", "a2a", "--url",
                                 slow.url, "--long-running-text", LONG_RUNNING_TEXT, "--only", *ROWS,
                                 "--report-dir", str(tmp_path / "r")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env(),
                                stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while not slow.executor.holding and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert slow.executor.holding, "the run held no task of the hint"
            proc.send_signal(signal.SIGINT)
            _, said = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert not slow.executor.holding, f"the interrupted run left its task held: {said[-1500:]}"
        assert "canceled 1 task(s) this run left running" in said, said
