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
from typing import TYPE_CHECKING

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
        """Ctrl-C, as the terminal sends it (SIGINT to the foreground process group)."""
        self.child.sendintr()

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
                os.killpg(self.child.pid, signal.SIGKILL)
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
