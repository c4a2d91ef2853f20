"""The command extension's first statement: a command, activated by header and marker, is run
(AGENTD_CMD_001). Every other check that sends commands stands on it (``footing.commands_run``), so it
lives apart from them: its module does not depend on the row it measures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.agentd.answers import answer_message
from conformance.agentd.clients import rpc_client
from conformance.agentd.commands import send_command
from conformance.agentd.footing import BASE_ROWS, COMMAND_ROW, CORE_ROW, DECLARED_BY, declaring
from conformance.agentd_page import COMMAND
from conformance.judge import judged_here, quote
from conformance.outcome import fail
from conformance.targets.instances import AgentTargets
from conformance.wire import Recorder

# CORE_ROW: finding the instance sends core requests naming no extension (footing.core_answers)
pytestmark = pytest.mark.depends_on(*BASE_ROWS, CORE_ROW, DECLARED_BY[COMMAND])


def _document(part: Any) -> Any:
    """The object a part carries: a DataPart's data, or a text part holding JSON (which form a read's
    reply takes is AGENTD_CMD_005's)."""
    if not isinstance(part, dict):
        return None
    if isinstance(part.get("data"), dict):
        return part["data"]
    try:
        doc = json.loads(part.get("text") or "")
    except (TypeError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


@pytest.mark.requirement(COMMAND_ROW)
def test_status_command_activated_by_header_and_marker_is_run(agent_targets: AgentTargets,
                                                              recorder: Recorder) -> None:
    """A SendMessage whose one DataPart is ``{"agentd": {"op": "status"}}``, with the command URI in
    A2A-Extensions and in message.extensions, runs the op: the answer is a Message carrying the op's
    result document (its part's form is AGENTD_CMD_005's, its schema AGENTD_DECL_014's), not a
    conversation turn. Catches ``command-runs-as-chat``."""
    with judged_here(COMMAND_ROW):
        inst = declaring(agent_targets, COMMAND)
    with rpc_client(inst, recorder=recorder) as c:
        msg = answer_message(send_command(c, "status"), "the status command")
    docs = [d for d in (_document(p) for p in msg.get("parts") or []) if d is not None]
    if len(docs) != 1:
        fail(f"the status command's reply carries no one result document: parts {quote(msg.get('parts'))}")
