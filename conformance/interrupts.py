"""How a run ends on a signal: SIGINT (Ctrl-C), SIGTERM (``kill``, ``timeout``, a cancelled CI job) and
SIGHUP (the terminal went away) all stop it the same way.

The first of them raises :class:`RunInterrupted` — a ``KeyboardInterrupt``, so every clean-up path
written for Ctrl-C (pytest's, xdist's, the checks' fixtures, the command's) runs for all three — and
names the signal. Every later one is only noted: it must not cut short the clean-up the first one
started, which the command bounds (``conformance.command.run``). A signal the process was started
with ignored (``nohup`` ignores SIGHUP, a background job of a script ignores SIGINT) stays ignored: the
user asked for it.

The command's process (``cli``, ``agent``, ``matrix``) installs this; so does the pytest plugin in the
suite's processes (the controller and each xdist worker), so that a signal sent to one of them
directly ends the run as cleanly as the command's forwarded SIGINT does.

A suite process that dies (killed, out of memory, a crash of the interpreter) ends the run the same way,
named :data:`CRASHED`: an xdist worker's death is seen by the controller, which stops the rest of the
suite as Ctrl-C does (:func:`stop_group`; xdist would otherwise start a new worker and go on); the
death of the suite's only (or controlling) process is seen by the command, which writes the report of
the stopped run itself.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

#: The signals that stop a run.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: The file, in a run's private folder, where the command names the signal it forwards to the suite as
#: SIGINT (the plugin reads it, so the report names the signal the user sent).
INTERRUPT_FILE = "interrupted"
#: The note of a row the run did not finish, and the word every rendering of an interrupted report uses.
INTERRUPTED = "interrupted"
#: What stopped a run whose suite process died, where a report names the signal that stopped a run.
CRASHED = "suite crash"
#: The file, in a run's private folder, where the suite's controller says which of its processes died.
CRASH_FILE = "crashed"


class RunInterrupted(KeyboardInterrupt):
    """The run was stopped by ``signame`` (``SIGINT``, ``SIGTERM`` or ``SIGHUP``)."""

    def __init__(self, signame: str, report_dir: str | None = None) -> None:
        super().__init__(signame)
        self.signame = signame
        #: The folder holding the stopped run's (incomplete) report, once the command knows it.
        self.report_dir = report_dir


_first: str | None = None
_saved: dict[int, Any] = {}


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _first
    name = signal.Signals(signum).name
    if _first is not None:
        # os.write: a handler may run in the middle of another write to sys.stderr.
        os.write(2, f"agentd-conformance: {name} received; still stopping after {_first}\n".encode())
        return
    _first = name
    raise RunInterrupted(name)


def install() -> bool:
    """Make SIGINT, SIGTERM and SIGHUP raise :class:`RunInterrupted` (the first one) in this process; the
    previous handlers are kept for :func:`uninstall`. Only the main thread can: False elsewhere."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for sig in STOP_SIGNALS:
        current = signal.getsignal(sig)
        if current is signal.SIG_IGN or current is _on_signal:
            continue
        _saved[sig] = current
        signal.signal(sig, _on_signal)
    return True


def stop_group(name: str) -> None:
    """End this process's run as the first stop signal would, named ``name``: every other process of the
    process group this process leads (the xdist workers, with what they started in it) gets SIGINT, as
    Ctrl-C in a terminal gives it, and :class:`RunInterrupted` is raised here. Later signals are only
    noted. Only a group leader signals its group (a suite started by the command is one; a pytest run
    in-process inside another session is not, and stops only itself)."""
    global _first
    if _first is None:
        _first = name
    if os.getpgrp() == os.getpid():
        # This process ignores the SIGINT it sends to its group: the interrupt here is the one raised below.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            os.killpg(os.getpgrp(), signal.SIGINT)
        except OSError:
            pass
        finally:
            signal.signal(signal.SIGINT, previous)
    raise RunInterrupted(name)


def uninstall() -> None:
    """Put back the handlers :func:`install` replaced (a pytest session run in-process ends)."""
    global _first
    if threading.current_thread() is not threading.main_thread():
        return
    for sig, previous in list(_saved.items()):
        signal.signal(sig, previous)
        del _saved[sig]
    _first = None


def received() -> str | None:
    """The signal that stopped this process's run, if one did."""
    return _first


def signame(exc: BaseException) -> str:
    """The signal behind an interrupt: a plain ``KeyboardInterrupt`` is SIGINT's."""
    return exc.signame if isinstance(exc, RunInterrupted) else (_first or "SIGINT")


def note(name: str | None) -> str:
    """The not_measured note of a row the run did not finish."""
    return f"{INTERRUPTED}: the run was stopped ({name or 'SIGINT'}) before this row's checks finished"


def unfinished(status: str, row_note: str | None) -> bool:
    """Whether a report's row is one its run did not finish (judged by :func:`note`)."""
    return status == "not_measured" and (row_note or "").startswith(f"{INTERRUPTED}: ")


__all__ = ["CRASHED", "CRASH_FILE", "INTERRUPTED", "INTERRUPT_FILE", "STOP_SIGNALS", "RunInterrupted", "install",
           "note", "received", "signame", "stop_group", "unfinished", "uninstall"]
