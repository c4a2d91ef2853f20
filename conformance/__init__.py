"""agentd-conformance: a black-box conformance harness for A2A software.

In a checkout, ``suites/`` and ``fixtures/`` sit beside this package; in the
installed wheel they are mapped inside it. Either way they are importable as
``conformance.suites`` and ``conformance.fixtures``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__version__ = "0.1.0"

_HERE = Path(__file__).resolve().parent

# httpx's package imports its command-line client (click, rich, pygments: 65 ms of every process's start-up,
# issue 20) only to offer ``httpx.main``; marked absent, httpx falls back to its own stub, which says the CLI
# is not installed. Nothing here runs httpx's CLI. Done before any harness module imports httpx.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def _alias_checkout_dir(name: str) -> None:
    """Expose ``<checkout>/<name>`` as ``conformance.<name>`` when running from a checkout."""
    if (_HERE / name).is_dir():  # wheel layout: the real package is already here
        return
    src = _HERE.parent / name
    init = src / "__init__.py"
    full = f"{__name__}.{name}"
    if full in sys.modules or not init.is_file():
        return
    spec = importlib.util.spec_from_file_location(full, init, submodule_search_locations=[str(src)])
    if spec is None or spec.loader is None:  # pragma: no cover - importlib contract
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)


_alias_checkout_dir("fixtures")
_alias_checkout_dir("suites")
