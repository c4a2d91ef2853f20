"""The target kinds (``conformance.targets.kinds``) as docs/architecture.md's recipe "A target kind" tells a
contributor to add one: every kind is a :class:`TargetKind` entered in ``KINDS`` under its run-context name,
the recipe names every method of the base class (so a method added to it is added to the recipe), and each
kind describes a target built from its flag as the suite's processes read it back."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from conformance.targets import kinds
from conformance.targets.kinds import KINDS, TargetKind, build_target, kind_of
from conformance.targets.model import AgentTarget, TargetError

ROOT = Path(__file__).resolve().parents[1]


def _recipe() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    m = re.search(r"^- \*\*A target kind\.\*\*(.*?)(?=^- \*\*|^## )", text, re.S | re.M)
    assert m, 'docs/architecture.md has no recipe "A target kind"'
    return m.group(1)


def test_the_recipe_names_every_method_of_the_base_and_its_table() -> None:
    recipe = _recipe()
    methods = {n for n, v in vars(TargetKind).items()
               if (inspect.isfunction(v) or isinstance(v, property | classmethod)) and not n.startswith("_")}
    named = set(re.findall(r"`(?:targets/kinds\.py:)?TargetKind\.(\w+)`", recipe))
    assert methods - named == set(), f"the recipe does not name TargetKind.{sorted(methods - named)}"
    assert named - methods == set(), f"the recipe names what TargetKind lacks: {sorted(named - methods)}"
    for name in ("KINDS", "Preflight", "Running", "build_target", "kind_of", "targets_for"):
        assert f"targets/kinds.py:{name}`" in recipe and hasattr(kinds, name), name


def test_every_kind_class_is_entered_under_its_name() -> None:
    classes = {c for c in vars(kinds).values() if inspect.isclass(c) and issubclass(c, TargetKind)
               and c is not TargetKind and c.name != TargetKind.name}
    assert set(KINDS.values()) == classes
    assert all(name == k.name for name, k in KINDS.items())
    assert type(kind_of(AgentTarget.from_dict({"kind": "none"}))) is TargetKind  # serves no check


@pytest.mark.parametrize(("given", "kind", "folder", "running", "launchable"), [
    ({"launch": "reference"}, "launch", "reference-agentd", False, True),
    ({"launch": "scripted"}, "launch", "scripted-agent", False, False),
    ({"launch": "sdk"}, "launch", "plain-sdk-agent", False, False),
    ({"container": {"image": "x:1"}}, "container", "container-x:1", False, True),
    ({"url": "http://127.0.0.1:9/agent"}, "url", "http://127.0.0.1:9/agent", True, False),
    ({"unix": "/tmp/agent.sock"}, "unix", "unix-agent.sock", True, False),
])
def test_each_kind_describes_the_target_built_from_its_flag(given: dict[str, object], kind: str, folder: str,
                                                            running: bool, launchable: bool) -> None:
    target = build_target(**given)  # type: ignore[arg-type]
    made = kind_of(target)
    assert type(made) is KINDS[kind]
    assert (made.default_name(), made.running, made.launchable) == (folder, running, launchable)
    again = kind_of(AgentTarget.from_dict(target.to_dict()))  # as the suite's processes read it back
    assert (type(again), again.where(), again.provides(), again.origins()) == (
        type(made), made.where(), made.provides(), made.origins())


@pytest.mark.parametrize(("given", "message"), [
    ({"url": "http://127.0.0.1:9/", "container_env_plain": {"A": "b"}},
     "--container-env applies only with --container"),
    ({"unix": "/tmp/a.sock", "defects": ["x"]}, "--defect applies only to a launched reference target"),
    ({"launch": "sdk", "defects": ["x"]}, "--defect: the sdk target is the plain a2a-sdk agent and has no defects"),
    ({"container": {"image": "x:1"}, "defects": ["no-such"]}, "--defect: unknown defect(s) of the reference target"),
    ({"container": {"image": "x:1"}, "allow_origins": ["http://a:1"]}, "--allow-origin applies only with --url"),
])
def test_a_kind_refuses_the_options_it_does_not_take(given: dict[str, object], message: str) -> None:
    with pytest.raises(TargetError) as caught:
        build_target(**given)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
