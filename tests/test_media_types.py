"""Which media types a card's input modes take: the check's reading (conformance.a2a.messages.takes, which
decides when A2A_SEND_007 is na) and the bundled agents' refusal policy (fixtures/media_types.py) agree on
wildcards, parameters and case, and a card declaring no modes refuses nothing."""

from __future__ import annotations

import pytest

from conformance.a2a.messages import takes
from conformance.fixtures.media_types import covers, first_refused

CASES = [
    (["text/plain", "application/json"], "application/x-agentd-conformance-never-taken", False),
    (["text/plain"], "Text/Plain; charset=utf-8", True),
    (["application/*"], "application/x-agentd-conformance-never-taken", True),
    (["image/*"], "application/json", False),
    (["*/*"], "x-anything/at-all", True),
    ([], "text/plain", False),
]


@pytest.mark.parametrize(("modes", "media_type", "taken"), CASES)
def test_the_check_and_the_agents_read_input_modes_alike(modes: list[str], media_type: str, taken: bool) -> None:
    assert takes(modes, media_type) is taken
    assert covers(modes, media_type) is taken


def test_an_agent_refuses_the_first_part_its_modes_do_not_take_and_never_an_unstated_type() -> None:
    modes = ["text/plain", "application/json"]
    assert first_refused(["", "text/plain", "image/png", "audio/ogg"], modes) == "image/png"
    assert first_refused(["", "application/json"], modes) is None
    assert first_refused(["image/png"], []) is None  # no modes declared: nothing to hold a part to
