"""`task list` and `task subscribe` (SPEC.md §7.1, §9.2, §9.4, Appendix A and B) against the scripted agent.

Listing is judged on the ListTasks requests the agent recorded (each page's token is the one the
agent handed out for it) and on the task ids the tool printed. Subscribing is judged on the
SubscribeToTask requests recorded and on the state the tool reports: the harness moves a held task
only after the tool's stream has carried its first event, so the terminal state can only come from
following the stream; a dropped stream leaves news that only the next subscription's first event
(the full Task) carries.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.cli.trigger import when
from conformance.clicheck import output
from conformance.clicheck.invocations import CLI_TIMEOUT, AgentMaker, Cli
from conformance.fixtures.scripted_agent import CardSpec, RecordedRequest, Script, ScriptedAgent, TaskFlow
from conformance.judge import shown, unique
from conformance.suites.cli.conftest import first_event_sent, subscriptions

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

#: Most `task list` invocations one paging check makes (3 pages are needed; a tool that never
#: advances would otherwise loop).
MAX_PAGES = 5


def _ops(agent: ScriptedAgent, operation: str) -> list[RecordedRequest]:
    return [r for r in agent.a2a_requests() if r.operation == operation]


def _field(req: RecordedRequest, name: str) -> Any:
    """A request field as sent: JSON-RPC params, the HTTP+JSON query (GET) or body."""
    if req.binding == "JSONRPC":
        return req.params.get(name) if isinstance(req.params, dict) else None
    if req.method.split(" ", 1)[0] in ("GET", "DELETE"):
        values = req.query_params.get(name)
        return values[0] if values else None
    return req.json.get(name) if isinstance(req.json, dict) else None


def _answer(req: RecordedRequest) -> Any:
    """What the agent answered (the JSON-RPC result, or the HTTP+JSON body); None if unreadable."""
    try:
        obj = json.loads(req.response_body)
    except ValueError:
        return None
    return obj.get("result") if req.binding == "JSONRPC" and isinstance(obj, dict) else obj


def _listed_ids(doc: Any) -> list[str] | None:
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, list):
        return None
    return [str(t.get("id")) for t in tasks if isinstance(t, dict)]


def _status_sent(value: Any) -> str | None:
    """A status filter as sent, by enum name (a number is read as the enum value)."""
    if value is None:
        return None
    text = str(value)
    if text.isdigit() and int(text) in pb.TaskState.values():
        return str(pb.TaskState.Name(int(text)))
    return text


# ── A2ACLI_TASK_LIST_001 ─────────────────────────────────────────────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_LIST_001")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_task_list_pages_with_the_token_the_agent_handed_out(cli: Cli, agent: AgentMaker) -> None:
    """Nine tasks, `--page-size 4`: three pages, each requested with exactly the nextPageToken of the
    page before it (read from the agent's own answers), and every task printed once. Catches a tool
    that drops or rewrites --page-token, or ignores --page-size.
    """
    a = agent(Script())
    want = [a.add_task(TaskFlow.single("COMPLETED")).id for _ in range(9)]
    printed: list[str] = []
    token = ""
    for _ in range(MAX_PAGES):
        r = cli.run("task", "list", "--page-size=4", *([f"--page-token={token}"] if token else []),
                    "-o", "json", "-a", a.base_url)
        assert r.exit_code == 0, f"expected exit 0 for task list; {shown(r)}"
        doc, problem = output.parse_json_document(r.stdout_text)
        assert problem is None, f"task list -o json: {problem}; {shown(r)}"
        ids = _listed_ids(doc)
        assert ids is not None, f"task list -o json printed no ListTasksResponse `tasks` list; {shown(r)}"
        printed += ids
        token = str(doc.get("nextPageToken") or "")
        if not token:
            break
    reqs = _ops(a, "ListTasks")
    sent = [(_field(q, "pageSize"), _field(q, "pageToken")) for q in reqs]
    assert len(reqs) >= 3, f"nine tasks at --page-size 4 take three ListTasks requests; the agent saw {sent}"
    assert all(str(size) == "4" for size, _ in sent), f"--page-size 4 not sent as pageSize 4 on every page: {sent}"
    assert not sent[0][1], f"the first page was asked with a pageToken: {sent}"
    handed = [str((_answer(q) or {}).get("nextPageToken") or "") for q in reqs]
    for i in range(1, len(reqs)):
        assert sent[i][1] == handed[i - 1], (
            f"ListTasks #{i + 1} carried pageToken {sent[i][1]!r}, but the agent's previous page handed out "
            f"{handed[i - 1]!r} (requests: {sent})")
    assert sorted(printed) == sorted(want), (
        f"the pages printed {len(printed)} ids ({len(set(printed))} distinct), expected the 9 tasks once each; "
        f"missing: {sorted(set(want) - set(printed))}")


@pytest.mark.requirement("A2ACLI_TASK_LIST_001")
@pytest.mark.depends_on("A2ACLI_OUT_002")
def test_task_list_filters_by_status_and_by_context(cli: Cli, agent: AgentMaker) -> None:
    """`--status TASK_STATE_WORKING` and `--context-id <ctx>` reach ListTasks as `status` and `contextId`,
    and exactly the matching tasks are printed. The two filters select disjoint tasks, so a filter
    sent in the wrong field is seen. Catches a filter accepted but not sent.
    """
    ctx_a, ctx_b = unique("ctx-a"), unique("ctx-b")
    a = agent(Script())
    for _ in range(3):
        a.add_task(TaskFlow.single("COMPLETED"), context_id=ctx_a)
    working = [a.hold_task("WORKING", context_id=ctx_a).id for _ in range(2)]
    in_b = [a.add_task(TaskFlow.single("COMPLETED"), context_id=ctx_b).id for _ in range(2)]
    for flag, value, field, want in (("--status", "TASK_STATE_WORKING", "status", working),
                                     ("--context-id", ctx_b, "contextId", in_b)):
        before = len(_ops(a, "ListTasks"))
        r = cli.run("task", "list", f"{flag}={value}", "-o", "json", "-a", a.base_url)
        assert r.exit_code == 0, f"expected exit 0 for task list {flag}; {shown(r)}"
        reqs = _ops(a, "ListTasks")[before:]
        got = [_field(q, field) for q in reqs]
        if field == "status":
            got = [_status_sent(v) for v in got]
        assert reqs and all(v == value for v in got), (
            f"task list {flag} {value}: ListTasks {field} sent {got} (expected {value!r}); {shown(r)}")
        doc, problem = output.parse_json_document(r.stdout_text)
        assert problem is None, f"task list {flag} -o json: {problem}; {shown(r)}"
        ids = _listed_ids(doc)
        assert ids is not None and sorted(ids) == sorted(want), (
            f"task list {flag} {value} printed {ids}, expected exactly {sorted(want)}; {shown(r)}")


# ── A2ACLI_TASK_SUBSCRIBE_001 / 002 ──────────────────────────────────────────────────────────


@pytest.mark.requirement("A2ACLI_TASK_SUBSCRIBE_001")
def test_task_subscribe_follows_a_live_task_to_its_terminal_state(cli: Cli, agent: AgentMaker) -> None:
    """`task subscribe <id>` on a WORKING task: the harness completes the task only after the agent has
    sent the subscription's first event, so reporting COMPLETED (with the task id, exit 0) takes
    following the stream. Catches a subscribe that returns after the first event.
    """
    a = agent(Script(card=CardSpec(streaming=True)))
    rec = a.hold_task("WORKING")
    with when(lambda: first_event_sent(a, rec.id), lambda: a.move_task(rec.id, "COMPLETED"),
              timeout=CLI_TIMEOUT) as moved:
        r = cli.run("task", "subscribe", rec.id, "-a", a.base_url)
    subs = subscriptions(a, rec.id)
    assert subs, (f"task subscribe sent no SubscribeToTask for {rec.id}; the agent saw "
                  f"{[q.operation for q in a.a2a_requests()]}; {shown(r)}")
    assert moved.fired, (f"the agent never sent the subscription's first event, so the task was never "
                         f"completed ({moved.error or 'no event'}); {shown(r)}")
    assert r.exit_code == 0, f"expected exit 0 once the task completed; {shown(r)}"
    out = r.stdout_text
    assert output.has_token(out, rec.id), f"task subscribe output lacks the task id {rec.id}; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_COMPLETED"), (
        f"task subscribe did not follow the task to COMPLETED (the state it reached after the first event); "
        f"{shown(r)}")


@pytest.mark.requirement("A2ACLI_TASK_SUBSCRIBE_002")
@pytest.mark.depends_on("A2ACLI_TASK_SUBSCRIBE_001")
def test_a_dropped_subscription_is_resumed_from_the_redelivered_task(cli: Cli, agent: AgentMaker) -> None:
    """The agent cuts the first subscription after its first event and, at the cut, the held task moves
    to INPUT_REQUIRED: only a new subscription's first event (the full Task) says so. The tool must
    subscribe again and report INPUT_REQUIRED (a GetTask is allowed, never needed). Catches a tool
    that gives up, falls back to polling only, or drops the re-delivered Task.
    """
    a = agent(Script(card=CardSpec(streaming=True), drop_stream_after=1, drop_stream_limit=1,
                     drop_moves_to="INPUT_REQUIRED"))
    rec = a.hold_task("WORKING")
    r = cli.run("task", "subscribe", rec.id, "-a", a.base_url)
    subs = subscriptions(a, rec.id)
    ops = [q.operation for q in a.a2a_requests()]
    assert subs, f"task subscribe sent no SubscribeToTask for {rec.id}; the agent saw {ops}; {shown(r)}"
    assert len(subs) >= 2, (
        f"after the agent dropped the stream the tool did not subscribe again (one SubscribeToTask; the agent "
        f"saw {ops}); {shown(r)}")
    # the exit status of a task paused at INPUT_REQUIRED is EXIT_002's; this row judges the resumed report
    assert not r.timed_out, f"expected task subscribe to end once the task paused at INPUT_REQUIRED; {shown(r)}"
    out = r.stdout_text
    assert output.has_token(out, rec.id), f"task subscribe output lacks the task id {rec.id}; {shown(r)}"
    assert output.state_matches(out, "TASK_STATE_INPUT_REQUIRED"), (
        f"the resubscription's first event carried INPUT_REQUIRED, but the tool did not report it; {shown(r)}")
