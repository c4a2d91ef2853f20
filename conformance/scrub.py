"""Keep the run's secrets out of pytest's own rendering of a test: its traceback and captured output.

pytest prints a failing test's traceback (with the reprs of its arguments, cut short around ``...``) and
its captured output into ``pytest.log``, and xdist ships them from worker to controller. The
:class:`Scrubber` redacts each report once every other plugin has made it, in the process that knows the
secrets the test registered. The sweep of the report folder after the run stays the safety net.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from conformance.redact import SecretSet


def scrub_report(report: pytest.TestReport | pytest.CollectReport, secrets: SecretSet) -> None:
    """Redact ``report``'s failure text and captured sections in place (a rendered traceback becomes text)."""
    if not len(secrets):
        return
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        path, line, reason = longrepr
        report.longrepr = (path, line, secrets.redact(str(reason)))
    elif longrepr is not None:
        text = str(longrepr)
        clean = secrets.redact(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(title, secrets.redact(content)) for title, content in report.sections]


class Scrubber:
    """The hooks: outermost, so what they see is what pytest and the other plugins will print."""

    def __init__(self, secrets: SecretSet) -> None:
        self.secrets = secrets

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]
                                  ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        scrub_report(report, self.secrets)
        return report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_make_collect_report(self, collector: pytest.Collector
                                   ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        scrub_report(report, self.secrets)
        return report
