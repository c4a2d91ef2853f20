"""Runs of the plugin over a module of checks, for the harness's own tests: one helper, so each test says only
which checks and which family."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.paths import PACKAGE_DIR, PLUGIN_ARGS


def run_checks(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, checks: str, family: str) -> Path:
    """Run ``checks`` (a test module's text) in ``pytester`` with the plugin judging them as ``family``, the
    harness importable and no outer PYTEST_ADDOPTS; the folder the report was written to."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PACKAGE_DIR.parent),
                                                                   os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    pytester.makepyfile(test_checks=checks)
    report = pytester.path / "report"
    pytester.runpytest(*PLUGIN_ARGS, "-p", "no:cacheprovider", "--conformance-report", str(report),
                       "--conformance-family", family)
    return report
