"""``spec-diff``: what a revision of the a2a-cli specification changes against the registry.

Reads a revision's ``COMPLIANCE.md`` (its tier tables) or ``compliance-report.template.yaml``
(its ``requirements:`` mapping) and compares every requirement with the registry: ids added,
removed or withdrawn, moved to another tier or area, re-sectioned, and reworded. The registry holds
our own summaries, not the specification's sentences, so rewording is detected through a fingerprint
(SHA-256 of the whitespace- and markup-normalised requirement text of the revision the registry was
transcribed from, ``registry/data/a2acli.source-text.json``); given the earlier revision's file too
(``--against``), a word diff shows what changed. For each changed id the checks and defects that
cover it are listed, so the author sees what must be re-verified.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.paths import REGISTRY_DATA_DIR
from conformance.registry import Registry

FINGERPRINTS = REGISTRY_DATA_DIR / "a2acli.source-text.json"
_ID = r"A2ACLI_[A-Z][A-Z_]*?_\d{3}"
_ROW = re.compile(rf"^\|\s*`?({_ID})`?\s*\|(.*)\|\s*$")
_TIER_HEADING = re.compile(r"^#{2,3}\s.*\bTier\s+(\d)\b")
#: The template says a row is conditional in its text: "Conditional (na if ...)" or "... (na if ...)".
_TEMPLATE_CONDITIONAL = re.compile(r"^\s*Conditional\b|\(na if ", re.IGNORECASE)
_CONDITIONAL = re.compile(r"^\*?\(\s*Conditional\b[^)]*\)\*?\s*", re.IGNORECASE)


class SpecFileError(ValueError):
    """The revision file cannot be read; the message names the line."""


@dataclass(frozen=True)
class SourceRow:
    id: str
    tier: int | None
    area: str
    spec: str
    text: str
    conditional: bool
    withdrawn: bool
    #: Which form it was read from: the two forms word a requirement differently, so each has its fingerprints.
    form: str = "compliance_md"


@dataclass
class SpecDiff:
    added: list[SourceRow] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    moved_tier: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    moved_area: list[tuple[str, str, str]] = field(default_factory=list)
    resectioned: list[tuple[str, str, str]] = field(default_factory=list)
    reworded: list[tuple[str, list[str]]] = field(default_factory=list)  # id, word diff (may be empty)
    kind_changed: list[tuple[str, str, str]] = field(default_factory=list)

    def changed_ids(self) -> list[str]:
        ids = [r.id for r in self.added] + self.removed + self.withdrawn
        ids += [str(t[0]) for t in (*self.moved_tier, *self.moved_area, *self.resectioned, *self.reworded,
                                    *self.kind_changed)]
        return list(dict.fromkeys(ids))

    @property
    def empty(self) -> bool:
        return not self.changed_ids()


def normalise(text: str) -> str:
    """The requirement text without markup: no conditional prefix, backticks, emphasis or extra spaces."""
    text = _CONDITIONAL.sub("", text.strip())
    text = text.replace("`", "").replace("**", "").replace("*", "")
    text = text.replace("\\|", "|")
    return " ".join(text.split())


def fingerprint(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def _area(rid: str) -> str:
    return rid[len("A2ACLI_"):].rsplit("_", 1)[0]


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def parse_compliance_md(text: str, source: str = "COMPLIANCE.md") -> dict[str, SourceRow]:
    rows: dict[str, SourceRow] = {}
    tier: int | None = None
    for n, line in enumerate(text.splitlines(), 1):
        heading = _TIER_HEADING.match(line)
        if heading:
            tier = int(heading.group(1))
            continue
        if line.startswith("#"):
            tier = None if not line.startswith("###") else tier
            continue
        if tier is None or not re.match(rf"^\|\s*`?{_ID}", line):
            continue
        m = _ROW.match(line.rstrip())
        cells = _cells(line)
        if not m or len(cells) < 3:
            raise SpecFileError(f"{source}:{n}: cannot parse this requirement row: {line.strip()[:120]}")
        rid, text_cell, spec = m.group(1), cells[1], cells[2]
        status = cells[3] if len(cells) > 3 else ""
        if rid in rows:
            raise SpecFileError(f"{source}:{n}: {rid} is listed twice")
        rows[rid] = SourceRow(rid, tier, _area(rid), " ".join(spec.replace("`", "").split()), text_cell,
                              bool(_CONDITIONAL.match(text_cell.strip())),
                              "withdrawn" in (status + text_cell[:40]).lower() or "⊗" in status)
    if not rows:
        raise SpecFileError(f"{source}: no requirement rows found under a Tier heading")
    return rows


def parse_template(data: Any, source: str = "compliance-report.template.yaml") -> dict[str, SourceRow]:
    reqs = data.get("requirements") if isinstance(data, dict) else None
    if not isinstance(reqs, dict) or not reqs:
        raise SpecFileError(f"{source}: no 'requirements:' mapping")
    rows: dict[str, SourceRow] = {}
    for rid, e in reqs.items():
        if not isinstance(rid, str) or not re.fullmatch(_ID, rid) or not isinstance(e, dict):
            raise SpecFileError(f"{source}: requirements.{rid}: not an A2ACLI id with a mapping")
        tier = e.get("tier")
        rows[rid] = SourceRow(rid, int(tier) if isinstance(tier, int) else None, str(e.get("area") or _area(rid)),
                              " ".join(str(e.get("spec") or "").split()), str(e.get("requirement") or ""),
                              bool(e.get("condition")) or bool(_TEMPLATE_CONDITIONAL.search(str(e.get("requirement")))),
                              str(e.get("status")) == "withdrawn", "template")
    return rows


def read_revision(path: Path) -> dict[str, SourceRow]:
    """Parse a COMPLIANCE.md or a compliance-report template (by content, not by name)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecFileError(f"{path}: cannot read: {exc}") from exc
    if path.suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            line = getattr(getattr(exc, "problem_mark", None), "line", None)
            where = f":{line + 1}" if line is not None else ""
            raise SpecFileError(f"{path}{where}: not YAML: {' '.join(str(exc).split())[:160]}") from exc
        return parse_template(data, str(path))
    return parse_compliance_md(text, str(path))


def load_fingerprints() -> dict[str, dict[str, str]]:
    """form ("compliance_md" | "template") -> id -> fingerprint of the transcribed revision's text."""
    try:
        data: dict[str, dict[str, str]] = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def _word_diff(old: str, new: str) -> list[str]:
    a, b = normalise(old).split(), normalise(new).split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return out


def diff(registry: Registry, new: dict[str, SourceRow], against: dict[str, SourceRow] | None = None,
         fingerprints: dict[str, dict[str, str]] | None = None) -> SpecDiff:
    """``new`` (a revision) against the registry's a2acli family."""
    prints = load_fingerprints() if fingerprints is None else fingerprints
    out = SpecDiff()
    ours = {r.id: r for r in registry.select(family="a2acli")}
    for rid, row in new.items():
        if rid not in ours:
            out.added.append(row)
            continue
        req = ours[rid]
        if row.withdrawn and not req.withdrawn:
            out.withdrawn.append(rid)
        if row.tier is not None and row.tier != req.tier:
            out.moved_tier.append((rid, req.tier, row.tier))
        if row.area != req.area:
            out.moved_area.append((rid, req.area, row.area))
        if _sections(row.spec) != _sections(req.spec):
            out.resectioned.append((rid, req.spec, row.spec))
        if not row.withdrawn and row.conditional != req.conditional:
            out.kind_changed.append((rid, req.kind, "conditional" if row.conditional else "gating"))
        known = prints.get(row.form, {}).get(rid)
        if known is not None and normalise(row.text) and fingerprint(row.text) != known:
            old = (against or {}).get(rid)
            out.reworded.append((rid, _word_diff(old.text, row.text) if old is not None else []))
    out.removed = [rid for rid in ours if rid not in new]
    return out


def _sections(spec: str) -> list[str]:
    return [" ".join(s.split()) for s in spec.replace("`", "").split(",") if s.strip()]


def render(d: SpecDiff, coverage: dict[str, tuple[list[str], list[str]]]) -> str:
    """The report a spec author reads: each kind of change, then what covers each changed id."""
    if d.empty:
        return "The registry matches this revision: no id added, removed, withdrawn, moved, re-sectioned or reworded.\n"
    lines: list[str] = []

    def section(title: str, items: list[str]) -> None:
        if items:
            lines.extend(["", f"## {title} ({len(items)})", "", *items])

    section("Added", [f"- `{r.id}` (tier {r.tier}, {r.spec}): {normalise(r.text)}" for r in d.added])
    section("Removed", [f"- `{rid}`" for rid in d.removed])
    section("Withdrawn", [f"- `{rid}`" for rid in d.withdrawn])
    section("Moved to another tier", [f"- `{rid}`: tier {a} → tier {b}" for rid, a, b in d.moved_tier])
    section("Moved to another area", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.moved_area])
    section("Re-sectioned", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.resectioned])
    section("Kind changed", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.kind_changed])
    section("Reworded", [f"- `{rid}`: " + (" ".join(w) if w else "the text differs from the transcribed revision "
                                             "(give the earlier revision with --against for a word diff)")
                         for rid, w in d.reworded])
    cov = []
    for rid in d.changed_ids():
        checks, defects = coverage.get(rid, ([], []))
        cov.append(f"- `{rid}`: checks {', '.join(f'`{c}`' for c in checks) or 'none'}; "
                   f"defects {', '.join(defects) or 'none'}")
    section("To re-verify (checks and defects covering each changed id)", cov)
    return "\n".join(lines).lstrip("\n") + "\n"
