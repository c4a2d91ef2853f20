"""The agentd registry family loads and is internally consistent."""

from __future__ import annotations

from conformance.registry import Requirement
from tests.registry_family import (
    assert_every_area_used,
    assert_ids_unique_and_well_formed,
    load_family,
    numbers_by_area,
)


def _load() -> tuple[dict[str, str], list[Requirement]]:
    return load_family("agentd")


def test_agentd_family_loads_with_the_eight_areas() -> None:
    areas, reqs = _load()
    assert set(areas) == {"DECL", "NEG", "CARD", "CMD", "EVT", "ANN", "UDS", "REFUSE"}
    assert len(reqs) >= 40, f"expected several dozen requirements, got {len(reqs)}"


def test_agentd_ids_are_unique_and_well_formed() -> None:
    _, reqs = _load()
    assert_ids_unique_and_well_formed(reqs, r"AGENTD_[A-Z]+_\d{3}")


def test_agentd_every_area_is_used() -> None:
    areas, reqs = _load()
    assert_every_area_used(areas, reqs)


def test_agentd_every_row_has_level_spec_and_heading() -> None:
    _, reqs = _load()
    for r in reqs:
        assert r.level in ("must", "should", "may"), r.id
        assert r.tier is None, f"{r.id}: agentd rows carry a level, not a tier"
        assert r.spec.strip() and r.heading and r.heading.strip(), f"{r.id}: spec and heading required"


#: Rows removed because they describe agentd's build, CI or website, not a running daemon. Their ids are
#: never reused, so an old report's id never changes meaning.
RETIRED = {"AGENTD_DECL_010", "AGENTD_DECL_015", "AGENTD_DECL_016", "AGENTD_DECL_017", "AGENTD_DECL_018",
           "AGENTD_EVT_016", "AGENTD_EVT_017"}


def test_agentd_has_no_row_nobody_can_check() -> None:
    """Every row is a statement about the running daemon: none is conditional on the harness's limits
    (those are ``needs``), and the build/CI/website statements are gone."""
    _, reqs = _load()
    ids = {r.id for r in reqs}
    assert not ids & RETIRED, sorted(ids & RETIRED)
    assert not [r.id for r in reqs if r.conditional], "no agentd row says when it does not apply"
    needy = {r.id: r.needs for r in reqs if r.needs}
    assert needy["AGENTD_UDS_004"] == ("unix_socket", "root")
    assert needy["AGENTD_DECL_011"] == ("executable",) and needy["AGENTD_EVT_008"] == ("restartable",)


def test_agentd_numbers_are_dense_per_area_but_for_retired_ids() -> None:
    """Ids run 001.. without gaps in each area except the retired ones, so a missing row is visible."""
    _, reqs = _load()
    for area, nums in numbers_by_area(reqs).items():
        retired = {int(i.rsplit("_", 1)[1]) for i in RETIRED if i.split("_")[1] == area}
        expected = [n for n in range(1, len(nums) + len(retired) + 1) if n not in retired]
        assert sorted(nums) == expected, f"{area}: numbering {sorted(nums)}"
