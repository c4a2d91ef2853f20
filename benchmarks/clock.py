"""What the timing benchmarks share: one command's wall time, and the machine's load around a measurement (on a
shared machine the figures move with it)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
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


@contextlib.contextmanager
def measuring(harness_python: str) -> Iterator[None]:
    """Frame a benchmark's figures: the load before, which interpreter runs the harness and whether
    ``PYTHONDONTWRITEBYTECODE`` makes it compile the harness's modules on every run, then the load after."""
    print(load_line("start"), flush=True)
    print(f"harness: {harness_python}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}", flush=True)
    yield
    print(load_line("end"), flush=True)
