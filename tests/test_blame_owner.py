"""One defect fails only the requirement that owns the missing feature (the blame rule, DESIGN.md §2.8).

Each case switches on one defect of a reference that removes a feature one row owns, and runs that
owner with one other row whose check uses the feature: the owner fails on an assertion of its own
check, and the other row is ``not_measured`` "blocked by <owner>: ..." (never failed, never passed).

* ``card-file-unsupported``: `card get` reads no local card file (A2ACLI_CARD_GET_001, part
  file_path); `card get --validate` is asked of card files (A2ACLI_CARD_GET_002).
* ``ignores-tenant``: the declared tenant is never sent (A2ACLI_TX_003); the catalog entry's card
  declares a tenant (A2ACLI_CARD_GET_005).
* ``no-annotations-declaration``: the card omits task-annotations (AGENTD_DECL_002); the socket check
  asks for the annotations echo (AGENTD_UDS_002).

One narrow run (``--only`` the two rows) per case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.killmatrix import AGENTD, CLI, DETECTED, Reference, killed, outcomes

#: (reference, defect, the row owning the missing feature, a row whose check uses that feature).
CASES: tuple[tuple[Reference, str, str, str], ...] = (
    (CLI, "card-file-unsupported", "A2ACLI_CARD_GET_001", "A2ACLI_CARD_GET_002"),
    (CLI, "ignores-tenant", "A2ACLI_TX_003", "A2ACLI_CARD_GET_005"),
    (AGENTD, "no-annotations-declaration", "AGENTD_DECL_002", "AGENTD_UDS_002"),
)


@pytest.mark.parametrize(("ref", "defect", "owner", "other"), CASES, ids=[c[1] for c in CASES])
def test_the_defect_fails_its_owner_and_blocks_the_other_row(ref: Reference, defect: str, owner: str, other: str,
                                                             tmp_path: Path) -> None:
    report = ref.run(tmp_path, ids=[owner, other], defect=defect)
    reqs = report.requirements
    assert reqs[owner].status in DETECTED, f"{owner} under {defect}: {reqs[owner].status}: {reqs[owner].note}"
    assert killed(outcomes(tmp_path / "report"), owner), f"{owner} failed on no assertion of its own under {defect}"
    got = reqs[other]
    assert got.status == "not_measured" and str(got.note or "").startswith(f"blocked by {owner}:"), (
        f"{other} under {defect} should be not_measured, blocked by {owner}; it is {got.status}: {got.note}")
