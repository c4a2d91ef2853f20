"""``manifest.json``: what a finished report folder holds, for ``report verify``.

Written by the command as the last step of a run (after the sweep, a ``--rerun-failed`` merge and the
baseline's section of summary.md), and brought up to date by ``report render`` when it writes into the
folder. It records the sha256 of every other file of the folder, the harness (version and commit), the
requirement registry each family was judged by (its data file's sha256 and the revisions it names) and
the target's identity as the report states it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.evidence import EVIDENCE_DIR
from conformance.registry import Registry
from conformance.report.model import Report

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1
#: The identity fields the manifest repeats: what was judged.
TARGET_FIELDS = ("target", "tool", "tool_version", "agent_tested", "bundled_target", "adapter", "env_given")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def report_files(folder: Path) -> list[str]:
    """Every file of the folder but the manifest, as sorted POSIX paths relative to it."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            rel = (Path(root) / name).relative_to(folder).as_posix()
            if rel != MANIFEST_FILE:
                out.append(rel)
    return sorted(out)


def registry_hashes(registry: Registry) -> dict[str, dict[str, Any]]:
    """Per family: the registry data file's name and sha256, and the revisions it names."""
    return {name: {"file": info.path.name, "sha256": sha256_file(info.path),
                   "judged_against": list(info.judged_against)}
            for name, info in sorted(registry.families.items())}


def target_identity(report: Report) -> dict[str, Any]:
    ident = report.identity.to_dict()
    return {k: ident[k] for k in TARGET_FIELDS if k in ident}


def build_manifest(folder: Path, report: Report, registry: Registry) -> dict[str, Any]:
    harness = report.identity.harness
    return {"manifest": MANIFEST_VERSION, "family": report.family,
            "harness": harness.to_dict() if harness is not None else None,
            "registry": registry_hashes(registry), "target": target_identity(report),
            "files": {rel: sha256_file(folder / rel) for rel in report_files(folder)}}


def write_manifest(folder: Path, report: Report, registry: Registry) -> Path:
    path = folder / MANIFEST_FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(build_manifest(folder, report, registry), indent=1, sort_keys=True) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest; raises ValueError (naming the file) when it is missing or malformed."""
    path = folder / MANIFEST_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{MANIFEST_FILE}: missing (a report is verifiable once its run has finished)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{MANIFEST_FILE}: unreadable: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("manifest") != MANIFEST_VERSION or not isinstance(doc.get("files"), dict):
        raise ValueError(f"{MANIFEST_FILE}: not a manifest of version {MANIFEST_VERSION}")
    return doc


def refresh_manifest(folder: Path, written: Iterable[Path]) -> bool:
    """Bring the manifest up to date for files a later step (``report render``) wrote into ``folder``;
    False when the folder has no manifest (nothing to keep consistent)."""
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return False
    doc = read_manifest(folder)
    for p in written:
        try:
            rel = p.resolve().relative_to(folder.resolve()).as_posix()
        except ValueError:
            continue
        doc["files"][rel] = sha256_file(p)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return True


def clear_earlier_run(folder: Path) -> int:
    """Remove what an earlier run left in ``folder`` (a ``--report-dir`` used again): the files its manifest
    lists, the manifest, and the evidence tree; the number of files removed. A file the user put there stays.

    Without this, evidence of the earlier run stayed beside the new run's (named ``-2``, ``-3``, ...) and the
    new manifest signed it as part of the new report."""
    removed = 0
    try:
        listed = read_manifest(folder)["files"]
    except ValueError:
        listed = {}
    root = folder.resolve()
    for rel in listed:
        path = (folder / str(rel)).resolve()
        if root not in path.parents:
            continue  # a manifest that names a path outside its folder: not ours to remove
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            continue
    evidence = folder / EVIDENCE_DIR
    if evidence.is_dir() and not evidence.is_symlink():
        removed += sum(1 for p in evidence.rglob("*") if p.is_file())
        shutil.rmtree(evidence)
    (folder / MANIFEST_FILE).unlink(missing_ok=True)
    return removed
