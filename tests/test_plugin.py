"""The pytest plugin, driven through pytester: checks in, a written compliance report out.

Each test writes a small suite of checks into a scratch folder, runs pytest on it with the plugin
and ``--conformance-report``, and reads the report back: every way a check can end (pass, assertion
failure, ``not_measured``, ``na``, fixture or teardown crash) must land in the report with the right
status and note, never dropped; bad markers are usage errors; results are kept per binding;
evidence is written redacted; the same run under pytest-xdist gives the same report.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.paths import PACKAGE_DIR, PLUGIN_ARGS

ROOT = PACKAGE_DIR.parent
SECRET = "sk-test-7f3a9c1e5b"


def _checks(*checks: tuple[str, str, str]) -> str:
    """The source of checks that take no fixture and end in one statement, each given as (the requirement it is
    marked with, its name, the statement)."""
    return "".join(f'\n\n@pytest.mark.requirement("{rid}")\ndef {name}():\n    {statement}\n'
                   for rid, name, statement in checks)


#: Checks more than one module below holds: one that ends ``not_measured``, one that ends ``na``.
NOT_MEASURED = ("A2ACLI_TASK_POLL_003", "test_not_measured", 'not_measured("the agent never reached INPUT_REQUIRED")')
NA = ("A2ACLI_SKILL_001", "test_na", 'na("the tool ships no skill")')

CHECKS = '''
import pytest
from conformance.outcome import fail, na, not_measured


@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture exploded")


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown exploded")


@pytest.mark.requirement("A2ACLI_SEND_001")
def test_passes(evidence):
    evidence.add("argv", ["a2a", "send", "hi"])
''' + _checks(
    ("A2ACLI_SEND_004", "test_fails", 'assert 1 == 2, "expected the artifact text, got nothing"'),
    ("A2ACLI_SEND_005", "test_fail_helper", "fail(\"media type was ignored: 'text/plain'\")"),
    NOT_MEASURED,
    NA,
    ("A2ACLI_EXIT_001", "test_na_gating", 'na("claimed not applicable")'),
) + '''

@pytest.mark.requirement("A2ACLI_EXIT_002")
def test_fixture_crash(broken_fixture):
    pass


@pytest.mark.requirement("A2ACLI_OUT_001")
def test_teardown_crash(broken_teardown):
    pass


@pytest.mark.requirement("A2ACLI_VER_001")
@pytest.mark.parametrize("binding", ["JSON-RPC", "HTTP+JSON", "GRPC"])
def test_per_binding(binding):
    assert binding != "GRPC", f"no A2A-Version header over {binding}"


@pytest.mark.requirement("A2ACLI_AUTH_004")
def test_secret_in_evidence(evidence, run_secrets):
    run_secrets.add("''' + SECRET + '''")
    evidence.add("stderr", "debug: Authorization: Bearer ''' + SECRET + '''")
    assert False, "token leaked: ''' + SECRET + '''"


@pytest.mark.requirement("A2ACLI_DEFAULT_001", part="detail_level_concise")
def test_breakdown(record_breakdown, record_error_code):
    record_breakdown("detail_level_concise", shipped=True, overridable=False, note="no --verbose")
    record_error_code("A2ACLI_ERR_USAGE", "bad flag")


def test_unmarked_helper():
    pass
'''


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A scratch folder holding the checks above; subprocesses import this checkout's ``conformance``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    pytester.makepyfile(test_checks=CHECKS)
    return pytester


def _args(report: Path, *extra: str) -> list[str]:
    return [*PLUGIN_ARGS, "-p", "no:cacheprovider", "--conformance-report", str(report),
            "--conformance-family", "a2acli", *extra]


def _load(report: Path) -> dict[str, Any]:
    data = yaml.safe_load((report / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture
def full_run(suite: pytest.Pytester) -> tuple[pytest.RunResult, dict[str, Any], Path]:
    report = suite.path / "report"
    result = suite.runpytest(*_args(report))
    return result, _load(report), report


def test_each_way_a_check_ends_lands_in_the_report(full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    result, data, _ = full_run
    reqs = data["requirements"]
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert reqs["A2ACLI_SEND_001"]["status"] == "pass"
    assert reqs["A2ACLI_SEND_004"]["status"] == "fail"
    assert "expected the artifact text, got nothing" in reqs["A2ACLI_SEND_004"]["note"]
    assert "media type was ignored" in reqs["A2ACLI_SEND_005"]["note"]
    assert reqs["A2ACLI_TASK_POLL_003"]["status"] == "not_measured"
    assert "never reached INPUT_REQUIRED" in reqs["A2ACLI_TASK_POLL_003"]["note"]
    assert (reqs["A2ACLI_SKILL_001"]["status"], reqs["A2ACLI_SKILL_001"]["note"]) == ("na", "the tool ships no skill")
    assert reqs["A2ACLI_EXIT_001"]["status"] == "not_measured", "na on a gating requirement must block"
    assert "gating" in reqs["A2ACLI_EXIT_001"]["note"]


def test_fixture_and_teardown_crashes_are_failures_marked_harness_error(
        full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    _, data, _ = full_run
    reqs = data["requirements"]
    assert reqs["A2ACLI_EXIT_002"]["status"] == "fail"
    assert "harness error" in reqs["A2ACLI_EXIT_002"]["note"] and "fixture exploded" in reqs["A2ACLI_EXIT_002"]["note"]
    assert reqs["A2ACLI_OUT_001"]["status"] == "fail"
    assert "harness error" in reqs["A2ACLI_OUT_001"]["note"] and "teardown exploded" in reqs["A2ACLI_OUT_001"]["note"]


def test_results_are_kept_per_binding(full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    _, data, _ = full_run
    ver = data["requirements"]["A2ACLI_VER_001"]
    assert ver["transports"] == {"GRPC": "fail", "HTTP+JSON": "pass", "JSON-RPC": "pass"}
    assert ver["status"] == "fail" and "no A2A-Version header over GRPC" in ver["note"]


def test_requirements_without_a_check_are_not_measured_never_absent(
        full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    _, data, _ = full_run
    reqs = data["requirements"]
    assert len(reqs) == 66
    assert (reqs["A2ACLI_CARD_GET_001"]["status"], reqs["A2ACLI_CARD_GET_001"]["note"]) == (
        "not_measured", "no check implemented")
    assert data["summary"]["tier_1"]["satisfied"] is False


def test_not_measured_and_na_show_as_skips_not_errors(full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    result, _, _ = full_run
    outcomes = result.parseoutcomes()
    # passes: SEND_001, 2 bindings, DEFAULT_001 part, the unmarked helper and the teardown crash's body;
    # skips: not_measured and both na; errors: the fixture and the teardown crash.
    assert (outcomes.get("passed"), outcomes.get("skipped"), outcomes.get("errors")) == (6, 3, 2), outcomes


def test_evidence_is_written_per_requirement_and_redacted(
        full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    _, data, report = full_run
    assert (report / "evidence" / "A2ACLI_SEND_001").is_dir()
    ev = data["requirements"]["A2ACLI_AUTH_004"]["evidence"]
    assert ev and all(p.startswith("evidence/A2ACLI_AUTH_004/") for p in ev)
    assert "[REDACTED]" in (report / ev[0]).read_text(encoding="utf-8")
    files = [p for p in report.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"compliance-report.yaml", "summary.md", "junit.xml"}
    for path in files:
        assert SECRET not in path.read_text(encoding="utf-8"), f"the run's secret survives in {path}"


def test_breakdown_and_error_codes_reach_the_report(full_run: tuple[pytest.RunResult, dict[str, Any], Path]) -> None:
    _, data, _ = full_run
    assert data["default_001_breakdown"]["detail_level_concise"] == {"shipped": True, "overridable": False,
                                                                     "note": "no --verbose"}
    assert data["error_codes"]["A2ACLI_ERR_USAGE"] == {"emitted": True, "note": "bad flag"}
    assert data["requirements"]["A2ACLI_DEFAULT_001"]["status"] != "pass"


def test_conformance_only_runs_just_the_selected_checks(suite: pytest.Pytester) -> None:
    report = suite.path / "report"
    result = suite.runpytest(*_args(report, "--conformance-only", "A2ACLI_SEND_001,A2ACLI_SKILL_001"))
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1, deselected=12)
    reqs = _load(report)["requirements"]
    assert reqs["A2ACLI_SEND_001"]["status"] == "pass"
    assert reqs["A2ACLI_SKILL_001"]["status"] == "na"
    assert reqs["A2ACLI_SEND_004"]["status"] == "not_measured"
    assert "not selected" in reqs["A2ACLI_SEND_004"]["note"]


@pytest.mark.parametrize(("marker", "named"), [
    ('@pytest.mark.requirement("A2ACLI_NOPE_999")', "A2ACLI_NOPE_999"),
    ('@pytest.mark.requirement("A2ACLI_PUSH_001", part="undelete")', "undelete"),
    ("@pytest.mark.requirement()", "needs at least one id"),
])
def test_a_bad_marker_is_a_usage_error_naming_the_problem(pytester: pytest.Pytester, marker: str,
                                                          named: str) -> None:
    pytester.makepyfile(test_bad=f"import pytest\n\n\n{marker}\ndef test_x():\n    pass\n")
    report = pytester.path / "report"
    result = pytester.runpytest(*_args(report))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert named in result.stderr.str()
    assert not (report / "compliance-report.yaml").exists() or _load(report)["summary"]["tier_1"]["satisfied"] is False


def test_a_report_that_cannot_be_written_fails_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ok='import pytest\n\n\n@pytest.mark.requirement("A2ACLI_SEND_001")\n'
                                'def test_x():\n    pass\n')
    blocker = pytester.path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    result = pytester.runpytest(*_args(blocker / "report"))
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    assert "cannot write the report" in result.stderr.str()


def _pytest11_entry_points() -> dict[str, str]:
    """The ``pytest11`` entry points the package ships (pyproject.toml), name -> module."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(project["entry-points"]["pytest11"])


def test_plugin_loads_once_when_its_entry_point_is_installed_too(suite: pytest.Pytester, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed wheel registers the plugin through ``pytest11``; the command's ``-p`` must not clash.
    The fake installation declares the entry point exactly as the package ships it."""
    entry_points = _pytest11_entry_points()
    assert list(entry_points.values()) == ["conformance.plugin"], entry_points
    assert ("-p", *entry_points) == PLUGIN_ARGS[:2], "the command must load the plugin by its entry point's name"
    dist = tmp_path / "site" / "agentd_conformance-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: agentd-conformance\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest11]\n" + "".join(f"{name} = {module}\n" for name, module in entry_points.items()))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "site"), os.environ["PYTHONPATH"]]))
    report = suite.path / "report"
    result = suite.runpytest_subprocess(*_args(report, "-k", "test_passes"), timeout=120)
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    assert _load(report)["requirements"]["A2ACLI_SEND_001"]["status"] == "pass"


def test_no_private_folder_with_secrets_is_left_behind(suite: pytest.Pytester, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    result = suite.runpytest(*_args(suite.path / "report", "-k", "test_secret_in_evidence"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    left = [p for p in scratch.iterdir() if p.name.startswith("agentd-conformance-")]
    assert not left, f"left behind: {[sorted(x.name for x in p.iterdir()) for p in left]}"


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {"summary": data["summary"], "requirements": data["requirements"],
            "default_001_breakdown": data["default_001_breakdown"], "error_codes": data["error_codes"]}


def test_xdist_run_gives_the_same_report(suite: pytest.Pytester) -> None:
    serial, parallel = suite.path / "serial", suite.path / "parallel"
    r1 = suite.runpytest_subprocess(*_args(serial), timeout=120)
    r2 = suite.runpytest_subprocess(*_args(parallel, "-n", "2"), timeout=120)
    assert r1.ret == r2.ret == pytest.ExitCode.TESTS_FAILED, r2.stderr.str()
    assert "gw" in r2.stdout.str() or "2 workers" in r2.stdout.str()
    one, two = _load(serial), _load(parallel)
    diff = {rid: (e, two["requirements"].get(rid)) for rid, e in one["requirements"].items()
            if two["requirements"].get(rid) != e}
    assert not diff, diff
    assert _comparable(one) == _comparable(two)
    for path in parallel.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8"), f"secret survives under xdist in {path}"


def test_a_crash_while_pytest_formats_a_failure_still_reports_the_fail(pytester: pytest.Pytester,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest's own traceback formatting crashed once (CPython 3.11.7, "AST constructor recursion depth
    mismatch"); the check's fail must still reach the report and the session must not end in an
    internal error."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makeconftest('''
import pytest

def _explode(self, excinfo):
    raise SystemError("AST constructor recursion depth mismatch (simulated)")

pytest.Function.repr_failure = _explode
''')
    pytester.makepyfile(test_checks='''
import pytest

@pytest.mark.requirement("A2ACLI_SEND_004")
def test_fails():
    assert 1 == 2, "the artifact was dropped"
''')
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(*_args(report))
    assert result.ret == 1, result.stdout.str()[-2000:]
    entry = _load(report)["requirements"]["A2ACLI_SEND_004"]
    assert entry["status"] == "fail" and "the artifact was dropped" in entry["note"]


def test_transports_exercised_by_checks_fill_transports_covered(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_checks='''
import pytest

@pytest.mark.requirement("A2ACLI_TX_001")
def test_saw_two_bindings(record_transport):
    record_transport("JSONRPC")
    record_transport("HTTP+JSON")
    record_transport("CARD")  # not a binding: ignored

@pytest.mark.requirement("A2ACLI_TX_002")
@pytest.mark.parametrize("binding", ["GRPC"])
def test_per_binding(binding):
    pass
''')
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(*_args(report))
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert _load(report)["report"]["transports_covered"] == ["HTTP+JSON", "JSON-RPC", "gRPC"]


def test_a_binding_whose_checks_only_failed_is_not_covered(pytester: pytest.Pytester,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """transports_covered lists only bindings that answered: a check parametrized over a binding that
    failed (nothing may have answered there) does not add it; one that passed does."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_checks='''
import pytest

@pytest.mark.requirement("A2ACLI_TX_002")
@pytest.mark.parametrize("binding", ["GRPC", "JSONRPC"])
def test_per_binding(binding):
    assert binding == "JSONRPC", "nothing answered on gRPC"
''')
    report = pytester.path / "report"
    pytester.runpytest_subprocess(*_args(report))
    assert _load(report)["report"]["transports_covered"] == ["JSON-RPC"]


def test_a_check_that_ends_not_measured_or_na_skips_pytest_s_traceback_rendering(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check ending ``not_measured``, ``na`` or blocked (within the blame rule) is reported as a skip with its
    reason without pytest first rendering its traceback with source (about 15 ms a check: a third of a second
    of a run against the reference agentd, issue 20). A failure, and a block that breaks the blame rule (a
    failure of the check), are still rendered: the count below is the renderer's own."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makeconftest('''
import pytest

_render = pytest.Function.repr_failure

def _counted(self, excinfo):
    with open("rendered.txt", "a") as fh:
        fh.write(self.name + "\\n")
    return _render(self, excinfo)

pytest.Function.repr_failure = _counted
''')
    pytester.makepyfile(test_checks='''
import pytest
from conformance.judge import blocked_by
from conformance.outcome import na, not_measured


@pytest.fixture
def unmeasurable():
    not_measured("the fixture found no task to poll")
''' + _checks(NOT_MEASURED, NA) + '''

@pytest.mark.requirement("A2ACLI_TASK_POLL_001")
def test_in_setup(unmeasurable):
    pass


@pytest.mark.requirement("A2ACLI_SEND_004")
@pytest.mark.depends_on("A2ACLI_CARD_GET_001")
def test_blocked():
    blocked_by("A2ACLI_CARD_GET_001", "the tool never fetched the card")
''' + _checks(("A2ACLI_SEND_005", "test_self_blocked", 'blocked_by("A2ACLI_SEND_005", "claims its own row")'),
                  ("A2ACLI_OUT_001", "test_fails", 'assert 1 == 2, "the artifact was dropped"')))
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(*_args(report))
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    assert (pytester.path / "rendered.txt").read_text(encoding="utf-8").split() == ["test_self_blocked",
                                                                                   "test_fails"]
    reqs = _load(report)["requirements"]
    assert (reqs["A2ACLI_TASK_POLL_003"]["status"], reqs["A2ACLI_SKILL_001"]["status"]) == ("not_measured", "na")
    assert reqs["A2ACLI_TASK_POLL_001"]["status"] == "not_measured"
    assert "the fixture found no task to poll" in reqs["A2ACLI_TASK_POLL_001"]["note"]
    blocked = reqs["A2ACLI_SEND_004"]
    assert blocked["status"] == "not_measured" and "A2ACLI_CARD_GET_001" in blocked["note"]
    assert reqs["A2ACLI_SEND_005"]["status"] == "fail" and reqs["A2ACLI_OUT_001"]["status"] == "fail"
    assert result.parseoutcomes().get("skipped") == 4, result.parseoutcomes()
    result.stdout.no_fnmatch_line("*Traceback*not_measured*")
