"""Requirement markers: validated against the registry at collection, scoped, and gated on needs.

``@pytest.mark.requirement("ID", ..., part=None, transport=None)`` names what a check measures;
``@pytest.mark.depends_on("ID", ...)`` what it relies on (the blame rule). An unknown id, an unknown
part, or a dependency on what the check itself measures is a usage error. ``--conformance-only``
deselects every check of no selected id. A check whose every requirement needs something this run's
target does not provide is not started at all: it ends ``not_measured`` naming the need.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import allure_labels
from conformance.judge import DEPENDS_MARKER
from conformance.outcome import NotMeasured
from conformance.plugin.state import MARKER, STATE, ids_of, requirement_marks
from conformance.registry import RegistryError, needs_note


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*ids, part=None, transport=None): the requirement ids this check measures")
    config.addinivalue_line(
        "markers", f"{DEPENDS_MARKER}(*ids): requirements whose features this check relies on (the blame rule)")


def depends_of(item: pytest.Item) -> list[str]:
    return [rid for m in item.iter_markers(DEPENDS_MARKER) for rid in m.args]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    state = config.stash[STATE]
    marked = [it for it in items if requirement_marks(it)]
    if not marked:
        return
    try:
        registry = state.registry
    except RegistryError as exc:
        raise pytest.UsageError(f"cannot load the requirement registry: {exc}") from exc
    for it in marked:
        for m in requirement_marks(it):
            if not m.args:
                raise pytest.UsageError(f"{it.nodeid}: @pytest.mark.requirement needs at least one id")
            for rid in m.args:
                if not isinstance(rid, str) or rid not in registry:
                    raise pytest.UsageError(f"{it.nodeid}: unknown requirement id {rid!r} (not in the registry)")
                part = m.kwargs.get("part")
                if part is not None and part not in registry[rid].parts:
                    raise pytest.UsageError(
                        f"{it.nodeid}: {rid} has no part {part!r} (registry parts: {list(registry[rid].parts)})")
        for rid in depends_of(it):
            if not isinstance(rid, str) or rid not in registry:
                raise pytest.UsageError(f"{it.nodeid}: {DEPENDS_MARKER} names unknown requirement id {rid!r}")
            if rid in ids_of(it):
                raise pytest.UsageError(f"{it.nodeid}: {DEPENDS_MARKER} names {rid}, which the check measures")
        if allure_labels.active(config):
            allure_labels.mark(it, [registry[rid] for rid in ids_of(it)])
    scope = state.context.scope
    if scope is not None:
        wanted = set(scope)
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for it in items:
            (keep if set(ids_of(it)) & wanted else drop).append(it)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    mapping = {it.nodeid: ids_of(it) for it in items if requirement_marks(it)}
    collect_map = config.getoption("conformance_collect_map")
    if collect_map and not state.is_worker:
        doc = {it.nodeid: {"ids": ids_of(it), "depends_on": depends_of(it)} for it in items
               if requirement_marks(it)}
        Path(collect_map).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    if state.is_worker:
        path = state.secret_dir / f"collect-{state.worker_id}.json"
        path.write_text(json.dumps(mapping), encoding="utf-8")
    else:
        state.mapping = mapping


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A check whose every requirement needs something this run lacks is not started at all."""
    ids = ids_of(item)
    state = item.config.stash.get(STATE, None)
    if not ids or state is None or state.context.provides is None:
        return
    provided = set(state.context.provides)
    registry = state.registry
    lacking = {rid: [n for n in registry[rid].needs if n not in provided] for rid in ids if rid in registry}
    if lacking and all(lacking.values()):
        first = next(iter(lacking.values()))
        raise NotMeasured(needs_note(first))
