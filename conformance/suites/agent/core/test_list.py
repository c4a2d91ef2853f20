"""ListTasks: response shape, cursor pages, filters, historyLength, artifacts and order (§3.1.4).

Checks that list every task of the agent ask for historyLength 0: other checks (and other clients)
leave tasks behind whose history is not this check's business (a probe of A2A_ERR_007 may even have
left an invalid message in one, on an agent that accepted it). What is listed is read leniently: its
typing is A2A_DATA_001's (a finding of these checks).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from conformance.a2a.security import refusal, separate_callers
from conformance.a2a.steps import completed_task, get_task, held_task, new_task, terminal_task
from conformance.a2a.tasks import UNIQUE_ID_ROW, distinct, history_ids, state_of
from conformance.judge import in_time, quote, succeeded
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller

MAX_PAGES = 20


def list_tasks(caller: Caller, **params: Any) -> dict[str, Any]:
    result = succeeded(caller.call("ListTasks", params), f"ListTasks {params}")
    if not isinstance(result, dict):
        fail(f"ListTasks {params} answered {quote(result)}, not a ListTasksResponse")
    return dict(result)


def ids(page: dict[str, Any]) -> list[str]:
    return [t.get("id", "?") for t in page.get("tasks") or []]


def token(caller: Caller, page: dict[str, Any]) -> str:
    """nextPageToken as sent; on JSON bindings it must be present (proto3 gRPC cannot show an empty one)."""
    if "nextPageToken" not in page:
        if caller.binding != "GRPC":
            fail(f"the ListTasks result has no nextPageToken (it must always be present): {quote(page)}")
        return ""
    value = page["nextPageToken"]
    if not isinstance(value, str):
        fail(f"nextPageToken is {value!r}, not a string")
    return value


@pytest.mark.requirement("A2A_LIST_001")
def test_list_answers_a_response_whose_next_page_token_is_always_present(caller: Caller) -> None:
    """Every page is a ListTasksResponse carrying nextPageToken; the last page's is empty.
    Defect: list-no-next-page-token."""
    new_task(caller, "listed")
    params: dict[str, Any] = {"pageSize": 100, "historyLength": 0}
    for _ in range(MAX_PAGES):
        page = list_tasks(caller, **params)
        nxt = token(caller, page)
        if not nxt:
            return
        params["pageToken"] = nxt
    not_measured(f"more than {MAX_PAGES} pages of 100 tasks; the last page was not reached")


@pytest.mark.requirement("A2A_LIST_002")
@pytest.mark.depends_on(UNIQUE_ID_ROW)
def test_list_pages_with_a_cursor(caller: Caller) -> None:
    """pageSize 1 gives one task and a token; the token gives one different task, even when a new task was
    made between the two pages: a cursor continues after the task served, where an offset would serve it
    again (§3.1.4: cursor-based pagination, for consistency). Defects: list-page-size-ignored,
    list-offset-pages."""
    distinct(terminal_task(caller, "page one"), terminal_task(caller, "page two"))
    first = list_tasks(caller, pageSize=1, historyLength=0)
    assert len(ids(first)) == 1, f"pageSize 1 answered {len(ids(first))} tasks"
    nxt = token(caller, first)
    assert nxt, "pageSize 1 with at least two tasks answered an empty nextPageToken"
    terminal_task(caller, "made between the pages")
    second = list_tasks(caller, pageSize=1, pageToken=nxt, historyLength=0)
    assert len(ids(second)) == 1, f"the second page of size 1 answered {len(ids(second))} tasks"
    assert ids(second) != ids(first), f"the next page repeats the first page's task {ids(first)}"


@pytest.mark.requirement("A2A_LIST_003")
@pytest.mark.depends_on(UNIQUE_ID_ROW)
def test_context_filter_returns_that_context_only(caller: Caller) -> None:
    """contextId returns the tasks of that context and no other. Defect: list-context-filter-ignored."""
    mine = new_task(caller, "in my context")
    other = new_task(caller, "elsewhere")
    distinct(mine, other)
    if other["contextId"] == mine["contextId"]:
        not_measured("the agent put two unrelated sends in one context, so a filter cannot tell them apart")
    page = list_tasks(caller, contextId=mine["contextId"], pageSize=100)
    wrong = [(t.get("id"), t.get("contextId")) for t in page.get("tasks") or []
             if t.get("contextId") != mine["contextId"]]
    assert not wrong, f"ListTasks contextId={mine['contextId']!r} answered tasks of other contexts: {wrong}"
    assert mine["id"] in ids(page), f"ListTasks contextId={mine['contextId']!r} left out task {mine['id']}"


@pytest.mark.requirement("A2A_LIST_004")
def test_status_filter_returns_that_state_only(core_agent: CoreAgent, caller: Caller) -> None:
    """status returns only tasks in that state. Defect: list-status-filter-ignored."""
    done = completed_task(caller, "done")
    working = held_task(core_agent, caller, "working") if core_agent.control is not None else None
    completed = list_tasks(caller, status="TASK_STATE_COMPLETED", pageSize=100, historyLength=0)
    bad = [(t.get("id"), state_of(t)) for t in completed.get("tasks") or [] if state_of(t) != "TASK_STATE_COMPLETED"]
    assert not bad, f"status=TASK_STATE_COMPLETED answered tasks in other states: {bad}"
    assert done["id"] in ids(completed), f"status=TASK_STATE_COMPLETED left out the completed task {done['id']}"
    running = list_tasks(caller, status="TASK_STATE_WORKING", pageSize=100, historyLength=0)
    bad = [(t.get("id"), state_of(t)) for t in running.get("tasks") or [] if state_of(t) != "TASK_STATE_WORKING"]
    assert not bad, f"status=TASK_STATE_WORKING answered tasks in other states: {bad}"
    if working is not None:
        assert working in ids(running), f"status=TASK_STATE_WORKING left out the working task {working}"


def _listed_history(caller: Caller, text: str, n: int) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """A task with history, its whole history, and the page listing its context with historyLength ``n``."""
    made = new_task(caller, text)
    full = history_ids(get_task(caller, made["id"]))
    if not full:
        not_measured("the agent keeps no history for its tasks, so there is none for historyLength to bound")
    page = list_tasks(caller, contextId=made["contextId"], historyLength=n, pageSize=100)
    assert made["id"] in ids(page), f"ListTasks contextId={made['contextId']!r} left out task {made['id']}"
    return made, full, page


@pytest.mark.requirement("A2A_LIST_005")
def test_history_length_bounds_each_listed_task(caller: Caller) -> None:
    """historyLength 1 bounds the history of every listed task to one message (§3.2.4). A task whose
    history holds one message cannot show the bound, so that is not_measured.
    Defect: list-history-length-ignored."""
    made, full, page = _listed_history(caller, "listed history", 1)
    if len(full) < 2:
        not_measured(f"the agent's task holds {len(full)} message of history, so a bound of 1 cannot be told "
                     "apart from no bound")
    over = [(t.get("id"), len(t.get("history") or [])) for t in page.get("tasks") or []
            if len(t.get("history") or []) > 1]
    assert not over, f"historyLength 1: listed tasks carry more history than asked: {over}"


@pytest.mark.requirement("A2A_LIST_008")
def test_history_length_0_lists_tasks_without_history(caller: Caller) -> None:
    """historyLength 0 lists every task without history (§3.2.4: the history field SHOULD be omitted).
    Defect: list-history-zero-ignored."""
    _, _, page = _listed_history(caller, "listed history zero", 0)
    carrying = [(t.get("id"), len(t.get("history") or [])) for t in page.get("tasks") or [] if t.get("history")]
    assert not carrying, f"historyLength 0: listed tasks still carry history: {carrying}"


@pytest.mark.requirement("A2A_LIST_006")
def test_artifacts_only_with_include_artifacts(caller: Caller) -> None:
    """Without includeArtifacts no listed task carries artifacts; with it, they do. Defect: list-artifacts-always."""
    made = completed_task(caller, "artifacts")
    full = get_task(caller, made["id"])
    page = list_tasks(caller, contextId=made["contextId"], pageSize=100)
    carrying = [t.get("id") for t in page.get("tasks") or [] if "artifacts" in t]
    assert not carrying, f"without includeArtifacts, listed tasks carry an artifacts field: {carrying}"
    if not full.get("artifacts"):
        not_measured("the agent's task carries no artifacts, so includeArtifacts: true cannot be shown to return them")
    page = list_tasks(caller, contextId=made["contextId"], includeArtifacts=True, pageSize=100)
    listed = {t.get("id"): t for t in page.get("tasks") or []}
    assert made["id"] in listed, f"ListTasks contextId={made['contextId']!r} left out task {made['id']}"
    assert listed[made["id"]].get("artifacts"), (
        f"with includeArtifacts: true, task {made['id']} is listed without the artifacts GetTask shows")


def _when(task: dict[str, Any]) -> datetime | None:
    ts = (task.get("status") or {}).get("timestamp")
    try:
        return datetime.fromisoformat(ts) if isinstance(ts, str) else None
    except ValueError:
        return None


@pytest.mark.requirement("A2A_LIST_007")
@pytest.mark.depends_on(UNIQUE_ID_ROW)
def test_tasks_come_most_recently_updated_first(core_agent: CoreAgent, caller: Caller) -> None:
    """Tasks are ordered by status timestamp, newest first; a task updated last comes first (on a target
    the harness steers, a task it moves after the others settled). Only settled tasks are compared, so
    when a send returns says nothing here. Defect: list-oldest-first."""
    moved = held_task(core_agent, caller, "working", moved=True) if core_agent.control is not None else None
    older = terminal_task(caller, "older")
    newer = terminal_task(caller, "newer")
    distinct(older, newer, *([{"id": moved}] if moved else []))
    if moved is not None:
        core_agent.need_control().move(moved, "completed")
    elif _when(older) is None or _when(newer) is None:
        not_measured("the agent's tasks carry no status timestamp and the harness cannot update a task on it, so "
                     "no order by last update can be told")
    page = list_tasks(caller, pageSize=100, historyLength=0)
    order = ids(page)
    stamps = [(t.get("id"), _when(t)) for t in page.get("tasks") or []]
    known = [(i, w) for i, w in stamps if w is not None]
    for (a, wa), (b, wb) in zip(known, known[1:], strict=False):
        assert wa >= wb, (f"task {a} (updated {wa.isoformat()}) is listed before the more recently updated "
                          f"{b} ({wb.isoformat()})")
    for tid in (older["id"], newer["id"]) + ((moved,) if moved else ()):
        assert tid in order, f"ListTasks (pageSize 100) left out the just-made task {tid}"
    w_older, w_newer = _when(older), _when(newer)
    if w_older is not None and w_newer is not None and w_older != w_newer:
        late, early = (newer, older) if w_newer > w_older else (older, newer)
        assert order.index(late["id"]) < order.index(early["id"]), (
            f"task {late['id']}, last updated later, is listed after {early['id']}")
    if moved is not None:
        assert order.index(moved) < order.index(newer["id"]), (
            f"task {moved}, completed after the others settled, is not listed before them: {order[:5]}")


def _scan(caller: Caller, task_id: str, **params: Any) -> tuple[bool, bool]:
    """Whether ListTasks (``params`` added) lists ``task_id`` to ``caller``, following every page; and whether
    the pages were all read (False: more than MAX_PAGES). nextPageToken is read leniently: its presence is
    A2A_LIST_001's to judge."""
    query: dict[str, Any] = {"pageSize": 100, "historyLength": 0, **params}
    for _ in range(MAX_PAGES):
        page = list_tasks(caller, **query)
        if task_id in ids(page):
            return True, True
        nxt = page.get("nextPageToken")
        if not isinstance(nxt, str) or not nxt:
            return False, True
        query["pageToken"] = nxt
    return False, False


@pytest.mark.requirement("A2A_LIST_009")
def test_list_shows_a_caller_only_the_tasks_it_may_see(core_agent: CoreAgent, binding: str,
                                                     recorder: Recorder) -> None:
    """§3.1.4: ListTasks MUST return only tasks visible to the authenticated client; §13.1: results are scoped
    to the caller's authorization even when no contextId or other filter is given. On a card declaring a
    security scheme (a launched target is started so), with credentials of two principals (two --token roles,
    the second not an operator's): a task the first makes is listed to it (so its absence elsewhere means
    something) and is not listed to the second, neither unfiltered (every page) nor filtered by the task's
    contextId. The second's ListTasks refused as a whole shows nothing, and measures nothing.
    Defect: list-shows-others-tasks."""
    agent, maker, other = separate_callers(core_agent)
    if binding not in agent.interfaces:
        not_measured(f"the card declaring a security scheme offers no {binding} interface")
    with agent.caller(binding, recorder, role=maker) as first, agent.caller(binding, recorder, role=other) as second:
        task = new_task(first, "conformance check: a task of one caller")
        tid, ctx = task["id"], task.get("contextId")
        seen, whole = _scan(first, tid)
        if not seen:
            within = "" if whole else f" in its first {MAX_PAGES} pages"
            not_measured(f"ListTasks does not list task {tid} to the caller that made it ({maker}){within}, so its "
                         "absence for another caller would say nothing of scoping")
        probe = second.call("ListTasks", {"pageSize": 1, "historyLength": 0})
        in_time(probe, f"ListTasks by the second caller ({other})")
        if not probe.has_result:
            not_measured(f"ListTasks by the second caller ({other}) got no result ({refusal(probe)}), so what it "
                         "would list cannot be judged; its refusal shows no task")
        filters: list[dict[str, Any]] = [{}]
        if isinstance(ctx, str) and ctx:
            filters.append({"contextId": ctx})
        for params in filters:
            shown, whole = _scan(second, tid, **params)
            how = f"filtered by the task's contextId {ctx!r}" if params else "without a filter"
            if shown:
                fail(f"ListTasks {how} lists task {tid}, made by the {maker} caller, to the {other} caller, a "
                     "different principal: a task of one caller is shown to another (§3.1.4: only tasks visible "
                     "to the authenticated client)")
            if not whole:
                not_measured(f"ListTasks {how} gave the {other} caller more than {MAX_PAGES} pages of 100 tasks; "
                             "the last page was not reached")
