"""Who covers a requirement: the checks that measure it and the defects that must make it fail.

The checks come from a pytest collection of ``suites/`` with the plugin (markers are often attached
through parametrized cases, so only a collection sees them all; no target is started), the defects
from the three references' tables. This is what ``registry --coverage`` prints and what
``spec-diff`` cites for a changed id.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from conformance.paths import SUITES_DIR
from conformance.registry import NEEDS, Registry

#: The three references' defect tables, and the attribute naming the ids each defect kills.
DEFECT_TABLES = (
    ("reference CLI", "conformance.fixtures.reference_cli.defects"),
    ("reference agentd", "conformance.fixtures.reference_agentd.defects"),
    ("scripted agent", "conformance.fixtures.scripted_agent.defects"),
)


def collect_checks(root: Path = SUITES_DIR) -> dict[str, dict[str, list[str]]]:
    """``module::test`` -> {ids, depends_on}, from a pytest collection of the suites (no target is started:
    the run context names no target, so checks that read a card at collection see none)."""
    from conformance.context import RunContext, private_dir
    from conformance.paths import PLUGIN_ARGS

    tmp = private_dir("agentd-conformance-coverage-")
    try:
        RunContext(family="a2a", target={"kind": "none"}).dump(tmp / "context.json")
        cmd = [sys.executable, "-P", "-m", "pytest", str(root), "-c", str(root / "pytest.ini"), "--rootdir", str(root),
               *PLUGIN_ARGS, "-p", "no:cacheprovider", "--collect-only", "-q",
               "--conformance-context", str(tmp / "context.json"), "--conformance-collect-map", str(tmp / "map.json")]
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL,
                              cwd=tmp)
        if proc.returncode != 0 or not (tmp / "map.json").is_file():
            raise RuntimeError(f"collecting the suites failed (pytest exit {proc.returncode}): "
                               f"{' '.join((proc.stdout + proc.stderr).split())[-400:]}")
        raw: dict[str, dict[str, list[str]]] = json.loads((tmp / "map.json").read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out: dict[str, dict[str, list[str]]] = {}
    for nodeid, info in raw.items():
        name = nodeid.split("[", 1)[0]
        entry = out.setdefault(name, {"ids": [], "depends_on": []})
        for key in ("ids", "depends_on"):
            entry[key] += [i for i in info.get(key, []) if i not in entry[key]]
    return out


def scan_checks(root: Path = SUITES_DIR) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Requirement id -> the checks that measure it, and -> the requirements those checks depend on."""
    checks: dict[str, list[str]] = defaultdict(list)
    depends: dict[str, list[str]] = defaultdict(list)
    for name, info in sorted(collect_checks(root).items()):
        for rid in info["ids"]:
            checks[rid].append(name)
            depends[rid] += [d for d in info["depends_on"] if d not in depends[rid]]
    return checks, depends


def scan_defects() -> dict[str, list[str]]:
    """Requirement id -> "reference: defect-name" for every defect that names it."""
    out: dict[str, list[str]] = defaultdict(list)
    for label, module in DEFECT_TABLES:
        table: dict[str, Any] = importlib.import_module(module).DEFECTS
        for name, d in table.items():
            ids: tuple[str, ...] = tuple(getattr(d, "ids", None) or getattr(d, "requirements", None) or ())
            for rid in ids:
                out[str(rid).partition(":")[0]].append(f"{label}: {name}")
    return out


def coverage_rows(registry: Registry, family: str | None = None) -> list[dict[str, Any]]:
    """One row per requirement: its checks, its killing defects, its needs and black-box measurability."""
    checks, depends = scan_checks()
    defects = scan_defects()
    rows = []
    for r in registry.select(family=family):
        rows.append({
            "id": r.id, "family": r.family, "group": r.group.replace("_", " "), "spec": r.spec,
            "kind": r.kind, "summary": r.summary,
            "checks": checks.get(r.id, []), "defects": defects.get(r.id, []),
            "depends_on": depends.get(r.id, []),
            "needs": [{"need": n, "what": NEEDS[n]} for n in r.needs],
            # A black box measures a row when some check exists for it; a need narrows which runs can.
            "measurable": "yes" if checks.get(r.id) and not r.needs else
                          ("with " + ", ".join(r.needs) if checks.get(r.id) else "no check yet"),
        })
    return rows


def render_coverage_md(rows: list[dict[str, Any]]) -> str:
    lines = ["| ID | Group | Spec | Checks | Killing defects | Depends on | Needs | Black-box measurable |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        checks = "<br>".join(f"`{c}`" for c in r["checks"]) or "—"
        defects = "<br>".join(r["defects"]) or "—"
        needs = ", ".join(n["need"] for n in r["needs"]) or "—"
        deps = ", ".join(f"`{d}`" for d in r["depends_on"]) or "—"
        lines.append(f"| `{r['id']}` | {r['group']} | {r['spec']} | {checks} | {defects} | {deps} | {needs} | "
                     f"{r['measurable']} |")
    with_check = sum(bool(r["checks"]) for r in rows)
    killed = sum(bool(r["defects"]) for r in rows)
    lines += ["", f"{len(rows)} requirement(s): {with_check} with a check, {killed} with a killing defect, "
                  f"{sum(bool(r['needs']) for r in rows)} with needs."]
    return "\n".join(lines) + "\n"
