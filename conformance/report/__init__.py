"""Compliance reports: the YAML artifact, a readable summary, and JUnit XML.

``build_report`` turns verdicts into the template's shape (COMPLIANCE.md Appendix A);
``write_report`` lays out ``<dir>/compliance-report.yaml``, ``summary.md``, ``junit.xml``,
``outcomes.jsonl`` and, for the CLI half, the publishable ``COMPLIANCE.md``; ``render_saved``
rebuilds the readable files from a saved YAML.
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
from conformance.report.write import ReportWriteError, render_saved, write_report

__all__ = [
    "SPEC_REVISION",
    "SPEC_VERSION",
    "ReportWriteError",
    "RunInfo",
    "blank_template",
    "build_report",
    "render_report",
    "render_saved",
    "write_report",
]
