"""The a2a registry family (core A2A 1.0) loads and is internally consistent."""

from __future__ import annotations

import re

from conformance.registry import Requirement, default_registry
from tests.registry_family import (
    assert_every_area_used,
    assert_ids_unique_and_well_formed,
    load_family,
    numbers_by_area,
)

_AREAS = {"CARD", "VER", "EXT", "SEND", "TASK", "LIST", "CANCEL", "SUB", "STREAM", "PUSH", "MULTI", "ERR", "DATA",
          "SEC"}


def _load() -> tuple[dict[str, str], list[Requirement]]:
    return load_family("a2a")


def test_a2a_family_loads_with_its_areas_and_is_in_the_bundled_registry() -> None:
    areas, reqs = _load()
    assert set(areas) == _AREAS
    assert len(reqs) >= 45, f"expected the core protocol in several dozen rows, got {len(reqs)}"
    bundled = {r.id for r in default_registry().select(family="a2a")}
    assert bundled == {r.id for r in reqs}


def test_a2a_every_declared_area_is_used() -> None:
    areas, reqs = _load()
    assert_every_area_used(areas, reqs)


def test_a2a_ids_are_unique_well_formed_and_dense_per_area() -> None:
    _, reqs = _load()
    assert_ids_unique_and_well_formed(reqs, r"A2A_[A-Z]+_\d{3}")
    for area, nums in numbers_by_area(reqs).items():
        assert sorted(nums) == list(range(1, len(nums) + 1)), f"{area}: numbering {sorted(nums)}"


def test_a2a_rows_carry_a_level_and_cite_spec_sections() -> None:
    _, reqs = _load()
    for r in reqs:
        assert r.tier is None and r.level in ("must", "should", "may"), f"{r.id}: level {r.level!r}, tier {r.tier!r}"
        assert re.search(r"§\d", r.spec), f"{r.id}: spec {r.spec!r} cites no section"
        assert len(r.summary) <= 200, f"{r.id}: summary is not one line"


def test_a2a_conditional_rows_name_a_capability_or_binding() -> None:
    _, reqs = _load()
    for r in reqs:
        if r.conditional:
            assert r.condition and re.search(r"the card declares", r.condition), (r.id, r.condition)
    conditional_areas = {r.area for r in reqs if r.conditional}
    assert {"SUB", "STREAM", "PUSH"} <= conditional_areas
