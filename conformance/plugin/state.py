"""What the plugin's modules share: the state of the run (one per process) and of each check."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conformance import revision
from conformance.context import RunContext, private_dir
from conformance.evidence import Evidence, EvidenceStore, SecretSet
from conformance.judge import Blocked, Finding
from conformance.outcome import Outcome
from conformance.registry import Registry, default_registry

MARKER = "requirement"
#: Binding names as the report's ``transports_covered`` spells them (the template's vocabulary).
TRANSPORT_NAMES = {"JSONRPC": "JSON-RPC", "JSON-RPC": "JSON-RPC", "JSONRPC-UNIX": "JSON-RPC",
                   "HTTP+JSON": "HTTP+JSON", "GRPC": "gRPC", "gRPC": "gRPC"}


class Phase(NamedTuple):
    """How one phase (setup, call, teardown) of a check ended."""

    status: str
    message: str
    harness: bool = False
    blocked_by: str | None = None


class ItemState:
    """What one check gathered while it ran."""

    def __init__(self) -> None:
        self.evidence = Evidence()
        self.phases: dict[str, Phase] = {}
        self.breakdown: dict[str, dict[str, Any]] = {}
        self.error_codes: dict[str, str] = {}
        self.transports: set[str] = set()
        self.duration = 0.0
        #: What the check saw break an ``observed`` row's rule (conformance.judge.findings).
        self.findings: list[Finding] = []
        #: What a fixture found, once the body had run, that kept the check from reaching its subject at
        #: all (``block_if_not_reached``): a body that failed, or ended not measured, is then blocked by it.
        self.gates: list[Blocked] = []


class RunState:
    """The run as this process sees it: its context and secrets, and (on the controller) every outcome."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        report_dir = config.getoption("conformance_report")
        self.report_dir: Path | None = Path(report_dir).resolve() if report_dir else None
        ctx_path = config.getoption("conformance_context")
        self.context = RunContext.load(Path(ctx_path)) if ctx_path else RunContext()
        fam = config.getoption("conformance_family")
        if fam:
            self.context.family = fam
        scope = config.getoption("conformance_only")
        if scope:
            self.context.scope = [s.strip() for s in scope.split(",") if s.strip()]
        self.progress = bool(config.getoption("conformance_progress"))
        # The revision of the A2A text the checks judge by (--spec-revision; the target describes it).
        revision.use(self.context.target.get("spec_revision"))
        self.secrets = SecretSet(self.context.secrets)
        #: True when this process made the private folder itself (no command around it): remove it at the end.
        self.owns_secret_dir = not self.is_worker and not self.context.secret_dir
        if self.is_worker:
            self.secret_dir = Path(config.workerinput["conformance_secret_dir"])  # type: ignore[attr-defined]
        else:
            self.secret_dir = Path(self.context.secret_dir) if self.context.secret_dir else private_dir()
        self.worker_id = config.workerinput["workerid"] if self.is_worker else "main"  # type: ignore[attr-defined]
        self.outcomes: list[Outcome] = []
        self.breakdown: dict[str, dict[str, Any]] = {}
        self.error_codes: dict[str, str] = {}
        self.transports: set[str] = set()
        self.started: set[str] = set()
        self.reported: set[str] = set()
        self.mapping: dict[str, list[str]] | None = None
        self.resolved: set[str] = set()
        self.t0 = time.monotonic()
        self._registry: Registry | None = None

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = default_registry()
        return self._registry

    @property
    def store(self) -> EvidenceStore | None:
        return EvidenceStore(self.report_dir, self.secrets) if self.report_dir else None


STATE = pytest.StashKey[RunState]()
ITEM = pytest.StashKey[ItemState]()


def item_state(item: pytest.Item) -> ItemState:
    if ITEM not in item.stash:
        item.stash[ITEM] = ItemState()
    return item.stash[ITEM]


def run_state(config: pytest.Config) -> tuple[RunContext, SecretSet]:
    """The run context and secret set of this session, for hooks that run before fixtures exist
    (e.g. parametrizing checks at collection). Defaults when the plugin is not active."""
    if STATE in config.stash:
        state = config.stash[STATE]
        return state.context, state.secrets
    return RunContext(), SecretSet()


def requirement_marks(item: pytest.Item) -> list[pytest.Mark]:
    return list(item.iter_markers(MARKER))


def ids_of(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for m in requirement_marks(item):
        for rid in m.args:
            if rid not in ids:
                ids.append(rid)
    return ids
