"""Issue 18 §1: no credential the user hands over reaches any file, not even a 6-character piece of it.

One ``cli`` run of the reference CLI (behind a wrapper that bakes a bearer token of its own into the tool's
environment, as a tool reading its own configuration would) with a secret given through ``--env``, a value
given through ``--env-plain``, and named defects that fail several rows. Afterwards no file of the report
folder, the allure folder or the run's temporary folder (``TMPDIR``, owned by this test) holds 6 consecutive
characters of either secret: not the ``--env`` value (the command line quoted in the report, the env of every
invocation, the agent's recorded headers, failing notes), not the baked token (it reaches the report only as
the ``Authorization`` header the scripted agent received). The ``--env-plain`` value is shown as given.

A second run stops on an internal error after its ``--token`` was read; it must leave nothing behind in the
temporary folder (it once left the run context, the token in clear, in a ``TMPDIR`` folder).
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.paths import PACKAGE_DIR
from conformance.registry import default_registry
from conformance.report.model import load_report
from tests.test_command import _env as command_env
from tests.test_secret_leaks import leaks

ROOT = PACKAGE_DIR.parent
IDS = ("A2ACLI_SEND_001", "A2ACLI_OUT_001", "A2ACLI_AUTH_004")
DEFECTS = "no-message-id,mixed-streams,leak-bearer-in-debug"

WRAPPER = """#!{python}
import os, sys
os.environ["A2ACLI_BEARER"] = {baked!r}
os.execv(sys.executable, [sys.executable, "-m", "conformance.fixtures.reference_cli", *sys.argv[1:]])
"""


def _env(tmpdir: Path) -> dict[str, str]:
    return {**command_env(), "TMPDIR": str(tmpdir)}


def _command(args: list[str], tmpdir: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", *args], capture_output=True, text=True,
                          env=_env(tmpdir), timeout=timeout, stdin=subprocess.DEVNULL)


@dataclass
class Run:
    proc: subprocess.CompletedProcess[str]
    report: Path
    allure: Path
    tmpdir: Path
    secret: str
    baked: str
    plain: str


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("env-secrets")
    tmpdir = base / "tmp"
    tmpdir.mkdir()
    secret, baked = f"envk{secrets.token_urlsafe(18)}", f"bake{secrets.token_urlsafe(18)}"
    plain = f"plain-{secrets.token_hex(8)}"
    wrapper = base / "wrapped-cli"
    wrapper.write_text(WRAPPER.format(python=sys.executable, baked=baked), encoding="utf-8")
    wrapper.chmod(0o755)
    report, allure = base / "report", base / "allure"
    proc = _command(["cli", "--exe", str(wrapper), "--env", f"A2ACLI_API_KEY={secret}",
                     "--env-plain", f"REFCLI_DEFECTS={DEFECTS}", "--env-plain", f"PYTHONPATH={ROOT}",
                     "--env-plain", f"AGENTD_CONFORMANCE_NOTE={plain}", "--allure-dir", str(allure),
                     "--only", *IDS, "--report-dir", str(report)], tmpdir)
    return Run(proc, report, allure, tmpdir, secret, baked, plain)


def test_the_run_fails_rows_and_sends_both_credentials(run: Run) -> None:
    """What makes the other asserts mean something: rows failed, and the agent got both credentials."""
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    report = load_report(run.report, default_registry())
    failed = [rid for rid in IDS if report.requirements[rid].status == "fail"]
    assert len(failed) >= 2, {rid: report.requirements[rid].status for rid in IDS}
    sent = "\n".join(p.read_text(encoding="utf-8") for p in (run.report / "evidence").rglob("*.json"))
    assert '"authorization": "Bearer [REDACTED]"' in sent and '"x-api-key": "[REDACTED]"' in sent


def test_no_piece_of_an_env_value_or_a_received_credential_in_any_file(run: Run) -> None:
    assert leaks([run.report, run.allure, run.tmpdir], [run.secret, run.baked]) == {}
    assert "--env 'A2ACLI_API_KEY=[REDACTED]'" in (run.report / "COMPLIANCE.md").read_text(encoding="utf-8")


def test_the_run_leaves_nothing_in_the_temporary_folder(run: Run) -> None:
    assert sorted(p.relative_to(run.tmpdir).as_posix() for p in run.tmpdir.rglob("*")) == []


def test_env_plain_values_are_shown_as_given(run: Run) -> None:
    compliance = (run.report / "COMPLIANCE.md").read_text(encoding="utf-8")
    assert f"AGENTD_CONFORMANCE_NOTE={run.plain}" in compliance
    assert f"REFCLI_DEFECTS={DEFECTS}" in compliance
    evidence = (run.report / "evidence" / "A2ACLI_SEND_001").glob("*.json")
    assert any(f'"AGENTD_CONFORMANCE_NOTE": "{run.plain}"' in p.read_text(encoding="utf-8") for p in evidence)


def test_an_internal_error_leaves_no_token_in_the_temporary_folder(tmp_path: Path) -> None:
    """``--report-dir`` naming a file: the run ends with one line, and the temporary folder stays empty."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    taken = tmp_path / "a-file"
    taken.write_text("not a folder\n", encoding="utf-8")
    token = f"tokn{secrets.token_urlsafe(18)}"
    proc = _command(["agent", "--launch", "scripted", "--family", "a2a", "--token", f"operator={token}",
                     "--only", "A2A_CARD_001", "--report-dir", str(taken)], tmpdir, timeout=120)
    assert proc.returncode in (2, 3), proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2 and "Traceback" not in proc.stderr, proc.stderr
    assert leaks([tmpdir], [token]) == {}
    assert sorted(p.relative_to(tmpdir).as_posix() for p in tmpdir.rglob("*")) == []


def test_the_secret_run_publishes_a_verifiable_claim_with_no_unknown_placeholder_or_path(run: Run) -> None:
    """Issue 18's end state on one report: the run with ``--env`` secrets passes ``report verify``, and its
    COMPLIANCE.md says nothing is unknown, shows no template placeholder and no absolute path."""
    from conformance.report.verify import verify
    from tests.test_report_identity import ABSOLUTE, TEMPLATE

    checked, problems = verify(run.report, default_registry())
    assert checked is not None and problems == [], problems
    md = (run.report / "COMPLIANCE.md").read_text(encoding="utf-8")
    assert "unknown" not in md.lower(), [ln for ln in md.splitlines() if "unknown" in ln.lower()]
    placeholders = {v for pair in re.findall(r"'(<[^']+>)'|: (<[^\n]+>)\n", TEMPLATE) for v in pair if v}
    assert placeholders and not [p for p in placeholders if p in md], [p for p in placeholders if p in md]
    # A value the user shows with --env-plain is theirs to publish (this run gives its PYTHONPATH so).
    harness_text = re.sub(r"--env-plain \S+", "--env-plain …", md)
    assert not ABSOLUTE.search(harness_text), ABSOLUTE.findall(harness_text)
