"""The user's side of an RFC 8628 device-code sign-in, played by the harness while `auth login` runs.

:class:`DeviceUser` watches the CLI's output (pass it as ``watch=`` to ``Cli.run``); once the tool
shows the user code of a flow the scripted agent's authorization server has started, the user acts on
that code — approves it, lets it expire, or does nothing — after the tool's ``after_polls``-th token
request has been answered. It acts from a thread of its own, so the CLI's run is never held up, and
every wait is bounded.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

Action = Literal["approve", "expire", "nothing"]
#: How long the user waits for the tool to show a code, and then for its polls.
USER_PATIENCE = 30.0


def normalise(code: str) -> str:
    """RFC 8628 §6.1: case and punctuation do not matter in a user code."""
    return re.sub(r"[^0-9A-Z]", "", code.upper())


def token_polls(agent: Any, device_code: str) -> list[Any]:
    """The answered token requests of one device flow, in order."""
    return [r for r in agent.requests if r.binding == "OAUTH" and r.path.endswith("/token")
            and r.form.get("device_code") == device_code and r.response_status is not None]


class DeviceUser:
    """Acts on the user code the tool shows (see the module docstring)."""

    def __init__(self, agent: Any, action: Action = "approve", *, after_polls: int = 0) -> None:
        self.agent = agent
        self.action = action
        self.after_polls = after_polls
        self.shown: str | None = None  # the user code as the tool showed it (normalised)
        self.acted = False
        self.problem: str | None = None
        self._seen = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._act, name="device-user", daemon=True)

    # the runner's watch hook -------------------------------------------------------------
    def __call__(self, stdout: bytes, stderr: bytes) -> None:
        if self._seen.is_set():
            return
        text = normalise(stdout.decode("utf-8", "replace") + "\n" + stderr.decode("utf-8", "replace"))
        for grant in self.agent.auth_server.device_grants():
            if grant.decision is None and normalise(grant.user_code) and normalise(grant.user_code) in text:
                self.shown = normalise(grant.user_code)
                self._grant = grant
                self._seen.set()
                return

    # the user -----------------------------------------------------------------------------
    def _act(self) -> None:
        if not self._wait(self._seen.is_set):
            return
        grant = self._grant
        if self.after_polls and not self._wait(lambda: len(token_polls(self.agent, grant.device_code))
                                               >= self.after_polls):
            self.problem = f"the tool made fewer than {self.after_polls} token requests"
            return
        if self.action == "approve":
            self.agent.approve_device(grant.user_code)
        elif self.action == "expire":
            self.agent.auth_server.expire_device(grant.user_code)
        self.acted = self.action != "nothing"

    def _wait(self, condition: Callable[[], bool]) -> bool:
        """Wait for `condition`, giving up when the run ends (``__exit__``) or the patience runs out."""
        deadline = time.monotonic() + USER_PATIENCE
        while not condition():
            if time.monotonic() >= deadline or self._stop.wait(0.02):
                return False
        return True

    def grant(self) -> Any:
        """The device flow whose code the tool showed (None if it showed none)."""
        return getattr(self, "_grant", None)

    def __enter__(self) -> DeviceUser:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
