"""The kinds of agent target, one class each: what the command does before the run (pre-flight), how the
suite's processes get an instance of it (start), what the report says of it (describe), and what is left
to remove after the run (clean up).

* :class:`Launched` — a bundled agent the harness starts itself (``--launch``: reference, scripted, sdk;
  :data:`BUNDLED` says what each one is);
* :class:`Container` — a local image, one container per configuration (``--container``);
* :class:`Url`, :class:`Unix` — an agent the user runs, named by ``--url`` or ``--unix`` (:class:`Running`:
  the harness switches nothing on it and probes it before the run).

:class:`TargetKind` is what they share, and what a kind the run context names but no class has (``none``:
a collection that must start nothing) is: a target that serves no check. :func:`build_target` makes an
:class:`~conformance.targets.model.AgentTarget` from what the user gave; :func:`kind_of` makes the kind for
one; :func:`targets_for` hands it to :class:`~conformance.targets.instances.AgentTargets`. The command and
``AgentTargets`` call the kind's methods rather than asking which kind a target is.

The module sits above the description (:mod:`~conformance.targets.model`, which knows no kind) and above
what it starts (instances, containers, the probes), none of which imports it. The command's own process
imports it: what a method needs beyond the description (the container engine, the probes' HTTP client, the
bundled agents) it imports when called.
"""

from __future__ import annotations

import importlib
import math
import os
import shlex
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from conformance import revision
from conformance.agentd_page import ROLES
from conformance.outcome import NotMeasured, not_measured
from conformance.paths import python_module
from conformance.redact import MIN_SECRET_LEN
from conformance.targets.lifecycle import PreflightFailure
from conformance.targets.model import CONTAINER, LAUNCH, UNIX, URL, AgentTarget, TargetError, check_facts, pairs
from conformance.targets.origins import allowed_origin, origin_of

if TYPE_CHECKING:
    from conformance.evidence import SecretSet
    from conformance.targets.instances import AgentTargets, Instance
    from conformance.targets.pool import ContainerPool

#: Why a check that asks for an instance of its own is not run on a target the harness does not start: it
#: changes the agent for every later check and for the agent's own users (it drains it, pauses it, revokes a
#: session).
FRESH_NEEDED = ("needs an instance of its own: the check runs controls that change the agent for every other "
                "check and for its users (admin.drain, admin.pause, a session revoked), which the harness does "
                "not do to a running agent; give your agent as a --container image (a fresh container per check)")


@dataclass
class Preflight:
    """What a kind's pre-flight found, for the run's report."""

    #: Identity facts for the report's ``run.extra`` (a container's image, its id, the engine, ...).
    extra: dict[str, Any] = field(default_factory=dict)
    #: Lines the report's caveats carry (a busy agent).
    caveats: list[str] = field(default_factory=list)
    #: Why no row of the family applies (an agent that speaks only A2A 0.3): nothing is run, every row na.
    inapplicable: str | None = None
    #: Why nothing can be measured (the agent demands a credential not given, or refuses the one given): a
    #: report whose every row is not_measured, then exit 3.
    refused: str | None = None
    #: How many of the bindings the harness speaks the agent's card declares (None: the card was not read).
    bindings: int | None = None


@dataclass(frozen=True)
class Bundled:
    """One agent ``--launch`` starts."""

    #: The report folder's name by default.
    folder: str
    #: Where its named defects are (None: it has none).
    defects: str | None
    #: The registry needs it gives a run.
    provides: frozenset[str]
    #: The harness starts it once per configuration a check needs (the agentd checks' instances).
    configurable: bool = False
    #: Its executable, as a module run by this interpreter (``--schema-source target``).
    module: str | None = None


#: The bundled agents ``--launch`` starts (the logs: what the launched agent writes, kept by the harness,
#: its logs() method).
BUNDLED: dict[str, Bundled] = {
    "reference": Bundled("reference-agentd", "conformance.fixtures.reference_agentd.defects",
                         frozenset({"executable", "launch_config", "restartable", "unix_socket", "logs"}),
                         configurable=True, module="conformance.fixtures.reference_agentd"),
    "scripted": Bundled("scripted-agent", "conformance.fixtures.scripted_agent.defects", frozenset({"logs"})),
    "sdk": Bundled("plain-sdk-agent", None, frozenset()),
}


def check_defects(launch: str, names: list[str]) -> None:
    """Refuse names that are not defects of the bundled agent ``launch``."""
    table = BUNDLED[launch].defects
    if table is None:
        raise TargetError(f"--defect: the {launch} target is the plain a2a-sdk agent and has no defects")
    defects = importlib.import_module(table).DEFECTS
    unknown = [n for n in names if n not in defects]
    if unknown:
        raise TargetError(f"--defect: unknown defect(s) of the {launch} target: {', '.join(unknown)}")


class TargetKind:
    """What every kind of agent target does, for the one target it is made for (:func:`kind_of`); as it stands,
    a target that serves no check (a kind the run context names that no class has). A new kind subclasses it,
    overrides what it does otherwise, and is entered in :data:`KINDS` under the run context's name of it."""

    #: The run context's name of the kind (``AgentTarget.kind``).
    name: ClassVar[str] = "none"
    #: A target the user runs: the harness switches nothing on it and leaves it as it found it.
    running: ClassVar[bool] = False
    #: The ``listen`` fact a target of this kind has without being told.
    listen: ClassVar[str | None] = None

    def __init__(self, target: AgentTarget) -> None:
        self.target = target

    # ---- given ------------------------------------------------------------------------------------

    @classmethod
    def make(cls, where: Any, env: Mapping[str, str], plain: Mapping[str, str]) -> AgentTarget:
        """The target its option names (``where``: its value; ``env``, ``plain``: the container's environment,
        given with ``--container-env`` and ``--container-env-plain``). Raises :class:`TargetError`."""
        raise TargetError(f"no option names a target of kind {cls.name!r}")

    def given(self, *, container_env: bool, defects: list[str]) -> None:
        """Refuse the container's environment (``container_env``: some was given) and the defects when this
        kind takes none, and defects its agent does not have (a usage error naming the flag)."""
        if container_env:
            raise TargetError("--container-env applies only with --container")
        if defects:
            raise TargetError("--defect applies only to a launched reference target (--launch) or its image")

    def allow(self, origins: list[str]) -> None:
        """Take the origins besides the one given that are the target's (``--allow-origin``)."""
        if origins:
            raise TargetError("--allow-origin applies only with --url or --unix (the harness knows where a "
                              "target it starts listens)")

    def check_usable(self) -> None:
        """Before any run of a targets file: raise :class:`TargetError` when the target cannot be used as
        given, beyond what building it checked (an image the engine does not have; an engine that does not
        answer is left to the run)."""

    # ---- describe -----------------------------------------------------------------------------------

    def default_name(self) -> str:
        """The report folder's name when the user gives none."""
        return self.target.name or self.name

    def where(self) -> str | None:
        """The report's ``agent_tested``: the URL, the socket, the image, or the launched target's name."""
        return self.target.url or self.target.path or self.target.name

    def bundled(self) -> dict[str, Any] | None:
        """The report's ``bundled_target`` (``name``, ``defects``): for a target the harness brings itself."""
        return None

    def env_given(self) -> list[str]:
        """The report's ``env_given``: the variables the user set for the target (a container's)."""
        return []

    def origins(self) -> tuple[str, ...] | None:
        """Where a running target's interfaces may be (:mod:`conformance.targets.origins`); None for a target
        the harness starts (it knows each instance's own, see :class:`~conformance.targets.instances.AgentTargets`)."""
        return None

    def provides(self) -> list[str]:
        """The registry needs (``conformance.registry.NEEDS``) the target gives a run: its kind's
        (:meth:`own_needs`), ``executable`` when its executable is known, ``root`` when the harness runs as root."""
        have = self.own_needs()
        if self.target.binary:
            have.add("executable")
        if os.geteuid() == 0:
            have.add("root")
        return sorted(have)

    def own_needs(self) -> set[str]:
        """The registry needs a target of this kind gives a run."""
        return set()

    @property
    def launchable(self) -> bool:
        """Whether the harness starts the agent per configuration (the reference, or an image in a container:
        what it cannot start it in ends ``not_measured`` there)."""
        return False

    def executable(self) -> list[str] | None:
        """The target's own executable when the user named none (``--agentd-binary``), as an argv prefix."""
        return None

    # ---- pre-flight (the command's process) -------------------------------------------------------------

    def preflight(self, family: str, report_dir: Path) -> Preflight:
        """Before the suite: check the target can be run, completing its description. Raises
        :class:`PreflightUsage` (exit 2) or :class:`PreflightFailure` (exit 3)."""
        return Preflight()

    # ---- start (the suite's processes) -----------------------------------------------------------------

    def pool(self, targets: AgentTargets) -> ContainerPool | None:
        """The containers the run's instances are, when they are containers."""
        return None

    def start(self, targets: AgentTargets, needs: dict[str, Any], fresh: bool) -> Instance:
        """An instance whose configuration satisfies ``needs`` (``fresh``: one of the check's own), or the
        check ends not measured naming what this target cannot be."""
        if fresh:
            not_measured(FRESH_NEEDED)
        return self.serve(targets, targets.declared_facts(needs, self.listen))

    def serve(self, targets: AgentTargets, facts: dict[str, str]) -> Instance:
        """The target as it is, with the facts it declared (its configuration cannot be chosen)."""
        not_measured(f"target kind {self.target.kind!r} / {self.target.name!r} cannot serve agentd checks")

    def core(self, targets: AgentTargets, card: dict[str, bool]) -> Instance | None:
        """An instance for the core family's checks with its card flipped as ``card`` asks (None: it cannot be)."""
        return None if card else self.start(targets, {}, False)

    def refusal(self, targets: AgentTargets, needs: dict[str, Any]) -> tuple[str | None, Instance | None]:
        """Start a private instance the agent is expected to refuse (see ``AgentTargets.refusal``): a launched
        reference refuses with a ConfigError."""
        from conformance.agentd_page.launch import ConfigError

        try:
            return None, targets.agentd(fresh=True, **needs)
        except ConfigError as exc:
            return f"ConfigError: {exc}", None

    def reach(self, inst: Instance) -> None:
        """Set where ``inst``'s interfaces may be, and what the user can do about one outside."""

    # ---- clean up (the command's process) ---------------------------------------------------------------

    def cleanup(self) -> None:
        """After the run, finished, stopped or crashed: remove what the run left."""


class Launched(TargetKind):
    """A bundled agent the harness starts itself (``--launch NAME``; :data:`BUNDLED`)."""

    name = LAUNCH

    @classmethod
    def make(cls, where: Any, env: Mapping[str, str], plain: Mapping[str, str]) -> AgentTarget:
        name = where or "reference"
        if name not in BUNDLED:
            raise TargetError(f"--launch: unknown target {name!r} (expected reference, scripted or sdk)")
        return AgentTarget(LAUNCH, name=name)

    def given(self, *, container_env: bool, defects: list[str]) -> None:
        super().given(container_env=container_env, defects=[])
        if defects:
            check_defects(self.target.name or "reference", defects)

    @property
    def row(self) -> Bundled | None:
        """What :data:`BUNDLED` says of the agent launched (None for a name it lacks)."""
        return BUNDLED.get(self.target.name) if self.target.name else None

    def default_name(self) -> str:
        return BUNDLED[self.target.name or "reference"].folder

    def where(self) -> str:
        return f"the bundled {self.target.name or 'reference'} agent, launched by the harness"

    def bundled(self) -> dict[str, Any]:
        return {"name": self.target.name or "reference", "defects": list(self.target.defects)}

    def own_needs(self) -> set[str]:
        return set(self.row.provides) if self.row else set()

    @property
    def launchable(self) -> bool:
        return self.row is not None and self.row.configurable

    def executable(self) -> list[str] | None:
        module = self.row.module if self.row else None
        return python_module(module) if module else None

    def start(self, targets: AgentTargets, needs: dict[str, Any], fresh: bool) -> Instance:
        if self.launchable:
            return targets.launched(needs, fresh)
        return super().start(targets, needs, fresh)

    def serve(self, targets: AgentTargets, facts: dict[str, str]) -> Instance:
        # A launched core agent, judged as any running target would be (it is not agentd).
        core = targets.core() if self.target.name in ("sdk", "scripted") else None
        if core is None:
            return super().serve(targets, facts)
        from conformance.targets.instances import Instance

        return Instance(url=core.url, uds_path=None, tokens=dict(self.target.tokens), facts=facts)

    def core(self, targets: AgentTargets, card: dict[str, bool]) -> Instance | None:
        name = self.target.name
        if ("required_extension" in card or "signed" in card) and name != "scripted":
            return None  # only the scripted agent can be started marking an extension required, or signing its card
        if card.get("secured") and name == "sdk":
            return None  # the plain SDK agent declares no security scheme
        if name == "reference":
            needs = core_needs(card)
            return None if needs is None else targets.agentd(**needs)
        return targets.launched_core(card)


def core_needs(card: Mapping[str, bool]) -> dict[str, Any] | None:
    """The configuration of an agentd (the reference, an image) whose card is flipped as ``card`` asks; None
    when none is (it always streams; with principals it always declares an extended card)."""
    if "streaming" in card:
        return None
    needs: dict[str, Any] = {}
    if "push" in card:
        needs["push"] = card["push"]
    if "extended" in card:
        needs["auth"] = card["extended"]  # it declares an extended card exactly when it has a scheme
    if card.get("secured"):
        if card.get("extended") is False:
            return None
        needs["auth"] = True
    return needs


class Container(TargetKind):
    """A local image, started once per configuration (``--container IMAGE``; :mod:`conformance.targets.pool`)."""

    name = CONTAINER

    @classmethod
    def make(cls, where: Any, env: Mapping[str, str], plain: Mapping[str, str]) -> AgentTarget:
        entry = dict(where)
        entry["env"] = {**(entry.get("env") or {}), **plain, **env}
        # Every container and network of this run carries the id (CI may set it: its job's id).
        entry.setdefault("run_id", os.environ.get("AGENTD_CONFORMANCE_RUN_ID") or f"{os.getpid()}-{time.time_ns()}")
        return AgentTarget(CONTAINER, container=entry, secret_env=tuple(sorted(env)))

    def given(self, *, container_env: bool, defects: list[str]) -> None:
        if defects:
            check_defects("reference", defects)  # the image of the bundled reference, its defects switched on

    def check_usable(self) -> None:
        from conformance.targets.container import ContainerFailure, ContainerSpec
        from conformance.targets.engine import EngineUnavailable, docker_client

        try:
            client = docker_client()
        except EngineUnavailable:
            return
        try:
            ContainerSpec.resolve(dict(self.target.container or {}), client)
        except ContainerFailure as exc:
            raise TargetError(str(exc)) from None

    @property
    def image(self) -> Any:
        return (self.target.container or {}).get("image")

    def default_name(self) -> str:
        return f"container-{self.image}"

    def where(self) -> str:
        return f"container image {self.image}" + (f" ({self.target.image_id})" if self.target.image_id else "")

    def bundled(self) -> dict[str, Any] | None:
        # The image of the bundled reference, its defects switched on by --defect.
        return {"name": f"image {self.image}", "defects": list(self.target.defects)} if self.target.defects else None

    def env_given(self) -> list[str]:
        return sorted((self.target.container or {}).get("env") or {})

    def own_needs(self) -> set[str]:
        # docker restart is a real restart; the image's entry point is its executable (run with no network);
        # the socket folder is bind-mounted on this host. launch_config only when the image takes a whole
        # configuration document (a config switch, as the reference image's AGENTD_CONFIG, or contract v2's
        # config file): switches cannot carry workflows or principals.
        have = {"restartable", "executable", "logs"}  # docker logs: the container's own output
        if self.target.socket_dir:
            have.add("unix_socket")
        entry = self.target.container or {}
        if "config" in (entry.get("switches") or {}) or entry.get("config_document") or entry.get("config"):
            have.add("launch_config")
        return have

    @property
    def launchable(self) -> bool:
        return True

    def preflight(self, family: str, report_dir: Path) -> Preflight:
        from conformance.targets import lifecycle
        from conformance.targets.run_image import argv_for

        extra = lifecycle.preflight(self.target, report_dir, self.target.secrets())
        if self.target.binary is None:  # the image's entry point
            self.target.binary = shlex.join(argv_for(str(self.image)))
        return Preflight(extra=extra)

    def pool(self, targets: AgentTargets) -> ContainerPool:
        from conformance.targets.pool import ContainerPool

        return ContainerPool(self.target, targets.secrets, targets.report_dir)

    def start(self, targets: AgentTargets, needs: dict[str, Any], fresh: bool) -> Instance:
        assert targets.containers is not None
        return targets.instance_of(*targets.containers.get(needs, fresh))

    def core(self, targets: AgentTargets, card: dict[str, bool]) -> Instance | None:
        if "required_extension" in card or "signed" in card:
            return None  # only the scripted agent can be started marking an extension required, or signing its card
        needs = core_needs(card)
        if needs is None:
            return None
        if not card:
            return targets.agentd(**needs)
        try:
            return targets.agentd(**needs)
        except NotMeasured:
            # The image cannot be switched so (no switch, not in its document): like a running target, the side
            # it serves is judged alone rather than the whole row lost.
            return None

    def refusal(self, targets: AgentTargets, needs: dict[str, Any]) -> tuple[str | None, Instance | None]:
        # An image refuses by exiting before its card answers.
        assert targets.containers is not None
        started = targets.containers.start(needs)
        if isinstance(started, str):
            return started, None
        return None, targets.timed(targets.instance_of(*started))

    def reach(self, inst: Instance) -> None:
        inst.origins = (origin_of(inst.url), *((f"unix://{inst.uds_path}",) if inst.uds_path else ()))
        inst.origin_remedy = f"the container is reached at {origin_of(inst.url)} only"

    def cleanup(self) -> None:
        from conformance.targets import lifecycle

        lifecycle.cleanup(self.target)


class Running(TargetKind):
    """An agent the user runs: probed before the run, served as it is with the facts the user declared."""

    running = True

    def address(self) -> str:
        """Where it is, as a URL (``unix://PATH`` for a socket)."""
        raise NotImplementedError

    def allow(self, origins: list[str]) -> None:
        for value in origins:
            try:
                self.target.allow_origins.append(allowed_origin(value))
            except ValueError as exc:
                raise TargetError(f"--allow-origin: {exc}") from None

    def reach(self, inst: Instance) -> None:
        inst.origins = self.origins()
        inst.origin_remedy = "--allow-origin it if it is your agent's"
        inst.other_ports_unconfirmed = True

    def serve(self, targets: AgentTargets, facts: dict[str, str]) -> Instance:
        from conformance.targets.instances import Instance

        t = self.target
        return Instance(url=self.address(), uds_path=t.path, tokens=dict(t.tokens), facts=facts)

    def preflight(self, family: str, report_dir: Path) -> Preflight:
        """Stop before the checks when nothing answers (:class:`PreflightFailure`), or say that the agent
        demands a credential the user did not give or refuses the one given (``refused``); ``inapplicable``
        when the agent speaks only A2A 0.3 (said in one line)."""
        # Here, not at the top: the probes' HTTP client (httpx, the A2A SDK) is start-up a run of a launched or
        # contained target never needs in the command's process (tests/test_front_imports.py).
        from conformance.targets.preflight import preflight
        from conformance.wire.versions import declares_0_3

        url, target = self.address(), self.target
        bearer = target.tokens.get("operator") or next(iter(target.tokens.values()), None)
        found = preflight(url, uds=target.path, credentials_given=bool(target.tokens), bearer=bearer,
                          origins=self.origins())
        if found.verdict == "unreachable":
            raise PreflightFailure(found.message)
        out = Preflight()
        if found.busy_note:
            sys.stderr.write(f"agentd-conformance: note: {found.busy_note}\n")
            out.caveats.append(found.busy_note)
        if (family == "a2a" and found.verdict == "go" and found.location is not None
                and isinstance(found.location.card, Mapping) and declares_0_3(found.location.card)):
            # The wire probe (and the checks' caller, judge and SDK it imports: a quarter of a second of this
            # process's start-up, issue 20) only for a card that declares 0.3, as speaks_only_0_3 asks first.
            from conformance.targets.core import speaks_only_0_3

            legacy = speaks_only_0_3(found.location.card, token=bearer, timeout=target.call_timeout,
                                     origins=self.origins())
            if legacy is not None:
                sys.stderr.write(f"agentd-conformance: {url} {legacy}; every row is na\n")
                out.inapplicable = legacy
                return out
        if found.verdict in ("auth_required", "auth_refused"):
            out.refused = found.message
        if found.location is not None and isinstance(found.location.card, Mapping):
            out.bindings = card_bindings(found.location.card)
        return out


class Url(Running):
    """A running agent at a URL (``--url``)."""

    name = URL
    listen = "tcp"

    @classmethod
    def make(cls, where: Any, env: Mapping[str, str], plain: Mapping[str, str]) -> AgentTarget:
        if not str(where).startswith(("http://", "https://")):
            raise TargetError(f"--url: expected an http:// or https:// URL, got {where!r}")
        return AgentTarget(URL, url=where)

    def default_name(self) -> str:
        return str(self.target.url)

    def address(self) -> str:
        return str(self.target.url)

    def origins(self) -> tuple[str, ...] | None:
        return (origin_of(self.target.url), *self.target.allow_origins) if self.target.url else None


class Unix(Running):
    """A running agent on a unix socket (``--unix``)."""

    name = UNIX
    listen = "unix"

    @classmethod
    def make(cls, where: Any, env: Mapping[str, str], plain: Mapping[str, str]) -> AgentTarget:
        return AgentTarget(UNIX, path=str(Path(where).resolve()))

    def default_name(self) -> str:
        return f"unix-{Path(str(self.target.path)).name}"

    def address(self) -> str:
        return f"unix://{self.target.path}"

    def origins(self) -> tuple[str, ...] | None:
        return (f"unix://{self.target.path}", *self.target.allow_origins) if self.target.path else None

    def own_needs(self) -> set[str]:
        return {"unix_socket"}


#: Every kind, by the run context's name of it. The order is the options': the first given names the target
#: (none given: launch the reference).
KINDS: dict[str, type[TargetKind]] = {k.name: k for k in (Url, Unix, Container, Launched)}


def kind_of(target: AgentTarget) -> TargetKind:
    """The kind of ``target``, made for it (a kind no class has: a target that serves no check)."""
    return KINDS.get(target.kind, TargetKind)(target)


def build_target(*, url: str | None = None, unix: str | None = None, launch: str | None = None,
                 container: dict[str, Any] | None = None, container_env: dict[str, str] | None = None,
                 container_env_plain: dict[str, str] | None = None,
                 tokens: dict[str, str] | None = None, facts: dict[str, str] | None = None,
                 defects: list[str] | tuple[str, ...] = (), long_running_text: str | None = None,
                 binary: str | None = None, call_timeout: float | None = None,
                 allow_origins: list[str] | tuple[str, ...] = (), spec_revision: str | None = None) -> AgentTarget:
    """The target the user named (at most one of url / unix / container / launch; none: launch the
    reference), from the command's flags or a targets-file entry. Raises :class:`TargetError` for anything
    that cannot be used as given."""
    tokens = pairs(tokens, "--token")
    facts = pairs(facts, "--fact")
    for role in tokens:
        if role not in ROLES:
            raise TargetError(f"--token: unknown role {role!r} (expected one of {', '.join(ROLES)})")
    short = [role for role, tok in tokens.items() if len(tok) < MIN_SECRET_LEN]
    if short:
        raise TargetError(f"--token: the token for {', '.join(short)} is shorter than {MIN_SECRET_LEN} "
                          "characters and could not be redacted safely")
    env = pairs(container_env, "--container-env")
    plain = pairs(container_env_plain, "--container-env-plain")
    short = sorted(k for k, v in env.items() if len(v) < MIN_SECRET_LEN)
    if short:
        raise TargetError(f"--container-env: the value of {', '.join(short)} is shorter than {MIN_SECRET_LEN} "
                          "characters and could not be redacted safely (use --container-env-plain for a value "
                          "that is not a secret)")
    both = sorted(set(env) & set(plain))
    if both:
        raise TargetError(f"--container-env and --container-env-plain both set {', '.join(both)}")
    given = {URL: url, UNIX: unix, CONTAINER: container, LAUNCH: launch}
    cls = next((k for name, k in KINDS.items() if given[name]), Launched)
    target = cls.make(given[cls.name], env, plain)
    kind = cls(target)
    kind.given(container_env=bool(env or plain), defects=list(defects))
    check_facts(facts)
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
    kind.allow(list(allow_origins))
    return target


def targets_for(target: AgentTarget, secrets: SecretSet, report_dir: Path | None = None) -> AgentTargets:
    """What hands the checks instances of ``target``, as its kind starts them."""
    from conformance.targets.instances import AgentTargets

    return AgentTargets(target, secrets, report_dir, kind=kind_of(target))


def card_bindings(card: Mapping[str, Any]) -> int:
    """How many of the bindings the harness's checks speak the card's ``supportedInterfaces`` declare."""
    from conformance.wire import STANDARD_BINDINGS  # the wire package's light part: no client is imported

    entries = card.get("supportedInterfaces")
    if not isinstance(entries, list):
        return 0
    declared = {e.get("protocolBinding") for e in entries if isinstance(e, Mapping)}
    return len(declared & set(STANDARD_BINDINGS))
