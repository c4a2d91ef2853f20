"""Benchmark (a property, too slow for CI in full): an agent off the root is judged as one at the root.

The reference agentd is served twice as a running target (``--url``), once with JSON-RPC at ``/`` and once
at ``/a2a/jsonrpc`` with the root answering an HTML 404, and the whole agentd and a2a families run against
both; every row must get the same status. CI compares a sample of the agentd family
(``tests/test_agent_not_at_root.py``). Usage::

    python -m benchmarks.not_at_root [--family agentd a2a]

Prints each family's wall time and every row whose status differs; exit 1 when one does.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from conformance.fixtures.reference_agentd import Config, ReferenceAgentd
from tests.killmatrix import run_command
from tests.test_agent_not_at_root import FACTS, _differences, _moved, _statuses


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", nargs="+", choices=["agentd", "a2a"], default=["agentd", "a2a"])
    args = ap.parse_args()
    differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.family:
            facts = FACTS if family == "agentd" else ()
            t0 = time.monotonic()
            with ReferenceAgentd(Config()) as root:
                at_root = _statuses(run_command(["agent", "--url", root.url, "--family", family, *facts],
                                                Path(tmp) / f"{family}-root"))
            moved_agent = _moved()
            try:
                moved = _statuses(run_command(["agent", "--url", moved_agent.url.rstrip("/"), "--family", family,
                                               *facts], Path(tmp) / f"{family}-moved"))
            finally:
                moved_agent.stop()
            diff = _differences(at_root, moved)
            differing += len(diff)
            print(f"{family}: {len(at_root)} rows, {sum(s == 'pass' for s, _ in at_root.values())} pass at the root, "
                  f"{len(diff)} differ ({time.monotonic() - t0:.0f} s)")
            for rid, d in diff.items():
                print(f"  {rid}: {d}")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
