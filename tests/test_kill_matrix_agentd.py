"""The agentd kill matrix: every named defect of the reference agentd must make its requirements fail.

For each defect in ``fixtures/reference_agentd/defects.py`` the agentd checks of the ids it names
run against a launched reference with only that defect switched on; each id must come out ``fail``
(or ``partial``). The clean reference must pass every id, and every id must
be named by at least one defect.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.fixtures.reference_agentd import DEFECTS
from conformance.registry import default_registry
from tests.killmatrix import run_command, survivors

REGISTRY = default_registry()
ALL_IDS = [r.id for r in REGISTRY.select(family="agentd")]


def test_every_agentd_requirement_has_a_killing_defect() -> None:
    named = {rid for d in DEFECTS.values() for rid in d.ids}
    orphans = [rid for rid in ALL_IDS if rid not in named]
    assert not orphans, f"agentd ids no defect of the reference kills: {orphans}"


def test_every_defect_names_known_requirements() -> None:
    bad = {d.name: [r for r in d.ids if r not in REGISTRY] for d in DEFECTS.values()}
    assert not any(bad.values()), f"defects naming unknown ids: { {k: v for k, v in bad.items() if v} }"


def test_clean_reference_agentd_passes_every_requirement(tmp_path: Path) -> None:
    """Every agentd row passes on the launched reference: none is na, none lacks a need (the harness
    provides every need to a reference it launches, root included when it runs as root)."""
    report = run_command(["agent", "--launch", "reference", "--family", "agentd", "--jobs", "2"], tmp_path / "r")
    reqs = report["requirements"]
    bad = {rid: (reqs[rid]["status"], reqs[rid]["note"]) for rid in ALL_IDS if reqs[rid]["status"] != "pass"}
    if os.geteuid() != 0:  # UDS_004 needs root to start a client under another uid
        bad = {rid: v for rid, v in bad.items() if "root" not in REGISTRY[rid].needs}
    assert not bad, f"the clean reference agentd does not pass: {bad}"


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_defect_makes_its_requirements_fail(defect: str, tmp_path: Path) -> None:
    ids = list(DEFECTS[defect].ids)
    report = run_command(["agent", "--launch", "reference", "--family", "agentd", "--defect", defect,
                          "--only", *ids], tmp_path / "r")
    survived = survivors(report, ids, tmp_path / "r")
    assert not survived, f"defect {defect!r} ({DEFECTS[defect].what}) was not caught: {survived}"
