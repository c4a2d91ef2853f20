"""The target model: what is under test, described once and read back everywhere.

Two kinds of target, each built in one place from what the user gave — the command's flags or an
entry of a ``matrix`` targets file (``conformance.campaign.targets_file``): an agent by
:func:`conformance.targets.kinds.build_target`, a CLI by :meth:`CliTarget.build`.

* :class:`AgentTarget` — an A2A agent: a running one at a URL (``url``) or on a unix socket
  (``unix``), a bundled one the harness launches per configuration (``launch``: reference, scripted,
  sdk), or a local image started once per configuration (``container``) — each kind a class of
  :mod:`conformance.targets.kinds`, which pre-flights, starts, describes and cleans up a target of it;
  plus the bearer tokens per role, the declared facts, the named defects of a launched reference, the
  long-running hint, the target's executable, how long one call to it may take (the per-call timeout) and
  the origins besides the one given that are the target's own.
* :class:`CliTarget` — an a2a-cli client: its command line (argv prefix; the bundled reference CLI
  when none is given), an optional adapter file, its Agent Skill, its environment and the bound on
  each invocation.

The command serialises the description into the run context (:meth:`to_dict`, the JSON the pytest
session and every xdist worker read); the fixtures read it back (:meth:`from_dict`) and hand it to
:mod:`conformance.targets.instances` (agents) or :class:`conformance.clicheck.invocations.Cli` (CLIs).
The kind's ``provides()`` says which registry ``needs:`` an agent target gives a run.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from conformance.cli.adapter import Adapter, AdapterError
from conformance.cli.runner import ExecutableNotFound, NotRunnable, check_runnable
from conformance.paths import FIXTURES_DIR, PACKAGE_DIR, python_module
from conformance.redact import MIN_SECRET_LEN
from conformance.wire import DEFAULT_CALL_TIMEOUT

#: The run context's names of the kinds of agent target (each kind is a class of :mod:`conformance.targets.kinds`).
URL, UNIX, LAUNCH, CONTAINER = "url", "unix", "launch", "container"

class TargetError(ValueError):
    """The target as given cannot be used (a usage error: exit 2); the message is one line naming the flag."""


REFERENCE_CLI = tuple(python_module("conformance.fixtures.reference_cli"))
#: What the report names the bundled reference CLI.
REFERENCE_CLI_TOOL = "agentd-conformance-refcli"
#: The variable that switches the bundled reference CLI's named defects on (its defects.py).
REFCLI_DEFECTS = "REFCLI_DEFECTS"


@dataclass
class AgentTarget:
    """An agent under test, as described (:func:`conformance.targets.kinds.build_target` builds it from what the
    user gave). ``kind`` is one of ``url``, ``unix``, ``launch``, ``container``: the run context's name of its
    kind, whose class (:func:`conformance.targets.kinds.kind_of`) pre-flights, starts, describes and cleans up
    a target of it."""

    kind: str = LAUNCH
    url: str | None = None
    #: kind unix: the socket's absolute path.
    path: str | None = None
    #: kind launch: reference, scripted or sdk.
    name: str | None = None
    #: kind container: the ``container:`` entry (image, port, env, socket_dir, ...; see conformance.targets.container).
    container: dict[str, Any] | None = None
    #: kind container: the names of the container's environment variables whose values are secrets
    #: (``--container-env``, a targets file's ``secret_env_from``): kept out of every file the run writes.
    secret_env: tuple[str, ...] = ()
    tokens: dict[str, str] = field(default_factory=dict, repr=False)  # pytest prints a failing check's fixtures
    facts: dict[str, str] = field(default_factory=dict)
    defects: list[str] = field(default_factory=list)
    #: ``{"text": ...}``: a message the agent answers with a task that stays working until canceled.
    long_running: dict[str, Any] | None = None
    #: The target's executable as a command line (``--agentd-binary``; a container's is its image's entry point).
    binary: str | None = None
    #: Where the run's JSON Schema bundles are (``--schema-source``); None: the harness's own.
    schema_dir: str | None = None
    #: kind container, set by the pre-flight: the image's socket folder and id.
    socket_dir: str | None = None
    image_id: str | None = None
    #: Seconds the harness waits for one answer of the agent (``--call-timeout``); the run as a whole
    #: is bounded apart (``--timeout``).
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    #: The revision of the A2A text the run judges by (``--spec-revision``; None: the newest).
    spec_revision: str | None = None
    #: kind url / unix: origins besides the one given whose interfaces are the target's (``--allow-origin``:
    #: a reverse proxy in front of the agent, another port of it).
    allow_origins: list[str] = field(default_factory=list)

    # ---- the run context's spelling ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the run context carries (fields left unset are left out)."""
        out: dict[str, Any] = {"kind": self.kind}
        for key in ("url", "path", "name", "container"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.secret_env:
            out["secret_env"] = list(self.secret_env)
        out.update({"tokens": dict(self.tokens), "facts": dict(self.facts), "defects": list(self.defects)})
        for key in ("long_running", "binary", "schema_dir", "socket_dir", "image_id", "spec_revision"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["call_timeout"] = self.call_timeout
        if self.allow_origins:
            out["allow_origins"] = list(self.allow_origins)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> AgentTarget:
        """Read back :meth:`to_dict`; no description is the default: launch the reference. (A kind that
        is none of the four, e.g. ``none`` for a collection that must start nothing, serves no check.)"""
        if not data:
            return cls(LAUNCH, name="reference")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "secret_env" in known:
            known["secret_env"] = tuple(known["secret_env"])
        return cls(**known)

    def secrets(self) -> list[str]:
        """The values the run must keep out of every file it writes: the tokens, and the values of the
        container's secret environment variables."""
        env = (self.container or {}).get("env") or {}
        return [*self.tokens.values(), *(str(env[k]) for k in self.secret_env if k in env)]

    def get(self, key: str, default: Any = None) -> Any:
        """A field by its run-context name (for checks that read the description as a mapping)."""
        return self.to_dict().get(key, default)


def pairs(given: dict[str, str] | None, flag: str) -> dict[str, str]:
    """``given`` (KEY -> VALUE), refused when a key or a value is empty (as the flag's KEY=VALUE would be)."""
    out = dict(given or {})
    for k, v in out.items():
        if not k or not v:
            raise TargetError(f"{flag}: expected KEY=VALUE, got {f'{k}={v}'!r}")
    return out


#: The facts a user can declare about a target (``--fact KEY=VALUE``, a targets file's ``facts``): what a check
#: needs of a configuration the harness cannot switch a running target to, with the values each takes (None:
#: any). Credentials are not facts: ``--token`` gives them.
FACTS: dict[str, tuple[str, ...] | None] = {
    "events": ("on", "off"), "introspection": ("on", "off"), "device_grant": ("on", "off"), "push": ("on", "off"),
    "listen": ("tcp", "unix"), "cors_origin": None,
}


def check_facts(facts: dict[str, str]) -> None:
    """Refuse a fact that is not one of :data:`FACTS`, or a value it does not take."""
    for key, value in facts.items():
        if key not in FACTS:
            raise TargetError(f"--fact: unknown fact {key!r} (known: {', '.join(FACTS)})")
        values = FACTS[key]
        if values is not None and value not in values:
            raise TargetError(f"--fact: {key} is {' or '.join(values)}, got {value!r}")


@dataclass(frozen=True)
class CliTarget:
    """The CLI under test (or the bundled reference CLI)."""

    prefix: tuple[str, ...] = REFERENCE_CLI
    #: The adapter file (absolute), if the tool is driven through one.
    adapter_file: str | None = None
    #: The tool's Agent Skill (SKILL.md), if it ships one; the reference ships its own.
    skill: Path | None = None
    reference: bool = True
    #: Environment for every invocation (the reference's includes the import path of this package).
    env: dict[str, str] = field(default_factory=dict)
    #: The user's bound on each invocation (``--cli-timeout``): the default, and a cap on longer waits.
    timeout_cap: float | None = None
    #: The variables of ``env`` whose values are secrets (given with ``--env``, not ``--env-plain``): the run
    #: registers their values, so no report or evidence file holds any piece of them.
    secret_env: tuple[str, ...] = ()

    @classmethod
    def build(cls, *, exe: str | None = None, adapter: str | None = None, skill: str | None = None,
              env: dict[str, str] | None = None, cli_timeout: float | None = None,
              env_plain: dict[str, str] | None = None) -> CliTarget:
        """The CLI the user named (none: the bundled reference). ``env`` (``--env``) holds secrets, every value
        at least :data:`MIN_SECRET_LEN` characters; ``env_plain`` (``--env-plain``) values that are not.
        Raises :class:`TargetError`."""
        secret = pairs(env, "--env")
        plain = pairs(env_plain, "--env-plain")
        both = sorted(set(secret) & set(plain))
        if both:
            raise TargetError(f"--env and --env-plain both give {', '.join(both)}")
        short = sorted(k for k, v in secret.items() if len(v) < MIN_SECRET_LEN)
        if short:
            raise TargetError(f"--env: the value of {', '.join(short)} is shorter than {MIN_SECRET_LEN} characters "
                              "and could not be redacted safely; give a value that is not a secret with --env-plain")
        env = {**plain, **secret}
        if exe is None:
            prefix: list[str] = list(REFERENCE_CLI)
        else:
            try:
                prefix = shlex.split(exe)
            except ValueError as exc:
                raise TargetError(f"--exe: cannot parse {exe!r}: {exc}") from exc
            if not prefix:
                raise TargetError("--exe: empty command")
            try:
                check_runnable(prefix)
            except ExecutableNotFound:
                raise TargetError(f"--exe: executable not found or not executable: {prefix[0]}") from None
            except NotRunnable as exc:
                raise TargetError(f"--exe: {exc}") from None
            if os.sep in prefix[0]:
                prefix[0] = os.path.abspath(prefix[0])
        if cli_timeout is not None and cli_timeout <= 0:
            raise TargetError("--cli-timeout must be positive")
        if adapter:
            if not Path(adapter).is_file():
                raise TargetError(f"--adapter: no such file: {adapter}")
            try:
                Adapter.load(Path(adapter))
            except AdapterError as exc:
                raise TargetError(f"--adapter: {exc}") from exc
        if skill and not Path(skill).is_file():
            raise TargetError(f"--skill: no such file: {skill}")
        if exe is None:
            # The bundled reference CLI runs from wherever this package is importable.
            env.setdefault("PYTHONPATH", str(PACKAGE_DIR.parent))
        # The bundled reference ships its skill; any other tool's skill is what --skill names, if anything.
        skill_path = Path(skill).resolve() if skill else (
            FIXTURES_DIR / "reference_cli" / "SKILL.md" if exe is None else None)
        return cls(prefix=tuple(prefix), adapter_file=str(Path(adapter).resolve()) if adapter else None,
                   skill=skill_path, reference=exe is None, env=env, timeout_cap=cli_timeout,
                   secret_env=tuple(sorted(secret)))

    def secrets(self) -> list[str]:
        """The values the run must keep out of every file it writes: those of the ``--env`` variables."""
        return [self.env[k] for k in self.secret_env if k in self.env]

    @cached_property
    def adapter(self) -> Adapter | None:
        """The adapter, loaded (once)."""
        return Adapter.load(Path(self.adapter_file)) if self.adapter_file else None

    @property
    def tool(self) -> str:
        """The tool's name for the report: the one its adapter names, its executable's file name, or the
        reference's."""
        if self.reference:
            return REFERENCE_CLI_TOOL
        adapter = self.adapter
        return adapter.tool if adapter is not None else Path(self.prefix[0]).name

    def default_name(self) -> str:
        """The report folder's name when the user gives none."""
        return "reference-cli" if self.reference else Path(self.prefix[0]).name

    def bundled(self) -> dict[str, Any] | None:
        """The report's ``bundled_target``: the bundled reference CLI and its defects switched on (by
        :data:`REFCLI_DEFECTS` in its environment); None for any other tool."""
        if not self.reference:
            return None
        switched = [d for d in self.env.get(REFCLI_DEFECTS, "").split(",") if d.strip()]
        return {"name": "reference-cli", "defects": switched}

    def env_given(self) -> list[str]:
        """The report's ``env_given``: the variables the user set (not the reference's import path)."""
        return sorted(k for k in self.env if not (self.reference and k == "PYTHONPATH"))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "cli", "prefix": list(self.prefix), "adapter": self.adapter_file,
                "skill": str(self.skill) if self.skill else None, "reference": self.reference, "env": dict(self.env),
                "cli_timeout": self.timeout_cap, "secret_env": list(self.secret_env)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> CliTarget:
        """Read back :meth:`to_dict`; anything that is not a CLI's description is the bundled reference."""
        t = data if data and data.get("kind") == "cli" else {}
        reference = not t or bool(t.get("reference"))
        env = dict(t.get("env") or {})
        if reference:
            env.setdefault("PYTHONPATH", str(PACKAGE_DIR.parent))
        skill = t.get("skill")
        if skill is None and reference:
            skill = str(FIXTURES_DIR / "reference_cli" / "SKILL.md")
        return cls(prefix=tuple(t.get("prefix") or REFERENCE_CLI), adapter_file=t.get("adapter"),
                   skill=Path(skill) if skill else None, reference=reference, env=env,
                   timeout_cap=t.get("cli_timeout"), secret_env=tuple(t.get("secret_env") or ()))
