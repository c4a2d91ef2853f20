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
from conformance.registry.tck import FAMILY as FAMILY_WITH_TCK
from conformance.registry.tck import TckMap

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


def coverage_rows(registry: Registry, family: str | None = None,
                  scanned: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None) -> list[dict[str, Any]]:
    """One row per requirement: its checks, its killing defects, its needs and black-box measurability
    (``scanned``: :func:`scan_checks`'s result, when the caller has it already)."""
    checks, depends = scanned or scan_checks()
    defects = scan_defects()
    rows = []
    for r in registry.select(family=family):
        rows.append({
            "id": r.id, "family": r.family, "group": r.group.replace("_", " "), "spec": r.spec,
            "kind": r.kind, "summary": r.summary,
            "checks": checks.get(r.id, []), "defects": defects.get(r.id, []),
            "depends_on": depends.get(r.id, []),
            "needs": [{"need": n, "what": NEEDS[n]} for n in r.needs],
            **({"tck": list(r.tck)} if r.family == FAMILY_WITH_TCK else {}),
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


def tck_coverage(tck: TckMap, checks: dict[str, list[str]]) -> dict[str, Any]:
    """The official TCK's ids: per id, the harness rows covering it and their checks, or why none does."""
    ids = []
    for tid, t in tck.declared.items():
        rows = list(tck.rows.get(tid, ()))
        u = tck.unmapped.get(tid)
        ids.append({"id": tid, "level": t.level, "section": t.section, "tested_by_tck": t.tested, "rows": rows,
                    "checks": [c for r in rows for c in checks.get(r, [])],
                    "unmapped": None if u is None else {"kind": u.kind, "why": u.why}})
    return {"source": tck.source, "counts": tck.counts(), "kinds": tck.kinds, "ids": ids}


def render_tck_md(cov: dict[str, Any]) -> str:
    src, n = cov["source"], cov["counts"]
    lines = ["", f"## The official TCK's requirement ids ({src.get('repository')}, {src.get('branch')}, "
                 f"{str(src.get('commit', ''))[:12]})", "",
             f"{n['declared']} TCK id(s), {n['tested_by_tck']} of them tested by the TCK: {n['mapped']} covered by "
             f"a harness row, {n['unmapped']} with none ({n['tested_unmapped']} of those tested by the TCK).", "",
             "| TCK id | Level | Spec | Tested by the TCK | Harness rows | Checks |",
             "| --- | --- | --- | --- | --- | --- |"]
    for t in cov["ids"]:
        if t["unmapped"] is None:
            rows = ", ".join(f"`{r}`" for r in t["rows"])
            checks = "<br>".join(f"`{c}`" for c in dict.fromkeys(t["checks"])) or "—"
            lines.append(f"| `{t['id']}` | {t['level']} | §{t['section']} | {'yes' if t['tested_by_tck'] else 'no'} | "
                         f"{rows} | {checks} |")
    lines += ["", "### TCK ids with no harness row", "",
              "| TCK id | Level | Spec | Tested by the TCK | Kind | Why |", "| --- | --- | --- | --- | --- | --- |"]
    for t in cov["ids"]:
        if t["unmapped"] is not None:
            u = t["unmapped"]
            lines.append(f"| `{t['id']}` | {t['level']} | §{t['section']} | {'yes' if t['tested_by_tck'] else 'no'} | "
                         f"{u['kind']} | {u['why']} |")
    lines += ["", "Why: " + "; ".join(f"**{k}** — {v}" for k, v in cov["kinds"].items()) + "."]
    return "\n".join(lines) + "\n"
