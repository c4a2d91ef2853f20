"""The kill rule the three kill matrices share: a defect is caught only by an assertion of the targeted
check (never a harness error), and, for a parted row named with its part, in that part."""

from __future__ import annotations

import json
from pathlib import Path

from tests.killmatrix import killed, survivors
from tests.reports import report_of


def _o(rid: str, status: str, *, part: str | None = None, harness: bool = False) -> dict[str, object]:
    return {"requirement": rid, "status": status, "part": part, "harness_error": harness, "nodeid": "t::x",
            "transport": None}


def test_an_assertion_failure_kills() -> None:
    assert killed([_o("A2ACLI_SEND_001", "fail")], "A2ACLI_SEND_001")


def test_a_harness_error_is_not_a_kill() -> None:
    assert not killed([_o("A2ACLI_SEND_001", "fail", harness=True)], "A2ACLI_SEND_001")


def test_a_named_part_must_fail_in_that_part() -> None:
    outs = [_o("A2ACLI_OUT_005", "fail", part="field_lines"), _o("A2ACLI_OUT_005", "pass", part="non_tty_fallback")]
    assert killed(outs, "A2ACLI_OUT_005:field_lines")
    assert not killed(outs, "A2ACLI_OUT_005:non_tty_fallback")


def test_survivors_reads_the_outcomes_file_beside_the_report(tmp_path: Path) -> None:
    (tmp_path / "outcomes.jsonl").write_text(
        json.dumps(_o("A2ACLI_SEND_001", "fail", harness=True)) + "\n" + json.dumps(_o("A2ACLI_SEND_002", "fail"))
        + "\n", encoding="utf-8")
    report = report_of({"A2ACLI_SEND_001": "fail", "A2ACLI_SEND_002": "fail", "A2ACLI_SEND_003": "pass"})
    got = survivors(report, ["A2ACLI_SEND_001", "A2ACLI_SEND_002", "A2ACLI_SEND_003"], tmp_path)
    assert got == {"A2ACLI_SEND_001": "fail (no assertion failure)", "A2ACLI_SEND_003": "pass"}
