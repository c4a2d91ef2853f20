"""The null-target invariant (DESIGN.md §2.7): a target that does nothing gets zero ``pass`` and zero
``partial``, in every family and every tier. The only ``na`` rows allowed are conditional ones whose
condition truly holds for the run.

Each target is run through the ``agentd-conformance`` command, as a vendor would, and its whole
report is read back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.registry import default_registry
from tests.killmatrix import run_command

REGISTRY = default_registry()

# ── CLIs ────────────────────────────────────────────────────────────────────────────────────────
#
# A CLI that does nothing (/bin/true), one that fails everything (/bin/false), and one that prints its
# usage and exits 2 for every argv. No --skill is given, so the two SKILL rows are na ("no --skill
# given"): that condition holds. Nothing else may be na — TX_003's condition (the selected interface
# declares no tenant) cannot be known of a tool that selects nothing.

CLI_IDS = [r.id for r in REGISTRY.select(family="a2acli")]
SKILL_ROWS = {"A2ACLI_SKILL_001", "A2ACLI_SKILL_002"}

USAGE_SCRIPT = """#!/bin/sh
echo "usage: null-cli <command> [options]" >&2
echo "commands: card get, send, task get, task cancel, help" >&2
exit 2
"""


def _null_cli(name: str, tmp: Path) -> str:
    if name == "usage":
        script = tmp / "usage-cli"
        script.write_text(USAGE_SCRIPT, encoding="utf-8")
        script.chmod(0o755)
        return str(script)
    return f"/bin/{name}"


@pytest.mark.parametrize("name", ["true", "false", "usage"])
def test_a_null_cli_gets_no_pass_no_partial_and_na_only_where_the_condition_holds(name: str, tmp_path: Path
                                                                                   ) -> None:
    report = run_command(["cli", "--exe", _null_cli(name, tmp_path), "--jobs", "2"], tmp_path / "report")
    reqs: dict[str, Any] = report["requirements"]
    assert sorted(reqs) == sorted(CLI_IDS), "the report must carry every a2acli id (Tier 1, 2 and 3)"
    credited = {rid: (e["status"], e.get("note")) for rid, e in reqs.items() if e["status"] in ("pass", "partial")}
    assert not credited, f"a CLI that does nothing ({name}) was credited: {credited}"
    na = {rid: e.get("note") for rid, e in reqs.items() if e["status"] == "na"}
    assert set(na) == SKILL_ROWS, f"na only for the skill rows (no --skill given); got {na}"
    assert all(REGISTRY[rid].conditional and "no --skill given" in str(note) for rid, note in na.items()), na
    for rid in CLI_IDS:
        if REGISTRY[rid].tier in (2, 3):
            assert (reqs[rid]["status"], reqs[rid]["note"]) == ("not_measured", "no check implemented"), rid
    assert not any(group["satisfied"] for group in report["summary"].values()), report["summary"]
    assert report["report"]["tier_claimed"] is None
    assert report["report"]["skill_given"] is False
    # a default the tool never showed is "not measured", never "no" (nor, from a usage error, "yes")
    cells = {(row, side): cell[side] for row, cell in report["default_001_breakdown"].items()
             for side in ("shipped", "overridable")}
    assert all(v is None for v in cells.values()), {k: v for k, v in cells.items() if v is not None}


# ── HTTP servers ────────────────────────────────────────────────────────────────────────────────
#
# (The agent families' half of the invariant: servers answering 404 or 401 to everything.)
