"""The target model: what is under test, described once and read back everywhere.

Two kinds of target, each built in one place from what the user gave — the command's flags or an
entry of a ``matrix`` targets file (``conformance.campaign.targets_file``):

* :class:`AgentTarget` — an A2A agent: a running one at a URL (``url``) or on a unix socket
  (``unix``), a bundled one the harness launches per configuration (``launch``: reference, scripted,
  sdk), or a local image started once per configuration (``container``); plus the bearer tokens per
  role, the declared facts, the named defects of a launched reference, the long-running hint, the
  target's executable, how long one call to it may take (the per-call timeout) and the origins besides
  the one given that are the target's own.
* :class:`CliTarget` — an a2a-cli client: its command line (argv prefix; the bundled reference CLI
  when none is given), an optional adapter file, its Agent Skill, its environment and the bound on
  each invocation.

The command serialises the description into the run context (:meth:`to_dict`, the JSON the pytest
session and every xdist worker read); the fixtures read it back (:meth:`from_dict`) and hand it to
:mod:`conformance.targets.instances` (agents) or :class:`conformance.clicheck.invocations.Cli` (CLIs).
:meth:`AgentTarget.provides` says which registry ``needs:`` the target gives a run.
"""

from __future__ import annotations

import importlib
import math
import os
import shlex
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from conformance import revision
from conformance.agentd_page import ROLES
from conformance.cli.adapter import Adapter, AdapterError
from conformance.cli.runner import ExecutableNotFound, NotRunnable, check_runnable
from conformance.paths import FIXTURES_DIR, PACKAGE_DIR, python_module
from conformance.redact import MIN_SECRET_LEN
from conformance.targets.origins import allowed_origin, origin_of
from conformance.wire import DEFAULT_CALL_TIMEOUT

#: Kinds of agent target.
URL, UNIX, LAUNCH, CONTAINER = "url", "unix", "launch", "container"
#: The bundled agents ``--launch`` starts, and the report folder each is named after by default.
LAUNCHABLE = {"reference": "reference-agentd", "scripted": "scripted-agent", "sdk": "plain-sdk-agent"}
#: Where each launchable target's named defects are.
DEFECT_TABLES = {"reference": "conformance.fixtures.reference_agentd.defects",
                 "scripted": "conformance.fixtures.scripted_agent.defects"}
REFERENCE_CLI = tuple(python_module("conformance.fixtures.reference_cli"))
#: What the report names the bundled reference CLI.
REFERENCE_CLI_TOOL = "agentd-conformance-refcli"


class TargetError(ValueError):
    """The target as given cannot be used (a usage error: exit 2); the message is one line naming the flag."""


@dataclass
class AgentTarget:
    """An agent under test. ``kind`` is one of ``url``, ``unix``, ``launch``, ``container``."""

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

    # ---- building --------------------------------------------------------------------------------

    @classmethod
    def build(cls, *, url: str | None = None, unix: str | None = None, launch: str | None = None,
              container: dict[str, Any] | None = None, container_env: dict[str, str] | None = None,
              container_env_plain: dict[str, str] | None = None,
              tokens: dict[str, str] | None = None, facts: dict[str, str] | None = None,
              defects: list[str] | tuple[str, ...] = (), long_running_text: str | None = None,
              binary: str | None = None, call_timeout: float | None = None,
              allow_origins: list[str] | tuple[str, ...] = (), spec_revision: str | None = None) -> AgentTarget:
        """The target the user named (at most one of url / unix / launch / container; none: launch the
        reference). Raises :class:`TargetError` for anything that cannot be used as given."""
        tokens = _pairs(tokens, "--token")
        facts = _pairs(facts, "--fact")
        for role in tokens:
            if role not in ROLES:
                raise TargetError(f"--token: unknown role {role!r} (expected one of {', '.join(ROLES)})")
        short = [role for role, tok in tokens.items() if len(tok) < MIN_SECRET_LEN]
        if short:
            raise TargetError(f"--token: the token for {', '.join(short)} is shorter than {MIN_SECRET_LEN} "
                              "characters and could not be redacted safely")
        container_env = _pairs(container_env, "--container-env")
        container_env_plain = _pairs(container_env_plain, "--container-env-plain")
        short = sorted(k for k, v in container_env.items() if len(v) < MIN_SECRET_LEN)
        if short:
            raise TargetError(f"--container-env: the value of {', '.join(short)} is shorter than {MIN_SECRET_LEN} "
                              "characters and could not be redacted safely (use --container-env-plain for a value "
                              "that is not a secret)")
        both = sorted(set(container_env) & set(container_env_plain))
        if both:
            raise TargetError(f"--container-env and --container-env-plain both set {', '.join(both)}")
        if url:
            if not url.startswith(("http://", "https://")):
                raise TargetError(f"--url: expected an http:// or https:// URL, got {url!r}")
            target = cls(URL, url=url)
        elif unix:
            target = cls(UNIX, path=str(Path(unix).resolve()))
        elif container:
            entry = dict(container)
            entry["env"] = {**(entry.get("env") or {}), **container_env_plain, **container_env}
            # Every container and network of this run carries the id (CI may set it: its job's id).
            entry.setdefault("run_id",
                             os.environ.get("AGENTD_CONFORMANCE_RUN_ID") or f"{os.getpid()}-{time.time_ns()}")
            target = cls(CONTAINER, container=entry, secret_env=tuple(sorted(container_env)))
        else:
            name = launch or "reference"
            if name not in LAUNCHABLE:
                raise TargetError(f"--launch: unknown target {name!r} (expected reference, scripted or sdk)")
            target = cls(LAUNCH, name=name)
        if (container_env or container_env_plain) and target.kind != CONTAINER:
            raise TargetError("--container-env applies only with --container")
        if defects:
            if target.kind not in (LAUNCH, CONTAINER):
                raise TargetError("--defect applies only to a launched reference target (--launch) or its image")
            _check_defects(target.name or "reference", list(defects))
        _check_facts(facts)
        target.tokens = tokens
        target.facts = facts
        target.defects = list(defects)
        if long_running_text:
            target.long_running = {"text": long_running_text}
        target.binary = binary or None
        if call_timeout is not None:
            if (isinstance(call_timeout, bool) or not isinstance(call_timeout, int | float)
                    or not math.isfinite(call_timeout) or call_timeout <= 0):
                raise TargetError(f"--call-timeout: expected a positive number of seconds, got {call_timeout!r}")
            target.call_timeout = float(call_timeout)
        if spec_revision is not None:
            try:
                target.spec_revision = revision.check(str(spec_revision))
            except revision.UnknownRevision as exc:
                raise TargetError(f"--spec-revision: {exc}") from None
        if allow_origins:
            if target.kind not in (URL, UNIX):
                raise TargetError("--allow-origin applies only with --url or --unix (the harness knows where a "
                                  "target it starts listens)")
            for value in allow_origins:
                try:
                    target.allow_origins.append(allowed_origin(value))
                except ValueError as exc:
                    raise TargetError(f"--allow-origin: {exc}") from None
        return target

    # ---- what it is --------------------------------------------------------------------------------

    @property
    def launchable(self) -> bool:
        """Whether the harness starts the agent per configuration (the reference, or an image in a container:
        what a container's environment cannot express ends ``not_measured`` there)."""
        return (self.kind == LAUNCH and self.name == "reference") or self.kind == CONTAINER

    @property
    def running(self) -> bool:
        """A target the user runs (url / unix): the harness can switch nothing on it."""
        return self.kind in (URL, UNIX)

    def default_name(self) -> str:
        """The report folder's name when the user gives none."""
        if self.kind == URL:
            return str(self.url)
        if self.kind == UNIX:
            return f"unix-{Path(str(self.path)).name}"
        if self.kind == CONTAINER:
            return f"container-{(self.container or {}).get('image')}"
        return LAUNCHABLE[self.name or "reference"]

    def where(self) -> str | None:
        """The report's ``agent_tested``: the URL, the socket, the image, or the launched target's name."""
        if self.kind == CONTAINER:
            image = (self.container or {}).get("image")
            return f"container image {image}" + (f" ({self.image_id})" if self.image_id else "")
        if self.kind == LAUNCH:
            return f"the bundled {self.name or 'reference'} agent, launched by the harness"
        return self.url or self.path or self.name

    def bundled(self) -> dict[str, Any] | None:
        """The report's ``bundled_target`` (``name``, ``defects``): for a target the harness brings itself —
        a launched one, or the image of the bundled reference (its defects switched on by --defect)."""
        if self.kind == LAUNCH:
            return {"name": self.name or "reference", "defects": list(self.defects)}
        if self.kind == CONTAINER and self.defects:
            return {"name": f"image {(self.container or {}).get('image')}", "defects": list(self.defects)}
        return None

    def origins(self) -> tuple[str, ...] | None:
        """Where a running target's interfaces may be (:mod:`conformance.targets.origins`): the origin of
        the URL given, or the socket, and the allowed origins; None for a target the harness starts (it
        knows each instance's own, see :class:`~conformance.targets.instances.AgentTargets`)."""
        if self.kind == URL and self.url:
            return (origin_of(self.url), *self.allow_origins)
        if self.kind == UNIX and self.path:
            return (f"unix://{self.path}", *self.allow_origins)
        return None

    def provides(self) -> list[str]:
        """The registry needs (``conformance.registry.NEEDS``) this target gives a run."""
        have: set[str] = set()
        if self.kind == LAUNCH and self.name == "reference":
            have |= {"executable", "launch_config", "restartable", "unix_socket"}
        if self.kind == LAUNCH and self.name in ("reference", "scripted"):
            have.add("logs")  # what the launched agent writes, kept by the harness (its logs() method)
        if self.kind == UNIX:
            have.add("unix_socket")
        if self.kind == CONTAINER:
            # docker restart is a real restart; the image's entry point is its executable (run with no
            # network); the socket folder is bind-mounted on this host. launch_config only when the image
            # takes a whole configuration document (a config switch, as the reference image's
            # AGENTD_CONFIG, or contract v2's config file): switches cannot carry workflows or principals.
            have |= {"restartable", "executable", "logs"}  # docker logs: the container's own output
            if self.socket_dir:
                have.add("unix_socket")
            entry = self.container or {}
            if "config" in (entry.get("switches") or {}) or entry.get("config_document") or entry.get("config"):
                have.add("launch_config")
        if self.binary:
            have.add("executable")
        if os.geteuid() == 0:
            have.add("root")
        return sorted(have)

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


def _pairs(given: dict[str, str] | None, flag: str) -> dict[str, str]:
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


def _check_facts(facts: dict[str, str]) -> None:
    for key, value in facts.items():
        if key not in FACTS:
            raise TargetError(f"--fact: unknown fact {key!r} (known: {', '.join(FACTS)})")
        values = FACTS[key]
        if values is not None and value not in values:
            raise TargetError(f"--fact: {key} is {' or '.join(values)}, got {value!r}")


def _check_defects(launch: str, names: list[str]) -> None:
    if launch == "sdk":
        raise TargetError("--defect: the sdk target is the plain a2a-sdk agent and has no defects")
    defects = importlib.import_module(DEFECT_TABLES[launch]).DEFECTS
    unknown = [n for n in names if n not in defects]
    if unknown:
        raise TargetError(f"--defect: unknown defect(s) of the {launch} target: {', '.join(unknown)}")


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
        secret = _pairs(env, "--env")
        plain = _pairs(env_plain, "--env-plain")
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
