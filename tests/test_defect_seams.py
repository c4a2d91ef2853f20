"""One defect mechanism for the references: each reference's main logic reads as a correct implementation.

Every defect of a reference is one function in that reference's ``seams/`` package, registered under its
name at points the main logic passes through (:mod:`conformance.fixtures.seam`). These tests read the
main-logic modules (every module of the reference outside ``seams/`` and its ``defects`` table) and hold
them to three things: no string in them is a defect's name; every registered name is in the table and
every table name (but the few documented as living in no seam) is registered; and every point a defect
is registered at is a point the main logic offers.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from conformance.fixtures.defect import Defect
from conformance.fixtures.seam import Seam


@dataclass(frozen=True)
class Reference:
    """A reference held to the seam rules: its package, and the defects that live in no seam."""

    package: str
    unseamed: frozenset[str] = frozenset()

    @property
    def root(self) -> Path:
        return Path(str(importlib.import_module(self.package).__file__)).parent

    @property
    def seams(self) -> ModuleType:
        return importlib.import_module(f"{self.package}.seams")

    @property
    def table(self) -> dict[str, Defect]:
        defects: dict[str, Defect] = importlib.import_module(f"{self.package}.defects").DEFECTS
        return defects

    def main_logic(self) -> list[Path]:
        """The reference's modules outside its seams and its defects table."""
        return sorted(p for p in self.root.rglob("*.py")
                      if "seams" not in p.relative_to(self.root).parts and p.name != "defects.py")


def _cli_file_defects() -> frozenset[str]:
    from conformance.fixtures.reference_cli.defects import FILE_DEFECTS

    return FILE_DEFECTS


REFERENCES = [
    # The reference CLI's skill-file defects change the files it ships, not its behaviour: no seam holds them.
    Reference("conformance.fixtures.reference_cli", _cli_file_defects()),
    Reference("conformance.fixtures.reference_agentd"),
    Reference("conformance.fixtures.scripted_agent"),
]
IDS = [r.package.rsplit(".", 1)[1] for r in REFERENCES]


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module (f-string pieces included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def names_in_main_logic(ref: Reference) -> list[str]:
    """``file:line: name`` for each string of the main logic equal to a defect name of ``ref``'s table."""
    table = set(ref.table)
    return [f"{path.relative_to(ref.root)}:{line}: {text}"
            for path in ref.main_logic() for line, text in _strings(path) if text in table]


def offered_points(ref: Reference) -> dict[str, set[str]]:
    """The points the main logic passes through, by seam: the first string argument of each call of a seam
    (``WIRE("tenant", ...)``, ``CARD(cfg, "ring", ...)``, ``CARD.at(names, ...)``, ``@WIRE.hook(...)``)."""
    by_name = {name: obj.layer for name, obj in vars(ref.seams).items() if isinstance(obj, Seam)}
    out: dict[str, set[str]] = {}
    for path in ref.main_logic():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("at", "hook"):
                func = func.value
            if not (isinstance(func, ast.Name) and func.id in by_name):
                continue
            point = next((a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)),
                         None)
            assert point is not None, f"{path}:{node.lineno}: a point of {func.id} named by no string"
            out.setdefault(by_name[func.id], set()).add(point)
    return out


@pytest.mark.parametrize("ref", REFERENCES, ids=IDS)
def test_the_main_logic_names_no_defect(ref: Reference) -> None:
    assert len(ref.main_logic()) > 5  # the reference's modules were found
    named = names_in_main_logic(ref)
    assert not named, "the main logic names defects (move each into the seam of its layer): " + "; ".join(named)


@pytest.mark.parametrize("ref", REFERENCES, ids=IDS)
def test_every_defect_is_registered_at_a_point_and_every_registered_name_is_in_the_table(ref: Reference) -> None:
    registered: dict[str, list[tuple[str, str]]] = ref.seams.registered()
    table = set(ref.table)
    assert not set(registered) - table, f"registered but not in defects.yaml: {sorted(set(registered) - table)}"
    assert ref.unseamed <= table
    missing = table - ref.unseamed - set(registered)
    assert not missing, f"in defects.yaml but registered at no point: {sorted(missing)}"
    assert not ref.unseamed & set(registered), "a defect documented as living in no seam is registered"


@pytest.mark.parametrize("ref", REFERENCES, ids=IDS)
def test_every_registered_point_is_one_the_main_logic_offers(ref: Reference) -> None:
    for module in ref.main_logic():  # the step points are marked at import
        stem = ".".join(module.relative_to(ref.root).with_suffix("").parts)
        if stem != "__main__":
            importlib.import_module(f"{ref.package}.{stem}")
    ref.seams.registered()
    offered = offered_points(ref)
    seams = [obj for obj in vars(ref.seams).values() if isinstance(obj, Seam)]
    assert seams
    for seam in seams:
        unreached = set(seam.registered) - offered.get(seam.layer, set())
        assert not unreached, f"{seam.layer} seam: defects at points the main logic never reaches: {unreached}"


def test_a_defect_name_in_the_main_logic_is_found(tmp_path: Path) -> None:
    """The scan finds a defect's name wherever a string holds it whole (a call's argument, a comparison)."""
    ref = REFERENCES[1]
    name = sorted(ref.table)[0]
    planted = tmp_path / "planted.py"
    planted.write_text(f'def f(cfg):\n    return "{name}" in cfg.defects\n\nNOTE = "not {name}"\n', encoding="utf-8")
    assert [text for _, text in _strings(planted) if text in ref.table] == [name]
