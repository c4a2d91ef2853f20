"""The requirement registry: one YAML file per family, loaded into :class:`Requirement`.

The registry is the single source of truth for requirement ids. The blank template, the report
skeleton, marker validation and "requirement with no check" detection all read it. Bad data fails
loudly with :class:`RegistryError`, naming the file and the entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from conformance import revision
from conformance.paths import REGISTRY_DATA_DIR
from conformance.yamldoc import SafeLoader

FAMILIES = ("a2acli", "agentd", "a2a")
KINDS = ("gating", "conditional")
LEVELS = ("must", "should", "may")

_FAMILY_PREFIX = {"a2acli": "A2ACLI", "agentd": "AGENTD", "a2a": "A2A"}
_FILE_KEYS = {"family", "title", "source", "spec_version", "spec_revision", "judged_against", "areas", "requirements",
              "breakdowns", "revisions"}
#: What a ``revisions:`` entry may change: of the family, and of each row whose text differs in that revision.
_REVISION_KEYS = {"title", "spec_version", "judged_against", "rows"}
_REVISION_ROW_KEYS = {"level", "spec", "summary"}
_ENTRY_KEYS = {"id", "tier", "level", "area", "spec", "summary", "kind", "condition", "parts",
               "needs", "withdrawn", "heading", "observed", "tck"}

#: How the official A2A TCK (a2aproject/a2a-tck) spells a requirement id: CORE-SEND-001,
#: HTTP_JSON-URL-002, CORE-MULTI-001a. A row's ``tck`` list names the TCK ids it covers.
TCK_ID = re.compile(r"[A-Z][A-Z_]*(?:-[A-Z][A-Z_]*)*-\d{3}[a-z]?")

#: What a black-box run must be given to measure a requirement (DESIGN.md §2.9). A need is a harness
#: limit, never a condition: a requirement whose need the run lacks is ``not_measured``, naming it.
NEEDS: dict[str, str] = {
    "executable": "the target's own executable (--agentd-binary CMD, or your agent as a --container image)",
    "launch_config": ("a target the harness starts and configures itself: your agent as a --container image that "
                      "takes a configuration document (switch `config`, label dev.agentd-conformance.switches; or "
                      "contract v2's label dev.agentd-conformance.config)"),
    "restartable": "a target the harness can restart: your agent as a --container image",
    "unix_socket": ("a target listening on a unix socket on this host (--unix PATH, or a --container image whose "
                    "label dev.agentd-conformance.socket-dir names the folder its socket is made in)"),
    "root": "the harness running as root (to start a client under another uid)",
    "logs": "the target's own log output: your agent as a --container image (the harness reads its log stream)",
}


def needs_note(lacking: Iterable[str]) -> str:
    """The not_measured note of a requirement whose needs the run lacks."""
    return "needs " + "; ".join(f"{n}: {NEEDS[n]}" for n in lacking)


class RegistryError(ValueError):
    """Registry data is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Requirement:
    id: str
    family: str
    area: str
    spec: str
    summary: str
    tier: int | None = None
    level: str | None = None
    kind: str = "gating"
    condition: str | None = None
    parts: tuple[str, ...] = ()
    #: Keys of :data:`NEEDS`: what a run must provide for this requirement to be measured at all.
    needs: tuple[str, ...] = ()
    #: Withdrawn by the specification: excluded from totals; only then is ``withdrawn`` a valid status.
    withdrawn: bool = False
    heading: str | None = None
    #: Judged on every exchange of the run, not only by its own checks: a rule every answer must keep
    #: (the data model, the envelope). Other checks read leniently and report what they saw break it
    #: as this row's findings (DESIGN.md §2.11).
    observed: bool = False
    #: The official TCK's requirement ids this row covers (``conformance.registry.tck``).
    tck: tuple[str, ...] = ()

    @property
    def group(self) -> str:
        """The rollup group: ``tier_N`` for tiered families, ``level_<must|should|may>`` otherwise."""
        return f"tier_{self.tier}" if self.tier is not None else f"level_{self.level}"

    @property
    def conditional(self) -> bool:
        return self.kind == "conditional"


@dataclass(frozen=True)
class RowChange:
    """How one row reads in an older revision of its text (None: as in the newest)."""

    level: str | None = None
    spec: str | None = None
    summary: str | None = None


@dataclass(frozen=True)
class Revision:
    """An older revision of a family's text: what it names and the rows that read otherwise there."""

    name: str
    title: str
    spec_version: str | None
    judged_against: tuple[str, ...]
    rows: dict[str, RowChange]


@dataclass(frozen=True)
class FamilyInfo:
    name: str
    title: str
    source: str
    spec_version: str | None
    spec_revision: str | None
    areas: dict[str, str]
    path: Path
    breakdowns: dict[str, Any] = field(default_factory=dict)
    #: The revisions of the texts this family's verdicts are judged against, as a report names them
    #: ("a2a-cli specification v0.2 of 2026-08-17", "A2A v1.0.1").
    judged_against: tuple[str, ...] = ()
    #: Older revisions of the text this family can be judged by (``--spec-revision``), by name.
    revisions: dict[str, Revision] = field(default_factory=dict)


@dataclass(frozen=True)
class Registry:
    families: dict[str, FamilyInfo]
    requirements: dict[str, Requirement]

    def __iter__(self) -> Iterator[Requirement]:
        return iter(self.requirements.values())

    def __len__(self) -> int:
        return len(self.requirements)

    def __contains__(self, rid: object) -> bool:
        return rid in self.requirements

    def __getitem__(self, rid: str) -> Requirement:
        return self.requirements[rid]

    def select(self, family: str | None = None, tier: int | None = None,
               ids: Iterable[str] | None = None) -> list[Requirement]:
        """Requirements filtered by family, by tier (``tier`` means "this tier and below") and ids."""
        wanted = set(ids) if ids is not None else None
        out = []
        for r in self:
            if family is not None and r.family != family:
                continue
            if tier is not None and (r.tier is None or r.tier > tier):
                continue
            if wanted is not None and r.id not in wanted:
                continue
            out.append(r)
        return out

    def groups(self, family: str) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.select(family=family):
            seen.setdefault(r.group, None)
        return sorted(seen, key=_group_order)


def _group_order(group: str) -> tuple[int, str]:
    kind, _, val = group.partition("_")
    if kind == "tier":
        return (0, val.zfill(3))
    return (1, str(LEVELS.index(val)) if val in LEVELS else val)


def _err(path: Path, where: str, msg: str) -> RegistryError:
    return RegistryError(f"{path}: {where}: {msg}")


def _parse_entry(path: Path, family: str, areas: dict[str, str], idx: int, raw: Any) -> Requirement:
    where = f"requirements[{idx}]"
    if not isinstance(raw, dict):
        raise _err(path, where, f"expected a mapping, got {type(raw).__name__}")
    rid = raw.get("id")
    if isinstance(rid, str):
        where = f"{where} ({rid})"
    else:
        rid = ""
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise _err(path, where, f"unknown field(s) {sorted(unknown)}")
    for key in ("id", "area", "spec", "summary"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise _err(path, where, f"field {key!r} is required and must be a non-empty string")
    prefix = _FAMILY_PREFIX[family]
    area = raw["area"]
    if area not in areas:
        raise _err(path, where, f"area {area!r} is not defined by family {family!r}")
    m = re.fullmatch(rf"{prefix}_([A-Z][A-Z_]*?)_(\d{{3}})", rid)
    if not m:
        raise _err(path, where, f"id {rid!r} does not match {prefix}_<AREA>_<NNN>")
    if m.group(1) != area:
        raise _err(path, where, f"id {rid!r} is not in its area {area!r}")
    tier, level = raw.get("tier"), raw.get("level")
    if (tier is None) == (level is None):
        raise _err(path, where, "exactly one of 'tier' and 'level' is required")
    if tier is not None and (not isinstance(tier, int) or isinstance(tier, bool) or tier < 1):
        raise _err(path, where, f"tier must be a positive integer, got {tier!r}")
    if level is not None and level not in LEVELS:
        raise _err(path, where, f"level must be one of {LEVELS}, got {level!r}")
    kind = raw.get("kind", "gating")
    if kind not in KINDS:
        raise _err(path, where, f"kind must be one of {KINDS}, got {kind!r}")
    condition = raw.get("condition")
    if kind == "conditional" and not (isinstance(condition, str) and condition.strip()):
        raise _err(path, where, "a conditional requirement needs its 'condition'")
    if kind == "gating" and condition is not None:
        raise _err(path, where, "'condition' is only for conditional requirements")
    parts = raw.get("parts") or []
    if not isinstance(parts, list) or not all(isinstance(p, str) and p for p in parts):
        raise _err(path, where, "'parts' must be a list of non-empty strings")
    if len(set(parts)) != len(parts):
        raise _err(path, where, "'parts' has duplicates")
    needs = raw.get("needs") or []
    if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
        raise _err(path, where, "'needs' must be a list of need names")
    unknown_needs = [n for n in needs if n not in NEEDS]
    if unknown_needs:
        raise _err(path, where, f"unknown need(s) {unknown_needs} (known: {sorted(NEEDS)})")
    if len(set(needs)) != len(needs):
        raise _err(path, where, "'needs' has duplicates")
    withdrawn = raw.get("withdrawn", False)
    if not isinstance(withdrawn, bool):
        raise _err(path, where, "'withdrawn' must be true or false")
    observed = raw.get("observed", False)
    if not isinstance(observed, bool):
        raise _err(path, where, "'observed' must be true or false")
    tck = raw.get("tck") or []
    if not isinstance(tck, list) or not all(isinstance(t, str) for t in tck):
        raise _err(path, where, "'tck' must be a list of TCK requirement ids")
    bad = [t for t in tck if not TCK_ID.fullmatch(t)]
    if bad:
        raise _err(path, where, f"'tck' id(s) {bad} do not look like TCK ids (CORE-SEND-001)")
    if len(set(tck)) != len(tck):
        raise _err(path, where, "'tck' has duplicates")
    if tck and family != "a2a":
        raise _err(path, where, "'tck' is for the a2a family (the TCK judges core A2A)")
    return Requirement(id=rid, family=family, area=area, spec=raw["spec"], summary=raw["summary"].strip(),
                       tier=tier, level=level, kind=kind, condition=condition, parts=tuple(parts),
                       needs=tuple(needs), withdrawn=withdrawn, heading=raw.get("heading"),
                       observed=observed, tck=tuple(tck))


class _StrictLoader(SafeLoader):  # type: ignore[misc,valid-type]
    """A safe loader that refuses a mapping repeating a key (YAML would keep the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}",
                                                        key_node.start_mark)
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def load_file(path: Path) -> tuple[FamilyInfo, list[Requirement]]:
    """Load and validate one family file."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise RegistryError(f"{path}: cannot read registry data: {exc}") from exc
    if not isinstance(data, dict):
        raise _err(path, "top level", "expected a mapping")
    unknown = set(data) - _FILE_KEYS
    if unknown:
        raise _err(path, "top level", f"unknown field(s) {sorted(unknown)}")
    family = data.get("family")
    if family not in FAMILIES:
        raise _err(path, "family", f"must be one of {FAMILIES}, got {family!r}")
    areas = data.get("areas")
    if not isinstance(areas, dict) or not areas:
        raise _err(path, "areas", "a non-empty mapping of area name to description is required")
    for key in ("spec_version", "spec_revision"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise _err(path, key, f"must be a quoted string, got {type(data[key]).__name__} {data[key]!r}")
    judged = data.get("judged_against", [])
    if not isinstance(judged, list) or not all(isinstance(j, str) and j.strip() for j in judged):
        raise _err(path, "judged_against", "a list of revision names (strings) is required")
    breakdowns = data.get("breakdowns")
    if breakdowns is not None and not isinstance(breakdowns, dict):
        raise _err(path, "breakdowns", "a mapping is required")
    reqs_raw = data.get("requirements")
    if not isinstance(reqs_raw, list):
        raise _err(path, "requirements", "a list is required")
    reqs: list[Requirement] = []
    seen: set[str] = set()
    for idx, raw in enumerate(reqs_raw):
        req = _parse_entry(path, family, areas, idx, raw)
        if req.id in seen:
            raise _err(path, f"requirements[{idx}] ({req.id})", "duplicate id")
        seen.add(req.id)
        reqs.append(req)
    revisions = _parse_revisions(path, data.get("revisions"), {r.id: r for r in reqs})
    info = FamilyInfo(name=family, title=str(data.get("title") or family), source=str(data.get("source") or ""),
                      spec_version=data.get("spec_version"), spec_revision=data.get("spec_revision"),
                      areas=dict(areas), path=path, breakdowns=dict(data.get("breakdowns") or {}),
                      judged_against=tuple(judged), revisions=revisions)
    return info, reqs


def _parse_revisions(path: Path, raw: Any, rows: dict[str, Requirement]) -> dict[str, Revision]:
    """The ``revisions:`` mapping of a family file (name -> what differs), validated."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _err(path, "revisions", "a mapping of revision name to what differs is required")
    out: dict[str, Revision] = {}
    for name, entry in raw.items():
        where = f"revisions.{name}"
        if not isinstance(name, str) or name not in revision.REVISIONS:
            raise _err(path, where, f"unknown revision (known: {', '.join(revision.REVISIONS)})")
        if not isinstance(entry, dict) or set(entry) - _REVISION_KEYS:
            raise _err(path, where, f"a mapping with keys among {sorted(_REVISION_KEYS)} is required")
        judged = entry.get("judged_against")
        if not (isinstance(judged, list) and judged and all(isinstance(j, str) and j.strip() for j in judged)):
            raise _err(path, f"{where}.judged_against", "a list of revision names (strings) is required")
        changes: dict[str, RowChange] = {}
        for rid, change in (entry.get("rows") or {}).items():
            if rid not in rows:
                raise _err(path, f"{where}.rows.{rid}", "not a requirement of this family")
            if not isinstance(change, dict) or not change or set(change) - _REVISION_ROW_KEYS or not all(
                    isinstance(v, str) and v.strip() for v in change.values()):
                raise _err(path, f"{where}.rows.{rid}",
                           f"a mapping of {sorted(_REVISION_ROW_KEYS)} to non-empty strings is required")
            if change.get("level") is not None and (rows[rid].level is None or change["level"] not in LEVELS):
                raise _err(path, f"{where}.rows.{rid}.level", f"must be one of {LEVELS} on a row with a level")
            changes[rid] = RowChange(level=change.get("level"), spec=change.get("spec"), summary=change.get("summary"))
        version = entry.get("spec_version")
        if version is not None and not isinstance(version, str):
            raise _err(path, f"{where}.spec_version", "must be a quoted string")
        out[name] = Revision(name=name, title=str(entry.get("title") or ""), spec_version=version,
                             judged_against=tuple(judged), rows=changes)
    return out


def load_registry(data_dir: Path | None = None) -> Registry:
    """Load every family file in ``data_dir`` (default: the bundled registry)."""
    data_dir = data_dir or REGISTRY_DATA_DIR
    if not data_dir.is_dir():
        raise RegistryError(f"{data_dir}: registry data directory not found")
    families: dict[str, FamilyInfo] = {}
    requirements: dict[str, Requirement] = {}
    for path in sorted(data_dir.glob("*.yaml")):
        info, reqs = load_file(path)
        if info.name in families:
            raise _err(path, "family", f"family {info.name!r} is also defined in {families[info.name].path}")
        families[info.name] = info
        for r in reqs:
            if r.id in requirements:
                raise _err(path, r.id, "duplicate id across files")
            requirements[r.id] = r
    return Registry(families=families, requirements=requirements)


@lru_cache(maxsize=1)
def _bundled() -> Registry:
    return load_registry()


def default_registry() -> Registry:
    """The bundled registry as the revision this process judges by reads it (:mod:`conformance.revision`;
    the newest unless ``--spec-revision`` chose another), loaded once per process."""
    return registry_at(revision.selected())


@lru_cache(maxsize=len(revision.REVISIONS))
def registry_at(name: str) -> Registry:
    """The bundled registry with every family that has revision ``name`` reading as that revision's text
    (its rows' level, section and summary, its title and ``judged_against``); families without it, and the
    newest revision, are as bundled."""
    return _at(_bundled(), revision.check(name))


def _at(registry: Registry, name: str) -> Registry:
    families = dict(registry.families)
    rows = dict(registry.requirements)
    for fam, info in registry.families.items():
        rev = info.revisions.get(name)
        if rev is None:
            continue
        families[fam] = replace(info, title=rev.title or info.title, spec_version=rev.spec_version or info.spec_version,
                                judged_against=rev.judged_against)
        for rid, change in rev.rows.items():
            r = rows[rid]
            rows[rid] = replace(r, level=change.level or r.level, spec=change.spec or r.spec,
                                summary=(change.summary or r.summary).strip())
    return Registry(families=families, requirements=rows)


def judged_by(registry: Registry, judged_against: Iterable[str]) -> Registry:
    """``registry`` as a report's ``judged_against`` names its revision (a report judged by v1.0.0's text is
    read, verified and rendered with v1.0.0's rows); ``registry`` itself when it names none the harness
    carries, or the one ``registry`` already reads as."""
    rev = revision.of_label(tuple(judged_against))
    revised = [info for info in registry.families.values() if info.revisions]
    if rev is None or all(revision.label(rev) in info.judged_against for info in revised):
        return registry
    return registry_at(rev)
