"""The requirement × target table of a many-target run: built from the targets' reports, rendered,
written (``matrix.yaml``, ``matrix.md``, ``implementation-report.html``).

It flags requirements that some target measured but no target passes (a hint that the wording may be
unsatisfiable) and regressions against a previous table (pass before, not now).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from conformance.registry import default_registry
from conformance.report.html import claim_words, render_implementation_html
from conformance.report.model import Report
from conformance.yamldoc import load_mapping


class PreviousError(ValueError):
    """The earlier table given to judge regressions against cannot be read."""


MARK = {"pass": "pass", "partial": "PART", "fail": "FAIL", "not_measured": "n/m", "na": "n/a"}


def build_table(results: dict[str, Report | str], previous: dict[str, Any] | None) -> dict[str, Any]:
    """From per-target reports (or an error string) to the table (the document matrix.yaml holds)."""
    ids: dict[str, None] = {}
    for rep in results.values():
        if isinstance(rep, Report):
            for rid in rep.requirements:
                ids.setdefault(rid, None)
    cells: dict[str, dict[str, str]] = {}
    for rid in ids:
        cells[rid] = {}
        for name, rep in results.items():
            if isinstance(rep, Report) and rid in rep.requirements:
                cells[rid][name] = rep.requirements[rid].status
    no_target_passes = sorted(rid for rid, row in cells.items()
                              if row and "pass" not in row.values()
                              and any(s in ("fail", "partial") for s in row.values()))
    regressions: list[dict[str, str]] = []
    if previous:
        for rid, row in cells.items():
            for name, status in row.items():
                before = previous.get("cells", {}).get(rid, {}).get(name)
                if before == "pass" and status != "pass":
                    regressions.append({"requirement": rid, "target": name, "before": before, "now": status})
    return {"targets": {n: _result_word(r) for n, r in results.items()},
            "cells": cells, "no_target_passes": no_target_passes, "regressions": regressions}


def _result_word(rep: Report | str) -> str:
    return claim_words(rep) if isinstance(rep, Report) else f"error: {rep}"


def render_table(doc: dict[str, Any]) -> str:
    names = list(doc["targets"])
    lines = ["# Conformance matrix", "", "| Target | Result |", "| --- | --- |"]
    lines += [f"| {n} | {doc['targets'][n]} |" for n in names]
    lines += ["", "| Requirement | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for rid, row in doc["cells"].items():
        flag = " ⚑" if rid in doc["no_target_passes"] else ""
        lines.append(f"| `{rid}`{flag} | " + " | ".join(MARK.get(row.get(n, ""), row.get(n, "—")) for n in names)
                     + " |")
    lines += ["", f"⚑ measured but passed by no target ({len(doc['no_target_passes'])}): "
              + (", ".join(doc["no_target_passes"]) or "none")]
    regs = doc["regressions"]
    lines += ["", f"Regressions against the previous matrix ({len(regs)}):"]
    lines += [f"- `{r['requirement']}` on {r['target']}: {r['before']} → {r['now']}" for r in regs] or ["- none"]
    return "\n".join(lines) + "\n"


def load_previous(previous: Path | None) -> dict[str, Any] | None:
    """An earlier matrix (its matrix.yaml, or the folder holding it), to judge regressions against."""
    if previous is None:
        return None
    if previous.is_dir():
        previous = previous / "matrix.yaml"
    path = previous
    return load_mapping(path, "cells", lambda exc: PreviousError(f"--previous {path}: cannot read: {exc}"),
                        lambda: PreviousError(f"--previous {path}: not a matrix.yaml (no cells)"))


def write_table(out: Path, doc: dict[str, Any], extra: dict[str, Any] | None,
                results: dict[str, Report | str]) -> None:
    """matrix.yaml (with ``extra``: a shard's marks), matrix.md and the implementation report page."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "matrix.yaml").write_text(yaml.safe_dump({**doc, **(extra or {})}, sort_keys=False, width=120),
                                     encoding="utf-8")
    (out / "matrix.md").write_text(render_table(doc), encoding="utf-8")
    page = render_implementation_html(results, default_registry(), links={n: n for n in results})
    (out / "implementation-report.html").write_text(page, encoding="utf-8")


