"""The official A2A TCK's requirement ids and how the a2a family covers them.

``data/tck/a2a-tck.yaml`` holds the ids the TCK (a2aproject/a2a-tck) declares, as facts (level, the
section it cites, whether the TCK runs a test for it), and the ids no harness row covers, each with
a reason in our words. The covering side is the ``tck:`` list of each A2A_* row of the registry. A TCK
id is mapped (some row names it) or unmapped (listed with a reason), never both and never neither;
:func:`load_tck` refuses data that breaks this, naming the ids.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from conformance.paths import REGISTRY_DATA_DIR
from conformance.registry import LEVELS, TCK_ID, Registry, RegistryError, default_registry
from conformance.yamldoc import SafeLoader

TCK_FILE = REGISTRY_DATA_DIR / "tck" / "a2a-tck.yaml"
#: The family whose rows carry ``tck:``.
FAMILY = "a2a"


@dataclass(frozen=True)
class TckId:
    id: str
    level: str
    section: str
    #: Whether the TCK runs a test for this id (some are declared only).
    tested: bool


@dataclass(frozen=True)
class Unmapped:
    id: str
    kind: str
    why: str


@dataclass(frozen=True)
class TckMap:
    """The TCK's ids, which harness rows cover each, and why the rest have none."""

    source: dict[str, str]
    kinds: dict[str, str]
    declared: dict[str, TckId]
    #: TCK id -> the A2A_* rows naming it in their ``tck:`` list (registry order).
    rows: dict[str, tuple[str, ...]]
    unmapped: dict[str, Unmapped]

    def counts(self) -> dict[str, Any]:
        tested = {i for i, t in self.declared.items() if t.tested}
        return {
            "declared": len(self.declared), "tested_by_tck": len(tested),
            "mapped": len(self.rows), "unmapped": len(self.unmapped),
            "tested_unmapped": len(tested & set(self.unmapped)),
            "unmapped_by_kind": dict(sorted(Counter(u.kind for u in self.unmapped.values()).items())),
        }


def _err(path: Path, where: str, msg: str) -> RegistryError:
    return RegistryError(f"{path}: {where}: {msg}")


def load_tck(registry: Registry | None = None, path: Path = TCK_FILE) -> TckMap:
    """Read and validate the TCK data against ``registry`` (default: the bundled one)."""
    registry = registry or default_registry()
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)  # noqa: S506 - a safe loader
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise RegistryError(f"{path}: cannot read the TCK data: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"source", "kinds", "declared", "unmapped"}:
        raise _err(path, "top level", "expected a mapping of source, kinds, declared and unmapped")
    source, kinds = data["source"], data["kinds"]
    if not isinstance(source, dict) or not isinstance(kinds, dict) or not kinds:
        raise _err(path, "source/kinds", "mappings are required")
    declared: dict[str, TckId] = {}
    for idx, raw in enumerate(data["declared"] or []):
        where = f"declared[{idx}]"
        if not isinstance(raw, dict) or set(raw) != {"id", "level", "section", "tested"}:
            raise _err(path, where, "expected {id, level, section, tested}")
        tid = raw["id"]
        if not isinstance(tid, str) or not TCK_ID.fullmatch(tid):
            raise _err(path, where, f"{tid!r} is not a TCK id")
        if tid in declared:
            raise _err(path, where, f"{tid} is declared twice")
        if raw["level"] not in LEVELS or not isinstance(raw["section"], str) or not isinstance(raw["tested"], bool):
            raise _err(path, f"{where} ({tid})", "level must be must/should/may, section a string, tested a bool")
        declared[tid] = TckId(tid, raw["level"], raw["section"], raw["tested"])
    unmapped: dict[str, Unmapped] = {}
    for idx, raw in enumerate(data["unmapped"] or []):
        where = f"unmapped[{idx}]"
        if not isinstance(raw, dict) or set(raw) != {"id", "kind", "why"}:
            raise _err(path, where, "expected {id, kind, why}")
        tid, kind, why = raw["id"], raw["kind"], raw["why"]
        if tid not in declared:
            raise _err(path, where, f"{tid!r} is not a declared TCK id")
        if tid in unmapped:
            raise _err(path, where, f"{tid} is listed twice")
        if kind not in kinds:
            raise _err(path, f"{where} ({tid})", f"kind {kind!r} is not one of {sorted(kinds)}")
        if not isinstance(why, str) or not why.strip():
            raise _err(path, f"{where} ({tid})", "a reason (why) is required")
        unmapped[tid] = Unmapped(tid, kind, why.strip())
    rows: dict[str, list[str]] = {}
    for req in registry.select(family=FAMILY):
        for tid in req.tck:
            if tid not in declared:
                raise RegistryError(f"{req.id}: tck id {tid} is not one the TCK declares ({path})")
            rows.setdefault(tid, []).append(req.id)
    both = sorted(set(rows) & set(unmapped))
    if both:
        raise _err(path, "unmapped", f"{both} are covered by a row and also listed as unmapped")
    neither = sorted(set(declared) - set(rows) - set(unmapped))
    if neither:
        raise _err(path, "unmapped", f"{neither} are neither covered by a row nor listed with a reason")
    return TckMap(source={str(k): str(v) for k, v in source.items()}, kinds={str(k): str(v) for k, v in kinds.items()},
                  declared=declared, rows={t: tuple(r) for t, r in rows.items()}, unmapped=unmapped)


@lru_cache(maxsize=1)
def default_tck() -> TckMap:
    return load_tck()
