"""proto3 JSON omits false: a card that leaves ``capabilities.extendedAgentCard`` out says false, and
the agentd checks read it so. A listener with no scheme and no extended card that omits the flag
passes the rows about that flag."""

from __future__ import annotations

from pathlib import Path

from conformance.fixtures.reference_agentd import Config, ReferenceAgentd
from tests.killmatrix import run_command

ROWS = ["AGENTD_CARD_006", "AGENTD_UDS_006"]


def test_a_card_omitting_a_false_extended_card_flag_passes_the_flag_rows(tmp_path: Path) -> None:
    with ReferenceAgentd(Config(listen="unix", sparse_card=True)) as agent:
        card = agent.card
        assert "extendedAgentCard" not in card["capabilities"] and "securitySchemes" not in card, card
        assert agent.uds_path is not None
        report = run_command(["agent", "--unix", agent.uds_path, "--family", "agentd", "--only", *ROWS],
                             tmp_path / "r")
    got = {rid: (report.requirements[rid].status, report.requirements[rid].note) for rid in ROWS}
    assert all(status == "pass" for status, _ in got.values()), got
