"""The suite's process as the command starts it: ``python -P -m conformance.pytest_main ARGS`` is ``pytest ARGS``,
ended without the interpreter's teardown. (It imports nothing of the harness: the plugin, loaded by ``-p``,
must be imported by pytest, which rewrites its asserts.)

Once pytest has returned, the report is written, every fixture torn down and pytest.log flushed; what is
left is the interpreter freeing some 1,300 modules one by one, measured at 0.4-1.1 s of every run on a
loaded 2-core machine (issue 20: the fixed cost of a run; /work/helpers/notes/jobs.md). The exit handlers
still run (``atexit``: logging's flush, the finalizers of temporary folders), then the process exits with
pytest's code. A thread some check left running is cut off rather than waited for.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

import pytest


def main() -> None:
    code = int(pytest.main())  # the arguments are sys.argv[1:], as `python -m pytest` takes them
    try:
        atexit._run_exitfuncs()  # what a normal exit runs first; the module teardown after it is skipped
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # closed, or the reader went away
                stream.flush()
        os._exit(code)


if __name__ == "__main__":
    main()
