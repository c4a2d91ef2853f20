"""How many test processes a run uses (``conformance.command.run.workers``): ``--jobs`` as given, capped at
the rows selected; without it, two where the machine has the CPUs and the run is large enough for the second
worker's start-up to pay (measured: benchmarks/side_by_side.py, cli_tiers.py, agentd_family.py)."""

from __future__ import annotations

import os

import pytest

from conformance.command.parser import build_parser
from conformance.command.run import AUTO_JOBS, AUTO_MIN_ROWS, workers

ROWS = [f"R{i}" for i in range(40)]


def test_an_explicit_jobs_is_kept_but_never_exceeds_the_rows_selected() -> None:
    assert workers(3, ROWS) == 3
    assert workers(3, ROWS[:2]) == 2
    assert workers(1, None) == 1
    assert workers(5, None) == 5


def test_without_jobs_a_small_run_is_one_process() -> None:
    assert workers(None, ROWS[:AUTO_MIN_ROWS - 1]) == 1
    assert workers(None, ROWS[:1]) == 1


def test_without_jobs_a_whole_family_gets_two_workers_where_there_are_two_cpus(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    assert workers(None, ROWS[:AUTO_MIN_ROWS]) == AUTO_JOBS == 2
    assert workers(None, None) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    assert workers(None, ROWS) == 1, "one CPU: a second worker only competes with the first"


@pytest.mark.parametrize("command", [["cli"], ["agent", "--url", "http://127.0.0.1:9"],
                                     ["matrix", "--targets", "t.yaml"]])
def test_no_jobs_flag_means_the_automatic_choice(command: list[str]) -> None:
    assert build_parser().parse_args(command).jobs is None
