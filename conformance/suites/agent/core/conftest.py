"""Fixtures of the core (a2a) checks: the agent under test, per-binding callers, state control.

The agent is resolved once per test process, at collection: launched (reference, scripted, sdk) or
given by URL, and its card fetched from the well-known path. A check that takes the ``binding``
argument is parametrized over the standard bindings that card declares (JSON-RPC, HTTP+JSON, gRPC),
so the plugin keeps one result per transport; a binding the card does not declare is not a
parameter at all. ``@pytest.mark.core_bindings("JSONRPC")`` narrows a check to some bindings (rows
about one binding); when the card declares none of them the check ends ``na``. An unreadable card
gives a single parameter whose checks fail with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance.a2a.steps import STEP_ROWS
from conformance.context import RunContext
from conformance.evidence import SecretSet
from conformance.judge.errors import ERROR_INFO_ROW
from conformance.receiver import Receiver
from conformance.targets.core import BASE_ROWS, INTERFACE_ROW, CoreAgent, binding_params
from conformance.targets.instances import AgentTargets
from conformance.targets.kinds import targets_for
from conformance.targets.model import AgentTarget
from conformance.wire import STANDARD_BINDINGS, Recorder
from conformance.wire.caller import Caller

_AGENT = pytest.StashKey[CoreAgent]()
_TARGETS = pytest.StashKey[AgentTargets]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "core_bindings(*names): the bindings a core check applies to")


def _run(config: pytest.Config) -> tuple[RunContext, SecretSet]:
    """The run context and secret set the conformance plugin holds (defaults without the plugin)."""
    from conformance.plugin import run_state

    ctx, secrets = run_state(config)
    return (ctx if ctx.target or ctx.family == "a2a" else RunContext(family="a2a")), secrets


def _targets(config: pytest.Config) -> AgentTargets:
    if _TARGETS not in config.stash:
        ctx, secrets = _run(config)
        targets = targets_for(AgentTarget.from_dict(ctx.target), secrets)
        config.add_cleanup(targets.close)
        config.stash[_TARGETS] = targets
    return config.stash[_TARGETS]


def core_agent_of(config: pytest.Config) -> CoreAgent:
    """The agent under test for this process, launched or located on first use."""
    if _AGENT not in config.stash:
        targets = _targets(config)
        try:
            instance = targets.core()
        except Exception as exc:  # noqa: BLE001 - a target that will not start is reported per check
            agent = CoreAgent.broken(f"the target could not be started or located: {type(exc).__name__}: {exc}")
        else:
            agent = CoreAgent.open(instance, targets) if instance is not None else CoreAgent.broken(
                "this target cannot serve the core checks")
        config.stash[_AGENT] = agent
    return config.stash[_AGENT]


def _ids(node: Any) -> list[str]:
    return [rid for m in node.iter_markers("requirement") for rid in m.args]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every core check stands on the card (A2A_CARD_001) and on its interfaces answering A2A
    (A2A_CARD_007), on the shared steps' minimum (``STEP_ROWS``: a result that can be read at all, a
    task with an id, a GetTask answer), and on an error naming itself (``ERROR_INFO_ROW``): it declares so
    (the blame rule), unless it measures that row."""
    for item in items:
        if "/core/" not in str(item.path).replace("\\", "/"):
            continue
        ids = _ids(item)
        rows = [r for r in (*BASE_ROWS, *STEP_ROWS, ERROR_INFO_ROW) if r not in ids]
        if ids and rows:
            item.add_marker(pytest.mark.depends_on(*rows))


def _wanted(node: Any) -> tuple[str, ...]:
    mark = node.get_closest_marker("core_bindings")
    return tuple(mark.args) if mark is not None and mark.args else STANDARD_BINDINGS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "binding" not in metafunc.fixturenames:
        return
    params = binding_params(core_agent_of(metafunc.config), _wanted(metafunc.definition))
    metafunc.parametrize("binding", params, ids=params)


@pytest.fixture(scope="session")
def agent_targets(pytestconfig: pytest.Config) -> AgentTargets:
    """The same targets object the collection used (one launch per configuration and process)."""
    return _targets(pytestconfig)


@pytest.fixture(scope="session")
def core_agent(pytestconfig: pytest.Config) -> CoreAgent:
    return core_agent_of(pytestconfig)


@pytest.fixture
def caller(core_agent: CoreAgent, binding: str, recorder: Recorder, request: pytest.FixtureRequest) -> Iterator[Caller]:
    """A caller for this check's binding, recording every exchange as the check's evidence."""
    ids = _ids(request.node)
    c = core_agent.caller(binding, recorder, _wanted(request.node), probe=INTERFACE_ROW not in ids, measures=tuple(ids))
    yield c
    c.close()


@pytest.fixture
def webhook(core_agent: CoreAgent) -> Iterator[Receiver]:
    """A webhook where the agent under test reaches the harness (loopback, or the harness's address on
    a container's network; https with a certificate of the harness's CA for an image that calls back to
    https only; checks of delivery end not_measured where the agent has no way back: ``way_back``)."""
    with Receiver(path="/a2a-webhook", host=core_agent.callback_host or "127.0.0.1",
                  tls=core_agent.callback_scheme == "https") as hook:
        yield hook
