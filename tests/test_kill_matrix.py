"""The kill matrices of the three references: every named defect must make its requirements fail.

For each reference — the reference CLI (``a2acli``), the scripted agent (``a2a``), the reference
agentd (``agentd``) — and each defect in its table (``fixtures/defect.py`` rows), the checks of the
ids the defect names run against the reference with only that defect on; each id must come out
``fail`` or ``partial`` on an assertion of its own check (``ID:part``: in that part). The clean
reference must pass its whole family, and every id of the family must be named by some defect: a
requirement no defect can kill is a check never shown to fail. ``-k cli-``, ``-k core-``,
``-k agentd-`` pick one reference; ``-k <defect>`` one defect.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.registry import default_registry
from tests import test_blame_owner as blame_owner
from tests.killmatrix import AGENTD, CLI, CORE, REFERENCES, Reference, batches, caught_in_batch, covering, run_core

REGISTRY = default_registry()
BY_KEY = {r.key: r for r in REFERENCES}


@pytest.mark.parametrize("ref", REFERENCES, ids=lambda r: r.key)
def test_every_requirement_has_a_killing_defect(ref: Reference) -> None:
    named = {rid.partition(":")[0] for d in ref.defects.values() for rid in d.ids}
    orphans = [rid for rid in ref.ids if rid not in named]
    assert not orphans, f"{ref.family} ids no defect of the {ref.key} reference kills: {orphans}"


@pytest.mark.parametrize("ref", REFERENCES, ids=lambda r: r.key)
def test_every_defect_names_ids_of_its_family(ref: Reference) -> None:
    family = set(ref.ids)
    bad = {d.name: [r for r in d.ids if r.partition(":")[0] not in family] for d in ref.defects.values()}
    assert not any(bad.values()), f"defects naming ids outside {ref.family}: { {k: v for k, v in bad.items() if v} }"
    assert all(d.what for d in ref.defects.values())


def test_clean_reference_cli_passes_every_tier(tmp_path: Path) -> None:
    report = CLI.run(tmp_path, extra=["--jobs", "2"])
    reqs = report.requirements
    # Every row passes: the reference implements all three tiers, ships its skill and shows its config.
    not_passing = {rid: (reqs[rid].status, reqs[rid].note) for rid in CLI.ids if reqs[rid].status != "pass"}
    assert not not_passing, f"the clean reference CLI does not pass: {not_passing}"
    for tier in (1, 2, 3):
        assert report.summary[f"tier_{tier}"].satisfied is True, tier
    assert report.identity.tier_claimed == 3


@pytest.mark.parametrize("launch", ["reference", "scripted"])
def test_clean_target_passes_the_whole_a2a_family(launch: str, tmp_path: Path) -> None:
    report = run_core(tmp_path, launch)
    reqs = report.requirements
    bad = {rid: (reqs[rid].status, reqs[rid].note) for rid in CORE.ids
           if not (reqs[rid].status == "pass" or (reqs[rid].status == "na" and REGISTRY[rid].conditional))}
    assert not bad, f"the clean {launch} target does not pass: {bad}"
    assert report.summary["level_must"].satisfied is True
    assert report.summary["level_should"].satisfied is True
    if launch == "scripted":  # it serves every binding and capability, so nothing may be na
        assert {reqs[rid].status for rid in CORE.ids} == {"pass"}


def test_clean_reference_agentd_passes_every_requirement(tmp_path: Path) -> None:
    """Every agentd row passes on the launched reference: none is na, none lacks a need (the harness
    provides every need to a reference it launches, root included when it runs as root)."""
    report = AGENTD.run(tmp_path, extra=["--jobs", "2"])
    reqs = report.requirements
    bad = {rid: (reqs[rid].status, reqs[rid].note) for rid in AGENTD.ids if reqs[rid].status != "pass"}
    if os.geteuid() != 0:  # UDS_004 needs root to start a client under another uid
        bad = {rid: v for rid, v in bad.items() if "root" not in REGISTRY[rid].needs}
    assert not bad, f"the clean reference agentd does not pass: {bad}"


#: CI runs, per reference, a set of defects covering every id and part its defects name (every check shown to
#: fail), in groups of defects naming different areas (``tests.killmatrix.batches``: about a sixth of the
#: runs; an id a group does not catch is run again under its own defect alone). An id that a case of
#: ``tests/test_blame_owner.py`` CI runs already fails on an assertion of its own check (its owner rows) is
#: not run again here (:data:`SHOWN`). ``CONFORMANCE_KILL_MATRIX=all`` (``python -m benchmarks.kill_matrix``)
#: runs every named defect alone.
ALL = os.environ.get("CONFORMANCE_KILL_MATRIX") == "all"
#: Per reference, the ids the blame-owner cases CI runs show failing under one of its defects (each such case
#: asserts ``killed``: a failing outcome of the row's own check, not a harness error).
SHOWN: dict[str, frozenset[str]] = {
    ref.key: frozenset({c[2] for c in [*blame_owner.ci_cases(blame_owner.CASES), *blame_owner.ci_cases(
        blame_owner.PASSING)] if c[0] is ref} | {rid for r, _, rows in blame_owner.OWNED if r is ref for rid in rows})
    for ref in REFERENCES}
#: The cli and agentd checks mostly wait (on a tool's process, a held task, a timeout the defect provokes):
#: two workers per run overlap those waits.
JOBS = {"cli": ("--jobs", "2"), "agentd": ("--jobs", "2")}
CASES = ([pytest.param(ref.key, (name,), id=f"{ref.key}-{name}") for ref in REFERENCES for name in sorted(ref.defects)]
         if ALL else [pytest.param(ref.key, group, id=f"{ref.key}-{'+'.join(group)}") for ref in REFERENCES
                      for group in batches(ref, covering(ref, SHOWN[ref.key]))])


@pytest.mark.parametrize("ref", REFERENCES, ids=lambda r: r.key)
def test_the_defects_ci_runs_name_every_id_any_defect_names(ref: Reference) -> None:
    run = covering(ref, SHOWN[ref.key])
    named = {rid for d in ref.defects.values() for rid in d.ids}
    assert {rid for n in run for rid in ref.defects[n].ids} | SHOWN[ref.key] >= named
    assert SHOWN[ref.key] <= {rid.partition(":")[0] for rid in named}
    assert len(run) < len(ref.defects) or not ref.defects
    groups = batches(ref, run)
    assert sorted(n for g in groups for n in g) == sorted(run)
    areas = [[{REGISTRY[rid.partition(":")[0]].area for rid in ref.defects[n].ids} for n in g] for g in groups]
    assert all(not a & b for g in areas for i, a in enumerate(g) for b in g[i + 1:]), "a group shares an area"


@pytest.mark.parametrize(("key", "group"), CASES)
def test_defect_makes_its_requirements_fail(key: str, group: tuple[str, ...], tmp_path: Path) -> None:
    ref = BY_KEY[key]
    left = caught_in_batch(ref, group, tmp_path, extra=() if ALL else JOBS.get(key, ()))
    assert not left, "; ".join(f"{key} defect {name!r} ({ref.defects[name].what}) was not caught: {missed}"
                               for name, missed in left.items()) + f"; see {tmp_path}"


def test_a_refused_create_fails_only_the_create_row_and_blocks_the_rows_built_on_it(tmp_path: Path) -> None:
    """Seen on a2a-lite 1.2.1: push declared, every create refused. Get, list, delete, delivery (with the
    harness's control, via create) and the unknown-task row are not failed for it: blocked by A2A_PUSH_001."""
    rows = ["A2A_PUSH_001", "A2A_PUSH_002", "A2A_PUSH_003", "A2A_PUSH_004", "A2A_PUSH_005", "A2A_PUSH_006",
            "A2A_PUSH_007"]
    reqs = CORE.run(tmp_path, rows, "push-create-refused").requirements
    assert reqs["A2A_PUSH_001"].status == "fail", reqs["A2A_PUSH_001"]
    for rid in rows[1:]:
        assert reqs[rid].status == "not_measured", (rid, reqs[rid])
        assert (reqs[rid].note or "").startswith("blocked by A2A_PUSH_001"), (rid, reqs[rid])
