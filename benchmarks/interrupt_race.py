"""Benchmark (a property of a dependency, too slow and too racy for CI): how often a Ctrl-C that lands while the
HTTP library takes or gives back its connection pool's lock leaves that lock held.

httpcore's ``ThreadLock.__enter__`` and ``__exit__`` are Python code around ``threading.Lock.acquire`` and
``release``. A signal handler runs between bytecodes, so a ``KeyboardInterrupt`` can be raised after the lock is
taken and before the ``with`` block that gives it back is entered (or inside ``__exit__`` before ``release``).
The lock then stays held, and the pool's own clean-up (``close()``, or the handler that removes an interrupted
request) waits on it for ever. This is why the reference CLI bounds its way out after Ctrl-C
(``conformance.fixtures.reference_cli.main.INTERRUPT_GRACE_S``).

The main thread loops ``with ThreadLock(): pass`` while a second process sends it SIGINT after a short, varied
pause; each interrupt ends the loop, and the lock is looked at. Usage::

    python -m benchmarks.interrupt_race [--interrupts 3000]

Prints how many of the interrupts left the lock held. Bounded: one child process, ``--interrupts`` signals.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from httpcore._synchronization import ThreadLock

#: The child that interrupts this process: for each line read, sleep that many seconds, then send SIGINT.
KILLER = """
import os, signal, sys, time
for line in sys.stdin:
    time.sleep(float(line))
    os.kill(int(sys.argv[1]), signal.SIGINT)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interrupts", type=int, default=3000)
    args = ap.parse_args()
    killer = subprocess.Popen([sys.executable, "-c", KILLER, str(os.getpid())], stdin=subprocess.PIPE, text=True,
                              bufsize=1)
    assert killer.stdin is not None
    held = 0
    try:
        for i in range(args.interrupts):
            lock = ThreadLock()
            try:
                killer.stdin.write(f"{0.001 + (i % 7) * 0.0003}\n")
                while True:
                    with lock:
                        pass
            except KeyboardInterrupt:
                pass
            held += lock._lock.locked()
    finally:
        killer.stdin.close()
        killer.wait(timeout=10)
    print(f"{held} of {args.interrupts} interrupts left httpcore's pool lock held", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
