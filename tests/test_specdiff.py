"""``spec-diff``: hand-made revisions of a COMPLIANCE.md (and of a report template) against the registry.

The base revision is written from the registry itself (our summaries stand in for the
specification's sentences, and the fingerprints are taken from it), then edited the way a new
revision would be: an id added, one removed, one withdrawn, one moved to another tier, one
re-sectioned, one reworded, one made conditional — each must be listed, with formatting noise
(backticks, italic prefixes, trailing spaces) changing nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.command import main
from conformance.registry import default_registry
from conformance.specdiff import (
    FINGERPRINTS,
    LEVELS,
    SpecFileError,
    diff,
    fingerprint,
    keywords,
    parse_compliance_md,
    read_revision,
    render,
    revision_date,
)
from tests.test_command import _env

REG = default_registry()
ROWS = REG.select(family="a2acli")
TITLES = {1: "## 4. Tier 1 — Core (required)", 2: "## 5. Tier 2 — Standard", 3: "## 6. Tier 3 — Advanced"}


def _md(edit: dict[str, str] | None = None, drop: tuple[str, ...] = (), extra: str = "",
        wordless: bool = False, updated: str | None = None) -> str:
    edit = edit or {}
    out = ["# a2a-cli Compliance Report", ""]
    out += [f"**Last updated:** {updated}", ""] if updated else []
    out += ["## 3. Results at a glance", "", "| Tier 1 — Core | 39 |"]
    for tier in (1, 2, 3):
        out += ["", TITLES[tier], "", "| ID | Requirement | Spec § | Status | Notes |",
                "| --- | --- | --- | --- | --- |"]
        for r in (x for x in ROWS if x.tier == tier):
            if r.id in drop:
                continue
            words = "" if wordless else r.summary
            text = f"*(Conditional — `— N/A` if {r.condition}.)* {words}" if r.conditional else words
            out.append(edit.get(r.id, f"| `{r.id}` | {text} | {r.spec} | `<>` | |"))
        if tier == 1:
            out += ["", "### 4a. `A2ACLI_DEFAULT_001` breakdown", "", "| Default | Shipped? |", "| --- | --- |",
                    "| Transport — server preference order | `<>` |"]
        if extra and tier == 3:
            out.append(extra)
    out += ["", "## 7. Test evidence", ""]
    return "\n".join(out) + "\n"


PRINTS = {"compliance_md": {rid: fingerprint(r.text) for rid, r in parse_compliance_md(_md()).items()}}


def test_the_base_revision_matches_and_formatting_noise_changes_nothing() -> None:
    assert diff(REG, parse_compliance_md(_md()), fingerprints=PRINTS).empty
    r = REG["A2ACLI_SEND_001"]
    noisy = _md({r.id: f"|  A2ACLI_SEND_001  |  **{r.summary}**   | `{r.spec}` | ✅ |   |   "})
    assert diff(REG, parse_compliance_md(noisy), fingerprints=PRINTS).empty


def test_each_kind_of_change_is_listed() -> None:
    send2, out7, tx4, cfg2 = (REG[i] for i in ("A2ACLI_SEND_002", "A2ACLI_OUT_007", "A2ACLI_TX_004",
                                               "A2ACLI_CONFIG_002"))
    edits = {
        "A2ACLI_SEND_002": f"| `A2ACLI_SEND_002` | {send2.summary.replace('blocks', 'never blocks')} with more | "
                           f"{send2.spec} | `<>` | |",
        "A2ACLI_OUT_007": f"| `A2ACLI_OUT_007` | {out7.summary} | §7.3 | `<>` | |",
        "A2ACLI_CONFIG_002": f"| `A2ACLI_CONFIG_002` | *(Conditional — `— N/A` if no files.)* {cfg2.summary} | "
                             f"{cfg2.spec} | `<>` | |",
        "A2ACLI_SKILL_002": "| `A2ACLI_SKILL_002` | *(Withdrawn.)* retired | §14.3 | `⊗ Withdrawn` | |",
    }
    text = _md(edits, drop=("A2ACLI_TX_004", "A2ACLI_VER_002"),
               extra=f"| `A2ACLI_SEND_009` | a brand-new row | §10.2 | `<>` | |\n"
                     f"| `A2ACLI_TX_004` | {tx4.summary} | {tx4.spec} | `<>` | |")
    d = diff(REG, parse_compliance_md(text), fingerprints=PRINTS)
    assert [r.id for r in d.added] == ["A2ACLI_SEND_009"]
    assert d.removed == ["A2ACLI_VER_002"]
    assert d.withdrawn == ["A2ACLI_SKILL_002"]
    assert d.moved_tier == [("A2ACLI_TX_004", 2, 3)]
    assert d.resectioned == [("A2ACLI_OUT_007", out7.spec, "§7.3")]
    assert d.kind_changed == [("A2ACLI_CONFIG_002", "gating", "conditional")]
    assert [rid for rid, _ in d.reworded] == ["A2ACLI_SEND_002", "A2ACLI_SKILL_002"]


def test_a_rewording_gets_a_word_diff_with_context_against_the_earlier_revision() -> None:
    r = REG["A2ACLI_SEND_001"]
    assert r.summary == "`send` delivers a message that opens a new interaction"
    new = parse_compliance_md(_md({r.id: f"| `{r.id}` | {r.summary} at once | {r.spec} | `<>` | |"}))
    d = diff(REG, new, against=parse_compliance_md(_md()), fingerprints=PRINTS)
    assert d.reworded == [("A2ACLI_SEND_001", ["… opens a new interaction {+at once+}"])]
    # Two changes far apart are two hunks, each with its context; one at the start has none before it.
    r = REG["A2ACLI_CARD_GET_001"]
    words = r.summary.replace("takes", "accepts").replace("picks", "chooses")
    new = parse_compliance_md(_md({r.id: f"| `{r.id}` | {words} | {r.spec} | `<>` | |"}))
    d = diff(REG, new, against=parse_compliance_md(_md()), fingerprints=PRINTS)
    hunks = ["card get [-takes-] {+accepts+} a host, a full …",
             "… Card found there and [-picks-] {+chooses+} the transport from it"]
    assert d.reworded == [(r.id, hunks)]
    assert f"- `{r.id}`:\n  - {hunks[0]}\n  - {hunks[1]}" in render(d, {})


def test_a_renamed_id_is_a_rename_not_an_addition_and_a_removal() -> None:
    """The same text under a new id: found by the transcribed fingerprint, or by the earlier revision's row."""
    r = REG["A2ACLI_VER_002"]
    text = _md({r.id: f"| `A2ACLI_VERSION_009` | {r.summary} | {r.spec} | `<>` | |"})
    for d in (diff(REG, parse_compliance_md(text), fingerprints=PRINTS),
              diff(REG, parse_compliance_md(text), against=parse_compliance_md(_md()), fingerprints={})):
        assert d.renamed == [("A2ACLI_VER_002", "A2ACLI_VERSION_009")]
        assert d.added == [] and d.removed == [] and d.changed_ids() == ["A2ACLI_VER_002"]
        out = render(d, {"A2ACLI_VER_002": (["cli/test_x.py::test_y"], [])})
        assert "## Renamed (same requirement text, new id) (1)\n\n- `A2ACLI_VER_002` → `A2ACLI_VERSION_009`" in out
        assert "- `A2ACLI_VER_002` (now `A2ACLI_VERSION_009`): checks `cli/test_x.py::test_y`" in out
        assert "## Added" not in out and "## Removed" not in out
    # A new id with other words stays an addition beside the removal.
    text = _md({r.id: f"| `A2ACLI_VERSION_009` | {r.summary} and more | {r.spec} | `<>` | |"})
    d = diff(REG, parse_compliance_md(text), fingerprints=PRINTS)
    assert [x.id for x in d.added] == ["A2ACLI_VERSION_009"] and d.removed == ["A2ACLI_VER_002"] and not d.renamed


def test_a_level_change_names_both_levels_without_the_earlier_revision() -> None:
    """The transcribed text's keywords are data, so MUST → SHOULD is named from the new file alone."""
    r = REG["A2ACLI_SEND_001"]
    before = _md({r.id: f"| `{r.id}` | {r.summary}; it MUST print the task id | {r.spec} | `<>` | |"})
    prints = {"compliance_md": {rid: fingerprint(x.text) for rid, x in parse_compliance_md(before).items()}}
    levels = {"compliance_md": {rid: keywords(x.text) for rid, x in parse_compliance_md(before).items()}}
    after = _md({r.id: f"| `{r.id}` | {r.summary}; it SHOULD print the task id | {r.spec} | `<>` | |"})
    d = diff(REG, parse_compliance_md(after), fingerprints=prints, levels=levels)
    assert d.level_changed == [("A2ACLI_SEND_001", "MUST", "SHOULD")]
    assert "- `A2ACLI_SEND_001`: MUST → SHOULD" in render(d, {})
    # A rewording that keeps its keywords is no level change; a keyword gained from none is one.
    same = _md({r.id: f"| `{r.id}` | {r.summary}; it MUST print the task's id | {r.spec} | `<>` | |"})
    d = diff(REG, parse_compliance_md(same), fingerprints=prints, levels=levels)
    assert [rid for rid, _ in d.reworded] == [r.id] and d.level_changed == []
    gained = _md({r.id: f"| `{r.id}` | {r.summary}; it MUST print the task id | {r.spec} | `<>` | |",
                  "A2ACLI_SEND_003": f"| `A2ACLI_SEND_003` | {REG['A2ACLI_SEND_003'].summary}; it MAY warn | §10.2 | "
                                     "`<>` | |"})
    d = diff(REG, parse_compliance_md(gained), fingerprints=prints, levels=levels)
    assert d.level_changed == [("A2ACLI_SEND_003", "none", "MAY")]


def test_a_changed_revision_date_is_reported(tmp_path: Path) -> None:
    ours = REG.families["a2acli"].spec_revision
    assert ours == "2026-08-17"
    rev = tmp_path / "COMPLIANCE.md"
    rev.write_text(_md(updated="2026-09-30"), encoding="utf-8")
    assert revision_date(rev) == "2026-09-30"
    d = diff(REG, read_revision(rev), fingerprints=PRINTS, revision=revision_date(rev))
    assert d.revision == ("2026-08-17", "2026-09-30") and not d.empty and d.changed_ids() == []
    assert "2026-08-17 (the revision the registry was transcribed from) → 2026-09-30" in render(d, {})
    rev.write_text(_md(updated=ours), encoding="utf-8")
    assert diff(REG, read_revision(rev), fingerprints=PRINTS, revision=revision_date(rev)).empty
    template = tmp_path / "compliance-report.template.yaml"
    for value, date in (("<YYYY-MM-DD>", None), ("2026-10-01", "2026-10-01")):
        template.write_text(yaml.safe_dump({"report": {"spec_revision": value}, "requirements": {}}), encoding="utf-8")
        assert revision_date(template) == date


def test_the_exit_codes_are_in_the_help_and_the_readme(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["spec-diff", "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    codes = text[text.index("exit codes:"):]
    for code, words in (("0", "matches"), ("1", "differs"), ("2", "cannot be read"), ("3", "harness")):
        assert any(line.strip().startswith(f"{code}  ") and words in line for line in codes.splitlines()), (code, codes)
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    para = readme[readme.index("`spec-diff PATH [--against EARLIER]`"):]
    para = " ".join(para[:para.index("\n\n")].split())
    for needle in ("`0` the registry matches", "`1` it differs", "`2` a file that cannot be read", "`3` the harness",
                   "renamed", "`SHOULD → MUST`", "revision date"):
        assert needle in para, needle


def test_an_unparseable_row_names_its_line() -> None:
    text = _md({"A2ACLI_SEND_001": "| `A2ACLI_SEND_001` broken row without cells"})
    line = text.splitlines().index("| `A2ACLI_SEND_001` broken row without cells") + 1
    with pytest.raises(SpecFileError, match=rf":{line}: cannot parse"):
        parse_compliance_md(text, "rev.md")


def test_a_template_revision_is_read_too(tmp_path: Path) -> None:
    reqs = {r.id: {"tier": r.tier, "area": r.area, "spec": r.spec, "requirement": r.summary,
                   **({"condition": r.condition} if r.conditional else {})} for r in ROWS}
    reqs["A2ACLI_SEND_001"]["tier"] = 2
    path = tmp_path / "compliance-report.template.yaml"
    path.write_text(yaml.safe_dump({"requirements": reqs}), encoding="utf-8")
    d = diff(REG, read_revision(path), fingerprints={})
    assert d.moved_tier == [("A2ACLI_SEND_001", 1, 2)] and len(d.changed_ids()) == 1


def test_the_committed_fingerprints_cover_every_row_in_both_forms() -> None:
    prints = yaml.safe_load(FINGERPRINTS.read_text(encoding="utf-8"))
    ids = {r.id for r in ROWS}
    assert set(prints) == {"compliance_md", "template"}
    assert set(prints["compliance_md"]) == ids and set(prints["template"]) == ids
    levels = yaml.safe_load(LEVELS.read_text(encoding="utf-8"))
    assert set(levels) == {"compliance_md", "template"}
    assert set(levels["compliance_md"]) == ids and set(levels["template"]) == ids
    # What the transcribed text says (COMPLIANCE.md words two rows with SHOULD; the template does not).
    assert {rid: kw for rid, kw in levels["compliance_md"].items() if kw} == {
        "A2ACLI_SEND_002": ["OPTIONAL"], "A2ACLI_INTERACT_002": ["MUST"], "A2ACLI_OUT_004": ["SHOULD"],
        "A2ACLI_EXIT_002": ["SHOULD"]}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", "spec-diff", *args], capture_output=True,
                          text=True, env=_env(), timeout=120, stdin=subprocess.DEVNULL)


def test_the_command_exits_1_on_a_difference_and_2_on_an_unreadable_file(tmp_path: Path) -> None:
    rev = tmp_path / "COMPLIANCE.md"
    rev.write_text(_md(drop=("A2ACLI_TX_004",)), encoding="utf-8")
    r = _run(str(rev))
    assert r.returncode == 1, r.stderr
    assert "## Removed (1)" in r.stdout and "`A2ACLI_TX_004`" in r.stdout
    assert "To re-verify" in r.stdout
    bad = tmp_path / "bad.md"
    bad.write_text("## 4. Tier 1 — Core\n| `A2ACLI_SEND_001` oops\n", encoding="utf-8")
    r = _run(str(bad))
    assert r.returncode == 2 and ":2: cannot parse" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    empty = tmp_path / "empty.md"
    empty.write_text("# nothing here\n", encoding="utf-8")
    assert _run(str(empty)).returncode == 2
    dated = tmp_path / "dated.md"
    dated.write_text(_md(wordless=True, updated="2026-09-30"), encoding="utf-8")
    r = _run(str(dated))
    assert r.returncode == 1 and "## Revision date" in r.stdout and "→ 2026-09-30" in r.stdout, (r.stdout, r.stderr)


def test_the_command_exits_0_when_the_registry_matches(tmp_path: Path) -> None:
    """Rows with empty text cells carry no wording to compare: only the registry's facts are checked."""
    rev = tmp_path / "COMPLIANCE.md"
    rev.write_text(_md(wordless=True), encoding="utf-8")
    r = _run(str(rev), "--format", "json")
    assert r.returncode == 0, (r.stdout, r.stderr)
