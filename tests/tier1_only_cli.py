"""A Tier-1-only stand-in: the reference CLI with every Tier 2/3 command and flag removed.

Run as ``python tests/tier1_only_cli.py ARGS``: an invocation using a command or flag that only Tier
2/3 requirements name (``conformance.clicheck.features.OWNERS``) ends with exit 2 and the usual "unknown
command" / "unknown option" line naming it, as a tool without the feature would; every other
invocation is the reference CLI's own.
"""

from __future__ import annotations

import os
import sys

from conformance.clicheck.features import OWNERS
from conformance.registry import default_registry


def removed() -> list[str]:
    """The spec features (commands and flags) only Tier 2/3 requirements name."""
    registry = default_registry()

    def tier(rid: str) -> int:
        t = registry[rid].tier
        if t is None:
            raise ValueError(f"{rid} owns a CLI feature but has no tier")
        return t

    return [f for f, owners in OWNERS.items()
            if not f.startswith("A2ACLI_") and all(tier(i) > 1 for i in owners)]


def _uses(argv: list[str], feature: str) -> bool:
    if feature.startswith("-"):
        return any(a == feature or a.startswith(feature + "=") for a in argv)
    words = feature.split()
    return any(argv[i:i + len(words)] == words for i in range(len(argv)))


def main() -> None:
    argv = sys.argv[1:]
    for feature in removed():
        if _uses(argv, feature):
            kind = "option" if feature.startswith("-") else "command"
            sys.stderr.write(f"a2a-cli: unknown {kind} '{feature}'\nusage: a2a-cli <command> [options]\n")
            sys.exit(2)
    os.execv(sys.executable, [sys.executable, "-m", "conformance.fixtures.reference_cli", *argv])


if __name__ == "__main__":
    main()
