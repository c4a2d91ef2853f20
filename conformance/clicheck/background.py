"""The CLI under test as a long-running child (`demo-server`): started in an isolated home like any
run, its stdout and stderr written to files (so a chatty server can never block on a full pipe while
the harness is busy elsewhere), waited on for a line with a deadline, and stopped with its whole
process group — Ctrl-C first, then SIGKILL. The run is recorded as evidence when it is stopped.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.cli.runner import CliResult

if TYPE_CHECKING:
    from conformance.clicheck.invocations import Cli

#: How often the output files are re-read while waiting for a pattern.
POLL = 0.05


class Background:
    """One long-running invocation of the CLI under test."""

    def __init__(self, cli: Cli, args: list[str]) -> None:
        self.argv, env, self.home = cli.launch(args, "dumb")
        self.cli = cli
        self.spec_args = list(args)
        self.out_path = self.home.tmp / "stdout"
        self.err_path = self.home.tmp / "stderr"
        self.started = time.monotonic()
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                         cwd=str(self.home.work), start_new_session=True)
        self.stopped: CliResult | None = None
        self.timed_out = False

    def output(self) -> tuple[str, str]:
        def read(p: Path) -> str:
            return p.read_bytes().decode("utf-8", errors="replace") if p.exists() else ""

        return read(self.out_path), read(self.err_path)

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str] | None:
        """The first match of ``pattern`` in stdout or stderr, waiting up to ``timeout``; None when the
        child exited or the deadline passed without one."""
        deadline = time.monotonic() + timeout
        woke = threading.Event()
        while True:
            out, err = self.output()
            m = pattern.search(out) or pattern.search(err)
            if m:
                return m
            if self.proc.poll() is not None:
                return pattern.search(self.output()[0]) or pattern.search(self.output()[1])
            if time.monotonic() >= deadline:
                self.timed_out = True
                return None
            woke.wait(POLL)  # re-read the files; the deadline bounds the wait

    def stop(self, grace: float = 5.0) -> CliResult:
        """Ctrl-C to the child's group, SIGKILL after ``grace``; record and return the run."""
        if self.stopped is not None:
            return self.stopped
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(grace)
        out, err = self.output()
        code = self.proc.returncode
        result = CliResult(argv=self.argv, env_shown={}, exit_code=code if code >= 0 else None,
                           stdout=out.encode(), stderr=err.encode(), duration=time.monotonic() - self.started,
                           timed_out=self.timed_out, term_signal=-code if code < 0 else None,
                           spec_args=self.spec_args)
        self.cli.record(result, "run", "background")
        self.home.cleanup()
        self.stopped = result
        return result
