"""The pytest plugin: requirement markers, outcomes, evidence, and the report at session end.

A check names its requirements with ``@pytest.mark.requirement("ID", ..., part=None, transport=None)``.
One module per concern, in the order a run meets them:

* :mod:`~conformance.plugin.session` — options, the run's state, the controlling process's hooks;
  at session end it hands every outcome to :func:`conformance.pipeline.conclude` (outcomes → verdicts
  → rollup → report);
* :mod:`~conformance.plugin.markers` — every id validated against the registry at collection (an
  unknown id is a usage error), ``--conformance-only`` scoping, and the needs gate before a check runs;
* :mod:`~conformance.plugin.fixtures` — what checks take: ``evidence``, ``run_context``,
  ``run_secrets``, ``record_breakdown``, ``record_transport``, ``record_error_code``;
* :mod:`~conformance.plugin.outcomes` — each test's phases turned into one
  :class:`~conformance.outcome.Outcome` per id, with its redacted evidence file;
* :mod:`~conformance.plugin.state` — what the modules share: the run's and each item's state.

Load it with ``-p conformance.plugin`` (the name its ``pytest11`` entry point registers it under, so an
installed copy and ``-p`` never load it twice).
"""

from __future__ import annotations

from conformance.plugin.state import run_state

pytest_plugins = [
    "conformance.plugin.session",
    "conformance.plugin.markers",
    "conformance.plugin.fixtures",
    "conformance.plugin.outcomes",
]

__all__ = ["run_state"]
