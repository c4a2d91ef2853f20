"""Shared set-up for the harness's own tests: pytester for the plugin tests, modest hypothesis budgets."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile("harness", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("harness")
