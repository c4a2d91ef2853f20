"""`task get` and `task cancel` (SPEC.md §10.3, §10.4) on tasks the scripted agent holds.

Tasks are placed in the agent directly (`agent.add_task`), so each check knows the identifiers,
state, artifacts and history it must find in the CLI's output and in the requests it sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.clicheck import output
from conformance.clicheck.artifact_probe import all_kinds_artifact, assert_every_part_rendered
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import Script, TaskFlow
from conformance.judge import shown, unique

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")


def _user_message(text: str) -> pb.Message:
    return pb.Message(message_id=unique("conf"), role=pb.Role.ROLE_USER, parts=[pb.Part(text=text)])


def _history_length_asked(req: Any) -> Any:
    """historyLength as the CLI sent it on GetTask: JSON-RPC params, or the HTTP+JSON query."""
    if req.binding == "JSONRPC":
        params = req.params if isinstance(req.params, dict) else {}
        return params.get("historyLength")
    values = req.query_params.get("historyLength")
    return values[0] if values else None


@pytest.mark.requirement("A2ACLI_TASK_GET_001")
@pytest.mark.depends_on("A2ACLI_DEFAULT_001")  # the default output is text (read here)
def test_task_get_reports_ids_state_and_every_artifact_part(cli: Cli, agent: AgentMaker) -> None:
    """`task get <id>` asks GetTask for that id and shows the taskId, COMPLETED and each
    artifact part (text, data, inline file, URL file). Catches artifacts stripped from the output.
    """
    a = agent(Script())
    art, v = all_kinds_artifact()
    rec = a.add_task(TaskFlow.single("COMPLETED", art))
    r = cli.run("task", "get", rec.id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for task get; {shown(r)}"
    gets = [q for q in a.a2a_requests() if q.operation == "GetTask"]
    assert gets, f"the agent received no GetTask; {shown(r)}"
    out = r.stdout_text
    # the task it fetched, by its id; that every output also names the context is OUT_001's (its own row)
    assert output.has_token(out, rec.id), f"task get output lacks the taskId {rec.id}; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_COMPLETED"), f"task get does not report the state; {shown(r)}"
    assert_every_part_rendered(cli, r, v)


@pytest.mark.requirement("A2ACLI_TASK_GET_001")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_task_get_history_asks_for_history_length(cli: Cli, agent: AgentMaker) -> None:
    """`task get <id> --history 1` sends historyLength 1, and `-o json` shows the Task the agent
    returned: exactly its last history message. Catches --history dropped from the request.
    """
    a = agent(Script())
    rec = a.add_task(TaskFlow.single("COMPLETED"))
    older, newer = unique("older"), unique("newer")
    rec.history.extend([_user_message(older), _user_message(newer)])
    r = cli.run("task", "get", rec.id, "--history", "1", "-o", "json", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for task get --history 1; {shown(r)}"
    asked = [_history_length_asked(q) for q in a.a2a_requests() if q.operation == "GetTask"]
    assert asked and all(str(x) == "1" for x in asked), f"GetTask historyLength sent: {asked} (expected 1)"
    doc, problem = output.parse_json_document(r.stdout_text)
    assert problem is None, f"{problem}; {shown(r)}"
    history = doc.get("history") if isinstance(doc, dict) else None
    texts = [p.get("text") for m in history or [] for p in m.get("parts", [])]
    assert texts == [newer], f"expected the history [{newer!r}] in the Task, got {texts}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_TASK_CANCEL_001")
def test_task_cancel_reports_canceled_and_is_safe_to_repeat(cli: Cli, agent: AgentMaker) -> None:
    """`task cancel <id>` on a WORKING task cancels it and reports CANCELED with the ids; a second
    cancel also exits 0 and reports CANCELED. Catches a cancel that hides the resulting state.
    """
    a = agent(Script())
    rec = a.add_task(TaskFlow(states=(("WORKING", 0.0), ("COMPLETED", 120.0))))
    for attempt in (1, 2):
        r = cli.run("task", "cancel", rec.id, "-a", a.base_url)
        assert r.exit_code == 0, f"cancel #{attempt}: expected exit 0; {shown(r)}"
        cancels = [q for q in a.a2a_requests() if q.operation == "CancelTask"]
        assert cancels, f"cancel #{attempt}: the agent received no CancelTask; {shown(r)}"
        assert rec.state() == "TASK_STATE_CANCELED", f"cancel #{attempt}: the task is {rec.state()}, not canceled"
        out = r.stdout_text
        assert output.has_token(out, rec.id), f"cancel #{attempt}: taskId {rec.id} not in stdout; {shown(r)}"
        assert output.state_matches(out, "TASK_STATE_CANCELED"), (
            f"cancel #{attempt}: the resulting state CANCELED is not reported; {shown(r)}"
        )
