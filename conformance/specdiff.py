"""``spec-diff``: what a revision of the a2a-cli specification changes against the registry.

Reads a revision's ``COMPLIANCE.md`` (its tier tables) or ``compliance-report.template.yaml``
(its ``requirements:`` mapping) and compares every requirement with the registry: ids added,
removed or withdrawn, moved to another tier or area, re-sectioned, and reworded. The registry holds
our own summaries, not the specification's sentences, so rewording is detected through a fingerprint
(SHA-256 of the whitespace- and markup-normalised requirement text of the revision the registry was
transcribed from, ``registry/data/a2acli.source-text.json``); given the earlier revision's file too
(``--against``), a word diff shows what changed, with a few words of context either side. An id that
is new but whose text is a removed id's text (same fingerprint) is a rename, not an addition and a
removal. The RFC 2119 keywords of each transcribed requirement (``a2acli.source-levels.json``) let a
change of level (``SHOULD → MUST``) be named without the earlier file. The document's revision date
(COMPLIANCE.md's "Last updated", a template's ``report.spec_revision``) is compared with the one the
registry names. For each changed id the checks and defects that cover it are listed, so the author
sees what must be re-verified.
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
#: form -> id -> the RFC 2119 keywords of the transcribed revision's text, in order of appearance.
LEVELS = REGISTRY_DATA_DIR / "a2acli.source-levels.json"
#: How many words of unchanged text a word diff shows either side of a change.
CONTEXT_WORDS = 4
_KEYWORD = re.compile(r"\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED|REQUIRED|MAY|"
                      r"OPTIONAL)\b")
_DATE = r"(\d{4}-\d{2}-\d{2})"
_LAST_UPDATED = re.compile(rf"^\s*\**\s*Last updated\s*:?\s*\**\s*:?\s*`?{_DATE}", re.IGNORECASE | re.MULTILINE)
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
    renamed: list[tuple[str, str]] = field(default_factory=list)  # old id, new id (same requirement text)
    withdrawn: list[str] = field(default_factory=list)
    moved_tier: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    moved_area: list[tuple[str, str, str]] = field(default_factory=list)
    resectioned: list[tuple[str, str, str]] = field(default_factory=list)
    reworded: list[tuple[str, list[str]]] = field(default_factory=list)  # id, word diff (may be empty)
    kind_changed: list[tuple[str, str, str]] = field(default_factory=list)
    #: id, the keywords before, after ("SHOULD" → "MUST"; "none" for a text without any).
    level_changed: list[tuple[str, str, str]] = field(default_factory=list)
    #: The revision date the registry names and the one the document gives, when they differ.
    revision: tuple[str | None, str] | None = None

    def changed_ids(self) -> list[str]:
        # A renamed id by its old name: the one the registry, the checks and the defects cite.
        ids = [r.id for r in self.added] + self.removed + [old for old, _ in self.renamed] + self.withdrawn
        ids += [str(t[0]) for t in (*self.moved_tier, *self.moved_area, *self.resectioned, *self.reworded,
                                    *self.kind_changed, *self.level_changed)]
        return list(dict.fromkeys(ids))

    @property
    def empty(self) -> bool:
        return not self.changed_ids() and self.revision is None


def normalise(text: str) -> str:
    """The requirement text without markup: no conditional prefix, backticks, emphasis or extra spaces."""
    text = _CONDITIONAL.sub("", text.strip())
    text = text.replace("`", "").replace("**", "").replace("*", "")
    text = text.replace("\\|", "|")
    return " ".join(text.split())


def fingerprint(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def keywords(text: str) -> list[str]:
    """The RFC 2119 keywords of a requirement's text (upper case only, as the specification writes them)."""
    return list(dict.fromkeys(_KEYWORD.findall(normalise(text))))


def _level_words(words: list[str]) -> str:
    return ", ".join(words) if words else "none"


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


def revision_date(path: Path) -> str | None:
    """The revision date a document gives: COMPLIANCE.md's "Last updated" line, a template's
    ``report.spec_revision`` (when it is a date, not the ``<YYYY-MM-DD>`` placeholder); None without one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return None
        report = data.get("report") if isinstance(data, dict) else None
        value = str(report.get("spec_revision") or "") if isinstance(report, dict) else ""
        m = re.fullmatch(_DATE, value.strip())
        return m.group(1) if m else None
    m = _LAST_UPDATED.search(text)
    return m.group(1) if m else None


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


def load_levels() -> dict[str, dict[str, list[str]]]:
    """form -> id -> the RFC 2119 keywords of the transcribed revision's text."""
    try:
        data: dict[str, dict[str, list[str]]] = json.loads(LEVELS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def _word_diff(old: str, new: str, context: int = CONTEXT_WORDS) -> list[str]:
    """One string per hunk: the changed words (``[-old-]``, ``{+new+}``) with up to ``context`` unchanged
    words either side (``…`` where the text goes on); changes closer than twice that share a hunk."""
    a, b = normalise(old).split(), normalise(new).split()
    hunks: list[str] = []
    for group in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_grouped_opcodes(context):
        words: list[str] = []
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                words.extend(a[i1:i2])
                continue
            if op in ("delete", "replace"):
                words.append("[-" + " ".join(a[i1:i2]) + "-]")
            if op in ("insert", "replace"):
                words.append("{+" + " ".join(b[j1:j2]) + "+}")
        first, last = group[0], group[-1]
        head = "… " if first[0] == "equal" and first[1] > 0 else ""
        tail = " …" if last[0] == "equal" and last[2] < len(a) else ""
        hunks.append(head + " ".join(words) + tail)
    return hunks


def diff(registry: Registry, new: dict[str, SourceRow], against: dict[str, SourceRow] | None = None,
         fingerprints: dict[str, dict[str, str]] | None = None, *, revision: str | None = None,
         levels: dict[str, dict[str, list[str]]] | None = None) -> SpecDiff:
    """``new`` (a revision, dated ``revision`` when the document says) against the registry's a2acli family."""
    prints = load_fingerprints() if fingerprints is None else fingerprints
    known_levels = load_levels() if levels is None else levels
    out = SpecDiff()
    ours = {r.id: r for r in registry.select(family="a2acli")}
    gone = [rid for rid in ours if rid not in new]
    for rid, row in new.items():
        if rid not in ours:
            old_id = _renamed_from(row, gone, prints, against)
            if old_id is None:
                out.added.append(row)
            else:
                gone.remove(old_id)
                out.renamed.append((old_id, rid))
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
            before = keywords(old.text) if old is not None else known_levels.get(row.form, {}).get(rid)
            after = keywords(row.text)
            if before is not None and set(before) != set(after):
                out.level_changed.append((rid, _level_words(before), _level_words(after)))
    out.removed = gone
    family = registry.families.get("a2acli")
    ours_date = family.spec_revision if family is not None else None
    if revision is not None and revision != ours_date:
        out.revision = (ours_date, revision)
    return out


def _renamed_from(row: SourceRow, gone: list[str], prints: dict[str, dict[str, str]],
                  against: dict[str, SourceRow] | None) -> str | None:
    """The removed id whose transcribed text (its fingerprint, or the earlier revision's row) is this new
    row's text: the requirement was renamed, not replaced."""
    if not normalise(row.text):
        return None
    mine = fingerprint(row.text)
    for old_id in gone:
        earlier = (against or {}).get(old_id)
        if earlier is not None and normalise(earlier.text) and fingerprint(earlier.text) == mine:
            return old_id
        if prints.get(row.form, {}).get(old_id) == mine:
            return old_id
    return None


def _sections(spec: str) -> list[str]:
    return [" ".join(s.split()) for s in spec.replace("`", "").split(",") if s.strip()]


def render(d: SpecDiff, coverage: dict[str, tuple[list[str], list[str]]]) -> str:
    """The report a spec author reads: each kind of change, then what covers each changed id."""
    if d.empty:
        return ("The registry matches this revision: no id added, removed, renamed, withdrawn, moved, re-sectioned, "
                "reworded or changed in level, and no other revision date.\n")
    lines: list[str] = []
    if d.revision is not None:
        before, after = d.revision
        lines += ["", "## Revision date", "",
                  f"- {before or 'none recorded'} (the revision the registry was transcribed from) → {after} "
                  "(this document's): update the registry's spec_revision once its rows match"]

    def section(title: str, items: list[str]) -> None:
        if items:
            lines.extend(["", f"## {title} ({len(items)})", "", *items])

    section("Added", [f"- `{r.id}` (tier {r.tier}, {r.spec}): {normalise(r.text)}" for r in d.added])
    section("Renamed (same requirement text, new id)", [f"- `{a}` → `{b}`" for a, b in d.renamed])
    section("Removed", [f"- `{rid}`" for rid in d.removed])
    section("Withdrawn", [f"- `{rid}`" for rid in d.withdrawn])
    section("Moved to another tier", [f"- `{rid}`: tier {a} → tier {b}" for rid, a, b in d.moved_tier])
    section("Moved to another area", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.moved_area])
    section("Re-sectioned", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.resectioned])
    section("Kind changed", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.kind_changed])
    section("Level changed (RFC 2119 keywords of the text)", [f"- `{rid}`: {a} → {b}" for rid, a, b in d.level_changed])
    section("Reworded", [_reworded(rid, w) for rid, w in d.reworded])
    cov = []
    now = dict(d.renamed)
    for rid in d.changed_ids():
        checks, defects = coverage.get(rid, ([], []))
        name = f"`{rid}` (now `{now[rid]}`)" if rid in now else f"`{rid}`"
        cov.append(f"- {name}: checks {', '.join(f'`{c}`' for c in checks) or 'none'}; "
                   f"defects {', '.join(defects) or 'none'}")
    section("To re-verify (checks and defects covering each changed id)", cov)
    return "\n".join(lines).lstrip("\n") + "\n"


def _reworded(rid: str, hunks: list[str]) -> str:
    if not hunks:
        return (f"- `{rid}`: the text differs from the transcribed revision "
                "(give the earlier revision with --against for a word diff)")
    if len(hunks) == 1:
        return f"- `{rid}`: {hunks[0]}"
    return f"- `{rid}`:\n" + "\n".join(f"  - {h}" for h in hunks)
