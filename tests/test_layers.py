"""The library's layers, as a contract: a package imports only from its own layer or below, so each layer
can be read, typed and changed knowing only what is under it.

From the top: the command; campaigns, coverage, spec-diff and the checks themselves (``suites``, run by pytest
with the plugin); the pytest plugin; the pipeline; the report and baselines; the verdict; the agentd family's
and the core family's and the CLI checks' support; the targets; the judge; the references the checks are proven
against (``fixtures``: the targets start them, they answer on the wire); the CLI driver, the wire and the
receiver. Beneath them all, the base modules (paths, the
registry, outcomes, evidence, redaction, ...), which import none of the layers. Imports anywhere in a module
count, also those inside functions (a late import still ties the two). Within the layers, outside the references,
no modules import one another round a circle.
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


# ---- no circle of imports among the library's modules ------------------------------------------------------------

def module_imports(folder: Path = PACKAGE, skip: str = "fixtures") -> dict[str, set[str]]:
    """Module → the package's modules it imports (anywhere in it, late imports too; ``from pkg import name``
    counts as importing ``pkg.name`` when that is a module, else ``pkg``), for every module under ``folder``
    except those of the ``skip`` subpackage (the references, whose packages re-export their parts)."""
    modules: dict[str, Path] = {}
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder.parent).with_suffix("").parts
        if len(parts) > 1 and parts[1] == skip:
            continue
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                wanted = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                          for a in node.names]
            elif isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            else:
                continue
            edges[module] |= {w for w in wanted if w in modules and w != module}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another round a circle (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = [stack.pop()]
            while group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_modules_of_the_library_or_the_checks_import_each_other_round_a_circle() -> None:
    """Not even through an import inside a function: a module can be read knowing only what it imports."""
    found = circles(module_imports())
    assert not found, "modules importing each other round a circle:\n" + "\n".join(" -> ".join(c) for c in found)


def test_a_circle_is_found() -> None:
    """The rule above, on made-up imports: a circle of three through a late import is reported, a chain is not."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
