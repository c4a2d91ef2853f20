"""Putting a task into a chosen state on targets the harness launched itself.

The protocol has no way to ask an agent for a task that stays ``working`` or stops at
``input-required``, nor to move one along at the moment a check chooses. On the reference agentd and
the scripted agent the harness can, through the launched object: whoever launches one
(:class:`conformance.targets.instances.AgentTargets`) hands out its control beside it. On any other
target a check that needs this ends ``not_measured`` with :data:`NO_CONTROL` as the reason.
Everything the check then observes still goes over the wire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the two launched references this module steers (imported where they are launched)
    from conformance.fixtures.reference_agentd import ReferenceAgentd
    from conformance.fixtures.scripted_agent import ScriptedAgent

#: Short state names a check may ask for.
STATES = ("working", "input-required", "completed", "failed", "canceled")

NO_CONTROL = ("the harness cannot move this target's tasks to a chosen state at a chosen moment: an agent given "
              "by --url offers no way to; given as a --container image that serves the harness's control socket "
              "(label dev.agentd-conformance.control), it can")
#: For a check that needs only a task that stays working: how a user makes it measurable on a --url target.
NO_LONG_RUNNING = ("the harness cannot make this target hold a task in TASK_STATE_WORKING; name a message the "
                   "agent answers with a task that stays working until canceled (--long-running-text TEXT) "
                   "to measure it")


class Control(Protocol):
    """Creates tasks in a state and moves them, on a launched target."""

    def new_task(self, state: str) -> str:
        """A task in ``state`` that the harness's caller may read; returns its id."""
        ...

    def move(self, task_id: str, state: str) -> None:
        """Put the task into ``state`` now (open streams and webhooks see the change)."""
        ...

    def context_of(self, task_id: str) -> str:
        """The contextId the target gave the task (what a check expects its answers to name)."""
        ...

    @property
    def hold_text(self) -> str | None:
        """A message text the target answers with a task it keeps working until canceled (its own
        long-running text); None when the harness knows of none."""
        ...


class ReferenceControl:
    """The reference agentd: tasks owned by the loopback operator, moved with ``set_task_state``."""

    def __init__(self, agentd: ReferenceAgentd) -> None:
        self._agentd = agentd

    def new_task(self, state: str) -> str:
        return self._agentd.create_task(state=state)

    def move(self, task_id: str, state: str) -> None:
        self._agentd.set_task_state(task_id, state)

    def context_of(self, task_id: str) -> str:
        return str(self._agentd.context_of(task_id))

    @property
    def hold_text(self) -> str | None:
        return str(self._agentd.config.hold_text)


class ScriptedControl:
    """The scripted agent: held tasks (no schedule) whose state only the harness changes."""

    def __init__(self, agent: ScriptedAgent) -> None:
        self._agent = agent

    def new_task(self, state: str) -> str:
        return str(self._agent.hold_task(_scripted(state)).id)

    def move(self, task_id: str, state: str) -> None:
        self._agent.move_task(task_id, _scripted(state))

    def context_of(self, task_id: str) -> str:
        record = self._agent.task(task_id)
        if record is None:
            raise KeyError(f"the scripted agent holds no task {task_id!r}")
        return str(record.context_id)

    @property
    def hold_text(self) -> str | None:
        text = self._agent.script.hold_text
        return str(text) if text is not None else None


def _scripted(state: str) -> str:
    """``input-required`` -> ``INPUT_REQUIRED`` (the scripted agent's spelling)."""
    return state.upper().replace("-", "_")


class ControlRefused(Exception):
    """The control socket could not be reached or refused a request (the message says which)."""


class ContainerControl:
    """The reference image's control socket (``AGENTD_CONTROL_SOCKET``, in a folder bind-mounted on
    this host): the same hooks as :class:`ReferenceControl`, one JSON request per connection."""

    TIMEOUT = 10.0

    def __init__(self, path: str) -> None:
        self.path = path

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        import json
        import socket

        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.TIMEOUT)
                s.connect(self.path)
                s.sendall(json.dumps(request).encode() + b"\n")
                raw = b""
                while not raw.endswith(b"\n"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    raw += chunk
        except OSError as exc:
            raise ControlRefused(f"the container's control socket {self.path}: {exc}") from None
        try:
            answer = json.loads(raw or b"null")
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or "error" in answer:
            raise ControlRefused(f"the container's control socket refused {request.get('do')}: {answer!r}")
        return answer

    def new_task(self, state: str) -> str:
        return str(self._ask({"do": "new_task", "state": state})["id"])

    def move(self, task_id: str, state: str) -> None:
        self._ask({"do": "move", "task": task_id, "state": state})

    def context_of(self, task_id: str) -> str:
        return str(self._ask({"do": "context", "task": task_id})["context"])

    @property
    def hold_text(self) -> str | None:
        return None  # the image names its long-running text in a label, read as the target's hint

    def revoke(self, token: str) -> bool:
        return bool(self._ask({"do": "revoke", "token": token}).get("revoked"))
