"""The blame rule (DESIGN.md §2.8), driven through pytester: a check for X that cannot reach X
because Y's feature is missing ends ``not_measured`` "blocked by Y: ...", only when it declared Y;
a check may never blame the requirement it measures, nor one it did not declare."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.judge import Blocked, blame_violation, blocked_by
from conformance.paths import PACKAGE_DIR, PLUGIN_ARGS
from tests.plugin_runs import run_checks

ROOT = PACKAGE_DIR.parent

CHECKS = '''
import pytest
from conformance.judge import blocked_by


@pytest.mark.requirement("A2ACLI_EXIT_001")
@pytest.mark.depends_on("A2ACLI_OUT_004")
def test_declared_block():
    blocked_by("A2ACLI_OUT_004", "no Appendix B error envelope on stderr")


@pytest.mark.requirement("A2ACLI_EXIT_001")
def test_exit_statuses_otherwise_right():
    pass


@pytest.mark.requirement("A2ACLI_AUTH_004")
def test_undeclared_block():
    blocked_by("A2ACLI_AUTH_001", "the key went in the wrong header")


@pytest.mark.requirement("A2ACLI_TASK_POLL_004")
@pytest.mark.depends_on("A2ACLI_TASK_POLL_001")
def test_self_block():
    blocked_by("A2ACLI_TASK_POLL_004", "no --poll-interval")
'''


@pytest.fixture
def report(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    out = run_checks(pytester, monkeypatch, CHECKS, "a2acli")
    data = yaml.safe_load((out / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_declared_block_is_not_measured_naming_the_blocking_requirement(report: dict[str, Any]) -> None:
    row = report["requirements"]["A2ACLI_EXIT_001"]
    assert row["status"] == "not_measured", row
    assert row["note"] == "blocked by A2ACLI_OUT_004: no Appendix B error envelope on stderr"


def test_blaming_an_undeclared_requirement_is_a_harness_error(report: dict[str, Any]) -> None:
    row = report["requirements"]["A2ACLI_AUTH_004"]
    assert row["status"] == "fail" and "harness error" in row["note"] and "does not declare" in row["note"]


def test_blaming_the_requirement_under_test_is_a_harness_error(report: dict[str, Any]) -> None:
    row = report["requirements"]["A2ACLI_TASK_POLL_004"]
    assert row["status"] == "fail" and "measures itself" in row["note"]


def test_depends_on_an_unknown_or_own_id_is_a_usage_error(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    cases = (('"A2ACLI_NOPE_001"', "unknown requirement id"), ('"A2ACLI_SEND_001"', "which the check measures"))
    for deps, says in cases:
        pytester.makepyfile(test_bad=f'''
import pytest

@pytest.mark.requirement("A2ACLI_SEND_001")
@pytest.mark.depends_on({deps})
def test_x():
    pass
''')
        result = pytester.runpytest(*PLUGIN_ARGS, "-p", "no:cacheprovider", "--conformance-report",
                                    str(Path(pytester.path) / "r"), "--conformance-family", "a2acli")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert says in result.stderr.str()


def test_blocked_by_needs_a_requirement_and_what_was_missing() -> None:
    with pytest.raises(ValueError):
        blocked_by("A2ACLI_OUT_004", " ")
    with pytest.raises(Blocked) as info:
        blocked_by("A2ACLI_OUT_004", "no envelope")
    assert info.value.reason == "blocked by A2ACLI_OUT_004: no envelope"
    assert blame_violation(info.value, ["A2ACLI_EXIT_001"], ["A2ACLI_OUT_004"]) is None
