"""What the per-family registry tests (test_registry_a2a.py, test_registry_agentd.py) check alike:
the family's file loads under its own name, its ids are unique and well formed, every declared area
is used, and the numbers of each area."""

from __future__ import annotations

import re
from collections import Counter

from conformance.paths import REGISTRY_DATA_DIR
from conformance.registry import Requirement, load_file


def load_family(name: str) -> tuple[dict[str, str], list[Requirement]]:
    """The areas and rows of ``<name>.yaml``, which must name itself ``name``."""
    info, reqs = load_file(REGISTRY_DATA_DIR / f"{name}.yaml")
    assert info.name == name
    return info.areas, reqs


def assert_ids_unique_and_well_formed(reqs: list[Requirement], pattern: str) -> None:
    ids = [r.id for r in reqs]
    dupes = [i for i, n in Counter(ids).items() if n > 1]
    assert not dupes, f"duplicate ids: {dupes}"
    bad = [i for i in ids if not re.fullmatch(pattern, i)]
    assert not bad, f"malformed ids: {bad}"


def assert_every_area_used(areas: dict[str, str], reqs: list[Requirement]) -> None:
    unused = set(areas) - {r.area for r in reqs}
    assert not unused, f"areas with no requirement: {sorted(unused)}"


def numbers_by_area(reqs: list[Requirement]) -> dict[str, list[int]]:
    """The numbers (the id's last part) of the rows of each area, in file order."""
    by_area: dict[str, list[int]] = {}
    for r in reqs:
        by_area.setdefault(r.area, []).append(int(r.id.rsplit("_", 1)[1]))
    return by_area
