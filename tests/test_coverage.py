"""``registry --coverage``: the table a spec author reads to decide whether a requirement can be tested."""

from __future__ import annotations

import json
import subprocess
import sys

from conformance.registry import default_registry
from tests.test_command import _env


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", "registry", "--coverage", *args],
                          capture_output=True, text=True, env=_env(), timeout=300, stdin=subprocess.DEVNULL)


def test_coverage_json_names_checks_defects_dependencies_and_needs_for_every_id() -> None:
    r = _run("--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    rows = {row["id"]: row for row in doc["requirements"]}
    assert set(rows) == {req.id for req in default_registry()}
    send = rows["A2ACLI_SEND_002"]
    assert "cli/test_send.py::test_send_waits_for_the_terminal_state_by_default" in send["checks"]
    assert "reference CLI: no-wait-by-default" in send["defects"]
    # Checks attached through parametrized cases are found too (a static scan would miss them).
    assert rows["AGENTD_REFUSE_001"]["checks"], "a check whose marker rides on pytest.param"
    uds = rows["AGENTD_UDS_004"]
    assert [n["need"] for n in uds["needs"]] == ["unix_socket", "root"] and uds["measurable"].startswith("with ")
    assert rows["A2ACLI_CHAT_001"]["measurable"] in ("no check yet", "yes")
    # The official TCK's ids ride along with the a2a family: per id, the rows and checks covering it, or why none.
    assert "CORE-SEND-001" in rows["A2A_SEND_001"]["tck"] and "tck" not in send
    tck = {t["id"]: t for t in doc["tck"]["ids"]}
    assert len(tck) == doc["tck"]["counts"]["declared"]
    assert tck["CORE-SEND-001"]["rows"] == ["A2A_SEND_001"] and tck["CORE-SEND-001"]["checks"]
    assert tck["CORE-SEND-001"]["unmapped"] is None
    assert tck["VER-CLIENT-001"]["rows"] == [] and tck["VER-CLIENT-001"]["unmapped"]["kind"] == "client"


def test_coverage_markdown_is_a_table_for_one_family() -> None:
    r = _run("--family", "agentd")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.startswith("| `AGENTD_")]
    assert len(lines) == len(default_registry().select(family="agentd"))
    assert "with a check" in r.stdout
    assert "TCK" not in r.stdout, "the official TCK's ids are shown with the a2a family only"


def test_coverage_refuses_a_format_it_cannot_print() -> None:
    r = _run("--format", "yaml")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
