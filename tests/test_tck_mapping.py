"""The official A2A TCK's requirement ids, mapped onto the a2a family's rows (issue 19 §2).

The data (``conformance/registry/data/tck/a2a-tck.yaml`` and the ``tck:`` lists of ``a2a.yaml``) is
checked by :func:`conformance.registry.tck.load_tck`; these tests pin its counts, so a TCK id that moves
from "no row" to a row (or back) is a reviewed change, and show the loader refuses an id mapped twice
or not at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.coverage import render_tck_md, tck_coverage
from conformance.registry import RegistryError, default_registry, load_file
from conformance.registry.tck import TCK_FILE, load_tck

#: What a2a-tck 1.0-dev (357c4a8) declares and tests, and how much of it the harness covers today.
DECLARED, TESTED_BY_TCK = 129, 104
MAPPED, UNMAPPED = 113, 16
#: Of the unmapped ids, those the TCK runs a test for (the rest it only declares).
TESTED_UNMAPPED = 0
UNMAPPED_BY_KIND = {"agent-chosen": 6, "client": 3, "deployment": 3, "harness-wide": 2, "open": 2}


def test_every_tck_id_is_mapped_or_has_a_reason_and_never_both() -> None:
    tck = load_tck()
    mapped, unmapped = set(tck.rows), set(tck.unmapped)
    assert mapped | unmapped == set(tck.declared) and not mapped & unmapped
    assert tck.counts() == {"declared": DECLARED, "tested_by_tck": TESTED_BY_TCK, "mapped": MAPPED,
                            "unmapped": UNMAPPED, "tested_unmapped": TESTED_UNMAPPED,
                            "unmapped_by_kind": UNMAPPED_BY_KIND}
    # An "open" id names the plan that will cover it; the others say why no row ever will.
    for u in tck.unmapped.values():
        assert u.kind in tck.kinds and len(u.why) > 20, u
        if u.kind == "open":
            assert "issue 19" in u.why, u


def test_every_row_naming_a_tck_id_is_an_a2a_row_and_the_id_is_declared() -> None:
    tck = load_tck()
    reg = default_registry()
    for tid, rows in tck.rows.items():
        assert tid in tck.declared
        assert all(reg[r].family == "a2a" and tid in reg[r].tck for r in rows), (tid, rows)


def _variant(tmp_path: Path, edit: str) -> Path:
    data = yaml.safe_load(TCK_FILE.read_text(encoding="utf-8"))
    if edit == "both":
        data["unmapped"].append({"id": "CORE-SEND-001", "kind": "open", "why": "listed though a row covers it"})
    else:
        data["unmapped"] = [u for u in data["unmapped"] if u["id"] != "VER-CLIENT-001"]
    path = tmp_path / "tck.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("edit", "said"), [("both", "also listed as unmapped"), ("neither", "neither covered")])
def test_the_loader_refuses_an_id_mapped_and_unmapped_or_neither(tmp_path: Path, edit: str, said: str) -> None:
    with pytest.raises(RegistryError, match=said):
        load_tck(path=_variant(tmp_path, edit))


def test_a_row_naming_a_malformed_tck_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a2a.yaml"
    text = Path(default_registry().families["a2a"].path).read_text(encoding="utf-8")
    path.write_text(text.replace("tck: [CARD-DISC-001]", "tck: [card-disc-1]", 1), encoding="utf-8")
    with pytest.raises(RegistryError, match="do not look like TCK ids"):
        load_file(path)


def test_the_markdown_lists_each_tck_id_once_with_its_rows_or_its_reason() -> None:
    tck = load_tck()
    md = render_tck_md(tck_coverage(tck, {"A2A_SEND_001": ["agent/core/test_send.py::a_check"]}))
    for tid in tck.declared:
        assert md.count(f"| `{tid}` |") == 1, tid
    assert "| `CORE-SEND-001` | must | §3.1.1 | yes | `A2A_SEND_001` | `agent/core/test_send.py::a_check` |" in md
    assert f"{DECLARED} TCK id(s), {TESTED_BY_TCK} of them tested by the TCK: {MAPPED} covered" in md
