"""Benchmark (a property, too slow for CI in full): every named defect of the three references is caught.

CI runs, per reference, a set of defects that together name every id and part (``tests.killmatrix.covering``),
grouped several to a run (``tests.killmatrix.batches``): every check is shown to fail. This runs the kill
matrix over every named defect, alone, so each defect's declared ids are shown failing for it. Usage::

    python -m benchmarks.kill_matrix [-k cli-|core-|agentd-|NAME] [-n 3]

Exit status is pytest's (0: every defect caught).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    env = {**os.environ, "CONFORMANCE_KILL_MATRIX": "all"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=20",
           str(ROOT / "tests" / "test_kill_matrix.py"), *sys.argv[1:]]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
