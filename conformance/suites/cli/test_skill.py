"""The Agent Skill a tool ships (SPEC.md §14.1–§14.3), read from the path given with ``--skill``.

Both requirements are conditional: a run given no ``--skill`` reports them ``na``, saying so. The skill's directory is
the folder holding its SKILL.md; everything under it is what the tool ships as its skill.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conformance.evidence import Evidence
from conformance.outcome import na
from conformance.targets.model import CliTarget

#: The skill rows are conditional on the tool shipping a skill; the run knows only what it was given.
NO_SKILL = "no --skill given (the run takes it that the tool ships no Agent Skill)"

#: Upper bound on the SKILL.md, in characters. The body is loaded into an agent's context whenever the
#: skill is activated, so "token-efficient" (§14.2) means a page, not a manual: 4000 characters is
#: about 1000 tokens — room for a preflight line, a pointer to `help`, and a short list of usage rules
#: — while anything longer is inlining what `help` or a references file should carry.
MAX_SKILL_CHARS = 4000

#: The §7.2 global options and Tier 1 command flags; a skill naming most of them is enumerating the
#: command surface instead of deferring to `help`.
SURFACE_FLAGS = (
    "--a2a-version", "--agent-card", "--async", "--bearer", "--api-key", "--config", "--context-id", "--debug",
    "--insecure", "--metadata", "--output", "--poll-interval", "--timeout", "--stream", "--svc-param",
    "--task-id", "--transport", "--verbose", "--wait", "--history", "--text", "--file", "--data", "--media-type",
)
#: Naming more than this many of SURFACE_FLAGS counts as restating the surface (the §14.1 usage
#: guidance alone needs about six: -o json, --stream, --async, --task-id, --context-id, a credential).
MAX_SURFACE_FLAGS = 10

#: RFC 2119 keywords in capitals, as normative text uses them.
RFC2119 = re.compile(r"\b(MUST|MUST NOT|SHALL|SHALL NOT|SHOULD|SHOULD NOT|REQUIRED|RECOMMENDED|OPTIONAL)\b")
REQUIREMENT_ID = re.compile(r"\bA2ACLI_[A-Z]+(?:_[A-Z]+)*_\d{3}\b")
SPEC_SECTION = re.compile(r"§\s*\d|SPEC\.md|COMPLIANCE\.md")


def _skill(cli_target: CliTarget) -> Path:
    if cli_target.skill is None:
        na(NO_SKILL)
    path = cli_target.skill
    assert path.is_file(), f"the declared skill {path} does not exist"
    return path


def front_matter(text: str) -> tuple[dict[str, object] | None, str]:
    """(the YAML front matter, the body) of a SKILL.md; front matter None when there is none."""
    m = re.match(r"\A---\r?\n(.*?)\r?\n---\r?\n?(.*)\Z", text, re.S)
    if not m:
        return None, text
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return None, m.group(2)
    return (meta if isinstance(meta, dict) else None), m.group(2)


@pytest.mark.requirement("A2ACLI_SKILL_001")
def test_exactly_one_skill_is_shipped(cli_target: CliTarget, evidence: Evidence) -> None:
    """The skill directory holds exactly one SKILL.md, and it opens with front matter naming the
    skill and describing it. Catches a skill per command or tier, and a skill without its header."""
    path = _skill(cli_target)
    found = sorted(p for p in path.parent.rglob("*") if p.is_file() and p.name.lower() == "skill.md")
    evidence.add("skill files", [str(p) for p in found])
    names = [str(p.relative_to(path.parent)) for p in found]
    assert len(found) == 1, f"expected exactly one SKILL.md under {path.parent}, found {len(found)}: {names}"
    meta, _ = front_matter(path.read_text(encoding="utf-8"))
    assert meta is not None, f"{path.name} has no YAML front matter (--- ... ---)"
    for key in ("name", "description"):
        assert isinstance(meta.get(key), str) and str(meta[key]).strip(), (
            f"the front matter has no non-empty {key!r}: {meta!r}")


@pytest.mark.requirement("A2ACLI_SKILL_001")
def test_skill_is_short_and_defers_to_runtime_help(cli_target: CliTarget) -> None:
    """The SKILL.md is at most MAX_SKILL_CHARS characters, points the agent at the tool's runtime
    help (``help`` / ``--help``), and does not list the command surface (at most MAX_SURFACE_FLAGS of
    the spec's flags). Catches a skill that inlines the manual."""
    path = _skill(cli_target)
    text = path.read_text(encoding="utf-8")
    assert len(text) <= MAX_SKILL_CHARS, f"{path.name} is {len(text)} characters (bound {MAX_SKILL_CHARS})"
    assert re.search(r"(?<![\w-])help\b|--help\b", text), f"{path.name} never points the agent at `help`/`--help`"
    named = [f for f in SURFACE_FLAGS if re.search(rf"{re.escape(f)}(?![\w-])", text)]
    assert len(named) <= MAX_SURFACE_FLAGS, (
        f"{path.name} names {len(named)} of the spec's flags ({', '.join(named)}): it enumerates the command "
        f"surface instead of deferring to help")


@pytest.mark.requirement("A2ACLI_SKILL_002")
def test_skill_does_not_restate_normative_requirements(cli_target: CliTarget) -> None:
    """No file of the skill (SKILL.md and its references) uses capitalised RFC 2119 keywords, cites
    an A2ACLI requirement id, or cites the specification's sections. Catches a skill that copies the
    specification's obligations instead of giving usage guidance."""
    path = _skill(cli_target)
    hits: list[str] = []
    for f in sorted(p for p in path.parent.rglob("*") if p.is_file() and p.suffix.lower() in (".md", ".txt", "")):
        text = f.read_text(encoding="utf-8", errors="replace")
        for label, pattern in (("RFC 2119 keyword", RFC2119), ("requirement id", REQUIREMENT_ID),
                               ("specification citation", SPEC_SECTION)):
            for m in pattern.finditer(text):
                line = text[: m.start()].count("\n") + 1
                hits.append(f"{f.relative_to(path.parent)}:{line}: {label} {m.group(0)!r}")
    assert not hits, f"the skill restates the specification: {'; '.join(hits[:8])}"
