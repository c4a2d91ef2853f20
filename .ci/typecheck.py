"""`mypy` over the package and the folders a checkout maps into it at run time, under their run-time names.

In a checkout ``fixtures/`` and ``suites/`` are importable only as ``conformance.fixtures`` and
``conformance.suites`` (``conformance/__init__.py`` aliases them; the wheel puts them inside the package).
Plain ``mypy fixtures/x.py`` would name that file ``fixtures.x``, and every ``conformance.fixtures.*``
import would be a missing module, i.e. ``Any``. This runner takes mypy's own command line (options, files and
folders, read with the project's configuration as usual), renames each source under ``fixtures/`` or
``suites/`` to the module the harness imports, and runs one build: a ``conformance.fixtures.scripted_agent``
import in a checked file resolves to that file, typed.

    python .ci/typecheck.py --strict conformance fixtures suites tests benchmarks

Exit status and output are mypy's.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mypy import util
from mypy.fscache import FileSystemCache
from mypy.main import process_options, run_build
from mypy.modulefinder import BuildSource

# Folders of the checkout that are importable as ``conformance.<name>`` (and only so).
MAPPED = ("fixtures", "suites")
# The checkout's root, and its folder of tests: a namespace package (no ``__init__.py``, so pytest imports each
# test module by its basename) whose modules import each other as ``tests.<name>``.
ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def runtime_name(source: BuildSource) -> BuildSource:
    """The source under the name the harness imports it by (``fixtures.x`` -> ``conformance.fixtures.x``).

    A file under ``tests/`` is named ``tests.<name>`` (mypy, finding no ``__init__.py`` there, would call it
    ``<name>``, and a ``from tests.<name> import`` elsewhere would find the same file under a second name).
    """
    module = source.module
    if module.split(".", 1)[0] in MAPPED:
        return BuildSource(source.path, f"conformance.{module}", source.text, source.base_dir, source.followed)
    if source.path is not None:
        path = Path(source.path).resolve()
        if path.is_relative_to(TESTS) and not module.startswith("tests."):
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            return BuildSource(source.path, dotted, source.text, str(ROOT), source.followed)
    return source


def main(args: list[str]) -> int:
    t0 = time.time()
    fscache = FileSystemCache()
    sources, options = process_options(args, fscache=fscache)
    sources = [runtime_name(s) for s in sources]
    _, messages, blockers = run_build(sources, options, fscache, t0, sys.stdout, sys.stderr)
    formatter = util.FancyFormatter(sys.stdout, sys.stderr, options.hide_error_codes)
    n_errors, n_notes, n_files = util.count_stats(messages)
    if n_errors:
        print(formatter.format_error(n_errors, n_files, len(sources), blockers=blockers))
        return 2 if blockers else 1
    print(formatter.format_success(len(sources)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
