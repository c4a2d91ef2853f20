"""Shared set-up for the harness's own tests: pytester for the plugin tests, modest hypothesis budgets.

Set ``HARNESS_EXAMPLES=1000`` to search harder than the default 60 examples per property.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile("harness", max_examples=int(os.environ.get("HARNESS_EXAMPLES", "60")), deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("harness")
