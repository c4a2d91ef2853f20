"""The command's exit codes, and the failures that end it with one line on stderr."""

from __future__ import annotations

EXIT_OK, EXIT_UNSATISFIED, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3


class UsageFailure(Exception):
    """A usage error: reported as one line, exit 2."""


class HarnessFailure(Exception):
    """The harness could not run: reported as one line, exit 3."""


class SuiteCrashed(HarnessFailure):
    """A process of the suite died before the run finished (``what``: which, and how); the run ended as an
    interrupted one, its (incomplete) report in ``report_dir``. Exit 3, like a run stopped by a signal."""

    def __init__(self, what: str, report_dir: str) -> None:
        super().__init__(f"the suite process crashed ({what})")
        self.what = what
        self.report_dir = report_dir


class NothingToRerun(Exception):
    """``--rerun-failed`` found every row of the earlier report settled."""


def one_line(exc: BaseException) -> str:
    """Errors are one line on stderr, whatever the exception's text holds (YAML errors span several)."""
    return " ".join(str(exc).split())
