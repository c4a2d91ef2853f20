"""examples/targets.yaml runs as shipped (with a small ``only`` subset per target, for time) and gives
the implementation report its flags: a row only the reference passes is "exactly one implementation
passes" (the "measured by none" flag is shown on synthetic matrices in ``test_html_report.py``: every
row of the bundled families now has a check that one of these targets can satisfy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from conformance.paths import PACKAGE_DIR
from tests.test_command import _env

EXAMPLE = PACKAGE_DIR.parent / "examples" / "targets.yaml"
#: Per family, the rows each target runs: SEND_002 and DECL_004 carry the assertions below; CARD_GET_001 and
#: DECL_001 give the matrix a row every target passes (or, for vendor-b, fails another way).
ONLY = {
    "cli": ["A2ACLI_SEND_002", "A2ACLI_CARD_GET_001"],
    "agentd": ["AGENTD_DECL_001", "AGENTD_DECL_002", "AGENTD_DECL_004"],
    "a2a": ["A2A_CARD_001", "A2A_SEND_001"],
}


def test_the_example_targets_file_runs_and_the_report_flags_rows(tmp_path: Path) -> None:
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    for t in doc["targets"]:
        t["only"] = ONLY["cli" if t["kind"] == "cli" else t.get("family", "agentd")]
    targets = tmp_path / "targets.yaml"
    targets.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "matrix"
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "matrix", "--targets", str(targets),
                           "--report-dir", str(out), "--jobs", "2"], capture_output=True, text=True, env=_env(),
                          timeout=1200, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    matrix = yaml.safe_load((out / "matrix.yaml").read_text(encoding="utf-8"))
    assert set(matrix["targets"]) == {t["name"] for t in doc["targets"]}
    cells = matrix["cells"]
    assert cells["A2ACLI_SEND_002"]["reference-cli"] == "pass"
    assert cells["A2ACLI_SEND_002"]["cli-vendor-a"] in ("fail", "partial") and cells["A2ACLI_SEND_002"][
        "cli-vendor-b"] in ("fail", "partial")
    assert cells["AGENTD_DECL_004"]["agentd-misdeclared"] == "fail" and cells["AGENTD_DECL_004"][
        "reference-agentd"] == "pass"
    page = (out / "implementation-report.html").read_text(encoding="utf-8")
    row = page[page.index('id="A2ACLI_SEND_002"'):].split("</tr>", 1)[0]
    assert "exactly one implementation passes" in row
