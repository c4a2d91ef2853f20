"""The docs name real code: every file, module, function and check that the README and docs/ cite in
backticks exists as cited, so a contributor following the tour never meets a name that was moved away.

Cited forms: a path (``conformance/receiver.py``, ``command/run.py`` under the package, ``fixtures/...``),
a path with a name (``command/run.py:run_suite``, ``plugin/state.py:RunState``), a check
(``suites/.../test_card.py::test_...``) and a dotted name (``conformance.pipeline.conclude``, or short under
the package: ``verdict.verdicts_for``, ``report.model.Report``, ``AgentTarget.from_dict``'s
``Class.member`` when the class is named in the same doc).
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Where a relative path may live: the checkout's root, then the package.
BASES = (ROOT, ROOT / "conformance")
#: Top-level folders and packages a citation can start with.
HEADS = ("conformance", "suites", "fixtures", "tests", "benchmarks", "examples", "docs", ".ci", ".github")
PACKAGES = {p.name for p in (ROOT / "conformance").iterdir() if p.is_dir() and (p / "__init__.py").exists()} | {
    p.stem for p in (ROOT / "conformance").glob("*.py")}

TICKED = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^([\w.\-]+(?:/[\w.\-{},]+)+/?)(?::([\w.]+))?(?:::(\w+))?$")
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")


@cache
def _defined(path: Path) -> frozenset[str]:
    """Names defined in a Python file: top-level functions, classes, assignments, and ``Class.member``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                        names.add(f"{node.name}.{sub.name}")
                    elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                        names.add(f"{node.name}.{sub.target.id}")
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return frozenset(names)


def _expand(path: str) -> list[str]:
    """``seams/{parser,wire,render}.py`` → the three paths."""
    m = re.search(r"\{([^}]+)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in _expand(path[:m.start()] + alt + path[m.end():])]


def _path_problem(raw: str, name: str | None, check: str | None) -> str | None:
    for path in _expand(raw):
        hits = [b / path for b in BASES if (b / path).exists()]
        if not hits:
            return f"no file or folder {path}"
        target = hits[0]
        for wanted in (name, check):
            if wanted and target.suffix == ".py" and wanted not in _defined(target):
                return f"{path} defines no {wanted}"
    return None


def _dotted_problem(dotted: str) -> str | None:
    """A dotted name under the package: the longest importable module, then attributes."""
    parts = dotted.split(".")
    if parts[0] != "conformance":
        parts = ["conformance", *parts]
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return f"{'.'.join(parts[:cut])} has no {'.'.join(parts[cut:])}"
            obj = getattr(obj, attr)
        return None
    return "no such module"


def _is_code(dotted: str) -> bool:
    """Whether a dotted token names code: it starts with ``conformance.``, or with a module of the package
    (``verdict.…``), or with a package and one of its modules (``report.model.…``). A package and a plain
    word (``a2a.send``, ``agentd.sock``: an operation, a file) is the protocol's or a config's name."""
    parts = dotted.split(".")
    if parts[0] == "conformance":
        return True
    pkg = ROOT / "conformance" / parts[0]
    return (pkg.with_suffix(".py").is_file()
            or (pkg.is_dir() and ((pkg / f"{parts[1]}.py").is_file() or (pkg / parts[1]).is_dir())))


def citations(doc: Path) -> list[tuple[str, str | None]]:
    """(citation, problem or None) of every code citation in ``doc``."""
    out: list[tuple[str, str | None]] = []
    for token in TICKED.findall(doc.read_text(encoding="utf-8")):
        token = token.strip()
        if " " in token or token.startswith(("-", "$", "/", "http")):
            continue
        m = PATH.match(token)
        if m and (m.group(1).split("/")[0] in HEADS or m.group(1).split("/")[0] in PACKAGES) and (
                "." in m.group(1).rsplit("/", 1)[-1] or m.group(1).endswith("/")):
            out.append((token, _path_problem(m.group(1).rstrip("/"), m.group(2), m.group(3))))
            continue
        m = DOTTED.match(token)
        if m and _is_code(m.group(1)) and not token.endswith((".py", ".yaml", ".md")):
            out.append((token, _dotted_problem(m.group(1))))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_cited_file_module_and_function_exists(doc: Path) -> None:
    found = citations(doc)
    bad = [f"`{c}`: {why}" for c, why in found if why]
    assert not bad, f"{doc.name} cites code that is not there:\n" + "\n".join(bad)


def test_the_tour_cites_enough_to_be_checked() -> None:
    """The check above has something to hold: the architecture tour cites dozens of names, and a name that
    is not there is reported (shown on a made-up doc)."""
    assert len(citations(ROOT / "docs" / "architecture.md")) >= 40
    fake = ROOT / "docs" / "architecture.md"
    text = fake.read_text(encoding="utf-8")
    assert "`command/run.py:run_suite`" in text
    probe = [(_path_problem("command/run.py", "no_such_function", None)),
             _path_problem("conformance/nowhere.py", None, None), _dotted_problem("pipeline.no_such_step"),
             _dotted_problem("conformance.pipeline.conclude")]
    assert probe[0] and probe[1] and probe[2] and probe[3] is None, probe
