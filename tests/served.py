"""A reference served standalone as its own process, the way a user runs an agent: started with its
command line, its URL read from its first stdout line, stopped (its whole process group) at the end."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tests.test_command import _env

#: The reference agentd's command line, and the scripted agent serving the core checks' script.
REFERENCE_AGENTD = [sys.executable, "-m", "conformance.fixtures.reference_agentd"]
SCRIPTED_CORE = [sys.executable, "-m", "conformance.fixtures.scripted_agent", "--core"]
START_TIMEOUT = 20.0


@contextmanager
def served(argv: list[str]) -> Iterator[str]:
    """Run ``argv`` in a new session; yield the URL it prints first; end it (SIGTERM, then SIGKILL)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env=_env(), start_new_session=True)
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(timeout=START_TIMEOUT), f"{argv} printed no URL within {START_TIMEOUT:g}s"
        url = proc.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:"), f"{argv} printed {url!r}, not its URL"
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
