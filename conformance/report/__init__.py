"""Compliance reports: the YAML artifact, a readable summary, and JUnit XML.

``Report`` (``model``) is the one typed form of a report every reader and writer uses, checked
against the template's shape on load (``load_report``) and on write;
``build_report`` turns verdicts into one (COMPLIANCE.md Appendix A);
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
from conformance.report.model import REPORT_FILE, Report, ReportError, load_report
from conformance.report.write import ReportWriteError, render_saved, write_report

__all__ = [
    "REPORT_FILE",
    "Report",
    "ReportError",
    "SPEC_REVISION",
    "SPEC_VERSION",
    "ReportWriteError",
    "RunInfo",
    "blank_template",
    "build_report",
    "load_report",
    "render_report",
    "render_saved",
    "write_report",
]
