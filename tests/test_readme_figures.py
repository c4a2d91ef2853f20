"""The README's figures of what is measured are the code's: the families table's requirement counts (per
tier or level, with registry needs), check counts and named defects match the registry, the suites and
the defect tables, so a row added or a defect removed cannot leave the README telling another story."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from conformance.registry import default_registry
from tests.killmatrix import AGENTD, CLI, CORE, Reference

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FAMILIES = [("a2acli", "conformance/suites/cli", CLI), ("agentd", "conformance/suites/agent/agentd", AGENTD),
            ("a2a", "conformance/suites/agent/core", CORE)]


def _row(family: str) -> list[str]:
    """The cells of the families table's row of ``family``."""
    for line in README.splitlines():
        if line.startswith(f"| `{family}` "):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    raise AssertionError(f"README.md's families table has no row for {family}")


def _checks(folder: str) -> int:
    """Check functions (``test_*`` at module level) in a suite folder."""
    n = 0
    for path in (ROOT / folder).glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        n += sum(isinstance(node, ast.FunctionDef) and node.name.startswith("test_") for node in tree.body)
    return n


def _number(pattern: str, cell: str) -> int:
    m = re.search(pattern, cell)
    assert m, f"{pattern!r} not in {cell!r}"
    return int(m.group(1))


@pytest.mark.parametrize(("family", "folder", "ref"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_families_table_counts_what_the_code_has(family: str, folder: str, ref: Reference) -> None:
    _, requirements, checks, _, kill = _row(family)
    rows = default_registry().select(family=family)
    assert _number(r"^(\d+)", requirements) == len(rows), requirements
    if family == "a2acli":
        tiers = Counter(r.tier for r in rows)
        for tier in (1, 2, 3):
            assert _number(rf"Tier {tier}: (\d+)", requirements) == tiers[tier], (tier, requirements)
    else:
        levels = Counter(r.level for r in rows)
        for level in ("must", "should", "may"):
            if level in requirements:
                assert _number(rf"{level} (\d+)", requirements) == levels[level], (level, requirements)
        assert _number(r"(\d+) with registry `needs:`", requirements) == sum(bool(r.needs) for r in rows)
    assert _number(r"^(\d+) checks", checks) == _checks(folder), checks
    assert _number(r"^(\d+) named defects", kill) == len(ref.defects), kill
