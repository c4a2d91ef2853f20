"""False fails and wrong blames seen on real agents (issue 17 §2), each shown on the smallest target
that has the behaviour: a scripted-agent defect, the plain a2a-sdk agent, or a small fake."""

from __future__ import annotations

from pathlib import Path

from conformance.registry import default_registry
from tests.killmatrix import run_core

REGISTRY = default_registry()


def test_history_length_zero_is_judged_at_the_should_level_it_has(tmp_path: Path) -> None:
    """§3.2.4: for historyLength 0 the history "SHOULD be omitted"; a positive n bounds it. An agent
    answering the whole history for 0 fails only the SHOULD rows, and the MUST rows of a positive
    bound still pass on it."""
    rows = ["A2A_TASK_003", "A2A_TASK_004", "A2A_LIST_005", "A2A_LIST_008"]
    for defect, zero_row in (("get-history-zero-ignored", "A2A_TASK_004"), ("list-history-zero-ignored",
                                                                           "A2A_LIST_008")):
        reqs = run_core(tmp_path / defect, "scripted", rows, defect)["requirements"]
        assert reqs[zero_row]["status"] == "fail", reqs[zero_row]
        assert REGISTRY[zero_row].level == "should"
        others = {rid: reqs[rid]["status"] for rid in rows if rid != zero_row}
        assert set(others.values()) == {"pass"}, others
