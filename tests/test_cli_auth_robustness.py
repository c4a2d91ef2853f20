"""`auth login` that never finishes: a tool that hangs, or one that never shows its user code (so the
harness, playing the user, never approves), fails the auth rows within the harness's bounds, with the
cut runs in the evidence, and the run goes on to a complete report."""

from __future__ import annotations

from pathlib import Path

from tests.killmatrix import run_command
from tests.test_cli_robustness import cli_runs, tool

LOGIN_ROWS = ["A2ACLI_AUTH_005", "A2ACLI_AUTH_006", "A2ACLI_AUTH_010"]


def test_a_login_that_never_ends_is_a_bounded_fail_with_evidence(tmp_path: Path) -> None:
    exe = tool(tmp_path, "exec sleep 600")
    report = run_command(["cli", "--exe", exe, "--cli-timeout", "1", "--jobs", "2", "--only", *LOGIN_ROWS],
                         tmp_path / "r", timeout=300)
    reqs = report.requirements
    assert {rid: reqs[rid].status for rid in LOGIN_ROWS} == dict.fromkeys(LOGIN_ROWS, "fail"), reqs
    runs = cli_runs(tmp_path / "r")
    assert runs and all(r["timed_out"] for r in runs), "every `auth login` of a hanging tool must be cut"
    assert all(r["duration_s"] < 10 for r in runs), [r["duration_s"] for r in runs]
