"""The CLI under test in a pseudo-terminal, driven line by line (pexpect): for interactive commands
such as `chat` (A2ACLI_CHAT_001).

A :class:`Session` starts like a :class:`~conformance.cli.runner.CliRunner` run — a fresh isolated
home, the minimal environment, the adapter's translation, the blame rule's feature check — but with
stdin and stdout on one terminal, so the tool sees a human at a keyboard. Every wait is bounded
(``expect_prompt``, ``wait_exit``); the whole transcript, redacted, goes into the check's evidence
when the session is closed, and :meth:`Session.result` turns it into a ``CliResult`` so a command the
tool rejects by name is judged by the usual blame rule.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from typing import TYPE_CHECKING, cast

import pexpect

from conformance.cli.runner import CliResult

if TYPE_CHECKING:
    from conformance.clicheck.invocations import Cli

#: The end of what a tool prints when it waits for a line: a prompt character, optionally a space,
#: and nothing after it (a line of output ends with a newline instead).
PROMPT = re.compile(r"[>:?$»›%#] ?\Z")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")


class Session:
    """One interactive run of the CLI under test."""

    def __init__(self, cli: Cli, args: list[str], timeout: float) -> None:
        self.argv, env, self.home = cli.launch(args, "xterm")
        self.cli = cli
        self.spec_args = list(args)
        self.timeout = timeout
        self.started = time.monotonic()
        self.child = pexpect.spawn(self.argv[0], self.argv[1:], env=env, cwd=str(self.home.work),
                                   encoding="utf-8", codec_errors="replace", timeout=timeout,
                                   dimensions=(50, 200), echo=True)
        self.transcript = ""
        self.exit_code: int | None = None
        self.term_signal: int | None = None
        self.timed_out = False
        self.closed: CliResult | None = None

    # ---------------------------------------------------------------- reading
    def _take(self, text: str) -> str:
        text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")
        self.transcript += text
        return text

    def expect_prompt(self, timeout: float | None = None) -> str | None:
        """Wait for the tool to show a prompt; the output before it (None when none came in time, or
        the tool exited instead)."""
        try:
            self.child.expect(PROMPT, timeout=self.timeout if timeout is None else timeout)
        except pexpect.TIMEOUT:
            self._take(self.child.before or "")
            self.child.before = ""
            self.timed_out = True
            return None
        except pexpect.EOF:
            self._take(self.child.before or "")
            self._reap()
            return None
        return self._take(str(self.child.before) + str(self.child.after))

    def line(self, text: str) -> None:
        """Type a line and press Enter."""
        self.child.sendline(text)

    def eof(self) -> None:
        """Ctrl-D at the start of a line."""
        self.child.sendeof()

    def interrupt(self) -> None:
        """Ctrl-C, as the terminal sends it (SIGINT to the foreground process group), once the tool waits
        for input (:meth:`wait_for_input`): a SIGINT that lands between printing the prompt and blocking
        on the read is noted but interrupts no read, and is lost until the next line (seen with Python's
        ``input()`` on a loaded machine). A user at the prompt presses Ctrl-C while the tool waits."""
        self.wait_for_input(min(self.timeout, 5.0))
        self.child.sendintr()

    def wait_for_input(self, timeout: float) -> bool:
        """Wait, bounded, until some thread of the tool sleeps in a read or a wait for input (Linux
        ``/proc/<pid>/task/*/syscall``); True when seen. Where that cannot be read (another system, no
        permission), returns False at once and the caller goes on as before."""
        deadline = time.monotonic() + timeout
        while True:
            state = _waiting_for_input(cast(int, self.child.pid))  # set once the tool is spawned
            if state is None or state:
                return bool(state)
            if time.monotonic() >= deadline or not self.child.isalive():
                return False
            time.sleep(0.02)

    def wait_exit(self, timeout: float = 5.0) -> bool:
        """Wait, bounded, for the tool to exit; True when it did."""
        try:
            self.child.expect(pexpect.EOF, timeout=timeout)
        except pexpect.TIMEOUT:
            self._take(self.child.before or "")
            self.child.before = ""
            return False
        self._take(self.child.before or "")
        self._reap()
        return True

    def _reap(self) -> None:
        with contextlib.suppress(Exception):
            self.child.wait()
        self.exit_code = self.child.exitstatus
        self.term_signal = self.child.signalstatus

    # ---------------------------------------------------------------- ending
    def close(self) -> CliResult:
        """Stop the tool if still running (its whole process group), record the session as evidence,
        remove the home; returns the run as a CliResult."""
        if self.closed is not None:
            return self.closed
        if self.child.isalive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(cast(int, self.child.pid), signal.SIGKILL)
            with contextlib.suppress(Exception):
                self.child.close(force=True)
            self.timed_out = True
        else:
            with contextlib.suppress(Exception):
                rest = self.child.read_nonblocking(65536, timeout=0)
                self._take(rest)
        result = self.result()
        self.cli.record(result, "session", "pty")
        self.home.cleanup()
        self.closed = result
        return result

    def result(self) -> CliResult:
        return CliResult(argv=self.argv, env_shown={}, exit_code=self.exit_code, stdout=self.transcript.encode(),
                         stderr=b"", duration=time.monotonic() - self.started, timed_out=self.timed_out, pty=True,
                         term_signal=self.term_signal, spec_args=self.spec_args)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: The system calls a process waiting for terminal input sleeps in, by machine: read, and the ways to
#: wait for a descriptor (select, poll, epoll and their variants).
_INPUT_WAITS = {"x86_64": {0, 7, 23, 232, 270, 271, 281, 441}, "aarch64": {63, 20, 21, 22, 72, 73, 441}}


def _waiting_for_input(pid: int) -> bool | None:
    """Whether a thread of ``pid`` is asleep in one of :data:`_INPUT_WAITS`; None when it cannot be told."""
    calls = _INPUT_WAITS.get(os.uname().machine)
    if calls is None:
        return None
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    seen = False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", encoding="ascii", errors="replace") as f:
                run_state = f.read().rpartition(")")[2].split()[0]
            with open(f"/proc/{pid}/task/{tid}/syscall", encoding="ascii") as f:
                first = f.read().split()
        except (OSError, IndexError):
            continue
        seen = True
        if run_state == "S" and first and first[0].isdigit() and int(first[0]) in calls:
            return True
    return False if seen else None
