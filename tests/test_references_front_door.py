"""The references through the front door: each served standalone as its own process and checked with
``agentd-conformance agent --url``, the path a user's agent takes (the kill matrix's ``--launch`` path
hands the harness a control and a configuration a user's agent never offers).

Two MUST violations were only reachable this way, and are reproduced here with plain HTTP requests (what
``curl`` sends): a push config given inside SendMessage (SendMessageConfiguration.taskPushNotificationConfig)
was ignored, and ListTasks paged by offset, so a task created between two page requests made the next
page repeat one (§3.1.4: "MUST use cursor-based pagination").

The clean references pass the a2a family through ``--url``, given what a user would give: the
operator's token, and the message their agent holds a task for (``--long-running-text``). The rows
that honestly stay not_measured are exactly those that need the harness to move a task to a chosen
state at a chosen moment (:data:`NEED_A_MOVED_TASK`), and, on the scripted agent, checked without naming
the message it holds a task for, those that need a task that stays working (:data:`NEED_A_WORKING_TASK`).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.receiver import Receiver
from conformance.registry import default_registry
from conformance.targets.origins import listener, origin_of
from tests.killmatrix import run_command
from tests.served import REFERENCE_AGENTD, SCRIPTED_CORE, served

A2A = [r.id for r in default_registry().select(family="a2a")]
#: Rows that need the target's own log output, which a --url run never has: not_measured, naming the need.
NEED_LOGS = {r.id for r in default_registry().select(family="a2a") if "logs" in r.needs}
TOKEN = "front-door-operator-5e1f0c2a"
#: Rows that need a task moved (working → completed / input-required) at a moment the harness picks.
NEED_A_MOVED_TASK = {"A2A_SUB_004", "A2A_STREAM_005"}
#: Rows that need a task that stays working until canceled (the agent's long-running hint).
NEED_A_WORKING_TASK = {"A2A_CANCEL_001", "A2A_SUB_001", "A2A_MULTI_001", "A2A_SEND_006", "A2A_SUB_005", "A2A_TASK_005"}
#: The reference agentd serves JSON-RPC only: the rows about the other bindings do not apply (conditional).
JSONRPC_ONLY_NA = {"A2A_ERR_002", "A2A_ERR_005", "A2A_DATA_005"}
#: Neither card marks an extension required, and a running agent cannot be restarted marking one: na.
NO_REQUIRED_EXTENSION_NA = {"A2A_EXT_002"}
#: The scripted agent served so declares no security scheme, and a running agent cannot be restarted
#: declaring one: the rows about refusing a caller without a credential do not apply (conditional).
NO_SECURITY_NA = {"A2A_CARD_010", "A2A_SEC_002", "A2A_LIST_009", "A2A_SEC_003"}
#: The rows needing two callers of different principals (a task of one hidden from the other).
TWO_CALLERS = {"A2A_LIST_009", "A2A_SEC_003"}
#: Two more principals of the reference agentd, peers of each other (neither an operator), and their tokens.
PEER_TOKENS = {"user": "front-door-peer-user-41d7c0e9", "agent": "front-door-peer-agent-9a2e5b73"}
#: Neither reference signs its card as served, and a running agent cannot be restarted signing it: na.
UNSIGNED_NA = {"A2A_CARD_011", "A2A_CARD_012"}
REFERENCE = [*REFERENCE_AGENTD, "--principal", f"op:{TOKEN}:operator"]
BOTH = [pytest.param(REFERENCE, {"Authorization": f"Bearer {TOKEN}"}, id="reference-agentd"),
        pytest.param(SCRIPTED_CORE, {}, id="scripted-agent")]


def _rpc(base: str, headers: dict[str, str], method: str, params: dict[str, Any]) -> Any:
    """One JSON-RPC call to the agent's JSON-RPC interface (the card's), as curl would send it."""
    card = httpx.get(base.rstrip("/") + "/.well-known/agent-card.json", headers=headers, timeout=10).json()
    url = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "JSONRPC")
    body = {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method, "params": params}
    answer = httpx.post(url, json=body, headers={"A2A-Version": "1.0", **headers}, timeout=10).json()
    assert "result" in answer, f"{method} answered {answer}"
    return answer["result"]


def _message(text: str) -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}]}


@pytest.mark.parametrize(("argv", "auth"), BOTH)
def test_a_push_config_given_in_send_message_gets_the_tasks_updates(argv: list[str], auth: dict[str, str]) -> None:
    with served(argv) as base, Receiver(path="/front-door-hook") as hook:
        config = {"url": hook.url, "token": "front-door-notification"}
        sent = _rpc(base, auth, "SendMessage", {"message": _message("notify me"),
                                                 "configuration": {"taskPushNotificationConfig": config}})
        tid = sent["task"]["id"]
        listed = _rpc(base, auth, "ListTaskPushNotificationConfigs", {"taskId": tid})
        assert [c.get("url") for c in listed.get("configs") or []] == [hook.url], (
            f"the config given in SendMessage is not kept for task {tid}: {listed}")
        got = hook.wait(1, 10.0)
        assert got, f"no update of task {tid} reached the webhook given in SendMessage"
        named = [(d.json or {}).get("task", {}).get("id") or (d.json or {}).get("statusUpdate", {}).get("taskId")
                 for d in got]
        assert tid in named, f"webhook deliveries name {named}, not task {tid}"


@pytest.mark.parametrize(("argv", "auth"), BOTH)
def test_list_pages_neither_repeat_nor_skip_a_task_created_between_pages(argv: list[str],
                                                                         auth: dict[str, str]) -> None:
    with served(argv) as base:
        context = str(uuid.uuid4())
        made = [_rpc(base, auth, "SendMessage", {"message": {**_message(f"page {i}"), "contextId": context}})
                ["task"]["id"] for i in range(4)]
        first = _rpc(base, auth, "ListTasks", {"contextId": context, "pageSize": 2, "historyLength": 0})
        assert first["nextPageToken"], f"4 tasks in pages of 2 gave no next page: {first}"
        _rpc(base, auth, "SendMessage", {"message": {**_message("created between pages"), "contextId": context}})
        second = _rpc(base, auth, "ListTasks", {"contextId": context, "pageSize": 2, "historyLength": 0,
                                                "pageToken": first["nextPageToken"]})
        shown = [t["id"] for t in first["tasks"]] + [t["id"] for t in second["tasks"]]
        assert len(shown) == len(set(shown)), f"a task was listed twice across the pages: {shown}"
        assert set(made) <= set(shown), f"tasks made before paging were skipped: {set(made) - set(shown)}"


def _own_ports(base: str, headers: dict[str, str] | None = None) -> list[str]:
    """``--allow-origin`` for every interface of the agent's card on a port other than the one given (its
    gRPC listener): a user names the ports of their own agent."""
    card = httpx.get(base.rstrip("/") + "/.well-known/agent-card.json", headers=headers or {}, timeout=10).json()
    given = listener(base)
    return [a for i in card["supportedInterfaces"] if listener(i["url"]) != given
            for a in ("--allow-origin", origin_of(i["url"]) if "://" in i["url"] else i["url"])]


def _a2a_report(tmp_path: Path, url: str, *extra: str) -> dict[str, Any]:
    report = run_command(["agent", "--url", url, "--family", "a2a", "--jobs", "2", *_own_ports(url), *extra],
                         tmp_path / "r")
    reqs: dict[str, Any] = report.to_dict()["requirements"]
    return reqs


def _judge(reqs: dict[str, Any], not_measured: set[str], na: frozenset[str] | set[str] = frozenset()) -> None:
    passing = set(A2A) - not_measured - na - NEED_LOGS
    bad = {rid: (reqs[rid]["status"], reqs[rid].get("note")) for rid in passing if reqs[rid]["status"] != "pass"}
    assert not bad, f"rows of the clean reference that do not pass through --url: {bad}"
    for rid in na:
        assert reqs[rid]["status"] == "na", (rid, reqs[rid])
    for rid in NEED_A_MOVED_TASK & not_measured:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert "cannot move this target's tasks" in reqs[rid]["note"] and "--container" in reqs[rid]["note"], (
            rid, reqs[rid]["note"])
    for rid in NEED_LOGS:
        assert reqs[rid]["status"] == "not_measured" and "needs logs" in reqs[rid]["note"], (rid, reqs[rid])
    sending = {rid: e["note"] for rid, e in reqs.items() if "--launch" in (e.get("note") or "")}
    assert not sending, f"notes that send a --url user to the bundled fixtures: {sending}"
    for rid in NEED_A_WORKING_TASK & not_measured:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert "--long-running-text" in reqs[rid]["note"], (rid, reqs[rid]["note"])


@pytest.mark.timeout(600)
def test_the_reference_agentd_passes_the_a2a_family_through_url(tmp_path: Path) -> None:
    """Given the operator's token and the message it holds a task for (``hold``), and the tokens of two peer
    principals (user, agent), so a task of one is seen hidden from the other (A2A_LIST_009, A2A_SEC_003)."""
    peers = [f"--principal={role[:2]}:{tok}:{role}" for role, tok in PEER_TOKENS.items()]
    tokens = [a for role, tok in PEER_TOKENS.items() for a in ("--token", f"{role}={tok}")]
    with served([*REFERENCE, *peers]) as url:
        reqs = _a2a_report(tmp_path, url, "--token", f"operator={TOKEN}", *tokens, "--long-running-text", "hold")
    _judge(reqs, NEED_A_MOVED_TASK, JSONRPC_ONLY_NA | NO_REQUIRED_EXTENSION_NA | UNSIGNED_NA)


@pytest.mark.timeout(600)
def test_the_scripted_agent_passes_the_a2a_family_through_url(tmp_path: Path) -> None:
    """Checked without its long-running text, so the rows needing a working task say how to give one."""
    with served(SCRIPTED_CORE) as url:
        reqs = _a2a_report(tmp_path, url)
    _judge(reqs, NEED_A_MOVED_TASK | NEED_A_WORKING_TASK, NO_REQUIRED_EXTENSION_NA | NO_SECURITY_NA | UNSIGNED_NA)


@pytest.mark.timeout(300)
def test_one_credential_leaves_the_rows_of_two_callers_not_measured(tmp_path: Path) -> None:
    """Through --url with the operator's token alone, whether a task of one caller is hidden from another
    cannot be seen: not_measured (never a fail), saying that two --token roles would measure it."""
    with served(REFERENCE) as url:
        reqs = _a2a_report(tmp_path, url, "--token", f"operator={TOKEN}", "--only", *sorted(TWO_CALLERS))
    for rid in TWO_CALLERS:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert "two callers" in reqs[rid]["note"] and "--token user=TOKEN --token agent=TOKEN" in reqs[rid]["note"], (
            rid, reqs[rid]["note"])


#: The reference agentd's principals, one per role, as a user configures their daemon and hands the tokens over.
ROLE_TOKENS = {"operator": TOKEN, "user": "front-door-user-7c3b9e14", "agent": "front-door-agent-2d8a6f50"}
#: What a user knows of the reference agentd as started here (its defaults).
FACTS = {"events": "on", "introspection": "off", "device_grant": "off"}
#: Why an agentd row stays not_measured on a running daemon: a need of the registry or of the check (a
#: launched configuration, a fact the daemon does not have, an instance of its own), or a statement about
#: a configuration this daemon is not in (events off, no security scheme).
AGENTD_REASONS = ("needs ", "this instance declares", "this listener declares", "this target's card declares")


@pytest.mark.timeout(900)  # the whole agentd family on one worker, on a shared 2-core machine
def test_the_reference_agentd_passes_the_agentd_family_through_url(tmp_path: Path) -> None:
    """Given a token per role and the facts of its configuration: no row fails, and every row not
    measured says what it needs. One worker: the refusal rows compare the whole daemon's state before and
    after a refused request, which another worker's checks on the same daemon would change."""
    argv = [*REFERENCE_AGENTD, *(f"--principal={role[:2]}:{tok}:{role}" for role, tok in ROLE_TOKENS.items())]
    with served(argv) as url:
        report = run_command(["agent", "--url", url, "--family", "agentd", "--jobs", "1",
                              *(a for role, tok in ROLE_TOKENS.items() for a in ("--token", f"{role}={tok}")),
                              *(a for k, v in FACTS.items() for a in ("--fact", f"{k}={v}"))], tmp_path / "r")
    reqs = report.to_dict()["requirements"]
    bad = {rid: (e["status"], e.get("note")) for rid, e in reqs.items() if e["status"] not in ("pass", "not_measured")}
    assert not bad, f"rows of the clean reference agentd that do not pass through --url: {bad}"
    unexplained = {rid: e["note"] for rid, e in reqs.items() if e["status"] == "not_measured"
                   and not (e["note"].split(": ", 1)[-1] if e["note"].startswith("test_") else e["note"])
                   .startswith(AGENTD_REASONS)}
    assert not unexplained, unexplained
    sending = {rid: e["note"] for rid, e in reqs.items() if "--launch" in (e.get("note") or "")}
    assert not sending, f"notes that send a --url user to the bundled reference: {sending}"
    assert sum(e["status"] == "pass" for e in reqs.values()) >= 56, "fewer rows measured than the daemon allows"
