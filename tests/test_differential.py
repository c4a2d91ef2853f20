"""A defect moves only its own rows (DESIGN.md §2.11), shown differentially on the whole family.

Two targets identical but for one named defect must differ only in the rows the defect names. The
clean references pass every row of their family (``tests/test_kill_matrix.py`` holds that), so a run
of the whole family with one defect on must fail exactly the defect's ids and leave every other row a
pass. Every defect of every reference is run so by ``python -m benchmarks.differential`` (hours on two
cores); CI runs the sample below: each defect of the data model (the shared steps read answers
leniently, so a malformed answer fails only the rows that own the data model) and the defects that
once moved rows they did not own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.killmatrix import CORE, DETECTED, Reference, moved

#: The scripted agent's defects of the data model: the strictness, timestamp and envelope rows' own.
DATA_MODEL = ("enum-as-number", "enum-lowercase", "missing-required-field", "stream-frame-snake-case",
              "timestamp-no-zone", "timestamp-offset", "jsonrpc-id-dropped")
SAMPLE: tuple[tuple[Reference, str], ...] = tuple((CORE, name) for name in DATA_MODEL)


@pytest.mark.parametrize(("ref", "defect"), [pytest.param(r, d, id=f"{r.key}-{d}") for r, d in SAMPLE])
def test_a_defect_fails_its_own_rows_and_moves_no_other(ref: Reference, defect: str, tmp_path: Path) -> None:
    report = ref.run(tmp_path, defect=defect)
    reqs = report.requirements
    own = {rid.partition(":")[0] for rid in ref.defects[defect].ids}
    missed = {rid: reqs[rid].status for rid in own if reqs[rid].status not in DETECTED}
    assert not missed, f"{defect} did not fail its own rows: {missed}"
    wrong = moved(report, sorted(own), dict.fromkeys(reqs, "pass"))
    assert not wrong, f"{defect} ({ref.defects[defect].what}) moved rows it does not own: {wrong}"
