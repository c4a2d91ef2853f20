"""The ``agentd-conformance`` command, run as a real subprocess.

It proves the exit-code contract (0 completed, 1 required tier unsatisfied, 2 usage error, 3 harness
could not run), that every error is one line with no traceback, that ``registry`` and ``template``
print what the registry holds, and that ``cli --exe /bin/true`` runs to a fail-closed report while no
suites exist (pytest's "no tests collected" is a completed run, not an error).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.command.errors import HarnessFailure
from conformance.command.run import read_report, run_suite
from conformance.context import RunContext
from conformance.paths import PACKAGE_DIR

ROOT = PACKAGE_DIR.parent
TEMPLATE = ROOT / "compliance-report.template.yaml"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command with ``args``; its stderr must never hold a traceback, whatever happened."""
    proc = subprocess.run([sys.executable, "-m", "conformance.command", *args], capture_output=True, text=True,
                          env=_env(), cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, f"traceback on stderr for {args}: {proc.stderr}"
    return proc


def test_help_lists_the_commands() -> None:
    r = run("--help")
    assert r.returncode == 0, r.stderr
    for word in ("registry", "template", "cli", "agent"):
        assert word in r.stdout


def test_no_command_is_a_usage_error() -> None:
    assert run().returncode == 2


def test_registry_text_lists_all_66() -> None:
    r = run("registry", "--family", "a2acli")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("66 requirement(s)")
    assert "A2ACLI_SKILL_001" in r.stdout and "(conditional)" in r.stdout


def test_registry_tier_1_gives_39_rows_in_every_format() -> None:
    as_json = json.loads(run("registry", "--family", "a2acli", "--tier", "1", "--format", "json").stdout)
    as_yaml = yaml.safe_load(run("registry", "--family", "a2acli", "--tier", "1", "--format", "yaml").stdout)
    text = run("registry", "--family", "a2acli", "--tier", "1").stdout
    assert len(as_json) == 39 and as_json == as_yaml
    assert {row["tier"] for row in as_json} == {1}
    assert text.strip().endswith("39 requirement(s)")


def test_template_prints_the_committed_file() -> None:
    r = run("template")
    assert r.returncode == 0, r.stderr
    assert r.stdout == TEMPLATE.read_text(encoding="utf-8")


def test_cli_run_against_a_tool_that_does_nothing_is_fail_closed(tmp_path: Path) -> None:
    """/bin/true accepts every argument and prints nothing: a row of each tier it is checked on fails
    (never passes), every other row is still in the report with a note, and nothing is satisfied.
    (The whole family against null CLIs is ``test_null_targets.py``.)"""
    report = tmp_path / "report"
    picked = ("A2ACLI_SEND_001", "A2ACLI_TASK_LIST_001", "A2ACLI_CHAT_001")
    r = run("cli", "--exe", "/bin/true", "--report-dir", str(report), "--jobs", "2", "--only", *picked, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = yaml.safe_load((report / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert len(data["requirements"]) == 66
    passing = [rid for rid, e in data["requirements"].items() if e["status"] == "pass"]
    assert not passing, f"/bin/true passed {passing}"
    for rid, entry in data["requirements"].items():
        assert entry["note"], f"{rid} has status {entry['status']} without a note"
        if rid in picked:
            assert entry["status"] == "fail", (rid, entry)
    assert not any(row["satisfied"] for row in data["summary"].values())
    assert data["report"]["tier_claimed"] is None and data["report"]["adapter_used"] is False
    assert (report / "summary.md").is_file() and (report / "junit.xml").is_file()
    assert "tier_1" in r.stdout and "Tier claimed: none" in r.stdout


def test_require_tier_unsatisfied_exits_1(tmp_path: Path) -> None:
    r = run("cli", "--exe", "/bin/true", "--report-dir", str(tmp_path / "r"), "--require-tier", "1",
            "--only", "A2ACLI_CLI_001", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "tier 1 is not satisfied" in r.stderr


def test_missing_executable_is_one_line_exit_2(tmp_path: Path) -> None:
    r = run("cli", "--exe", "/no/such", "--report-dir", str(tmp_path / "r"), cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "/no/such" in lines[0], r.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("args", "says"), [
    (("cli", "--no-such-flag"), "--no-such-flag"),
    (("--bogus",), "--bogus"),
    (("cli", "--exe", "/bin/true", "--jobs", "0"), "--jobs"),
    (("cli", "--exe", "/bin/true", "--only", "NOT_AN_ID"), "NOT_AN_ID"),
    (("cli", "--exe", "/bin/true", "--tier", "7"), "--tier"),
    (("cli", "--exe", "/bin/true", "--adapter", "missing.yaml"), "missing.yaml"),
    (("cli", "--exe", "/bin/true", "--skill", "missing/SKILL.md"), "SKILL.md"),
    (("agent", "--token", "bad"), "--token"),
    (("agent", "--token", "root=abcdefgh"), "root"),
    (("agent", "--token", "operator=abc"), "shorter"),
    (("agent", "--url", "ftp://127.0.0.1/"), "--url"),
    (("agent", "--launch", "nothing"), "nothing"),
])
def test_usage_errors_exit_2_with_one_line(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    r = run(*args, "--report-dir", str(tmp_path / "r"), cwd=tmp_path) if args[0] in ("cli", "agent") \
        else run(*args, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr


# ── a stale or missing report is never read as a result ────────────────────────────────────

def _stale(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compliance-report.yaml").write_text(
        "summary:\n  tier_1: {total: 1, pass: 1, partial: 0, fail: 0, not_measured: 0, na: 0, satisfied: true}\n",
        encoding="utf-8")


@pytest.mark.parametrize("code", [2, 3, 4, -9, 137])
def test_an_incomplete_pytest_run_is_a_harness_failure_even_beside_an_old_report(tmp_path: Path, code: int) -> None:
    _stale(tmp_path)
    with pytest.raises(HarnessFailure, match="could not complete"):
        read_report(tmp_path, code)


def _suite(tmp_path: Path, body: str) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_checks.py").write_text(body, encoding="utf-8")
    return suite


@pytest.fixture
def child_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in _env().items():
        monkeypatch.setenv(key, value)


@pytest.mark.usefixtures("child_env")
@pytest.mark.parametrize("jobs", [1, 2])
def test_run_suite_ignores_a_conformance_package_in_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        jobs: int) -> None:
    """Run from a checkout, ``python -m pytest`` (and xdist's ``python -c`` workers) would import the checkout's
    ``conformance`` before the installed one: pytest then met the suites under two names and stopped
    (ImportPathMismatchError). A package of that name in the working folder must play no part."""
    here = tmp_path / "checkout"
    (here / "conformance").mkdir(parents=True)
    (here / "conformance" / "__init__.py").write_text("raise ImportError('imported from the working folder')\n")
    monkeypatch.chdir(here)
    suite = _suite(tmp_path, "import pytest\n\n\n@pytest.mark.requirement('A2ACLI_SEND_001')\n"
                             "def test_ok():\n    pass\n")
    report = tmp_path / "report"
    code = run_suite(suite, RunContext(family="a2acli"), report, jobs=jobs, timeout=120)
    assert code == 0, (report / "pytest.log").read_text(encoding="utf-8")
    assert read_report(report, code).requirements["A2ACLI_SEND_001"].status == "pass"


@pytest.mark.usefixtures("child_env")
def test_run_suite_replaces_an_old_report_and_leaves_no_secret_in_the_folder(tmp_path: Path) -> None:
    secret = "tok-91e7c0ffee42"
    suite = _suite(tmp_path, (
        "import pytest\n\n\n"
        "@pytest.mark.requirement('A2ACLI_AUTH_004')\n"
        "def test_leaks(run_secrets):\n"
        f"    run_secrets.add('{secret}')\n"
        f"    assert False, 'debug output held {secret}'\n"))
    report = tmp_path / "report"
    _stale(report)
    code = run_suite(suite, RunContext(family="a2acli"), report, jobs=1, timeout=120)
    assert code == 1
    data = read_report(report, code)
    assert data.requirements["A2ACLI_AUTH_004"].status == "fail"
    assert data.summary["tier_1"].satisfied is False
    log = (report / "pytest.log").read_text(encoding="utf-8")
    assert "test_leaks" in log, "pytest's own output is kept"
    for path in report.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8"), f"secret survives in {path}"


def test_serve_agent_prints_its_url_and_serves_the_card_until_terminated(tmp_path: Path) -> None:
    import selectors
    import signal
    import time

    import httpx

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                                     os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, "-m", "conformance.command", "serve-agent", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                            cwd=tmp_path)
    try:
        assert proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 30
        line = b""
        while not line.endswith(b"\n") and time.monotonic() < deadline:
            if sel.select(timeout=max(0.0, deadline - time.monotonic())):
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
        url = line.decode().strip().splitlines()[0] if line.strip() else ""
        assert url.startswith("http://127.0.0.1:"), f"first stdout line {line!r}"
        card = httpx.get(url + "/.well-known/agent-card.json", timeout=10).json()
        assert card["supportedInterfaces"], card
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
