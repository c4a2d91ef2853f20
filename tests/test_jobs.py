"""How many test processes a run uses (``conformance.command.run``): ``--jobs`` as given, capped at the rows
selected; without it, :func:`choose_jobs` per family — the CLI and agentd families two when the run selects at
least 16 rows and the machine's load is below its CPUs, else one; the a2a family the same when the agent's card
declares two bindings or more (its checks run per binding), else one (issue 20). The report's ``run.jobs`` and
the command's first line say which and why.

The chooser is a pure function of (family, rows, load, CPUs); the end-to-end runs check that the report
records the choice the run made. Measurements behind the rule: benchmarks/side_by_side.py, cli_tiers.py,
agentd_family.py (timings are never asserted here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conformance.command.parser import build_parser
from conformance.command.run import AUTO_JOBS, AUTO_MIN_ROWS, Jobs, choose_jobs, workers
from conformance.registry import default_registry
from conformance.targets.kinds import card_bindings
from tests.test_command import run

ROWS = [f"R{i}" for i in range(40)]


@pytest.mark.parametrize(("family", "n"), [("a2acli", 3), ("agentd", 2)])
def test_a_large_run_of_a_waiting_family_on_an_idle_machine_gets_its_processes(family: str, n: int) -> None:
    choice = choose_jobs(family, AUTO_MIN_ROWS, 0.3, 2)
    assert choice.n == AUTO_JOBS[family] == n
    assert family in choice.why and "16 rows" in choice.why and "0.30" in choice.why, choice.why
    assert choose_jobs(family, 66, 1.99, 2).n == n


@pytest.mark.parametrize("family", ["a2acli", "agentd"])
def test_a_small_run_or_a_busy_machine_gets_one(family: str) -> None:
    few = choose_jobs(family, AUTO_MIN_ROWS - 1, 0.0, 4)
    assert few.n == 1 and "15 row(s) selected, fewer than 16" in few.why, few
    busy = choose_jobs(family, 66, 2.0, 2)
    assert busy.n == 1 and "load 2.00 is not below the 2 CPU(s)" in busy.why, busy
    assert choose_jobs(family, 66, 5.5, 4).n == 1
    assert choose_jobs(family, 66, None, 2).n == 1, "a machine whose load cannot be read gets one"


def test_the_a2a_family_runs_in_one_process_unless_the_card_declares_several_bindings() -> None:
    for rows, load, cpus in ((1, 0.0, 2), (60, 0.0, 2), (60, 0.1, 64)):
        unread = choose_jobs("a2a", rows, load, cpus)
        assert unread.n == 1 and "bindings not read from its card" in unread.why, unread
        one = choose_jobs("a2a", rows, load, cpus, bindings=1)
        assert one.n == 1 and "an agent with one binding runs in one process" in one.why, one
    several = choose_jobs("a2a", 82, 0.4, 2, bindings=3)
    assert several.n == 3 and "one process per binding its card declares (3)" in several.why, several
    assert "82 rows" in several.why, several
    assert choose_jobs("a2a", 82, 0.4, 2, bindings=2).n == 2
    assert choose_jobs("a2a", 82, 2.5, 2, bindings=3).n == 1, "a busy machine gets one, as for the other families"
    assert choose_jobs("a2a", AUTO_MIN_ROWS - 1, 0.0, 2, bindings=2).n == 1


def test_the_bindings_counted_are_the_ones_the_harness_speaks() -> None:
    card = {"supportedInterfaces": [{"protocolBinding": "JSONRPC", "url": "a"}, {"protocolBinding": "JSONRPC",
                                                                                   "url": "b"},
                                    {"protocolBinding": "GRPC", "url": "c"}, {"protocolBinding": "SOAP"}, "junk"]}
    assert card_bindings(card) == 2
    assert card_bindings({}) == 0 and card_bindings({"supportedInterfaces": "JSONRPC"}) == 0


def test_an_explicit_jobs_is_kept_but_never_exceeds_the_rows_selected() -> None:
    assert workers(3, "a2acli", ROWS) == Jobs(3, "--jobs 3")
    capped = workers(3, "a2acli", ROWS[:2])
    assert capped.n == 2 and capped.why == "--jobs 3, at most one per row selected (2)", capped
    assert workers(2, "a2a", None).n == 2, "--jobs 2 given for the a2a family is the user's to ask"
    assert workers(5, "a2acli", None).n == 5


def test_without_jobs_the_whole_family_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``--only``: the rows are the family's; the machine's load and CPUs come from the OS."""
    import os

    monkeypatch.setattr(os, "getloadavg", lambda: (0.25, 0.0, 0.0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    rows = len(default_registry().select(family="agentd"))
    assert rows >= AUTO_MIN_ROWS
    assert workers(None, "agentd", None) == choose_jobs("agentd", rows, 0.25, 2)
    assert workers(None, "agentd", None).n == 2
    assert workers(None, "agentd", ROWS[:3]).n == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 0.0, 0.0))
    assert workers(None, "a2acli", None).n == 1


@pytest.mark.parametrize("command", [["cli"], ["agent", "--url", "http://127.0.0.1:9"],
                                     ["matrix", "--targets", "t.yaml"]])
def test_no_jobs_flag_means_the_automatic_choice(command: list[str]) -> None:
    assert build_parser().parse_args(command).jobs is None


# ---- end to end: the report records the choice -----------------------------------------------------------

def _jobs_of(report: Path) -> str:
    data = yaml.safe_load((report / "compliance-report.yaml").read_text(encoding="utf-8"))
    jobs = data["report"]["run"]["jobs"]
    assert isinstance(jobs, str)
    return jobs


def _used_xdist(report: Path) -> bool:
    """Whether the suite's pytest ran its checks in xdist workers (its log says it brought them up)."""
    return "bringing up nodes" in (report / "pytest.log").read_text(encoding="utf-8")


def test_a_small_run_without_jobs_records_one_process_and_why(tmp_path: Path) -> None:
    report = tmp_path / "report"
    r = run("cli", "--exe", "/bin/true", "--report-dir", str(report), "--only", "A2ACLI_SEND_001",
            "A2ACLI_TASK_LIST_001", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    said = "1 (automatic: 2 row(s) selected, fewer than 16)"
    assert _jobs_of(report) == said
    assert f"--jobs {said}" in r.stderr.splitlines()[0], r.stderr
    assert "CLI process time" in r.stdout and "with --jobs 1;" in r.stdout
    assert not _used_xdist(report)


def test_a_tier_run_without_jobs_records_the_number_it_used(tmp_path: Path) -> None:
    """39 rows: three processes or one, as the machine's load allows at the start; whichever, the report says
    it, with the reason, and the run used that many."""
    report = tmp_path / "report"
    r = run("cli", "--exe", "/bin/true", "--report-dir", str(report), "--tier", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    jobs = _jobs_of(report)
    assert re.fullmatch(r"3 \(automatic: a2acli family, 39 rows selected, load \d+\.\d\d below the \d+ CPU\(s\)\)"
                        r"|1 \(automatic: load \d+\.\d\d is not below the \d+ CPU\(s\)\)", jobs), jobs
    assert f"--jobs {jobs}" in r.stderr.splitlines()[0], r.stderr
    assert _used_xdist(report) == (jobs[0] == "3"), (jobs, (report / "pytest.log").read_text(encoding="utf-8")[:800])


def test_an_a2a_run_by_url_chooses_by_the_bindings_its_card_declares(tmp_path: Path) -> None:
    """The reference agentd's card declares one binding: without --jobs, one process, said with that reason
    whatever the machine's load (the other reasons, rows and load, come after the bindings)."""
    from tests.served import REFERENCE_AGENTD, served

    rows = [r.id for r in default_registry().select(family="a2a")][:AUTO_MIN_ROWS]
    report = tmp_path / "report"
    with served(REFERENCE_AGENTD) as url:
        r = run("agent", "--url", url, "--family", "a2a", "--report-dir", str(report), "--only", *rows, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _jobs_of(report) == "1 (automatic: the a2a family against an agent with one binding runs in one process)"
    assert not _used_xdist(report)
