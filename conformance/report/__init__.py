"""Compliance reports: the YAML artifact, a readable summary, and JUnit XML.

``build_report`` turns verdicts into the template's shape (COMPLIANCE.md Appendix A);
``write_report`` lays out ``<dir>/compliance-report.yaml``, ``summary.md`` and ``junit.xml``.
The blank template is ``build_report`` with no outcomes and placeholder identity.
"""

from __future__ import annotations

from conformance.report.build import (
    SPEC_REVISION,
    SPEC_VERSION,
    RunInfo,
    blank_template,
    build_report,
    render_report,
)
from conformance.report.write import ReportWriteError, write_report

__all__ = [
    "SPEC_REVISION",
    "SPEC_VERSION",
    "ReportWriteError",
    "RunInfo",
    "blank_template",
    "build_report",
    "render_report",
    "write_report",
]
