"""Benchmark: the fixed cost of a run (issue 20: start-up, pre-flight, report; goal under 1.5 s).

Runs, ``--repeat`` times each and back to back: ``agentd-conformance --help``; importing the ``cli`` and
``agent`` commands' modules (``python -X importtime``, the front's own start-up); and one-row runs — a CLI
that does nothing (``cli --exe /bin/true --only A2ACLI_SEND_001``) and a launched scripted agent
(``agent --launch scripted --family a2a --only A2A_CARD_001``), and the first of them on two rows with
``--jobs 2`` (two xdist workers). For a run it prints the wall time, the time
pytest spent in its session (its log's "in N s": collection, the check, the report) and the rest (the two
interpreters' start-up and imports, the command's reading and sealing of the report). Usage::

    python -m benchmarks.fixed_cost [--repeat 5] [--harness-python PYTHON]

``--harness-python`` runs the harness with another interpreter (e.g. a virtualenv made by ``pip install .``
as the README's main job makes it, whose modules pip compiled: with ``PYTHONDONTWRITEBYTECODE`` set, as on the
project's machines, an editable checkout compiles the harness's modules on every run).

Prints the load average before and after: on a shared machine the figures move with it. Timings are never
asserted in tests.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.clock import measuring, timed

RUNS = {
    "cli, one row, /bin/true": ["cli", "--exe", "/bin/true", "--only", "A2ACLI_SEND_001"],
    "a2a, one row, launched scripted agent": ["agent", "--launch", "scripted", "--family", "a2a", "--only",
                                              "A2A_CARD_001"],
    "cli, two rows, /bin/true, --jobs 2": ["cli", "--exe", "/bin/true", "--only", "A2ACLI_SEND_001",
                                           "A2ACLI_TASK_LIST_001", "--jobs", "2"],
}


def import_ms(module: str, python: str = sys.executable) -> float:
    """The cumulative import time of ``module`` in a fresh interpreter, as ``-X importtime`` reports it."""
    proc = subprocess.run([python, "-P", "-X", "importtime", "-c", f"import {module}"], capture_output=True,
                          text=True, timeout=120, check=False)
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            return int(parts[1]) / 1000
    return float("nan")


def session_seconds(report: Path) -> float:
    """pytest's own account of its session (the last "in N s" of its log)."""
    found = re.findall(r" in (\d+(?:\.\d+)?)s", (report / "pytest.log").read_text(encoding="utf-8"))
    return float(found[-1]) if found else float("nan")


def _line(name: str, values: list[float], unit: str = "s") -> str:
    return f"{name}: median {statistics.median(values):.3f} {unit} (min {min(values):.3f}, max {max(values):.3f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--harness-python", default=sys.executable, help="the interpreter that runs the harness")
    args = ap.parse_args()
    front = [args.harness_python, "-P", "-m", "conformance.command"]  # -P: that install, not the checkout
    with measuring(args.harness_python):
        print(_line("--help", [timed([*front, "--help"], timeout=600)[0] for _ in range(args.repeat)]), flush=True)
        for module in ("conformance.command.cli", "conformance.command.agent"):
            ms = [import_ms(module, args.harness_python) for _ in range(args.repeat)]
            print(_line(f"import {module}", ms, "ms"), flush=True)
        with tempfile.TemporaryDirectory(prefix="fixed-cost-") as tmp:
            for name, argv in RUNS.items():
                walls: list[float] = []
                sessions: list[float] = []
                for i in range(args.repeat):
                    out = Path(tmp) / f"{len(walls)}-{i}-{time.monotonic_ns()}"
                    walls.append(timed([*front, *argv, "--report-dir", str(out)], timeout=600)[0])
                    sessions.append(session_seconds(out))
                rest = [w - s for w, s in zip(walls, sessions, strict=True)]
                print(f"{name}: {_line('wall', walls)}; {_line('pytest session', sessions)}; "
                      f"{_line('the rest', rest)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
