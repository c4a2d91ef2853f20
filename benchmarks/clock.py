"""What the timing benchmarks share: one command's wall time, and the machine's load around a measurement (on a
shared machine the figures move with it)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def timed(cmd: list[str], *, timeout: float, cwd: Path | None = None) -> tuple[float, int]:
    """Run ``cmd`` with its output discarded; its wall time in seconds and its exit code."""
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    return time.monotonic() - t0, proc.returncode


def load_line(when: str) -> str:
    """``load average at WHEN: 1.00 0.80 0.50``."""
    return f"load average at {when}: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
