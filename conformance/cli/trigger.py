"""The harness acting while the CLI runs: ``with when(ready, action, timeout=...) as t:`` starts a thread
that runs ``action`` once ``ready()`` holds, then runs the CLI inside the block.

A CLI run blocks the check, so whatever the harness must do during it (move a held task once the tool
has seen its first event, forge a webhook POST once the tool's receiver has answered one) happens
here. The wait is bounded by ``timeout`` and ends early when the block exits; ``t.fired`` says whether
the action ran, ``t.error`` what it raised (the check quotes both).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: How often ``ready`` is re-evaluated.
STEP = 0.02


@dataclass
class Trigger:
    """What happened to one ``when`` action."""

    fired: bool = False
    error: str | None = None
    stop: threading.Event = field(default_factory=threading.Event, repr=False)


@contextmanager
def when(ready: Callable[[], bool], action: Callable[[], None], *, timeout: float) -> Iterator[Trigger]:
    """Run ``action`` in a thread as soon as ``ready()`` is true (checked every ``STEP`` s), at most
    ``timeout`` s after entry and never after the block exits (the thread is joined on exit)."""
    t = Trigger()

    def watch() -> None:
        waited = 0.0
        while not t.stop.wait(STEP):
            waited += STEP
            try:
                if ready():
                    action()
                    t.fired = True
                    return
            except Exception as exc:  # the check reports it; the thread must not die silently
                t.error = f"{type(exc).__name__}: {exc}"
                return
            if waited >= timeout:
                return

    thread = threading.Thread(target=watch, name="harness-trigger", daemon=True)
    thread.start()
    try:
        yield t
    finally:
        t.stop.set()
        thread.join(timeout=5.0)
