"""Benchmark: the a2a family against the official A2A TCK on the same agent, back to back.

Starts each agent as a user runs it (the scripted agent and the reference agentd served standalone, the
plain a2a-sdk agent in this process), then per round runs ``agentd-conformance agent --url URL --family a2a``
at each ``--jobs`` setting and, when ``--tck DIR`` names a checkout of a2aproject/a2a-tck (1.0-dev) with
its own virtualenv in ``DIR/.venv``, ``run_tck.py --sut-host URL`` from that folder; prints every wall time
and the ratio harness/TCK (below 1.0: the harness is faster). Usage::

    python -m benchmarks.side_by_side [--agent scripted reference sdk] [--rounds 3] [--jobs 1 2 auto]
                                      [--tck DIR] [--harness-python PYTHON]

``auto`` runs without ``--jobs``: the number the harness chooses by itself (its report's ``run.jobs``).
``--harness-python`` runs the harness with another interpreter, e.g. that of a virtualenv made as the README's
main job makes it (``pip install .``, whose modules pip compiles at install): the default, this checkout's
editable install, compiles the harness's modules on every run when ``PYTHONDONTWRITEBYTECODE`` is set (it is,
on the project's machines), which is start-up a user's install does not pay. The header says which.

The TCK is not a dependency of the project: fetch it from its public repository and install it into its own
virtualenv (``python3 -m venv DIR/.venv && DIR/.venv/bin/pip install -e DIR``). Record the figures with the
date and the machine's load (printed) in the README.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.clock import measuring, timed
from conformance.fixtures.plain_sdk_agent.server import PlainSdkAgent
from tests.served import REFERENCE_AGENTD, SCRIPTED_CORE, served
from tests.test_references_front_door import _own_ports


@contextlib.contextmanager
def agent_url(kind: str) -> Iterator[str]:
    """The base URL of a freshly started agent of ``kind``, stopped at the end."""
    if kind == "sdk":
        with PlainSdkAgent() as agent:
            yield agent.base_url
    else:
        with served(SCRIPTED_CORE if kind == "scripted" else REFERENCE_AGENTD) as url:
            yield url


def harness(url: str, jobs: str, tmp: Path, python: str = sys.executable) -> tuple[float, int]:
    given = [] if jobs == "auto" else ["--jobs", jobs]
    return timed([python, "-P", "-m", "conformance.command", "agent", "--url", url, "--family", "a2a",
                  *given, *_own_ports(url), "--report-dir", str(tmp / f"r-{jobs}-{time.monotonic_ns()}")],
                 timeout=1800)


def tck(url: str, folder: Path) -> tuple[float, int]:
    return timed([str(folder / ".venv" / "bin" / "python"), "run_tck.py", "--sut-host", url], cwd=folder,
                 timeout=1800)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", nargs="+", choices=["scripted", "reference", "sdk"],
                    default=["sdk", "scripted", "reference"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", nargs="+", default=["1", "2", "auto"], help="--jobs settings; auto: none given")
    ap.add_argument("--tck", type=Path, help="a checkout of a2aproject/a2a-tck with its virtualenv in .venv")
    ap.add_argument("--harness-python", default=sys.executable,
                    help="the interpreter that runs the harness (default: this one)")
    args = ap.parse_args()
    if args.tck and not (args.tck / "run_tck.py").is_file():
        sys.exit(f"--tck {args.tck}: no run_tck.py there")
    with measuring(args.harness_python), tempfile.TemporaryDirectory(prefix="side-by-side-") as tmp:
        for kind in args.agent:
            times: dict[str, list[float]] = {}
            for rnd in range(args.rounds):
                # A fresh agent per round: no run inherits the tasks of the one before.
                with agent_url(kind) as url:
                    if args.tck:
                        wall, code = tck(url, args.tck)
                        times.setdefault("tck", []).append(wall)
                        print(f"{kind} round {rnd + 1}: TCK {wall:.1f}s (exit {code})", flush=True)
                for jobs in args.jobs:
                    with agent_url(kind) as url:
                        wall, code = harness(url, jobs, Path(tmp), args.harness_python)
                    times.setdefault(f"jobs {jobs}", []).append(wall)
                    print(f"{kind} round {rnd + 1}: harness --jobs {jobs} {wall:.1f}s (exit {code})", flush=True)
            line = ", ".join(f"{k} median {statistics.median(v):.1f}s ({min(v):.1f}-{max(v):.1f})"
                             for k, v in times.items())
            print(f"{kind}: {line}", flush=True)
            if "tck" in times:
                for k, v in times.items():
                    if k != "tck":
                        print(f"{kind}: ratio harness {k} / TCK = "
                              f"{statistics.median(v) / statistics.median(times['tck']):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
