"""Shared set-up for the harness's own tests: pytester for the plugin tests, modest hypothesis budgets.

Set ``HARNESS_EXAMPLES=1000`` to search harder than the default 60 examples per property.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from conformance.cli.runner import let_children_take_sigint

pytest_plugins = ["pytester"]

settings.register_profile("harness", max_examples=int(os.environ.get("HARNESS_EXAMPLES", "60")), deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("harness")


def pytest_configure(config: pytest.Config) -> None:
    """The runner tests interrupt their children: a test session started with SIGINT ignored must not
    pass that on to them (see ``let_children_take_sigint``)."""
    let_children_take_sigint()


@pytest.fixture(scope="module")
def engine() -> Any:
    """The container engine for the tests of container targets; without one they are skipped as not measured."""
    from conformance.targets.engine import EngineUnavailable, docker_client

    try:
        return docker_client()
    except EngineUnavailable as exc:
        pytest.skip(f"not measured: no container engine for the harness's own tests ({exc})")
