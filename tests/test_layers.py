"""The library's layers, as a contract: a package imports only from its own layer or below, so each layer
can be read, typed and changed knowing only what is under it.

From the top: the command; campaigns, coverage, spec-diff and the checks themselves (``suites``, run by pytest
with the plugin); the pytest plugin; the pipeline; the report and baselines; the verdict; the agentd family's
and the core family's and the CLI checks' support; the targets; the judge; the references the checks are proven
against (``fixtures``: the targets start them, they answer on the wire); the CLI driver, the wire and the
receiver. Beneath them all, the base modules (paths, the
registry, outcomes, evidence, redaction, ...), which import none of the layers. Imports anywhere in a module
count, also those inside functions (a late import still ties the two).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "conformance"
#: Top first; a package may import from its own group and any group below it.
LAYERS: list[set[str]] = [
    {"command"},
    {"campaign", "coverage", "specdiff", "suites"},
    {"plugin"},
    {"pipeline"},
    {"report", "baseline"},
    {"verdict"},
    {"agentd"},
    {"a2a", "clicheck"},
    {"targets"},
    {"judge"},
    {"fixtures"},
    {"cli", "wire", "receiver"},
]
#: Below every layer: they import no layer (only one another, the standard library and third parties).
BASE = {"paths", "yamldoc", "revision", "registry", "outcome", "evidence", "context", "redact", "scrub", "interrupts",
        "provenance", "allure_labels", "agentd_page", "tls", "pytest_main", "__init__", "__main__"}
RANK = {name: i for i, group in enumerate(LAYERS) for name in group}


def _part(module: str) -> str:
    """``conformance.wire.caller`` → ``wire``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports() -> list[tuple[str, str, int]]:
    """(importing part, imported module, line) of every import of the package by the package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        here = _part(".".join(rel.parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module] if node.level == 0 and node.module else []
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            out += [(here, n, node.lineno) for n in names if n == "conformance" or n.startswith("conformance.")]
    return out


def test_every_part_of_the_package_has_a_place() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())}
    assert not parts - set(RANK) - BASE, f"place these in LAYERS or BASE: {sorted(parts - set(RANK) - BASE)}"


def test_no_layer_imports_a_layer_above_it() -> None:
    up = [f"{here} → {name} (line {line})" for here, name, line in imports()
          if here in RANK and _part(name) in RANK and RANK[_part(name)] < RANK[here]]
    assert not up, "imports against the layers:\n" + "\n".join(up)


def test_the_base_imports_no_layer() -> None:
    up = [f"{here} → {name} (line {line})" for here, name, line in imports()
          if here in BASE and _part(name) in RANK]
    assert not up, "base modules importing a layer:\n" + "\n".join(up)


@pytest.mark.parametrize(("here", "name"), [("wire", "conformance.judge.quoting"), ("cli", "conformance.targets"),
                                                    ("fixtures", "conformance.targets.kinds"),
                                                    ("plugin", "conformance.suites.conftest")])
def test_the_contract_can_fail(here: str, name: str) -> None:
    """The rule above, on a made-up import of a lower layer from a higher one, reports it."""
    assert RANK[_part(name)] < RANK[here]
