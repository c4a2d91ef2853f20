"""The task-state sets of the specification (§4.1.3 TaskState), written once: the checks judge with
them and the references import them, so a check and a reference cannot disagree on them silently."""

from __future__ import annotations

from typing import Final

#: A task in one of these states changes no more.
TERMINAL: Final = frozenset({"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"})
#: A task in one of these states waits for the client (input, or authentication).
INTERRUPTED: Final = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})
