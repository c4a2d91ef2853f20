"""agentd-conformance: a black-box conformance harness for A2A software.

The checks (``conformance.suites``) and the references they are proven against
(``conformance.fixtures``) are subpackages: what a checkout holds on disk is
what the wheel installs and what is imported.
"""

from __future__ import annotations

import sys

__version__ = "0.1.0"

# httpx's package imports its command-line client (click, rich, pygments: 65 ms of every process's start-up,
# issue 20) only to offer ``httpx.main``; marked absent, httpx falls back to its own stub, which says the CLI
# is not installed. Nothing here runs httpx's CLI. Done before any harness module imports httpx.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

