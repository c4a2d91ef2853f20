"""Expecting a result or an error, and saying exactly how an answer differs.

* core A2A answers (:class:`conformance.wire.caller.Answer`, on any binding): :func:`in_time` ends a
  check whose answer never came within the run's per-call timeout ``not_measured`` (a slow answer is no
  row's failure unless that row's text demands timeliness, and such a row measures time itself);
  :func:`succeeded` wants a result; :func:`expect_error` wants one named A2A error, recognised on its
  binding by the JSON-RPC code, or the HTTP / gRPC status together with the ``google.rpc.ErrorInfo``
  reason (those bindings share statuses between errors, so the reason is what names the error —
  except where §5.4 maps one A2A error alone to the status, as NOT_FOUND / 404 to TaskNotFoundError:
  then a missing ErrorInfo is the ErrorInfo row's fail, A2A_ERR_002, not the calling row's);
* agentd's refusals (JSON-RPC replies): :func:`refusal` reads one as a :class:`SeenRefusal`,
  :func:`refusal_problems` lists how it departs from a row of the page's error table, and
  :func:`expect_refusal` fails on any departure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance.agentd_page import AGENTD_DOMAIN
from conformance.judge.blame import blocked_by
from conformance.outcome import fail, not_measured
from conformance.wire.errors import ErrorSpec, ErrorView, current, from_jsonrpc
from conformance.wire.httpbase import StreamReply
from conformance.wire.jsonrpc import RpcReply
from conformance.wire.quoting import quote

if TYPE_CHECKING:
    from conformance.wire.caller import Answer, StreamAnswer


# ---- core answers, on any binding ------------------------------------------------------------------

#: The rows that own an answer's form: the JSON-RPC envelope, and an A2A object that can be read at all.
ENVELOPE_ROW, DATA_ROW = "A2A_DATA_003", "A2A_DATA_001"


def in_time(ans: Answer | StreamAnswer, what: str) -> None:
    """End the check ``not_measured`` when the harness stopped waiting for ``ans`` at the run's per-call
    timeout: how the agent would have answered is unknown, and slowness is not what the calling row is
    about. The note says how to wait longer."""
    waited = getattr(ans, "timed_out", None)
    if waited is not None:
        not_measured(f"{what}: the agent gave no answer within the per-call timeout of {waited:g}s, so its "
                     f"answer could not be judged; give a slow agent more time with --call-timeout SECONDS")


def succeeded(ans: Answer, what: str) -> Any:
    """The result of a call that must have succeeded (its lenient reading: ``ans.result``); fail quoting
    the answer otherwise.

    How the result came wrapped is not the calling row's to judge: a result in a faulty JSON-RPC
    envelope (an id not echoed, no ``jsonrpc`` member) is still the result, and the envelope is
    :data:`ENVELOPE_ROW`'s finding; an answer with no readable result at all blocks the check, by the
    row that owns that form (DESIGN.md §2.8). An answer that never came in time is :func:`in_time`'s."""
    in_time(ans, what)
    if ans.transport_error:
        fail(f"{what}: {ans.transport_error}")
    if ans.error is not None:
        fail(f"{what}: expected a result, got an error: {describe_error(ans.error)}; {ans.quote()}")
    if not ans.has_result:
        owner = ENVELOPE_ROW if ans.binding == "JSONRPC" else DATA_ROW
        blocked_by(owner, f"{what}: no result could be read: {'; '.join(ans.problems)}; {ans.quote()}")
    return ans.result


def describe_error(err: ErrorView) -> str:
    """An error in a few words: code or status, ErrorInfo reason, the start of the message."""
    parts = []
    if err.code is not None:
        parts.append(f"code {err.code}")
    if err.http_status is not None:
        parts.append(f"HTTP {err.http_status}")
    if err.grpc_status is not None:
        parts.append(f"status {err.grpc_status}")
    parts.append(f"reason {err.reason!r}" if err.reason else "no ErrorInfo")
    if err.message:
        parts.append(f"message {quote(err.message, 160)!r}")
    return ", ".join(parts)


#: The row whose own text demands google.rpc.ErrorInfo on gRPC and HTTP+JSON: without it, a status several
#: A2A errors share names none of them, and a check expecting one of them is blocked by this row.
ERROR_INFO_ROW = "A2A_ERR_002"


def named_error(err: ErrorView) -> ErrorSpec | None:
    """The A2A error ``err`` names, read leniently: the one its ``ErrorInfo`` reason names, where the table
    knows that reason; else, on JSON-RPC, the one its code names; else the one error §5.4 gives its status to
    alone (gRPC NOT_FOUND, HTTP 404). None: it names none. How well the error is mapped onto its binding
    (the right code or status for the error it names; ErrorInfo present) is the ERR rows' to judge, not the
    row expecting a given error."""
    if err.reason is not None and err.reason in current().by_reason:
        return current().by_reason[err.reason]
    if err.binding == "JSONRPC":
        code = err.code if isinstance(err.code, int) and not isinstance(err.code, bool) else None
        return current().by_jsonrpc_code.get(code) if code is not None else None
    for spec in current().errors:
        if spec.a2a_specific and named_by_status(err, spec) and _alone_of_all(spec, err.binding):
            return spec
    return None


def _alone_of_all(spec: ErrorSpec, binding: str) -> bool:
    """Whether no other error of the table, standard ones included, shares ``spec``'s status on ``binding``
    (MethodNotFoundError aside: a method the harness calls is one the binding defines)."""
    def key(e: ErrorSpec) -> object:
        return e.http_status if binding == "HTTP+JSON" else e.grpc_status

    return [e.name for e in current().errors if e.name != "MethodNotFoundError" and key(e) == key(spec)] == [spec.name]


def identity_mismatch(err: ErrorView, spec: ErrorSpec) -> str | None:
    """Why ``err`` is not recognisably ``spec`` (None when it is): it names another A2A error, or nothing at
    all. An error that names nothing, on a status ``spec`` shares with other errors and without the
    ErrorInfo that would tell them apart, blocks the check by :data:`ERROR_INFO_ROW`."""
    named = named_error(err)
    if named is not None:
        if named.name == spec.name:
            return None
        how = (f"ErrorInfo.reason {err.reason!r}" if err.reason in current().by_reason else
               f"JSON-RPC code {err.code!r}" if err.binding == "JSONRPC" else "its status")
        return f"{how} names {named.name}"
    if err.binding == "JSONRPC":
        return f"JSON-RPC code {err.code!r} names no A2A error ({spec.name} is {spec.jsonrpc_code})"
    label = "HTTP status" if err.binding == "HTTP+JSON" else "gRPC status"
    status = err.http_status if err.binding == "HTTP+JSON" else err.grpc_status
    want = spec.http_status if err.binding == "HTTP+JSON" else spec.grpc_status
    if status == want and err.reason is None and not spec.a2a_specific:
        return None  # a standard error (§3.3.2) is its status: no ErrorInfo reason is normative for it
    if status == want and err.reason is None:
        shared = [e.name for e in current().errors
                  if (e.http_status if err.binding == "HTTP+JSON" else e.grpc_status) == want]
        blocked_by(ERROR_INFO_ROW, f"{label} {status!r} without google.rpc.ErrorInfo could be any of {shared}: "
                                   f"nothing names it {spec.name}")
    reason = f", ErrorInfo.reason {err.reason!r} names no A2A error" if err.reason is not None else ""
    return f"{label} {status!r}{reason}; {spec.name} is {want}"


def named_by_status(err: ErrorView, spec: ErrorSpec) -> bool:
    """Whether ``err``'s status alone names ``spec``: no other A2A error of §5.4 maps to that status on
    its binding (gRPC NOT_FOUND, HTTP 404: TaskNotFoundError only). On HTTP+JSON the body must also be
    the binding's error object (``{"error": {..., "status": <the gRPC status name>}}``), so a web
    server's own 404 page is not taken for the A2A error."""
    if err.binding == "GRPC":
        return err.grpc_status == spec.grpc_status and _alone(spec, lambda e: e.grpc_status)
    if err.binding == "HTTP+JSON":
        return (err.http_status == spec.http_status and err.grpc_status == spec.grpc_status and not err.problems
                and _alone(spec, lambda e: e.http_status))
    return False


def _alone(spec: ErrorSpec, key: Callable[[ErrorSpec], object]) -> bool:
    return [e.name for e in current().errors if e.a2a_specific and key(e) == key(spec)] == [spec.name]


def error_problem(ans: Answer | StreamAnswer, name: str, what: str) -> str | None:
    """Why the answer is not the A2A error ``name``, quoting what came instead (None when it is); an
    answer that never came in time ends the check (:func:`in_time`)."""
    in_time(ans, what)
    if ans.transport_error:
        return f"{what}: expected {name}, got {ans.transport_error}"
    if ans.error is None:
        return f"{what}: expected {name}, got no error: {ans.quote()}"
    why = identity_mismatch(ans.error, current().by_name[name])
    if why is not None:
        return f"{what}: expected {name}, got {describe_error(ans.error)}: {why}"
    return None


def expect_error(ans: Answer | StreamAnswer, name: str, what: str) -> ErrorView:
    """The answer must be the A2A error ``name``; fail quoting what came instead."""
    problem = error_problem(ans, name, what)
    if problem is not None or ans.error is None:
        fail(problem or f"{what}: expected {name}")
    return ans.error


# ---- agentd's refusals (JSON-RPC) --------------------------------------------------------------------

@dataclass(frozen=True)
class SeenRefusal:
    """A refusal as it came back from the target: the HTTP status, the normalised error, the raw body."""

    http_status: int
    view: ErrorView
    body: Any


def refusal(reply: RpcReply | StreamReply, what: str) -> SeenRefusal:
    """The refusal a request got; fails when it was answered (or crashed the target)."""
    body = reply.json
    if reply.status >= 500:
        fail(f"{what}: HTTP {reply.status} (a server error, not a refusal); body {quote(body or reply.body)}")
    if isinstance(reply, StreamReply) and reply.events:
        frames = [e.data for e in reply.events[:3]]
        fail(f"{what}: expected a refusal, got an event stream; first frames {quote(frames)}")
    if not isinstance(body, dict) or "error" not in body:
        fail(f"{what}: expected a JSON-RPC error, got HTTP {reply.status} {quote(body or reply.body)}")
    return SeenRefusal(reply.status, from_jsonrpc(body["error"]), body)


def refusal_problems(
    got: SeenRefusal, *, code: int, reason: str, domain: str | None = AGENTD_DOMAIN, http_status: int | None = None
) -> list[str]:
    """Every way a refusal differs from the page's row (empty when it matches). ``domain`` or
    ``http_status`` None: not judged (a check of a row that does not own the refusal's form)."""
    v = got.view
    out = list(v.problems)
    if v.code != code:
        out.append(f"code {v.code!r}, expected {code}")
    if not v.has_error_info:
        out.append(f"no google.rpc.ErrorInfo in error.data (expected reason {reason})")
    else:
        if v.reason != reason:
            out.append(f"ErrorInfo.reason {v.reason!r}, expected {reason!r}")
        if domain is not None and v.domain != domain:
            out.append(f"ErrorInfo.domain {v.domain!r}, expected {domain!r}")
    if http_status is not None and got.http_status != http_status:
        out.append(f"HTTP status {got.http_status}, expected {http_status}")
    return out


def expect_refusal(
    reply: RpcReply | StreamReply,
    what: str,
    *,
    code: int,
    reason: str,
    domain: str | None = AGENTD_DOMAIN,
    http_status: int | None = None,
) -> SeenRefusal:
    """The request must have been refused as the page's row says; fail naming every difference."""
    got = refusal(reply, what)
    problems = refusal_problems(got, code=code, reason=reason, domain=domain, http_status=http_status)
    if problems:
        fail(f"{what}: {'; '.join(problems)}; error {quote(got.body.get('error'))}")
    return got
