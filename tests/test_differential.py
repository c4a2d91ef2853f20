"""A defect moves only its own rows (DESIGN.md §2.11), shown differentially on the whole family.

Two targets identical but for one named defect must differ only in the rows the defect names. The
clean references pass every row of their family (``tests/test_kill_matrix.py`` holds that), so a run
of the whole family with one defect on must fail exactly the defect's ids and leave every other row a
pass. Every defect of every reference is run so by ``python -m benchmarks.differential`` (hours on two
cores, every data-model defect among them); CI runs the sample below, one defect per kind of data-model
departure (a timestamp, an enum's spelling, a missing field): the shared steps read answers leniently,
so a malformed answer fails only the rows that own the data model. Each is a whole-family run, so the
sample is kept to the three kinds that once failed a dozen unrelated rows each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.killmatrix import CORE, DETECTED, Reference, moved

#: One defect of each kind of the scripted agent's data-model departures (the others of each kind, and the
#: envelope's, run in ``benchmarks.differential``).
DATA_MODEL = ("enum-lowercase", "missing-required-field", "timestamp-no-zone")
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
