"""Push notifications (SPEC.md §7.1, §9.2, Appendix A): `task push-config` create/get/list/delete, and the
tool's own webhook receiver (`task push-config listen`).

The CRUD check is judged on the four requests the scripted agent recorded (the config sent, its
authentication block and token included) and on the config id the tool printed. The receiver check
is judged on the config the tool registered (a loopback URL and a token), on the agent's deliveries to
it being answered, on the events the tool shows, and on a POST the harness forges with a wrong token,
which must not be shown. A receiver that never answers is a bounded fail: the run is cut at
``LISTEN_TIMEOUT``.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest

from conformance.cli.trigger import when
from conformance.clicheck import output
from conformance.clicheck.invocations import AgentMaker, Cli, SecretMaker
from conformance.evidence import SecretSet
from conformance.fixtures.scripted_agent import CardSpec, PushPolicy, RecordedRequest, Script, ScriptedAgent
from conformance.judge import shown, unique
from conformance.suites.cli.conftest import HARNESS_HEADER

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

#: Bound on one `listen` run: the whole exchange takes about a second on the reference.
LISTEN_TIMEOUT = 12.0
_PATH = re.compile(r"/tasks/([^/]+)/pushNotificationConfigs(?:/([^/]+))?$")


def _ops(agent: ScriptedAgent, operation: str) -> list[RecordedRequest]:
    return [r for r in agent.a2a_requests() if r.operation == operation]


def _sent(req: RecordedRequest) -> dict[str, Any]:
    """The request message: JSON-RPC params, or the HTTP+JSON body with the path's ids filled in."""
    if req.binding == "JSONRPC":
        return dict(req.params) if isinstance(req.params, dict) else {}
    out: dict[str, Any] = dict(req.json) if isinstance(req.json, dict) else {}
    m = _PATH.search(req.path)
    if m:
        out.setdefault("taskId", unquote(m.group(1)))
        if m.group(2):
            out.setdefault("id", unquote(m.group(2)))
    return out


def _answer(req: RecordedRequest) -> dict[str, Any]:
    try:
        obj = json.loads(req.response_body)
    except ValueError:
        return {}
    if req.binding == "JSONRPC" and isinstance(obj, dict):
        obj = obj.get("result")
    return obj if isinstance(obj, dict) else {}


def _one_new(agent: ScriptedAgent, operation: str, before: int, r: Any) -> RecordedRequest:
    reqs = _ops(agent, operation)[before:]
    ops = [q.operation for q in agent.a2a_requests()]
    assert len(reqs) == 1, f"expected one {operation}, the agent saw {ops}; {shown(r)}"
    return reqs[0]


# ── A2ACLI_PUSH_001 ──────────────────────────────────────────────────────────────────────────


def _seed(agent: ScriptedAgent, task_id: str) -> tuple[str, str]:
    """A push config the harness creates on the agent directly (JSON-RPC): (its id, its URL)."""
    url = f"http://127.0.0.1:9/{unique('hook')}"  # never called: the task does not move
    resp = httpx.post(agent.jsonrpc_url, timeout=10.0, headers={"A2A-Version": "1.0", HARNESS_HEADER: "1"}, json={
        "jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig",
        "params": {"taskId": task_id, "url": url}})
    config_id = str((resp.json().get("result") or {}).get("id") or "")
    if not config_id:
        raise RuntimeError(f"harness: the scripted agent did not create a push config: {resp.text[:300]}")
    return config_id, url


def _held(agent: ScriptedAgent, task_id: str, config_id: str) -> bool:
    """Does the agent still hold this push config? (asked by the harness, JSON-RPC)"""
    resp = httpx.post(agent.jsonrpc_url, timeout=10.0, headers={"A2A-Version": "1.0", HARNESS_HEADER: "1"}, json={
        "jsonrpc": "2.0", "id": 1, "method": "GetTaskPushNotificationConfig",
        "params": {"taskId": task_id, "id": config_id}})
    return bool(resp.json().get("result"))


@pytest.mark.requirement("A2ACLI_PUSH_001", part="create")
def test_push_config_create_sends_url_token_and_authentication(cli: Cli, agent: AgentMaker,
                                                               new_secret: SecretMaker) -> None:
    """`task push-config create` sends the task id, URL, token and the authentication block (scheme and
    credentials) as given, and prints the config id the agent assigned. Catches a dropped
    authentication block or token.
    """
    a = agent(Script(card=CardSpec(push_notifications=True)))
    rec = a.hold_task("WORKING")
    url = f"http://127.0.0.1:9/{unique('hook')}"  # never called: the task does not move
    token, credentials = new_secret("pushtoken"), new_secret("pushcred")
    r = cli.run("task", "push-config", "create", rec.id, f"--url={url}", f"--token={token}",
                "--auth-scheme=Bearer", f"--auth-credentials={credentials}", "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for push-config create; {shown(r)}"
    create = _one_new(a, "CreateTaskPushNotificationConfig", 0, r)
    sent = _sent(create)
    auth = sent.get("authentication")
    if not isinstance(auth, dict):
        auth = {}
    wrong = [what for what, ok in (
        ("taskId", sent.get("taskId") == rec.id), ("url", sent.get("url") == url),
        ("token", sent.get("token") == token),
        ("authentication.scheme", str(auth.get("scheme", "")).lower() == "bearer"),
        ("authentication.credentials", auth.get("credentials") == credentials)) if not ok]
    assert not wrong, (f"CreateTaskPushNotificationConfig did not carry what was given: {', '.join(wrong)} "
                       f"missing or different (fields sent: {sorted(sent)}, authentication: {sorted(auth)}); "
                       f"{shown(r)}")
    config_id = str(_answer(create).get("id") or "")
    assert config_id, f"the agent assigned no config id (answered {create.response_status}); {shown(r)}"
    assert output.has_token(r.stdout_text, config_id), (
        f"push-config create does not print the config id {config_id} the agent assigned; {shown(r)}")


@pytest.mark.requirement("A2ACLI_PUSH_001", part="get")
def test_push_config_get_asks_for_the_config_and_shows_it(cli: Cli, agent: AgentMaker) -> None:
    """`task push-config get <task> <config>` sends both ids and shows the config's URL. Catches a get
    that asks for the wrong config or shows nothing of it."""
    a = agent(Script(card=CardSpec(push_notifications=True)))
    rec = a.hold_task("WORKING")
    config_id, url = _seed(a, rec.id)
    r = cli.run("task", "push-config", "get", rec.id, config_id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for push-config get; {shown(r)}"
    got = _sent(_one_new(a, "GetTaskPushNotificationConfig", 0, r))
    assert (got.get("taskId"), got.get("id")) == (rec.id, config_id), (
        f"GetTaskPushNotificationConfig asked for task {got.get('taskId')!r} config {got.get('id')!r}, expected "
        f"{rec.id} / {config_id}; {shown(r)}")
    assert url in r.stdout_text, f"push-config get does not show the config's URL {url}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_PUSH_001", part="list")
def test_push_config_list_names_the_task_and_shows_its_configs(cli: Cli, agent: AgentMaker) -> None:
    """`task push-config list <task>` sends the task id and shows each config's id. Catches a list that
    drops configs from its output."""
    a = agent(Script(card=CardSpec(push_notifications=True)))
    rec = a.hold_task("WORKING")
    ids = [_seed(a, rec.id)[0] for _ in range(2)]
    r = cli.run("task", "push-config", "list", rec.id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for push-config list; {shown(r)}"
    listed = _sent(_one_new(a, "ListTaskPushNotificationConfigs", 0, r))
    assert listed.get("taskId") == rec.id, (
        f"ListTaskPushNotificationConfigs named task {listed.get('taskId')!r}, expected {rec.id}; {shown(r)}")
    missing = [i for i in ids if not output.has_token(r.stdout_text, i)]
    assert not missing, f"push-config list does not show the config(s) {missing}; {shown(r)}"


@pytest.mark.requirement("A2ACLI_PUSH_001", part="delete")
def test_push_config_delete_removes_the_config_on_the_agent(cli: Cli, agent: AgentMaker) -> None:
    """`task push-config delete <task> <config>` sends DeleteTaskPushNotificationConfig with both ids and
    the agent no longer holds the config. Catches a delete reported but never sent."""
    a = agent(Script(card=CardSpec(push_notifications=True)))
    rec = a.hold_task("WORKING")
    config_id, _ = _seed(a, rec.id)
    r = cli.run("task", "push-config", "delete", rec.id, config_id, "-a", a.base_url)
    assert r.exit_code == 0, f"expected exit 0 for push-config delete; {shown(r)}"
    deleted = _ops(a, "DeleteTaskPushNotificationConfig")
    assert deleted, (f"push-config delete sent no DeleteTaskPushNotificationConfig; the agent saw "
                     f"{[q.operation for q in a.a2a_requests()]}; {shown(r)}")
    d = _sent(deleted[0])
    assert (d.get("taskId"), d.get("id")) == (rec.id, config_id), (
        f"DeleteTaskPushNotificationConfig named task {d.get('taskId')!r} config {d.get('id')!r}, expected "
        f"{rec.id} / {config_id}; {shown(r)}")
    assert not _held(a, rec.id, config_id), f"the agent still holds push config {config_id}; {shown(r)}"


# ── A2ACLI_PUSH_002 ──────────────────────────────────────────────────────────────────────────


def _is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("127.0.0.1", "::1", "localhost")


@pytest.mark.requirement("A2ACLI_PUSH_002")
@pytest.mark.depends_on("A2ACLI_PUSH_001")
def test_webhook_receiver_shows_the_agents_posts_and_not_a_forged_one(cli: Cli, agent: AgentMaker,
                                                                     run_secrets: SecretSet) -> None:
    """`task push-config listen <id>` hosts a receiver, registers it (loopback URL, a token) and shows the
    StreamResponse bodies the agent POSTs: the Task (WORKING), then, once the harness has sent a forged
    FAILED update with a wrong token, the genuine COMPLETED update. The forgery must not be shown.
    Catches a receiver that skips the token check, and one that never listens (cut at LISTEN_TIMEOUT).
    """
    a = agent(Script(card=CardSpec(push_notifications=True), push=PushPolicy(task_first=True)))
    rec = a.hold_task("WORKING")
    marker = unique("forged")
    forged = {"statusUpdate": {"taskId": rec.id, "contextId": rec.context_id, "status": {
        "state": "TASK_STATE_FAILED",
        "message": {"messageId": unique("m"), "role": "ROLE_AGENT", "parts": [{"text": marker}]}}}}
    forged_answer: list[int | str] = []

    def registered() -> dict[str, Any]:
        creates = _ops(a, "CreateTaskPushNotificationConfig")
        cfg = _sent(creates[0]) if creates else {}
        if cfg.get("token"):
            run_secrets.add(str(cfg["token"]))  # the tool's own webhook token: never in the evidence
        return cfg

    def first_post_answered() -> bool:
        registered()
        return any(d.kind == "task" and d.done.is_set() and d.status is not None for d in a.deliveries)

    def forge_then_complete() -> None:
        try:
            resp = httpx.post(str(registered().get("url")), json=forged, timeout=5.0,
                              headers={"X-A2A-Notification-Token": unique("wrong"),
                                       "Content-Type": "application/a2a+json"})
            forged_answer.append(resp.status_code)
        except httpx.HTTPError as exc:
            forged_answer.append(type(exc).__name__)
        a.move_task(rec.id, "COMPLETED")

    with when(first_post_answered, forge_then_complete, timeout=LISTEN_TIMEOUT) as acted:
        r = cli.run("task", "push-config", "listen", rec.id, "-a", a.base_url, timeout=LISTEN_TIMEOUT)
    cfg = registered()
    ops = [q.operation for q in a.a2a_requests()]
    assert cfg, f"push-config listen registered no webhook (no CreateTaskPushNotificationConfig: {ops}); {shown(r)}"
    hook = str(cfg.get("url") or "")
    assert _is_loopback(hook) and cfg.get("token"), (
        f"the registered webhook must be a loopback URL with a token; got url {hook!r}, token "
        f"{'set' if cfg.get('token') else 'absent'}; {shown(r)}")
    posts = [(d.kind, d.status, d.error) for d in a.deliveries]
    assert acted.fired, (f"the receiver at {hook} never answered the agent's first POST (deliveries: {posts}; "
                         f"{acted.error or 'no answer'}); {shown(r)}")
    out = r.stdout_text
    assert marker not in out and not output.state_matches(out, "TASK_STATE_FAILED"), (
        f"a POST with a wrong token (answered {forged_answer}) was shown as an event; {shown(r)}")
    with contextlib.suppress(TimeoutError):  # judged below on what was delivered
        a.wait_for_deliveries(lambda d: d.kind == "statusUpdate", timeout=5.0)
    posts = [(d.kind, d.status, d.error) for d in a.deliveries]
    assert len(posts) >= 2 and all(isinstance(s, int) and 200 <= s < 300 for _, s, _ in posts), (
        f"the receiver did not accept every genuine POST of the agent: {posts}; {shown(r)}")
    assert not r.timed_out and r.exit_code == 0, (
        f"push-config listen did not end with exit 0 once the task completed; {shown(r)}")
    assert output.has_token(out, rec.id), f"the events shown lack the task id {rec.id}; {shown(r)}"
    for state in ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED"):
        assert output.state_matches(out, state), (
            f"the agent POSTed a {state} event, but the receiver did not show it; {shown(r)}")
