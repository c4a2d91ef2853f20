"""Smoke tests of the reference agentd over real loopback HTTP and a real unix socket.

They prove the main behaviours the agentd checks rely on; the exhaustive checks live in
suites/agent/agentd. Every answer that is an A2A object is also parsed strictly into a2a-sdk types.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from a2a.types.a2a_pb2 import AgentCard, Message, Task
from google.protobuf.json_format import ParseDict

from conformance.agentd_page.launch import ConfigError, Peer, Principal, Workflow
from conformance.fixtures.reference_agentd import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    UNIX_BINDING,
    Config,
    ReferenceAgentd,
)
from conformance.fixtures.reference_agentd import schemas as bundles

BASE_HEADERS = {"A2A-Version": "1.0", "content-type": "application/json"}
OP_TOKEN, USER_TOKEN, AGENT_TOKEN = "tok-operator", "tok-user", "tok-agent"
REVIEW = Workflow(
    "review",
    roles=("operator", "agent"),
    command="review.change",
    schema={"type": "object", "required": ["change"], "properties": {"change": {"type": "string"}}},
)


def rpc(
    client: httpx.Client,
    method: str,
    params: dict[str, Any],
    ext: str | list[str] | None = None,
    token: str | None = None,
) -> httpx.Response:
    headers = dict(BASE_HEADERS)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    lines = [ext] if isinstance(ext, str) else (ext or [])
    hdrs = list(headers.items()) + [("A2A-Extensions", v) for v in lines]
    return client.post(
        "/", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers=hdrs
    )


def command(op: str, marked: bool = True, **args: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "role": "ROLE_USER",
        "messageId": f"m-{time.monotonic_ns()}",
        "parts": [{"data": {"agentd": {"op": op, **args}}}],
    }
    if marked:
        msg["extensions"] = [COMMAND]
    return {"message": msg}


def text(t: str) -> dict[str, Any]:
    return {"message": {"role": "ROLE_USER", "messageId": f"m-{time.monotonic_ns()}", "parts": [{"text": t}]}}


def sse_frames(resp: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")]


@pytest.fixture(scope="module")
def open_agent() -> Iterator[ReferenceAgentd]:
    """Loopback, nothing configured: every caller is the operator, no scheme declared."""
    with ReferenceAgentd(Config(stream_deadline=0.3)) as agent:
        yield agent


@pytest.fixture(scope="module")
def authed_agent() -> Iterator[ReferenceAgentd]:
    principals = (
        Principal("op", OP_TOKEN, "operator"),
        Principal("alice", USER_TOKEN, "user"),
        Principal("bot", AGENT_TOKEN, "agent", frozenset({"review.change"})),
    )
    with ReferenceAgentd(Config(principals=principals, workflows=(REVIEW,), stream_deadline=0.4)) as agent:
        yield agent


def test_echo_is_the_activated_intersection(open_agent: ReferenceAgentd) -> None:
    with httpx.Client(base_url=open_agent.url, timeout=5) as c:
        r = rpc(c, "SendMessage", command("status"), f"{COMMAND}, https://example.com/not-ours")
        assert r.headers.get("a2a-extensions") == COMMAND, r.headers
        r = rpc(c, "ListTasks", {}, [COMMAND, ANNOTATIONS])  # command does not apply to ListTasks
        assert r.headers.get("a2a-extensions") == ANNOTATIONS
        r = rpc(c, "ListTasks", {}, COMMAND.upper())
        assert "a2a-extensions" not in r.headers
        r = rpc(c, "ListTasks", {})
        assert "a2a-extensions" not in r.headers and "error" not in r.json()


def test_status_command_round_trip_answers_a_message_and_creates_no_task(open_agent: ReferenceAgentd) -> None:
    with httpx.Client(base_url=open_agent.url, timeout=5) as c:
        before = rpc(c, "ListTasks", {}).json()["result"].get("totalSize", 0)
        r = rpc(c, "SendMessage", command("status"), COMMAND)
        msg = r.json()["result"]["message"]
        ParseDict(msg, Message())
        assert msg["extensions"] == [COMMAND]
        data = msg["parts"][0]["data"]
        assert data["instance"] == "reviewer" and data["draining"] is False
        assert not list(bundles.validator("command", "$defs/result/status").iter_errors(data))
        assert rpc(c, "ListTasks", {}).json()["result"].get("totalSize", 0) == before


def test_unknown_argument_is_refused_with_errorinfo_and_badrequest(open_agent: ReferenceAgentd) -> None:
    with httpx.Client(base_url=open_agent.url, timeout=5) as c:
        r = rpc(c, "SendMessage", command("status", bogus=1), COMMAND)
        err = r.json()["error"]
        assert err["code"] == -32602
        info, bad = err["data"]
        assert (info["reason"], info["domain"]) == ("INVALID_COMMAND_ARGS", "agentd.dev")
        assert [v["field"] for v in bad["fieldViolations"]] == ["agentd.bogus"]
        assert "a2a-extensions" not in r.headers, "a refused request echoes nothing"
        r = rpc(c, "SendMessage", command("status", marked=False), COMMAND)
        assert r.json()["error"]["data"][0]["reason"] == "EXTENSION_NOT_MARKED"


def test_work_op_answers_a_task_with_its_result_artifact(authed_agent: ReferenceAgentd) -> None:
    with httpx.Client(base_url=authed_agent.url, timeout=5) as c:
        r = rpc(c, "SendMessage", command("review.change", change="c-1"), [COMMAND, ANNOTATIONS], AGENT_TOKEN)
        task = r.json()["result"]["task"]
        ParseDict(task, Task())
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert [a["artifactId"] for a in task["artifacts"]] == [f"{task['id']}.result"]
        ann = task["metadata"][ANNOTATIONS]
        assert ann["command"] == "review.change" and ann["principal"] == "bot"
        assert not list(bundles.validator("task-annotations", "").iter_errors(ann))
        r = rpc(c, "GetTask", {"id": task["id"]}, None, AGENT_TOKEN)
        assert "metadata" not in r.json()["result"], "annotations without activation"
        r = rpc(c, "SendMessage", command("admin.drain"), COMMAND, USER_TOKEN)
        assert r.status_code == 403 and r.json()["error"]["code"] == -31403


def test_extended_card_is_narrowed_per_caller(authed_agent: ReferenceAgentd) -> None:
    with httpx.Client(base_url=authed_agent.url, timeout=5) as c:
        public = c.get("/.well-known/agent-card.json").json()
        ParseDict(public, AgentCard())
        assert public["capabilities"]["extendedAgentCard"] is True
        assert rpc(c, "GetExtendedAgentCard", {}).status_code == 401
        card = rpc(c, "GetExtendedAgentCard", {}, None, AGENT_TOKEN).json()["result"]
        ParseDict(card, AgentCard())
        cmd = next(e for e in card["capabilities"]["extensions"] if e["uri"] == COMMAND)
        assert [o["op"] for o in cmd["params"]["ops"]] == ["status", "workflow.run", "workflow.status"]
        assert [x["op"] for x in cmd["params"]["commands"]] == ["review.change"]
        assert "settable" not in cmd["params"]
        assert "workflow:review" in {s["id"] for s in card["skills"]}


def test_feed_sends_hello_events_and_goodbye_on_deadline(open_agent: ReferenceAgentd) -> None:
    seq = open_agent.publish("activity", {"subject": "smoke", "text": "hello feed"})
    with httpx.Client(base_url=open_agent.url, timeout=5) as c:
        r = rpc(c, EVENTS_METHOD, {"fromSeq": seq - 1}, EVENTS)
        assert r.headers["content-type"].startswith("text/event-stream")
        frames = [f["result"] for f in sse_frames(r)]
        assert frames[0]["hello"]["resume"] == seq - 1 and frames[0]["hello"]["resync"] is False
        assert frames[1]["event"]["seq"] == seq and frames[1]["event"]["kind"] == "activity"
        assert frames[-1] == {"goodbye": {"seq": frames[-1]["goodbye"]["seq"], "reason": "deadline"}}
        for f in frames:
            assert not list(bundles.validator("events", "$defs/frame").iter_errors(f)), f
        r = rpc(c, EVENTS_METHOD, {}, None)
        assert (r.json()["error"]["code"], r.json()["error"]["data"][0]["reason"]) == (
            -32601,
            "EXTENSION_NOT_ACTIVATED",
        )


def test_feed_ends_with_revoked_goodbye_after_revocation() -> None:
    cfg = Config(principals=(Principal("eve", "tok-eve", "user"),), stream_deadline=10.0)
    with ReferenceAgentd(cfg) as agent, httpx.Client(base_url=agent.url, timeout=5) as c:
        headers = {**BASE_HEADERS, "A2A-Extensions": EVENTS, "Authorization": "Bearer tok-eve"}
        body = {"jsonrpc": "2.0", "id": 9, "method": EVENTS_METHOD, "params": {}}
        with c.stream("POST", "/", json=body, headers=headers) as resp:
            lines = resp.iter_lines()
            first = next(line for line in lines if line.startswith("data:"))
            assert "hello" in json.loads(first[5:])["result"]
            assert agent.revoke("tok-eve")
            rest = [json.loads(line[5:])["result"] for line in lines if line.startswith("data:")]
        assert rest and rest[-1]["goodbye"]["reason"] == "revoked", rest


def test_unix_socket_is_0600_and_serves_the_operator() -> None:
    with ReferenceAgentd(Config(listen="unix")) as agent:
        assert agent.uds_path is not None
        assert stat.S_IMODE(os.stat(agent.uds_path).st_mode) == 0o600
        transport = httpx.HTTPTransport(uds=agent.uds_path)
        with httpx.Client(transport=transport, base_url="http://agentd", timeout=5) as c:
            card = c.get("/.well-known/agent-card.json").json()
            assert card["supportedInterfaces"][0]["protocolBinding"] == UNIX_BINDING
            assert card["supportedInterfaces"][0]["url"] == f"unix://{agent.uds_path}"
            assert card["capabilities"]["extendedAgentCard"] is False
            r = rpc(c, "SendMessage", command("admin.pause"), COMMAND)
            assert r.json()["result"]["message"]["parts"][0]["data"] == {"paused": True}
            assert r.headers.get("a2a-extensions") == COMMAND
            assert rpc(c, "GetExtendedAgentCard", {}).json()["error"]["code"] == -32004
            assert (
                rpc(c, "SendMessage", command("auth.sessions"), COMMAND).json()["error"]["data"][0]["reason"]
                == "UNKNOWN_OP"
            )


def test_a_workflow_shadowing_a_builtin_op_is_refused() -> None:
    with pytest.raises(ConfigError, match="reserved"):
        Config(workflows=(Workflow("evil", command="admin.drain", schema={"type": "object"}),))


def test_a_send_step_relays_a_command_to_another_agentd_over_its_unix_socket() -> None:
    """agentd to agentd: the peer runs the command only when it is activated twice, so a completed
    run whose result holds the peer's status document shows the outbound client did both."""
    with ReferenceAgentd(Config(listen="unix", instance="peer")) as peer:
        relay = Workflow("relay", send_to=Peer(peer.url), send_command={"op": "status"})
        with ReferenceAgentd(Config(workflows=(relay,))) as agent, httpx.Client(base_url=agent.url, timeout=5) as c:
            task = rpc(c, "SendMessage", command("workflow.run", workflow="relay"), COMMAND).json()["result"]["task"]
            end = time.monotonic() + 5
            while task["status"]["state"] not in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED"):
                assert time.monotonic() < end, task
                time.sleep(0.02)
                task = rpc(c, "GetTask", {"id": task["id"]}).json()["result"]
            ParseDict(task, Task())
            assert task["status"]["state"] == "TASK_STATE_COMPLETED", task["status"]
            sent = task["artifacts"][0]["parts"][0]["data"]["sent"]
            assert sent["peer"] == peer.url
            assert sent["answer"]["message"]["parts"][0]["data"]["instance"] == "peer"


def test_a_send_step_names_a_loopback_or_unix_peer_and_one_thing_to_send() -> None:
    for bad in (
        Workflow("w", send_to=Peer("http://192.0.2.1:8420/"), send_text="hi"),
        Workflow("w", send_to=Peer("unix://relative.sock"), send_text="hi"),
        Workflow("w", send_to=Peer("http://127.0.0.1:1/"), send_command={"op": ""}),
        Workflow("w", send_to=Peer("http://127.0.0.1:1/"), send_command={"op": "status"}, send_text="hi"),
        Workflow("w", send_text="hi"),
    ):
        with pytest.raises(ConfigError):
            Config(workflows=(bad,))


def test_every_agentd_id_is_named_by_a_defect() -> None:
    """The kill matrix needs a defect for each requirement."""
    from conformance.fixtures.reference_agentd import DEFECTS
    from conformance.paths import REGISTRY_DATA_DIR
    from conformance.registry import load_file

    _, reqs = load_file(REGISTRY_DATA_DIR / "agentd.yaml")
    every = {r.id for r in reqs}
    named = {i for d in DEFECTS.values() for i in d.ids}
    assert named <= {r.id for r in reqs}, sorted(named - {r.id for r in reqs})
    assert every <= named, sorted(every - named)
    for name in DEFECTS:  # each defect is accepted by the configuration
        Config(defects=frozenset({name}))
