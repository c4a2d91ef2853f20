"""A slow agent gets the verdicts of a fast one (issue 22 §1).

The agent is the real a2a-sdk server (fixtures/plain_sdk_agent) whose executor thinks for a while
before every turn, as an agent answering through a model does; it declares its JSON-RPC interface
only, which keeps the runs short. Two runs of the rows a slow turn used to fail with "ReadTimeout"
(under the fixed 10 s per call), side by side (they mostly wait, so they run at once):

* a 12 s turn with the default per-call timeout (two of the rows, each costs a turn): the verdicts of
  the agent without a delay (pass: tests/test_core_report_sdk_agent.py), since the default fits a
  model-backed agent;
* a 3 s turn with ``--call-timeout 2``: every row is not_measured, its note naming the flag — a
  call the harness stopped waiting for is no row's fail.

The full comparison (all six rows on all three bindings, with and without a 12 s turn) is
``python -m benchmarks.slow_agent``; it costs minutes of waiting.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.campaign.targets_file import TargetFileError, load_targets
from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.registry import default_registry
from conformance.report import load_report
from conformance.targets.kinds import build_target
from conformance.targets.model import AgentTarget, TargetError
from conformance.wire import DEFAULT_CALL_TIMEOUT
from tests.test_command import _env

#: The rows a 12 s turn failed before the per-call timeout could be set.
ROWS = ("A2A_SEND_001", "A2A_SEND_002", "A2A_SEND_003", "A2A_TASK_001", "A2A_VER_001", "A2A_VER_004")
#: The rows the 12 s run measures (each costs one or two turns).
SLOW_ROWS = ("A2A_SEND_001", "A2A_TASK_001")
#: A turn longer than the old fixed per-call timeout (10 s).
SLOW_TURN = 12.0


def _run(delay: float, rows: tuple[str, ...], extra: list[str], out: Path) -> tuple[int, str, dict[str, Any]]:
    """Run the a2a family's ``rows`` against a JSON-RPC-only SDK agent whose turns take ``delay`` seconds:
    (exit code, stderr, the report's rows)."""
    with PlainSdkAgent(delay=delay, bindings=("JSONRPC",)) as agent:
        proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", "--family", "a2a",
                               "--url", agent.url, "--only", *rows, "--jobs", "2", *extra, "--report-dir", str(out)],
                              capture_output=True, text=True, timeout=300, env=_env(), stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return proc.returncode, proc.stderr, {}
    return 0, proc.stderr, load_report(out, default_registry()).to_dict()["requirements"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("slow-agent")
    plans = {"slow": (SLOW_TURN, SLOW_ROWS, []), "cut": (3.0, ROWS, ["--call-timeout", "2"])}
    with ThreadPoolExecutor(len(plans)) as pool:
        futures = {name: pool.submit(_run, *plan, tmp / name) for name, plan in plans.items()}
        return {name: f.result() for name, f in futures.items()}


def _verdicts(run: tuple[int, str, dict[str, Any]], rows: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    code, stderr, reqs = run
    assert code == 0, f"the run failed (exit {code}): {stderr[-1500:]}"
    return {rid: (reqs[rid]["status"], reqs[rid].get("note") or "") for rid in rows}


def test_a_turn_longer_than_ten_seconds_gets_the_fast_agents_verdicts_by_default(runs: dict[str, Any]) -> None:
    """Before: "ReadTimeout" after the fixed 10 s, a fail on each row. Now the default per-call timeout
    waits for the 12 s turn and the rows pass, as they do without a delay."""
    assert DEFAULT_CALL_TIMEOUT > SLOW_TURN
    assert _verdicts(runs["slow"], SLOW_ROWS) == {rid: ("pass", "") for rid in SLOW_ROWS}


def test_an_answer_the_harness_stopped_waiting_for_is_not_measured_naming_the_flag(runs: dict[str, Any]) -> None:
    """A 3 s turn under ``--call-timeout 2``: no row fails for the slowness (none of these rows' texts
    demands timeliness); each says the answer did not come within 2 s and how to wait longer. Before:
    the flag did not exist (a usage error)."""
    cut = _verdicts(runs["cut"], ROWS)
    for rid, (status, note) in cut.items():
        assert status == "not_measured", (rid, status, note)
        assert "within the per-call timeout of 2s" in note and "--call-timeout" in note, (rid, note)


def test_a_call_timeout_that_is_no_positive_number_is_a_usage_error(tmp_path: Path) -> None:
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(TargetError, match="--call-timeout"):
            build_target(url="http://127.0.0.1:9/", call_timeout=bad)
    assert build_target(url="http://127.0.0.1:9/").call_timeout == DEFAULT_CALL_TIMEOUT
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", "--url", "http://127.0.0.1:9/",
                           "--call-timeout", "0", "--report-dir", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=60, env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "--call-timeout" in proc.stderr, proc.stderr


def test_the_targets_file_key_reaches_the_target(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("targets:\n  - {name: slow, kind: agent, url: 'http://127.0.0.1:9/', call_timeout: 90}\n")
    target = load_targets(good)[0].target()
    assert isinstance(target, AgentTarget) and target.call_timeout == 90.0
    assert AgentTarget.from_dict(target.to_dict()).call_timeout == 90.0  # as the run context carries it
    for value in ("'90'", "0", "true"):
        bad = tmp_path / "bad.yaml"
        bad.write_text("targets:\n  - {name: slow, kind: agent, url: 'http://127.0.0.1:9/', "
                       f"call_timeout: {value}}}\n")
        with pytest.raises(TargetFileError, match="call_timeout"):
            load_targets(bad)
