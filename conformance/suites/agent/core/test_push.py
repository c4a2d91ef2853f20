"""Push notification configurations and their delivery to a webhook on loopback (§3.1.7-§3.1.10, §4.3.3)."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.a2a.datamodel import read_object
from conformance.a2a.steps import held_task, new_task, send
from conformance.a2a.tasks import event_kind
from conformance.evidence import Evidence, SecretSet
from conformance.judge import blocked_by, error_problem, expect_error, in_time, judged_here, quote, succeeded, unique
from conformance.outcome import fail, not_measured
from conformance.receiver import Receiver
from conformance.targets.core import CoreAgent
from conformance.targets.pool import way_back
from conformance.wire.caller import Caller

DELIVERY_WAIT = 5.0


#: The row that measures creating a config; every other check that creates one as a step is blocked by it
#: when the agent refuses (a2a-lite 1.2.1 refuses every create from an unauthenticated caller, which
#: once failed get, list and delete for create's sake).
CREATE_ROW = "A2A_PUSH_001"


def create(caller: Caller, tid: str, url: str, **extra: Any) -> dict[str, Any]:
    """Create a config; a refusal of the loopback URL as invalid is the agent's policy, not measured; any
    other refusal blocks the check by :data:`CREATE_ROW` (that row's own check judges it, ``judged_here``)."""
    ans = caller.call("CreateTaskPushNotificationConfig", {"taskId": tid, "url": url, **extra})
    if ans.error is not None and (ans.error.code == -32602 or ans.error.reason == "INVALID_PARAMS"
                                  or ans.error.grpc_status == "INVALID_ARGUMENT"):
        hint = ("; an image that calls back to https URLs only says so with the label "
                "dev.agentd-conformance.callbacks=schemes=https" if url.startswith("http:") else "")
        not_measured(f"the agent refuses the harness's webhook URL {url}: {ans.quote()}{hint}")
    if ans.error is not None:
        blocked_by(CREATE_ROW, f"CreateTaskPushNotificationConfig for task {tid} (a task the harness made) was "
                               f"refused: {ans.quote()}")
    made = succeeded(ans, f"CreateTaskPushNotificationConfig for task {tid}")
    if not isinstance(made, dict):
        fail(f"CreateTaskPushNotificationConfig for task {tid} answered {quote(made)}, not a config")
    if not (isinstance(made.get("id"), str) and made["id"]):
        blocked_by(CREATE_ROW, f"the config created for task {tid} was answered without its id, so it cannot be "
                               f"named again: {quote(made)}")
    return dict(made)


def _push_task(core_agent: CoreAgent, caller: Caller) -> str:
    """The id of a new task, on an agent declaring push notifications (the check is na otherwise)."""
    core_agent.require("push")
    return str(new_task(caller)["id"])


def listed(caller: Caller, tid: str) -> list[str]:
    result = succeeded(caller.call("ListTaskPushNotificationConfigs", {"taskId": tid}),
                       f"ListTaskPushNotificationConfigs for task {tid}")
    if not isinstance(result, dict):
        fail(f"ListTaskPushNotificationConfigs for task {tid} answered {quote(result)}, not a list of configs")
    return [c.get("id", "?") for c in result.get("configs") or [] if isinstance(c, dict)]


@pytest.mark.requirement("A2A_PUSH_001")
def test_create_answers_the_stored_config(core_agent: CoreAgent, caller: Caller, webhook: Receiver) -> None:
    """The created config comes back with an id, the task's id and the URL given. Defect: push-create-drops-id."""
    tid = _push_task(core_agent, caller)
    with judged_here(CREATE_ROW):
        made = create(caller, tid, webhook.url)
    assert made.get("id"), f"the created config has no id: {quote(made)}"
    assert made.get("url") == webhook.url, f"the created config has url {made.get('url')!r}, asked {webhook.url!r}"
    assert made.get("taskId") in (None, tid), f"the created config names task {made.get('taskId')!r}, not {tid}"


@pytest.mark.requirement("A2A_PUSH_002")
@pytest.mark.depends_on(CREATE_ROW)
def test_get_answers_the_config_by_id(core_agent: CoreAgent, caller: Caller, webhook: Receiver) -> None:
    """Get returns a created config; an id naming none answers TaskNotFoundError. Defect: push-get-unknown-empty."""
    tid = _push_task(core_agent, caller)
    made = create(caller, tid, webhook.url)
    got = succeeded(caller.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": made.get("id", "")}),
                    "GetTaskPushNotificationConfig")
    assert isinstance(got, dict) and got.get("id") == made.get("id") and got.get("url") == webhook.url, (
        f"GetTaskPushNotificationConfig answered {quote(got)} for the config {quote(made)}")
    unknown = unique("conformance-unknown")
    expect_error(caller.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": unknown}), "TaskNotFoundError",
                 f"GetTaskPushNotificationConfig {unknown}")


@pytest.mark.requirement("A2A_PUSH_003")
@pytest.mark.depends_on(CREATE_ROW)
def test_list_answers_every_config_of_the_task(core_agent: CoreAgent, caller: Caller, webhook: Receiver) -> None:
    """Two configs created on a task are both listed. Defect: push-list-empty."""
    tid = _push_task(core_agent, caller)
    first = create(caller, tid, webhook.url)
    second = create(caller, tid, webhook.url + "/second")
    have = listed(caller, tid)
    missing = [c.get("id") for c in (first, second) if c.get("id") not in have]
    assert not missing, f"ListTaskPushNotificationConfigs for task {tid} left out {missing} (listed {have})"


@pytest.mark.requirement("A2A_PUSH_004")
@pytest.mark.depends_on(CREATE_ROW)
def test_delete_removes_the_config(core_agent: CoreAgent, caller: Caller, webhook: Receiver) -> None:
    """After Delete the config is not listed and getting it answers TaskNotFoundError. Defect: push-delete-noop."""
    tid = _push_task(core_agent, caller)
    cid = create(caller, tid, webhook.url).get("id", "")
    succeeded(caller.call("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": cid}),
              "DeleteTaskPushNotificationConfig")
    assert cid not in listed(caller, tid), f"config {cid} is still listed after DeleteTaskPushNotificationConfig"
    expect_error(caller.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": cid}), "TaskNotFoundError",
                 f"GetTaskPushNotificationConfig of the deleted config {cid}")


@pytest.mark.requirement("A2A_PUSH_007")
@pytest.mark.depends_on(CREATE_ROW, "A2A_PUSH_002", "A2A_PUSH_004")
def test_deleting_a_config_twice_has_no_further_effect(core_agent: CoreAgent, caller: Caller,
                                                       webhook: Receiver) -> None:
    """§3.1.10: deletion MUST be idempotent, several deletions of a config having the effect of one. The
    second Delete answers success or TaskNotFoundError (what a repeated DELETE may say; nothing else), and
    the task's other config is still there. Whether the first one removed its config is A2A_PUSH_004's.
    Defect: push-delete-missing-drops-last."""
    tid = _push_task(core_agent, caller)
    # Ids of the harness's choosing: an agent may name a config after its task when none is given, and then
    # the second create would replace the first.
    cid = create(caller, tid, webhook.url, id=unique("conf-push")).get("id", "")
    other = create(caller, tid, webhook.url, id=unique("conf-push")).get("id", "")
    # An agent keeping one config per task answers the second create with the first one's id: then there is
    # no other config to keep, and only the second Delete's answer is judged.
    sibling = other if other != cid else None
    if sibling is not None:
        before = caller.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": sibling})
        if not before.ok:
            blocked_by("A2A_PUSH_002", f"GetTaskPushNotificationConfig of config {sibling}, just created, answered "
                                       f"no config: {before.quote(300)}")
    first = caller.call("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": cid})
    if first.error is not None or first.transport_error:
        blocked_by("A2A_PUSH_004", f"the first DeleteTaskPushNotificationConfig of config {cid} was refused: "
                                   f"{first.quote(300)}")
    second = caller.call("DeleteTaskPushNotificationConfig", {"taskId": tid, "id": cid})
    in_time(second, "the second DeleteTaskPushNotificationConfig")
    if second.transport_error:
        fail(f"the second DeleteTaskPushNotificationConfig of config {cid}: {second.transport_error}")
    if second.error is not None and error_problem(second, "TaskNotFoundError", "the second Delete") is not None:
        fail(f"the second DeleteTaskPushNotificationConfig of config {cid} answered an error other than "
             f"TaskNotFoundError: {second.quote(300)}")
    if sibling is not None:
        after = caller.call("GetTaskPushNotificationConfig", {"taskId": tid, "id": sibling})
        if not after.ok:
            fail(f"after config {cid} was deleted twice, the task's other config {sibling} is gone: "
                 f"GetTaskPushNotificationConfig answered {after.quote(300)}")


@pytest.mark.requirement("A2A_PUSH_005")
@pytest.mark.depends_on(CREATE_ROW)
def test_task_update_is_delivered_to_the_webhook_with_credentials(
    core_agent: CoreAgent, caller: Caller, webhook: Receiver, run_secrets: SecretSet, evidence: Evidence,
) -> None:
    """A task update reaches the webhook as a StreamResponse naming the task, with the configured
    credentials in Authorization. Defect: push-no-credentials."""
    core_agent.require("push")
    way_back(core_agent)
    credential = run_secrets.make("push")
    auth = {"scheme": "Bearer", "credentials": credential}
    if core_agent.control is not None:
        tid = held_task(core_agent, caller, "working")
        create(caller, tid, webhook.url, authentication=auth)
        core_agent.need_control().move(tid, "completed")
    else:
        config = {"taskPushNotificationConfig": {"url": webhook.url, "authentication": auth}}
        result = succeeded(send(caller, "notify me", configuration=config), "SendMessage with a push config")
        if "task" not in result:
            not_measured("the agent answered a Message, so no task exists to notify about")
        tid = result["task"]["id"]
    got = webhook.wait(1, DELIVERY_WAIT)
    evidence.add("webhook deliveries", [d.to_evidence((credential,)) for d in got])
    if not got:
        broken = webhook.handshake_failures()
        if broken:
            evidence.add("TLS handshakes broken off at the webhook", broken)
            fail(f"the agent broke off {len(broken)} TLS handshake(s) with the webhook {webhook.url}, though it was "
                 f"given the CA of its certificate (tls ca=), and no POST arrived: {broken[0]}")
        fail(f"no POST reached the webhook {webhook.url} within {DELIVERY_WAIT:g}s of task {tid}'s update")
    mine = []
    for d in got:
        if not isinstance(d.json, dict):
            fail(f"a webhook delivery is not JSON: {d.body[:200]!r}")
        delivered = read_object(caller.recorder, "a webhook delivery body", d.json, pb.StreamResponse, "webhook")
        kind = event_kind(delivered)
        body = delivered.get(kind) or {}
        named = body.get("id") if kind == "task" else body.get("taskId")
        if named == tid:
            mine.append(d)
    if not mine:
        fail(f"no webhook delivery names task {tid}: {[quote(d.json, 200) for d in got]}")
    for d in mine:
        header = d.headers.get("authorization")
        assert header == f"Bearer {credential}", (
            "a delivery for the task carries Authorization "
            + ("<none>" if header is None else "<a different value>") + ", not the configured credentials")


@pytest.mark.requirement("A2A_PUSH_006")
@pytest.mark.depends_on(CREATE_ROW)
def test_create_for_an_unknown_task_is_task_not_found(core_agent: CoreAgent, caller: Caller,
                                                      webhook: Receiver) -> None:
    """A config for an id no task has answers TaskNotFoundError. Defect: push-create-unknown-task."""
    core_agent.require("push")
    tid = unique("conformance-unknown")
    ans = caller.call("CreateTaskPushNotificationConfig", {"taskId": tid, "url": webhook.url})
    if ans.error is not None and error_problem(ans, "TaskNotFoundError", "") is not None:
        # The paired control: an agent refusing this create for another reason must accept one for a task
        # it has, or its answer says nothing about unknown tasks.
        create(caller, new_task(caller)["id"], webhook.url)
    expect_error(ans, "TaskNotFoundError", f"CreateTaskPushNotificationConfig for task {tid}")
