"""The core (a2a) kill matrix: every named defect of the scripted agent must make its ids fail.

For each defect in ``fixtures/scripted_agent/defects.py`` the checks of the A2A ids it names are run
through the command (``agentd-conformance agent --family a2a --launch scripted --defect NAME --only
IDS``), and each of those ids must come out ``fail`` (or ``partial``). The clean reference agentd and
the clean scripted agent must pass the whole family, and every A2A id must be named by at least one
defect: a requirement no defect can kill is a check never shown to fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.fixtures.scripted_agent.defects import DEFECTS
from conformance.registry import default_registry
from tests.killmatrix import run_command, survivors

A2A = [r.id for r in default_registry().select(family="a2a")]


def run_core(tmp: Path, launch: str, only: list[str] | None = None, defect: str | None = None) -> dict[str, Any]:
    args = ["agent", "--family", "a2a", "--launch", launch, "--timeout", "240"]
    if defect:
        args += ["--defect", defect]
    if only:
        args += ["--only", *only]
    return run_command(args, tmp, timeout=300)


def test_every_a2a_requirement_has_a_killing_defect() -> None:
    named = {rid for d in DEFECTS.values() for rid in d.ids}
    orphans = [rid for rid in A2A if rid not in named]
    assert not orphans, f"A2A ids no scripted-agent defect kills: {orphans}"


def test_every_defect_names_known_a2a_requirements() -> None:
    bad = {d.name: [r for r in d.ids if r not in A2A] for d in DEFECTS.values()}
    assert not any(bad.values()), f"defects naming ids outside the a2a family: { {k: v for k, v in bad.items() if v} }"
    assert all(d.ids and d.what for d in DEFECTS.values())


@pytest.mark.slow
@pytest.mark.parametrize("launch", ["reference", "scripted"])
def test_clean_target_passes_the_whole_a2a_family(launch: str, tmp_path: Path) -> None:
    report = run_core(tmp_path, launch)
    reg = default_registry()
    reqs = report["requirements"]
    bad = {rid: (reqs[rid]["status"], reqs[rid]["note"]) for rid in A2A
           if not (reqs[rid]["status"] == "pass" or (reqs[rid]["status"] == "na" and reg[rid].conditional))}
    assert not bad, f"the clean {launch} target does not pass: {bad}"
    assert report["summary"]["level_must"]["satisfied"] is True
    assert report["summary"]["level_should"]["satisfied"] is True
    if launch == "scripted":  # it serves every binding and capability, so nothing may be na
        assert {reqs[rid]["status"] for rid in A2A} == {"pass"}


@pytest.mark.slow
@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_defect_makes_its_requirements_fail(defect: str, tmp_path: Path) -> None:
    ids = list(DEFECTS[defect].ids)
    report = run_core(tmp_path, "scripted", ids, defect)
    survived = survivors(report, ids, tmp_path)
    assert not survived, (f"defect {defect!r} ({DEFECTS[defect].what}) was not caught: {survived}; "
                          f"see {tmp_path}/summary.md")
