"""The CLI under test as a check drives it: :class:`Cli` runs it, records every run as evidence, and
applies the blame rule to what each run shows missing."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance.cli.adapter import Unsupported
from conformance.cli.home import IsolatedHome
from conformance.cli.runner import CliResult, CliRunner, check_executable
from conformance.clicheck.features import (
    ADAPTER_UNSUPPORTED,
    Missing,
    judge_missing,
    rejected_features,
    require_features,
    undeclared,
    used_features,
)
from conformance.clicheck.output import TEXT_DEFAULT_PART, TEXT_DEFAULT_ROW, json_by_default
from conformance.evidence import Evidence, SecretSet
from conformance.judge import DEPENDS_MARKER, blocked_by
from conformance.targets.model import CliTarget

#: Per-invocation bound: a CLI that hangs fails its check with evidence, and the run goes on.
CLI_TIMEOUT = 20.0

#: The types of the fixtures a CLI check takes besides ``cli: Cli``, named once: ``agent: AgentMaker``
#: (starts a scripted agent: ``agent(script=..., tls=...)``), ``new_secret: SecretMaker``, and the
#: plugin's recorders ``record_error_code: RecordCode`` and ``record_breakdown: RecordBreakdown``.
AgentMaker = Callable[..., Any]
SecretMaker = Callable[[str], str]
RecordCode = Callable[..., None]
RecordBreakdown = Callable[..., None]


class Cli:
    """Runs the CLI under test; every run is recorded as evidence, and judged by the blame rule.

    ``own`` are the requirements the running check measures, ``declared`` those it names with
    ``@pytest.mark.depends_on``. Every spec feature an invocation uses must be named by one of ``own``
    or governed by one of ``declared`` (else the check is a harness error: its dependency list is
    incomplete). A run that shows a feature missing — the adapter marks it unsupported, or the tool
    rejects it by name as a usage error — ends the check (``conformance.clicheck.features``): a fail when
    ``own`` names the feature, "blocked by Y" otherwise.
    """

    def __init__(self, target: CliTarget, evidence: Evidence, secrets: SecretSet,
                 own: Sequence[str] = (), declared: Sequence[str] = ()) -> None:
        self.target = target
        default = target.timeout_cap or CLI_TIMEOUT
        self.runner = CliRunner(list(target.prefix), adapter=target.adapter, base_env=target.env, timeout=default)
        self.evidence = evidence
        self.secrets = secrets
        self.own = list(own)
        self.declared = list(declared)
        self.results: list[CliResult] = []
        #: Called with each finished run or session this check records (``conformance.clicheck.gates``).
        self.watchers: list[Callable[[CliResult], None]] = []

    def run(self, *args: str, usage_error_expected: bool = False, **kwargs: Any) -> CliResult:
        """Run ``args`` (spec grammar; the adapter translates). Keyword args go to ``CliRunner.run``.

        ``usage_error_expected``: the check provokes a usage error on purpose, so a rejection in this
        run is its subject, not a missing feature.
        """
        features = self.check_declared(args, kwargs.get("env"))
        cap = self.target.timeout_cap
        if cap is not None and kwargs.get("timeout") is not None:
            kwargs["timeout"] = min(float(kwargs["timeout"]), cap)
        try:
            result = self.runner.run(list(args), **kwargs)
        except Unsupported as exc:
            self.evidence.add(f"cli run {len(self.results) + 1} (not run)",
                              {"spec_args": [self.secrets.redact(a) for a in args], "unsupported": exc.what})
            judge_missing([Missing(f, ADAPTER_UNSUPPORTED) for f in exc.features], self.own)
        self.record(result, "run")
        if not usage_error_expected:
            require_features(result, features, self.own, self.target.adapter)
        return result

    def run_unless_missing(self, optional: str, *args: str, **kwargs: Any) -> CliResult | None:
        """Run ``args`` for a clause that applies only to a tool that has the spec flag ``optional``
        ("not defeasible by a verbosity flag" binds a tool with such a flag): None, said in the
        evidence, when the adapter marks ``optional`` unsupported or the tool rejects it by name;
        otherwise the run, the blame rule applied to its other features as :meth:`run` does."""
        adapter = self.target.adapter
        if adapter is not None:
            try:
                adapter.translate(list(args), kwargs.get("env"))
            except Unsupported as exc:
                if optional in exc.features:
                    self.evidence.add(f"cli run {len(self.results) + 1} (not run)",
                                      {"spec_args": [self.secrets.redact(a) for a in args],
                                       "skipped": f"{optional} {ADAPTER_UNSUPPORTED}: the clause does not apply"})
                    return None
        result = self.run(*args, usage_error_expected=True, **kwargs)
        features = used_features(args, kwargs.get("env"))
        missing = rejected_features(result, features, self.own, adapter)
        if any(m.feature == optional for m in missing):
            self.evidence.add(f"cli run {len(self.results)} (judged)",
                              f"the tool rejects {optional}: the clause that needs it does not apply")
            return None
        if missing:
            judge_missing(missing, self.own)
        return result

    def check_declared(self, args: Sequence[str], env: Mapping[str, str | None] | None = None) -> list[str]:
        """The spec features ``args`` (and ``env``) use; a harness error when one of them is neither
        named by ``own`` nor governed by ``declared``."""
        features = used_features(args, env)
        bad = undeclared(features, self.own, self.declared)
        if bad:
            raise RuntimeError(f"harness: the check uses {', '.join(bad)} without declaring it "
                               f"(@pytest.mark.{DEPENDS_MARKER})")
        return features

    def launch(self, args: Sequence[str], term: str) -> tuple[list[str], dict[str, str], IsolatedHome]:
        """For a child that outlives one call (background, pseudo-terminal): the feature check, the
        adapter's translation, a fresh isolated home and the minimal environment (``TERM=term``);
        returns the argv to execute, its environment and the home (the caller cleans it up)."""
        self.check_declared(args)
        runner = self.runner
        run_args, overrides = (runner.adapter.translate(list(args), {}) if runner.adapter is not None
                               else (list(args), {}))
        home = IsolatedHome()
        env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "TERM": term, **home.env()}
        for k, v in {**runner.base_env, **overrides}.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return [check_executable(runner.prefix, env.get("PATH", "")), *runner.prefix[1:], *run_args], env, home

    def record(self, result: CliResult, kind: str, how: str = "") -> None:
        """Keep ``result`` as this check's next run, and as evidence (``cli <kind> N (<how>)``)."""
        self.results.append(result)
        label = f"cli {kind} {len(self.results)}" + (f" ({how})" if how else "")
        self.evidence.add(label, result.to_evidence(self.secrets.redact))
        for watch in self.watchers:
            watch(result)

    def command_words(self, *spec_command: str) -> list[str]:
        """The words by which the tool under test names a spec command (through its adapter, if any)."""
        adapter = self.target.adapter
        return adapter.command_words(spec_command) if adapter is not None else list(spec_command)

    def flag_spelling(self, flag: str) -> str:
        """The tool's spelling of a spec flag (through its adapter, if any)."""
        adapter = self.target.adapter
        return adapter.flag_spelling(flag) if adapter is not None else flag

    def default_text(self, result: CliResult) -> str:
        """The stdout of ``result`` for a check that reads the tool's *default* output as text: when the run
        gave no ``--output`` flag and the tool printed JSON anyway, the check cannot read it and is blocked
        by A2ACLI_DEFAULT_001 (text is its default), unless the check measures that row itself."""
        json_instead = json_by_default(result.spec_args, result.stdout_text)
        if json_instead is not None and TEXT_DEFAULT_ROW not in self.own:
            blocked_by(TEXT_DEFAULT_ROW, f"{json_instead} where the default output should be text "
                                         f"({TEXT_DEFAULT_PART})")
        return result.stdout_text

    def require(self, result: CliResult, *features: str) -> None:
        """Apply the blame rule to ``features`` of a run made with ``usage_error_expected``: a usage
        error that rejects one of them by name still ends the check (fail or blocked)."""
        require_features(result, list(features), self.own, self.target.adapter)
