"""The CLI kill matrix: every named defect of the reference CLI must make its requirements fail.

For each defect in ``fixtures/reference_cli/defects.py`` the checks of the ids it names (any tier) are
run against the reference CLI with only that defect switched on, and each of those ids must come out
``fail`` (or ``partial``, which is also a detected, non-satisfying result) on an assertion of its own
check. The clean reference must come out ``pass`` (or a genuine ``na``) on all 66 ids, and every id
must be named by at least one defect: a requirement no defect can kill is a check that was never
shown to fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.fixtures.reference_cli.defects import DEFECTS, SKILL_PATH, materialize_skill
from conformance.registry import default_registry
from tests.killmatrix import run_command, survivors

ALL = [r.id for r in default_registry().select(family="a2acli")]


def run_cli_suite(tmp: Path, only: list[str], env: dict[str, str] | None = None, jobs: int = 1,
                  skill: Path = SKILL_PATH) -> dict[str, Any]:
    args = ["cli", "--jobs", str(jobs), "--skill", str(skill), "--only", *only]
    for k, v in (env or {}).items():
        args += ["--env", f"{k}={v}"]
    return run_command(args, tmp / "report")


def test_every_requirement_has_a_killing_defect() -> None:
    named = {rid.partition(":")[0] for d in DEFECTS.values() for rid in d.ids}
    orphans = [rid for rid in ALL if rid not in named]
    assert not orphans, f"A2ACLI ids no defect of the reference CLI kills: {orphans}"


def test_every_defect_names_known_requirements() -> None:
    registry = default_registry()
    bad = {d.name: [r for r in d.ids if r not in registry] for d in DEFECTS.values()}
    assert not any(bad.values()), f"defects naming unknown ids: { {k: v for k, v in bad.items() if v} }"


def test_clean_reference_cli_passes_every_tier(tmp_path: Path) -> None:
    report = run_cli_suite(tmp_path, ALL, jobs=2)
    reqs = report["requirements"]
    # Every row passes: the reference implements all three tiers, ships its skill and shows its config.
    not_passing = {rid: (reqs[rid]["status"], reqs[rid]["note"]) for rid in ALL if reqs[rid]["status"] != "pass"}
    assert not not_passing, f"the clean reference CLI does not pass: {not_passing}"
    for tier in (1, 2, 3):
        assert report["summary"][f"tier_{tier}"]["satisfied"] is True, tier
    assert report["report"]["tier_claimed"] == 3


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_defect_makes_its_requirements_fail(defect: str, tmp_path: Path) -> None:
    ids = list(DEFECTS[defect].ids)
    # File defects (the skill layout) cannot be switched by the environment: lay the skill out as shipped
    # under this defect and point --skill at it, as a vendor would for their own tool.
    skill = materialize_skill(tmp_path / "skill", {defect})[0]
    report = run_cli_suite(tmp_path, ids, env={"REFCLI_DEFECTS": defect}, skill=skill)
    survived = survivors(report, ids, tmp_path / "report")
    assert not survived, (f"defect {defect!r} ({DEFECTS[defect].what}) was not caught: {survived}; "
                          f"see {tmp_path}/report/summary.md")
