"""Configurations a launched reference is asked for (workflows, principals, the standard instance),
and the bounds of the bad-input checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from hypothesis import HealthCheck, Phase, settings

from conformance.agentd_page.launch import Principal, Workflow, as_role

if TYPE_CHECKING:
    from conformance.targets.instances import AgentTargets

#: Hypothesis settings of the bad-input checks: bounded, deterministic, no database on disk, no
#: shrinking (the first failing example is the evidence).
BAD_INPUT = settings(
    max_examples=30,
    deadline=None,
    database=None,
    derandomize=True,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
)
#: The argument schema of the workflow-declared command the checks configure (the page's example).
REVIEW_SCHEMA: Final = {"type": "object", "required": ["change"], "properties": {"change": {"type": "string"}}}
#: The answer an input-required gate asks for, and where it is announced.
ASK_SCHEMA: Final = {"type": "object", "required": ["approve"], "properties": {"approve": {"type": "boolean"}}}
ASK_CHANNEL: Final = "#reviews"


def workflows() -> tuple[Workflow, ...]:
    """The workflows of the standard configuration: ``build`` runs to completion, ``hold`` stays
    working until canceled, ``ask`` stops at an input-required gate, ``review`` declares the
    command ``review.change`` (roles operator and agent)."""
    return (
        Workflow("build"),
        Workflow("hold", hold=True),
        Workflow("ask", ask=dict(ASK_SCHEMA), ask_channel=ASK_CHANNEL),
        Workflow("review", roles=("operator", "agent"), command="review.change", schema=dict(REVIEW_SCHEMA)),
    )


def standard(**more: Any) -> dict[str, Any]:
    """Needs of the standard instance: principals per role, the workflows, the agent granted review.change."""
    needs: dict[str, Any] = {"auth": True, "workflows": workflows(), "grants": {"agent": ("review.change",)}}
    needs.update(more)
    return needs


_PRINCIPALS: dict[tuple[tuple[str, str, tuple[str, ...]], ...], tuple[tuple[Principal, ...], dict[str, str]]] = {}


def principals(
    agent_targets: AgentTargets, specs: Sequence[tuple[str, str, Sequence[str]]]
) -> tuple[tuple[Principal, ...], dict[str, str]]:
    """Principals ``(name, role, grants)`` with fresh bearer tokens (registered as secrets), made
    once per spec list so a cached instance and its tokens stay together; returns them and
    name → token."""
    key = tuple((n, r, tuple(sorted(g))) for n, r, g in specs)
    if key not in _PRINCIPALS:
        # make(): a name like "agent-without-grant" in the token would redact "-without-" everywhere.
        tokens = {n: agent_targets.secrets.make(n) for n, _, _ in key}
        made = tuple(
            Principal(name=n, token=tokens[n], role=as_role(r, n), grants=frozenset(g)) for n, r, g in key
        )
        _PRINCIPALS[key] = (made, tokens)
    return _PRINCIPALS[key]
