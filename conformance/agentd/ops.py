"""Running any built-in op as the operator, with arguments that name things that exist.

An op refers to runs, subagents, tasks, sign-ins and sessions by name; :class:`OpRunner` creates
what an op needs first (over the wire: a held workflow run, a subagent turn, a device sign-in from
the card's device endpoint, a session from ``auth.sessions``) so the answer shows how the op
replies, not that a name was unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from conformance.agentd.answers import read_document, settled, work_task
from conformance.agentd.bundles import Bundles
from conformance.agentd.clients import rpc_client
from conformance.agentd.commands import send_command
from conformance.agentd_page import ALWAYS_OPS, INTROSPECTION_OPS, SESSION_OPS, SIGN_IN_OPS
from conformance.judge import quote, unique
from conformance.outcome import CheckFailed, fail
from conformance.wire import Recorder
from conformance.wire.httpbase import HttpEndpoint
from conformance.wire.jsonrpc import RpcReply
from conformance.wire.loopback import is_loopback_url

if TYPE_CHECKING:
    from conformance.targets.instances import Instance

#: A safe order: reads first, things an op names before the op, destructive controls last.
ORDER = (
    "status", "config", "workflow.status", "subagent.status", "debug.events", "auth.device.pending",
    "workflow.run", "plan.get", "run.get", "workflow.signal", "workflow.cancel",
    "subagent.send", "subagent.get", "conversation.get", "subagent.kill",
    "admin.cancel", "admin.set", "admin.pause", "admin.resume",
    "auth.device.approve", "auth.device.deny", "auth.sessions", "auth.sessions.revoke", "admin.drain",
)  # fmt: skip


#: The row whose own text says an op is served to the operator (on an instance configured for the op's
#: family). A check that needs an op answered, and finds the operator refused it, is blocked by that row
#: (the blame rule, DESIGN.md §2.8): whether the op is served is that row's to judge.
SERVED_BY: Final[Mapping[str, str]] = {
    **dict.fromkeys(ALWAYS_OPS, "AGENTD_CMD_011"), **dict.fromkeys(INTROSPECTION_OPS, "AGENTD_CMD_012"),
    **dict.fromkeys(SIGN_IN_OPS, "AGENTD_CMD_013"), **dict.fromkeys(SESSION_OPS, "AGENTD_CMD_014"),
}
#: The rows of :data:`SERVED_BY`, for a check's ``depends_on``.
SERVING_ROWS: Final = tuple(dict.fromkeys(SERVED_BY.values()))


class PrerequisiteRefused(CheckFailed):
    """The operator was refused ``op``, which :class:`OpRunner` sends first to have something another op
    names (a run, a subagent, a session). A fail where it is not caught; a check that holds the serving
    rows to their own text (:data:`SERVED_BY`) may read it as ``op`` not served, as it would ``op`` itself."""

    def __init__(self, op: str, kind: str, message: str) -> None:
        super().__init__(message)
        self.op = op
        self.kind = kind


def reply_kind(reply: RpcReply, op: str) -> str:
    """``message`` or ``task`` for an answer, else a description of what came (its typing is
    AGENTD_DECL_007's, judged from the run's exchanges)."""
    if reply.status >= 500:
        fail(f"{op}: HTTP {reply.status}; body {quote(reply.json or reply.body)}")
    if reply.error is not None:
        return f"refused {reply.error.code} {quote(reply.json.get('error'), 200)}"
    result = reply.result if isinstance(reply.result, dict) else {}
    if "message" in result:
        return "message"
    if "task" in result:
        return "task"
    return f"neither a Message nor a Task: {quote(result, 200)}"


class OpRunner:
    """The operator of one instance, able to send every built-in op with meaningful arguments."""

    def __init__(self, instance: Instance, recorder: Recorder, card: dict[str, Any], bundles: Bundles) -> None:
        self.instance = instance
        self.recorder = recorder
        self.card = card
        self.bundles = bundles
        self.client = rpc_client(instance, recorder=recorder)
        self._cache: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    @staticmethod
    def order(ops: Any) -> list[str]:
        """``ops`` in a safe order (ops this runner does not know go last)."""
        known = [o for o in ORDER if o in ops]
        return known + sorted(o for o in ops if o not in ORDER)

    def send(self, op: str) -> RpcReply:
        return send_command(self.client, op, self.args_for(op))

    def args_for(self, op: str) -> dict[str, Any]:
        if op == "workflow.run":
            return {"workflow": "build"}
        if op in ("plan.get", "run.get", "workflow.cancel"):
            return {"runId": self._run_id()}
        if op == "workflow.signal":
            return {"runId": self._run_id(), "signal": "nudge"}
        if op == "subagent.send":
            return {"subagent": unique("sub"), "text": "hello"}
        if op in ("subagent.get", "conversation.get", "subagent.kill"):
            return {"subagent": self._subagent()}
        if op == "admin.cancel":
            return {"taskId": self._held_task()}
        if op == "admin.set":
            return {"path": "feed.note", "value": unique("note")}
        if op in ("auth.device.approve", "auth.device.deny"):
            return {"userCode": self._device_code()}
        if op == "auth.sessions.revoke":
            return {"session": self._session("agent")}
        return {}

    # ---- what ops name -------------------------------------------------------------------------
    def _prepare(self, op: str, args: dict[str, Any]) -> RpcReply:
        """Send ``op`` to have what another op names; :class:`PrerequisiteRefused` when it is refused."""
        reply = send_command(self.client, op, args)
        if reply.error is not None:
            kind = reply_kind(reply, op)
            raise PrerequisiteRefused(op, kind, f"{op} (sent first, to have what another op names): {kind}")
        return reply

    def _hold(self) -> dict[str, Any]:
        return work_task(self._prepare("workflow.run", {"workflow": "hold"}),
                         "workflow.run of the held workflow (to have a run to name)")

    def _run_id(self) -> str:
        if "run" not in self._cache:
            task = self._hold()
            status = read_document(self._prepare("workflow.status", {}), "workflow.status")
            runs = [r for r in status.get("runs") or [] if isinstance(r, dict) and r.get("taskId") == task["id"]]
            if not runs or not isinstance(runs[0].get("runId"), str):
                fail(f"workflow.status does not show the run of task {task['id']}: {quote(status)}")
            self._cache["run"] = runs[0]["runId"]
        return self._cache["run"]

    def _held_task(self) -> str:
        return str(self._hold()["id"])

    def _subagent(self) -> str:
        if "subagent" not in self._cache:
            name = unique("sub")
            task = work_task(self._prepare("subagent.send", {"subagent": name, "text": "hi"}),
                             "subagent.send (to have a subagent to name)")
            settled(self.client, task, "subagent.send")
            self._cache["subagent"] = name
        return self._cache["subagent"]

    def _device_code(self) -> str:
        """A pending sign-in: POST the card's device authorization endpoint (loopback only)."""
        url = _device_endpoint(self.card)
        if not is_loopback_url(url):
            fail(f"the card's device authorization endpoint {url!r} is not on loopback; the harness will not call it")
        http = HttpEndpoint("", binding="JSONRPC", recorder=self.recorder)
        try:
            reply = http.send("POST", url, headers=[("Content-Type", "application/x-www-form-urlencoded")],
                              content=b"client_id=agentd-conformance")
        finally:
            http.close()
        code = reply.json.get("user_code") if isinstance(reply.json, dict) else None
        if reply.status != 200 or not isinstance(code, str):
            fail(f"device authorization at {url} answered HTTP {reply.status} {quote(reply.json or reply.body)}")
        return code

    def _session(self, role: str) -> str:
        doc = read_document(self._prepare("auth.sessions", {}), "auth.sessions")
        for s in doc.get("sessions") or []:
            if isinstance(s, dict) and s.get("role") == role and isinstance(s.get("session"), str):
                return str(s["session"])
        fail(f"auth.sessions lists no {role} session to revoke: {quote(doc)}")


def _device_endpoint(card: dict[str, Any]) -> str:
    for scheme in (card.get("securitySchemes") or {}).values():
        flow = ((scheme or {}).get("oauth2SecurityScheme") or {}).get("flows", {}).get("deviceCode") or {}
        if isinstance(flow.get("deviceAuthorizationUrl"), str):
            return str(flow["deviceAuthorizationUrl"])
    fail(f"the card declares no OAuth device-code flow: securitySchemes {quote(card.get('securitySchemes'))}")
