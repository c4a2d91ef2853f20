"""Merging a rerun into an earlier report (``--rerun-failed``).

A rerun measures only the rows an earlier report left short of ``pass``/``na``. The merged report
keeps the earlier report's rows that were not rerun (their evidence copied along, so the folder
stands alone), takes the rerun's rows, rolls the merged statuses up again (the pipeline's rollup and
claims), and says in its identity block that it is a merge and of what.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from conformance.outcome import NA, PASS
from conformance.registry import Registry
from conformance.report.build import claims, summary_block
from conformance.report.write import ReportWriteError, family_of, write_readable
from conformance.verdict import rollup

DONE = (PASS, NA)
REPORT_FILE = "compliance-report.yaml"


def load_report(path: Path) -> dict[str, Any]:
    """A saved report (the YAML, or the folder holding it)."""
    if path.is_dir():
        path = path / REPORT_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ReportWriteError(f"cannot read the report {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), dict):
        raise ReportWriteError(f"{path} is not a compliance report")
    return data


def latest_report(root: Path) -> Path | None:
    """The newest report folder under ``root`` (``reports/<target>/``) that holds a finished report."""
    if not root.is_dir():
        return None
    done = [p for p in root.iterdir() if (p / REPORT_FILE).is_file()]
    return max(done, key=lambda p: (p / REPORT_FILE).stat().st_mtime) if done else None


def rows_to_rerun(report: dict[str, Any]) -> list[str]:
    """The ids an earlier report did not settle (anything but pass and na)."""
    return [rid for rid, e in report["requirements"].items() if e.get("status") not in DONE]


def merge_into(new_dir: Path, previous_dir: Path, rerun: Iterable[str], registry: Registry) -> dict[str, Any]:
    """Rewrite ``new_dir``'s report as the merge of ``previous_dir``'s and the rerun of ``rerun``."""
    rerun = set(rerun)
    prev = load_report(previous_dir)
    new = load_report(new_dir)
    family = family_of(new)
    if family_of(prev) != family:
        raise ReportWriteError(f"{previous_dir} is a {family_of(prev)} report, not {family}")
    for rid, entry in prev["requirements"].items():
        if rid in rerun or rid not in new["requirements"]:
            continue
        new["requirements"][rid] = entry
        for ev in entry.get("evidence") or []:
            src, dst = previous_dir / ev, new_dir / ev
            if src.is_file() and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    if "A2ACLI_DEFAULT_001" not in rerun and "default_001_breakdown" in prev:
        new["default_001_breakdown"] = prev["default_001_breakdown"]
    for code, row in (prev.get("error_codes") or {}).items():
        mine = (new.get("error_codes") or {}).get(code)
        if mine is not None and not mine.get("emitted") and row.get("emitted"):
            new["error_codes"][code] = row
    # The pipeline from the rollup on (conformance.pipeline): the merged rows' statuses, rolled up again.
    statuses = {rid: e.get("status") for rid, e in new["requirements"].items()}
    summary = rollup(registry, family, statuses)
    new["summary"] = summary_block(summary)
    ident = new["report"]
    ident.update(claims(family, summary))
    ident["merged"] = {"from": str(previous_dir.resolve()), "rerun": sorted(rerun),
                       "note": "rows not rerun are carried over from the earlier report, with their evidence"}
    write_readable(new_dir, new, registry, family)
    return new
