"""Where the harness's own data lives, in a checkout and in the installed wheel, and how to start its modules."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SUITES_DIR = PACKAGE_DIR / "suites"
FIXTURES_DIR = PACKAGE_DIR / "fixtures"
REGISTRY_DATA_DIR = PACKAGE_DIR / "registry" / "data"
#: Load the plugin exactly once: by the name its pytest11 entry point registers it under, so an
#: installed copy and the checkout's module are the same plugin (``-p`` finds the entry point first).
PLUGIN_ARGS = ("-p", "conformance.plugin", "-p", "timeout")


def python_module(module: str) -> list[str]:
    """The argv that runs ``python -m module`` with this interpreter, whatever the working directory.

    ``-P`` keeps the working directory off ``sys.path``: run from a checkout, a plain ``-m`` would import
    the checkout's ``conformance`` instead of the installed one, and pytest would then find the same
    suites under two names (``ImportPathMismatchError``).
    """
    return [sys.executable, "-P", "-m", module]
