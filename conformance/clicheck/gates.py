"""Shared preconditions of the CLI checks: what a check's runs show about a row it stands on but does not
judge, so a check that then failed is blocked by that row instead (DESIGN.md §2.8, §2.11).

Every CLI check that talks to the harness's agent stands on two behaviours it does not measure:

* the tool signals an A2A version the agent accepts (``A2ACLI_VER_001``): a request the agent refuses as
  VersionNotSupported never reaches the behaviour the check is about;
* a plain ``send`` waits until the task ends or stops for the user (``A2ACLI_SEND_002``): a check that reads
  the outcome of a send, its state, artifacts or exit status, reads nothing when the tool returned while
  the task was still working;
* a wait stops at once when the task stops for the user (``A2ACLI_TASK_POLL_003``): a check that reads what a
  tool shows at INPUT_REQUIRED or AUTH_REQUIRED (the ids, the exit status, the next chat prompt) sees nothing
  when the tool polls on through that state.

Each is *positive evidence*, read from the harness's own agent (never from the tool's output): the agent
refused a request of the tool for its version; a ``send`` of the tool exited 0 when the agent's last answer
to it showed the task still submitted or working; a run of the tool asked about a task again and again after
the agent had told it the task was waiting for the user, without resuming it. :func:`add_implicit_depends`
declares these rows on every CLI check that starts an agent (except the checks judging that very behaviour,
:data:`JUDGED_BY`), so the blame rule lets the ``agent`` fixture turn such a check's fail into "blocked by"
the row.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pytest

from conformance.cli.runner import CliResult
from conformance.fixtures.scripted_agent import INTERRUPTED_STATES, TERMINAL_STATES, ScriptedAgent
from conformance.fixtures.scripted_agent.versions import asked_version, version_refusal
from conformance.judge import DEPENDS_MARKER, Blocked

#: The row whose subject is the A2A-Version the tool signals (SPEC.md §13.2).
VERSION_ROW: Final = "A2ACLI_VER_001"
#: The row whose subject is that a plain `send` waits for the task's end (SPEC.md §10.2).
WAIT_ROW: Final = "A2ACLI_SEND_002"
#: The row whose subject is that a wait (`send`'s default, `task get --wait`, a chat turn) stops at once at
#: INPUT_REQUIRED / AUTH_REQUIRED (SPEC.md §9.1, §9.3).
INTERRUPT_ROW: Final = "A2ACLI_TASK_POLL_003"

#: Per gate row: the (requirement, part) pairs whose own subject is that behaviour; a check measuring one
#: keeps its own verdict (part None: the whole row).
JUDGED_BY: Final[dict[str, frozenset[tuple[str, str | None]]]] = {
    VERSION_ROW: frozenset({(VERSION_ROW, None), ("A2ACLI_DEFAULT_001", "protocol_version_highest_mutual")}),
    WAIT_ROW: frozenset({(WAIT_ROW, None), ("A2ACLI_DEFAULT_001", "task_completion_wait_by_default")}),
    INTERRUPT_ROW: frozenset({(INTERRUPT_ROW, None)}),
}

#: Where the rows declared by :func:`add_implicit_depends` are kept on an item (they govern no feature of
#: the check's own invocations: the CLI fixture leaves them out of its feature check).
IMPLICIT = pytest.StashKey[tuple[str, ...]]()

_A2A_BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")


def _judges(item: pytest.Item, row: str) -> bool:
    marks = [(rid, m.kwargs.get("part")) for m in item.iter_markers("requirement") for rid in m.args]
    judged = JUDGED_BY[row]
    return any((rid, None) in judged or (rid, part) in judged for rid, part in marks)


def add_implicit_depends(items: Sequence[pytest.Item]) -> None:
    """Declare the rows of :data:`JUDGED_BY` on every check that starts an agent and measures a
    row (the blame rule needs a block to name a declared row), unless the check judges that behaviour, or
    declares the row itself: such a check blames it where its own runs need it (e.g. a timeout reached by
    a `send`, else by `task get --wait`) and a send that returned early elsewhere in it proves nothing."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "agent" not in fixtures or not any(item.iter_markers("requirement")):
            continue
        explicit = {rid for m in item.iter_markers(DEPENDS_MARKER) for rid in m.args}
        rows = tuple(r for r in JUDGED_BY if not _judges(item, r) and r not in explicit)
        if rows:
            item.add_marker(pytest.mark.depends_on(*rows))
            item.stash[IMPLICIT] = rows


def version_refused(agents: Sequence[ScriptedAgent], harness_header: str) -> Blocked | None:
    """A block by :data:`VERSION_ROW` when one of the agents refused a request of the tool for the
    A2A-Version it signalled (the agent's own version policy, judged on the request as recorded)."""
    for a in agents:
        for q in a.a2a_requests():
            if harness_header in q.headers:
                continue
            # the agent's own reading of the request's version (header, else query parameter)
            asked, source = asked_version(q.headers, {k: v[0] for k, v in q.query_params.items() if v})
            refusal = version_refusal(a.script, asked, source)
            if refusal is not None:
                sent = "no A2A-Version" if q.a2a_version is None else f"A2A-Version {q.a2a_version!r}"
                return Blocked(VERSION_ROW, f"the agent refused the tool's {q.operation or q.method} ({q.binding}), "
                                            f"which signalled {sent}, as VersionNotSupported: {refusal}")
    return None


def _plain_send(spec_args: Sequence[str]) -> bool:
    return bool(spec_args) and spec_args[0] == "send" and not {"--async", "--stream"} & set(spec_args)


def told_state(body: bytes) -> str | None:
    """The task state an answer of the agent told the tool: the shallowest ``status.state`` of a JSON body
    (a SendMessage result's task, a GetTask result); None when the body says none."""
    try:
        level: list[Any] = [json.loads(body)]
    except (ValueError, UnicodeDecodeError):
        return None
    while level:
        for node in level:
            status = node.get("status") if isinstance(node, dict) else None
            if isinstance(status, dict) and isinstance(status.get("state"), str):
                return str(status["state"])
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else
                                                node if isinstance(node, list) else ())]
    return None


@dataclass
class EarlyReturns:
    """Watches a check's CLI runs (``Cli.watchers``): a plain ``send`` that exited 0 when the last thing the
    agent told it, in answer to its last request of the run (a SendMessage or GetTask over an HTTP binding,
    whose answer the agent recorded), was a task still neither ended nor waiting for the user. A run whose
    last request was a stream, or over gRPC, shows nothing here."""

    agents: Callable[[], Sequence[ScriptedAgent]]
    harness_header: str
    seen: list[str] = field(default_factory=list)

    def __call__(self, result: CliResult) -> None:
        if result.exit_code != 0 or not _plain_send(result.spec_args):
            return
        began = time.time() - result.duration
        asked = [q for a in self.agents() for q in a.a2a_requests()
                 if q.wall >= began and self.harness_header not in q.headers]
        if not asked:
            return
        last = max(asked, key=lambda q: q.wall)
        if last.operation not in ("SendMessage", "GetTask") or last.binding not in ("JSONRPC", "HTTP+JSON"):
            return
        state = told_state(last.response_body)
        if state is not None and state not in TERMINAL_STATES and state not in INTERRUPTED_STATES:
            self.seen.append(f"`send` exited 0 after its last request ({last.operation}) was answered with the "
                             f"task still {state}")

    def blocked(self) -> Blocked | None:
        """A block by :data:`WAIT_ROW` when a plain send returned early in this check."""
        if not self.seen:
            return None
        more = f" (and {len(self.seen) - 1} more)" if len(self.seen) > 1 else ""
        return Blocked(WAIT_ROW, f"{self.seen[0]}{more}: the tool does not wait for the task's end by default")


def answer_documents(body: bytes) -> list[Any]:
    """The JSON documents of an answer: the body itself, or each ``data:`` line of an event stream."""
    text = body.decode("utf-8", errors="replace")
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    docs = []
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                docs.append(json.loads(line[5:].strip()))
            except ValueError:
                continue
    return docs


def told_states(body: bytes) -> list[tuple[str, str]]:
    """Every (task id, state) an answer of the agent told the tool: each ``status.state`` of the answer (a
    Task, a status update, each event of a stream) with the id of the task it belongs to."""
    out: list[tuple[str, str]] = []
    level: list[Any] = answer_documents(body)
    while level:
        for node in level:
            status = node.get("status") if isinstance(node, dict) else None
            if isinstance(node, dict) and isinstance(status, dict) and isinstance(status.get("state"), str):
                task = node.get("taskId") or node.get("id")
                if isinstance(task, str) and task:
                    out.append((task, str(status["state"])))
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else
                                                node if isinstance(node, list) else ())]
    return out


#: Requests that ask again about a task without moving it on (a poll, a new subscription).
_ASKS_AGAIN = ("GetTask", "SubscribeToTask")
_RESUMES = ("SendMessage", "SendStreamingMessage")
#: How many requests about a task after it stopped for the user show that the tool waits on through it (one
#: more read, e.g. for the whole Task after a status update, is not a wait).
POLLS_THROUGH = 2


@dataclass
class PollsThroughInterruption:
    """Watches a check's CLI runs and sessions (``Cli.watchers``): within one run, after the agent told the tool
    (in an answer over an HTTP binding, a stream's events included) that a task was INPUT_REQUIRED or
    AUTH_REQUIRED, the tool asked about that task again :data:`POLLS_THROUGH` or more times (GetTask,
    SubscribeToTask) before sending anything that would resume it: a wait that does not stop there."""

    agents: Callable[[], Sequence[ScriptedAgent]]
    harness_header: str
    seen: list[str] = field(default_factory=list)

    def __call__(self, result: CliResult) -> None:
        began = time.time() - result.duration
        asked = sorted((q for a in self.agents() for q in a.a2a_requests()
                        if q.wall >= began and self.harness_header not in q.headers), key=lambda q: q.wall)
        for i, q in enumerate(asked):
            if q.binding not in ("JSONRPC", "HTTP+JSON"):
                continue
            for task, state in told_states(q.response_body):
                if state not in INTERRUPTED_STATES:
                    continue
                again = []
                for later in asked[i + 1:]:
                    if later.operation in _RESUMES:
                        break
                    if later.operation in _ASKS_AGAIN and task in later.path + json.dumps(later.params):
                        again.append(later.operation)
                if len(again) >= POLLS_THROUGH:
                    self.seen.append(f"after the agent answered its {q.operation} with task {task} {state}, the "
                                     f"tool asked about the task {len(again)} more time(s) ({', '.join(again[:3])}"
                                     f"{', ...' if len(again) > 3 else ''}) without resuming it")
                    return

    def blocked(self) -> Blocked | None:
        """A block by :data:`INTERRUPT_ROW` when a run of this check waited on through an interrupted state."""
        if not self.seen:
            return None
        more = f" (and {len(self.seen) - 1} more run(s))" if len(self.seen) > 1 else ""
        return Blocked(INTERRUPT_ROW, f"{self.seen[0]}{more}: the tool's wait does not stop when the task "
                                      "waits for the user")


__all__ = ["IMPLICIT", "INTERRUPT_ROW", "JUDGED_BY", "VERSION_ROW", "WAIT_ROW", "EarlyReturns",
           "PollsThroughInterruption", "add_implicit_depends", "answer_documents", "told_states", "version_refused"]
