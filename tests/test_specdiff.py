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

from conformance.registry import default_registry
from conformance.specdiff import FINGERPRINTS, SpecFileError, diff, fingerprint, parse_compliance_md, read_revision
from tests.test_command import _env

REG = default_registry()
ROWS = REG.select(family="a2acli")
TITLES = {1: "## 4. Tier 1 — Core (required)", 2: "## 5. Tier 2 — Standard", 3: "## 6. Tier 3 — Advanced"}


def _md(edit: dict[str, str] | None = None, drop: tuple[str, ...] = (), extra: str = "",
        wordless: bool = False) -> str:
    edit = edit or {}
    out = ["# a2a-cli Compliance Report", "", "## 3. Results at a glance", "", "| Tier 1 — Core | 39 |"]
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


def test_a_rewording_gets_a_word_diff_against_the_earlier_revision() -> None:
    r = REG["A2ACLI_SEND_001"]
    new = parse_compliance_md(_md({r.id: f"| `{r.id}` | {r.summary} at once | {r.spec} | `<>` | |"}))
    d = diff(REG, new, against=parse_compliance_md(_md()), fingerprints=PRINTS)
    assert d.reworded == [("A2ACLI_SEND_001", ["{+at once+}"])]


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


def test_the_command_exits_0_when_the_registry_matches(tmp_path: Path) -> None:
    """Rows with empty text cells carry no wording to compare: only the registry's facts are checked."""
    rev = tmp_path / "COMPLIANCE.md"
    rev.write_text(_md(wordless=True), encoding="utf-8")
    r = _run(str(rev), "--format", "json")
    assert r.returncode == 0, (r.stdout, r.stderr)
