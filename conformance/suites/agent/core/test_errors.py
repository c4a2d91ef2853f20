"""Errors on every binding: the one mapping table (conformance/wire/errors.py), ErrorInfo, the
JSON-RPC standard codes, the HTTP+JSON error body, messages and validation (§3.3.2, §5.4, §9.5,
§10.6, §11.6)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.messages import UNSUPPORTED_VERSION, text_message
from conformance.a2a.steps import send, terminal_task
from conformance.judge import blocked_by, describe_error, expect_error, in_time, quote, unique
from conformance.judge.errors import named_error
from conformance.outcome import NotMeasured, fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Answer, Caller, StreamAnswer
from conformance.wire.errors import DOMAIN, ErrorView, current


def provoke(agent: CoreAgent, caller: Caller) -> list[tuple[str, Answer | StreamAnswer]]:
    """The A2A errors this agent can be made to answer on any target, each with what came back."""
    unknown = unique("conformance-unknown")
    out: list[tuple[str, Answer | StreamAnswer]] = [
        ("TaskNotFoundError", caller.call("GetTask", {"id": unknown})),
        ("VersionNotSupportedError", send(caller, "bad version", service={"A2A-Version": UNSUPPORTED_VERSION})),
    ]
    if not agent.declares("extended"):
        out.append(("UnsupportedOperationError", caller.call("GetExtendedAgentCard", {})))
    try:
        done = terminal_task(caller)
    except NotMeasured:
        return out  # no terminal task on this agent: the errors about one cannot be provoked
    if done.get("status", {}).get("state") == "TASK_STATE_COMPLETED":
        out.append(("TaskNotCancelableError", caller.call("CancelTask", {"id": done["id"]})))
    if agent.declares("streaming"):
        out.append(("UnsupportedOperationError", caller.stream("SubscribeToTask", {"id": done["id"]}, deadline=10.0)))
    if not agent.declares("push"):
        out.append(("PushNotificationNotSupportedError",
                    caller.call("GetTaskPushNotificationConfig", {"taskId": done["id"], "id": "conformance"})))
    return out


#: The row whose own text demands each provoked error (what judges an answer that is another outcome).
OWNERS = {"TaskNotFoundError": "A2A_TASK_002", "VersionNotSupportedError": "A2A_VER_002",
          "TaskNotCancelableError": "A2A_CANCEL_002", "PushNotificationNotSupportedError": "A2A_CARD_005"}
#: Statuses that name no A2A error: the agent failed rather than answering one.
SERVER_FAILURES = ("INTERNAL", "UNKNOWN")


def another_outcome(err: ErrorView, name: str) -> str | None:
    """Why ``err``, provoked as ``name``, is recognisably another outcome — another A2A error, or a
    server failure naming none — so that it shows nothing of how ``name`` is mapped or detailed
    (the row that provoked it judges it); None when it may be ``name``, mapped right or wrong."""
    spec = current().by_name[name]
    named = current().by_reason.get(err.reason) if err.reason else None
    if named is not None:
        return None if named.name == name else f"its ErrorInfo names {named.name}"
    if err.reason is not None:
        return None  # a reason of no A2A error: how the error is detailed is the ErrorInfo rows' question
    if err.binding == "JSONRPC":
        other = current().by_jsonrpc_code.get(err.code) if err.code is not None else None
        return f"its code {err.code} is {other.name}'s" if other is not None and other.name != name else None
    status = err.http_status if err.binding == "HTTP+JSON" else err.grpc_status
    if (isinstance(status, int) and status >= 500) or status in SERVER_FAILURES:
        return f"it is a server failure ({status}) carrying no ErrorInfo"
    want = spec.http_status if err.binding == "HTTP+JSON" else spec.grpc_status
    if status != want:
        others = [e.name for e in current().errors if e.a2a_specific and
                  (e.http_status if err.binding == "HTTP+JSON" else e.grpc_status) == status]
        if others:
            return f"its status {status} is {' or '.join(others)}'s"
    return None


def _errors(agent: CoreAgent, caller: Caller) -> list[tuple[str, Any]]:
    """The provoked errors that show how their error is mapped and detailed. An answer that is
    recognisably another outcome (another A2A error, a server failure) is the provoking row's to judge
    (SUB_002's for the subscription to a finished task, ...): counted here, one bug would fail the
    error rows too, on the one binding where it shows."""
    got = [(name, ans, ans.error) for name, ans in provoke(agent, caller) if ans.error is not None]
    if not got:
        fail("none of the provoked A2A errors (unknown task, unsupported version, …) came back as an error")
    judged = [(name, ans) for name, ans, error in got if another_outcome(error, name) is None]
    if not judged:
        shown = "; ".join(f"{name} via {ans.method}: {another_outcome(error, name)} "
                          f"(judged by {OWNERS.get(name, 'the row that provokes it')})" for name, ans, error in got)
        not_measured(f"every provoked error came back as another outcome, so none shows how it is mapped: {shown}")
    return judged


@pytest.mark.requirement("A2A_ERR_001")
def test_errors_carry_the_mapped_code_of_their_binding(core_agent: CoreAgent, caller: Caller) -> None:
    """Each provoked error has the JSON-RPC code / HTTP status / gRPC status of the table.
    Defect: rest-errors-http-500."""
    wrong = []
    for name, ans in _errors(core_agent, caller):
        diffs = [d for d in ans.error.mismatches(current().by_name[name], require_error_info=False)]
        if diffs:
            wrong.append(f"{name} via {ans.method}: {'; '.join(diffs)}")
    assert not wrong, "errors not mapped per §5.4: " + " | ".join(wrong)


def _error_info_problems(core_agent: CoreAgent, caller: Caller) -> list[str]:
    wrong = []
    for name, ans in _errors(core_agent, caller):
        spec = current().by_name[name]
        err = ans.error
        if err.reason is None:
            wrong.append(f"{name} via {ans.method}: no google.rpc.ErrorInfo detail ({describe_error(err)})")
        elif err.reason != spec.reason or err.domain != DOMAIN:
            wrong.append(f"{name} via {ans.method}: ErrorInfo reason {err.reason!r} domain {err.domain!r}, "
                         f"expected {spec.reason!r} / {DOMAIN!r}")
    return wrong


@pytest.mark.requirement("A2A_ERR_002")
@pytest.mark.core_bindings("GRPC", "HTTP+JSON")
def test_grpc_and_http_errors_carry_error_info(core_agent: CoreAgent, caller: Caller) -> None:
    """On gRPC and HTTP+JSON an A2A error carries ErrorInfo(reason, domain a2a-protocol.org).
    Defect: grpc-no-errorinfo."""
    wrong = _error_info_problems(core_agent, caller)
    assert not wrong, " | ".join(wrong)


@pytest.mark.requirement("A2A_ERR_003")
@pytest.mark.core_bindings("JSONRPC")
def test_jsonrpc_errors_carry_error_info(core_agent: CoreAgent, caller: Caller) -> None:
    """On JSON-RPC an A2A error carries ErrorInfo in error.data. Defect: jsonrpc-no-errorinfo."""
    wrong = _error_info_problems(core_agent, caller)
    assert not wrong, " | ".join(wrong)


@pytest.mark.requirement("A2A_ERR_004")
@pytest.mark.core_bindings("JSONRPC")
def test_jsonrpc_standard_errors_have_their_codes(caller: Caller) -> None:
    """Invalid JSON -32700, not a request -32600, unknown method -32601, malformed params -32602.
    Defect: jsonrpc-parse-error-wrong-code."""
    cases: list[tuple[str, Any, int]] = [
        ("invalid JSON", b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700),
        ("a body that is no request", {"jsonrpc": "2.0", "id": 2, "params": {}}, -32600),
        ("an unknown method", {"jsonrpc": "2.0", "id": 3, "method": "conformance/NoSuchMethod", "params": {}}, -32601),
        ("malformed params", {"jsonrpc": "2.0", "id": 4, "method": "SendMessage",
                              "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": "not a list"}}},
         -32602),
    ]
    wrong = []
    for what, body, code in cases:
        ans = caller.raw_jsonrpc(body)
        in_time(ans, what)
        if ans.error is None:
            wrong.append(f"{what}: no error ({ans.quote(200)})")
        elif ans.error.code != code:
            wrong.append(f"{what}: code {ans.error.code!r}, expected {code}")
    assert not wrong, "; ".join(wrong)


@pytest.mark.requirement("A2A_ERR_005")
@pytest.mark.core_bindings("HTTP+JSON")
@pytest.mark.depends_on("A2A_TASK_002")
def test_http_error_body_is_a_google_rpc_status(caller: Caller) -> None:
    """An HTTP+JSON error is {"error": {code = HTTP status, status, message, details}}, its status the one of
    the error it names (which error GetTask of an unknown id answers is A2A_TASK_002's question).
    Defect: rest-error-flat-body."""
    ans = caller.call("GetTask", {"id": unique("conformance-unknown")})
    if ans.error is None:
        blocked_by("A2A_TASK_002", f"GetTask of an unknown id answered no error, so there is no error body to "
                                   f"read: {ans.quote(300)}")
    err = ans.error
    spec = named_error(err) or current().by_name["TaskNotFoundError"]
    body = ans.body
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), (
        f"the error body has no `error` object: {quote(body)}")
    inner = body["error"]
    assert inner.get("code") == ans.status, f"error.code {inner.get('code')!r} is not the HTTP status {ans.status}"
    assert isinstance(inner.get("status"), str) and inner["status"], f"error.status is {inner.get('status')!r}"
    assert inner["status"] == spec.grpc_status, (
        f"error.status {inner['status']!r} for {spec.name}, expected {spec.grpc_status!r}")
    assert isinstance(inner.get("details", []), list), f"error.details is {inner.get('details')!r}"
    assert not err.problems, "; ".join(err.problems)


@pytest.mark.requirement("A2A_ERR_006")
def test_errors_carry_a_message_and_typed_details(core_agent: CoreAgent, caller: Caller) -> None:
    """Every provoked error has a non-empty message; each detail object names its @type. Defect: error-empty-message."""
    wrong = []
    for name, ans in _errors(core_agent, caller):
        err = ans.error
        if not (isinstance(err.message, str) and err.message.strip()):
            wrong.append(f"{name} via {ans.method}: message {err.message!r}")
        for d in err.details:
            if not (isinstance(d, dict) and isinstance(d.get("@type"), str) and d["@type"]):
                wrong.append(f"{name} via {ans.method}: a detail without @type: {quote(d, 200)}")
    assert not wrong, " | ".join(wrong)


@pytest.mark.requirement("A2A_ERR_007")
def test_a_message_without_parts_is_refused_as_invalid(caller: Caller) -> None:
    """SendMessage whose message has no parts answers InvalidParamsError. Defect: required-fields-unchecked."""
    msg = text_message("no parts")
    msg["parts"] = []
    ans = caller.call("SendMessage", {"message": msg})
    expect_error(ans, "InvalidParamsError", "SendMessage of a message with no parts")
