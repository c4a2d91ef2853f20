"""Ctrl-C is sent once the tool waits for input (``conformance.clicheck.interactive``): a SIGINT that lands
between the prompt and the read interrupts nothing and was lost, which made `chat`'s Ctrl-C check flaky
on a loaded machine."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from conformance.clicheck.interactive import _waiting_for_input


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_process_blocked_on_input_is_seen_waiting_and_a_busy_one_is_not() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    reader = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not _waiting_for_input(reader.pid):
            assert time.monotonic() < deadline, "the reader was never seen waiting for input"
            time.sleep(0.05)
        assert _waiting_for_input(busy.pid) is False
    finally:
        busy.kill()
        reader.kill()
        busy.wait()
        reader.wait()
