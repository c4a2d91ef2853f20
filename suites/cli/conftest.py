"""Fixtures of the CLI half: the CLI under test, and the scripted agent it is run against.

Every CLI invocation and every request the agent received is attached to the check's evidence,
redacted of the run's secrets. Checks use only these fixtures and ``conformance.cli.output``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.adapter import Adapter, Unsupported
from conformance.cli.features import (
    ADAPTER_UNSUPPORTED,
    Missing,
    judge_missing,
    require_features,
    undeclared,
    used_features,
)
from conformance.cli.runner import CliResult, CliRunner
from conformance.context import RunContext
from conformance.evidence import Evidence, SecretSet
from conformance.fixtures.scripted_agent import Script, ScriptedAgent
from conformance.judge import DEPENDS_MARKER
from conformance.paths import FIXTURES_DIR, PACKAGE_DIR, python_module

#: Per-invocation bound: a CLI that hangs fails its check with evidence, and the run goes on.
CLI_TIMEOUT = 20.0


class CliTarget:
    """The CLI under test as the command described it (or the bundled reference CLI)."""

    def __init__(self, ctx: RunContext) -> None:
        t = ctx.target if ctx.target.get("kind") == "cli" else {}
        self.reference = not t or bool(t.get("reference"))
        self.prefix: list[str] = list(t.get("prefix") or python_module("conformance.fixtures.reference_cli"))
        self.env: dict[str, str] = dict(t.get("env") or {})
        if self.reference:
            self.env.setdefault("PYTHONPATH", str(PACKAGE_DIR.parent))
        self.adapter = Adapter.load(Path(t["adapter"])) if t.get("adapter") else None
        skill = t.get("skill")
        if skill is None and self.reference:
            skill = str(FIXTURES_DIR / "reference_cli" / "SKILL.md")
        self.skill: Path | None = Path(skill) if skill else None
        #: The user's bound on each invocation (``--cli-timeout``): the default, and a cap on longer waits.
        self.timeout_cap: float | None = t.get("cli_timeout")


class Cli:
    """Runs the CLI under test; every run is recorded as evidence, and judged by the blame rule.

    ``own`` are the requirements the running check measures, ``declared`` those it names with
    ``@pytest.mark.depends_on``. Every spec feature an invocation uses must be named by one of ``own``
    or governed by one of ``declared`` (else the check is a harness error: its dependency list is
    incomplete). A run that shows a feature missing — the adapter marks it unsupported, or the tool
    rejects it by name as a usage error — ends the check (``conformance.cli.features``): a fail when
    ``own`` names the feature, "blocked by Y" otherwise.
    """

    def __init__(self, target: CliTarget, evidence: Evidence, secrets: SecretSet,
                 own: Sequence[str] = (), declared: Sequence[str] = ()) -> None:
        self.target = target
        default = target.timeout_cap or CLI_TIMEOUT
        self.runner = CliRunner(target.prefix, adapter=target.adapter, base_env=target.env, timeout=default)
        self.evidence = evidence
        self.secrets = secrets
        self.own = list(own)
        self.declared = list(declared)
        self.results: list[CliResult] = []

    def run(self, *args: str, usage_error_expected: bool = False, **kwargs: Any) -> CliResult:
        """Run ``args`` (spec grammar; the adapter translates). Keyword args go to ``CliRunner.run``.

        ``usage_error_expected``: the check provokes a usage error on purpose, so a rejection in this
        run is its subject, not a missing feature.
        """
        features = used_features(args, kwargs.get("env"))
        bad = undeclared(features, self.own, self.declared)
        if bad:
            raise RuntimeError(f"harness: the check uses {', '.join(bad)} without declaring it "
                               f"(@pytest.mark.{DEPENDS_MARKER})")
        cap = self.target.timeout_cap
        if cap is not None and kwargs.get("timeout") is not None:
            kwargs["timeout"] = min(float(kwargs["timeout"]), cap)
        try:
            result = self.runner.run(list(args), **kwargs)
        except Unsupported as exc:
            self.evidence.add(f"cli run {len(self.results) + 1} (not run)",
                              {"spec_args": [self.secrets.redact(a) for a in args], "unsupported": exc.what})
            judge_missing(Missing(exc.feature, ADAPTER_UNSUPPORTED), self.own)
        self.results.append(result)
        self.evidence.add(f"cli run {len(self.results)}", result.to_evidence(self.secrets.redact))
        if not usage_error_expected:
            require_features(result, features, self.own, self.target.adapter)
        return result

    def command_words(self, *spec_command: str) -> list[str]:
        """The words by which the tool under test names a spec command (through its adapter, if any)."""
        adapter = self.target.adapter
        return adapter.command_words(spec_command) if adapter is not None else list(spec_command)

    def flag_spelling(self, flag: str) -> str:
        """The tool's spelling of a spec flag (through its adapter, if any)."""
        adapter = self.target.adapter
        return adapter.flag_spelling(flag) if adapter is not None else flag

    def require(self, result: CliResult, *features: str) -> None:
        """Apply the blame rule to ``features`` of a run made with ``usage_error_expected``: a usage
        error that rejects one of them by name still ends the check (fail or blocked)."""
        require_features(result, list(features), self.own, self.target.adapter)


@pytest.fixture(scope="session")
def cli_target(run_context: RunContext) -> CliTarget:
    return CliTarget(run_context)


def _marked(node: pytest.Item, name: str) -> list[str]:
    return [rid for m in node.iter_markers(name) for rid in m.args]


@pytest.fixture
def cli(cli_target: CliTarget, evidence: Evidence, run_secrets: SecretSet,
        request: pytest.FixtureRequest) -> Iterator[Cli]:
    c = Cli(cli_target, evidence, run_secrets, own=_marked(request.node, "requirement"),
            declared=_marked(request.node, DEPENDS_MARKER))
    yield c
    for r in c.results:
        r.cleanup()


def request_evidence(agent: ScriptedAgent) -> list[dict[str, Any]]:
    """What the agent received, for the evidence file."""
    out = []
    for r in agent.requests:
        out.append({"binding": r.binding, "method": r.method, "path": r.path, "query": r.query,
                    "tenant": r.tenant, "headers": dict(r.headers), "body": r.json if r.json is not None
                    else r.body.decode("utf-8", errors="replace")[:4000], "wall": r.wall,
                    "response_status": r.response_status})
    return out


@pytest.fixture
def agent(evidence: Evidence, record_transport: Callable[[str], None]) -> Iterator[Callable[..., ScriptedAgent]]:
    """``agent(script=Script(...), tls=..., grpc=...)`` starts a scripted agent for this check."""
    started: list[ScriptedAgent] = []

    def start(script: Script | None = None, **kwargs: Any) -> ScriptedAgent:
        a = ScriptedAgent(script, **kwargs)
        a.start()
        started.append(a)
        return a

    yield start
    for i, a in enumerate(started, 1):
        try:
            for r in a.requests:
                record_transport(r.binding)
            evidence.add(f"agent {i} requests", request_evidence(a))
        finally:
            a.stop()


@pytest.fixture
def new_secret(run_secrets: SecretSet) -> Callable[[str], str]:
    """``new_secret("tok")`` makes a random credential and registers it with the run's secrets."""
    return run_secrets.make


def card_ref(agent: ScriptedAgent) -> Sequence[str]:
    """``-a <base URL>``: the spec's agent-card reference flag."""
    return ("-a", agent.base_url)
