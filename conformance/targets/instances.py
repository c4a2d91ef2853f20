"""The agent under test, in the configurations the checks need: :class:`AgentTargets` hands out
:class:`Instance` objects.

A check asks for an instance with ``agentd(events=False)`` (or ``listen="unix"``, ...). With
``--launch reference`` the harness starts the reference agentd in that configuration (once per
configuration and test process; ``fresh=True`` for a private one a check may disturb). Against a
running daemon (``--url``/``--unix``) the harness cannot switch anything: a check whose needs are not
among the target's declared facts (``--fact events=on``) ends ``not_measured`` naming the fact. With
``--container IMAGE`` each configuration is one container started with the matching environment
(:mod:`conformance.targets.pool`). The core family's agent comes from :meth:`AgentTargets.core`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from conformance.agentd_page import ROLES
from conformance.agentd_page.launch import Principal, document, harness_document
from conformance.evidence import SecretSet
from conformance.outcome import not_measured
from conformance.targets.control import ContainerControl, Control, ReferenceControl, ScriptedControl
from conformance.targets.model import AgentTarget
from conformance.targets.pool import ContainerHandle, ContainerPool, need_text
from conformance.targets.resolve import AgentLocation, resolve
from conformance.wire import DEFAULT_CALL_TIMEOUT, Recorder

if TYPE_CHECKING:  # the bundled agents, imported at run time only when one is launched
    from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
    from conformance.fixtures.reference_agentd import ReferenceAgentd
    from conformance.fixtures.scripted_agent import ScriptedAgent
    from conformance.targets.container import ContainerAgent

#: Facts a check may need, and how the reference agentd's Config spells them.
SWITCHES = {"events": "events", "introspection": "introspection", "device_grant": "device_grant", "push": "push"}
#: Needs only a launched reference can meet (its Config objects); a running target cannot be switched to them.
REFERENCE_ONLY = ("principals", "workflows", "grants", "ring", "stream_deadline", "tick", "instance")


@dataclass(kw_only=True)
class Reach:
    """How the harness reaches one agent and is reached by it, and where its interfaces may be: what an
    :class:`Instance` knows and the :class:`~conformance.targets.core.CoreAgent` made from it keeps."""

    #: How the harness puts its tasks into a chosen state (a launched reference or scripted agent, or an
    #: image serving the control socket).
    control: Control | None = None
    #: The address a receiver of the harness (a peer, a webhook) listens on so this agent reaches it:
    #: loopback, or the gateway of the harness's network for a container; None when there is none.
    callback_host: str | None = "127.0.0.1"
    #: How that receiver serves: ``https`` (with a certificate of the harness's CA) for an agent that calls back
    #: to https URLs only, else ``http``.
    callback_scheme: str = "http"
    #: Why a call of this agent to such a receiver cannot be provoked though it can reach it (it calls https
    #: only and cannot be told to trust the harness's CA); None when it can be.
    callback_gap: str | None = None
    #: Seconds a client of the harness waits for one answer of this agent (the run's ``--call-timeout``).
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    #: Where this agent's interfaces may be (:mod:`conformance.targets.origins`); None: wherever its card
    #: says (an agent the harness launched itself).
    origins: tuple[str, ...] | None = None
    #: What a user can do about an interface outside :attr:`origins` (the end of the card row's note).
    origin_remedy: str = ""
    #: Whether an interface on another port of the host given is only unconfirmed (not measured) rather than
    #: outside (the card row's fail): so for ``--url``/``--unix``; a container's ports are all known.
    other_ports_unconfirmed: bool = False

    def reach(self) -> dict[str, Any]:
        """These fields by name (to make another :class:`Reach` that reaches the same agent)."""
        return {f.name: getattr(self, f.name) for f in fields(Reach)}


@dataclass
class Instance(Reach):
    """One agent under test: what names it (``url``: the given ``--url``, or where a launched target
    listens; ``uds_path``: its socket), who may call it, and what is known about it. Every endpoint
    comes from :attr:`location`, the card the one resolver finds."""

    url: str
    uds_path: str | None
    tokens: dict[str, str] = field(repr=False)  # pytest prints a failing check's fixtures
    facts: dict[str, str]
    launched: Any = None  # the ReferenceAgentd (or other fixture server) when the harness started it
    recorder: Recorder = field(default_factory=Recorder)
    _location: AgentLocation | None = field(default=None, repr=False)

    @property
    def location(self) -> AgentLocation:
        """Where the card is and the interfaces it declares (found on first use, then kept)."""
        if self._location is None:
            bearer = self.tokens.get("operator") or next(iter(self.tokens.values()), None)
            self._location = resolve(self.url, uds=self.uds_path, bearer=bearer)
        return self._location

    def token(self, role: str) -> str:
        tok = self.tokens.get(role)
        if not tok:
            not_measured(f"needs a bearer token for role {role!r}; give one with --token {role}=TOKEN")
        return tok


def _fact_value(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


class Kind(Protocol):
    """What :class:`AgentTargets` asks of its target's kind (one class a kind:
    :class:`conformance.targets.kinds.TargetKind`)."""

    @property
    def launchable(self) -> bool: ...

    def pool(self, targets: AgentTargets) -> ContainerPool | None: ...

    def start(self, targets: AgentTargets, needs: dict[str, Any], fresh: bool) -> Instance: ...

    def core(self, targets: AgentTargets, card: dict[str, bool]) -> Instance | None: ...

    def refusal(self, targets: AgentTargets, needs: dict[str, Any]) -> tuple[str | None, Instance | None]: ...

    def reach(self, inst: Instance) -> None: ...


class AgentTargets:
    """Hands out instances matching a check's needs, as the target's kind starts them
    (``kind``, made by :func:`conformance.targets.kinds.targets_for`): launched per configuration, a container,
    or the running target as declared."""

    def __init__(self, target: AgentTarget, secrets: SecretSet, report_dir: Path | None = None, *,
                 kind: Kind) -> None:
        self.target = target
        self.kind = kind
        self.secrets = secrets
        self.report_dir = report_dir
        self.defects = frozenset(target.defects)
        self._cache: dict[tuple[Any, ...], Instance] = {}
        self._started: list[ReferenceAgentd | ScriptedAgent | PlainSdkAgent] = []
        #: The containers the instances are (``--container``), else None.
        self.containers: ContainerPool | None = kind.pool(self)

    @property
    def launchable(self) -> bool:
        """Whether the harness starts the agent per configuration (the reference, or its image in a container:
        what a container's environment cannot express ends ``not_measured`` there)."""
        return self.kind.launchable

    def _token(self, role: str) -> str:
        return self.secrets.make(role)

    def agentd(self, *, fresh: bool = False, **needs: Any) -> Instance:
        """An instance whose configuration satisfies ``needs`` (see :meth:`_agentd`), called with the run's
        per-call timeout."""
        return self.timed(self._agentd(fresh=fresh, **needs))

    def timed(self, inst: Instance) -> Instance:
        """``inst`` as the run calls it: with the per-call timeout, and the origins that are its own."""
        inst.call_timeout = self.target.call_timeout
        self.kind.reach(inst)
        return inst

    def _agentd(self, *, fresh: bool = False, **needs: Any) -> Instance:
        """An instance whose configuration satisfies ``needs`` (Config fields of the reference agentd).

        Common needs: ``events``, ``introspection``, ``device_grant``, ``listen`` ("tcp"/"unix"),
        ``auth`` (True: principals operator/user/agent with bearer tokens are configured),
        ``ring``, ``stream_deadline``, ``workflows`` (tuple of :class:`conformance.agentd_page.launch.Workflow`).
        """
        return self.kind.start(self, needs, fresh)

    def launched(self, needs: dict[str, Any], fresh: bool) -> Instance:
        """The launched reference in the configuration ``needs`` asks for (one per configuration, or a private
        one when ``fresh``)."""
        key = tuple(sorted((k, repr(v)) for k, v in needs.items()))
        if not fresh and key in self._cache:
            return self._cache[key]
        inst = self._launch(needs)
        if not fresh:
            self._cache[key] = inst
        return inst

    def launch_document(self, needs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The launch configuration document a launched reference is started with for ``needs`` (with ``auth``
        and no principals given: one per role, granted ``grants[role]``), and the roles' tokens. The reference
        reads it as an image reads the one a ``config`` switch hands it: held to the document's schema."""
        needs = dict(needs)
        auth = bool(needs.pop("auth", False))
        tokens: dict[str, str] = {}
        principals: list[Principal] = list(needs.pop("principals", ()))
        if auth and not principals:
            for role in ROLES:
                tokens[role] = self._token(role)
                principals.append(Principal(name=f"{role}-1", token=tokens[role], role=role,
                                            grants=frozenset(needs.get("grants", {}).get(role, ()))))
        needs.pop("grants", None)
        for p in principals:
            self.secrets.add(p.token)
            tokens.setdefault(p.role, p.token)
        return harness_document(document(principals=principals, **needs)), tokens

    def _launch(self, needs: dict[str, Any]) -> Instance:
        # The bundled agents are imported when one is launched: a running target or an image needs none.
        from conformance.fixtures.reference_agentd import ReferenceAgentd
        from conformance.fixtures.reference_agentd.config import make, typed_fields

        doc, tokens = self.launch_document(needs)
        config = make({**typed_fields(doc), "defects": self.defects})  # the defects are the run's, not the document's
        server = ReferenceAgentd(config).start()
        self._started.append(server)
        facts = {k: _fact_value(getattr(config, attr)) for k, attr in SWITCHES.items()}
        facts["listen"] = config.listen
        facts["auth"] = "on" if config.principals else "off"
        return Instance(url=server.url, uds_path=server.uds_path, tokens=tokens, facts=facts, launched=server,
                        control=ReferenceControl(server))

    @property
    def callback_host(self) -> str | None:
        """Where a receiver of the harness listens so the agent under test reaches it (see Instance)."""
        return self.containers.callback_host if self.containers is not None else "127.0.0.1"

    @property
    def callback_scheme(self) -> str:
        """How a receiver of the harness serves the agent under test (see Instance)."""
        return self.containers.callback_scheme if self.containers is not None else "http"

    @property
    def callback_gap(self) -> str | None:
        """Why a call back of the agent under test cannot be provoked (see Instance); None when it can be."""
        return self.containers.callback_gap if self.containers is not None else None

    def refusal(self, **needs: Any) -> tuple[str | None, Instance | None]:
        """Start a private instance whose configuration the agent is expected to refuse: (the refusal's
        words, None) when it refused to start, (None, the instance) when it started anyway. A launched
        reference refuses with a ConfigError; an image by exiting before its card answers."""
        return self.kind.refusal(self, needs)

    def instance_of(self, agent: ContainerAgent, tokens: dict[str, str], facts: dict[str, str]) -> Instance:
        control = ContainerControl(agent.control_path) if agent.control_path else None
        return Instance(url=agent.url, uds_path=agent.uds_path, tokens=tokens, facts=facts,
                        launched=ContainerHandle(agent), control=control, callback_host=self.callback_host,
                        callback_scheme=self.callback_scheme, callback_gap=self.callback_gap)

    def declared_facts(self, needs: dict[str, Any], listen: str | None) -> dict[str, str]:
        """The facts of a target the harness cannot switch (declared, ``listen`` as its kind listens, auth when
        tokens were given); the check ends not measured when ``needs`` are not among them."""
        t = self.target
        facts = dict(t.facts)
        if listen is not None:
            facts.setdefault("listen", listen)
        if t.tokens:
            facts.setdefault("auth", "on")
        for key, want in needs.items():
            if key == "fresh":
                continue
            if key in REFERENCE_ONLY:
                not_measured(f"needs a configuration ({need_text(key, want)}) that a running target cannot be switched "
                             "to; give your agent as a --container image that takes a configuration document "
                             "(switch config) to measure it")
            have = facts.get(key)
            if have is None and key == "auth":
                # A fact cannot make principals: only credentials can (tokens set auth=on).
                not_measured("needs callers with roles (operator, user, agent); give their bearer tokens with "
                             "--token operator=TOKEN (and user=, agent=)")
            if have is None:
                not_measured(f"needs a target with {key}={_fact_value(want)}; the target declared no such fact "
                             f"(declare it with --fact {key}={_fact_value(want)} if it holds)")
            if have != _fact_value(want):
                not_measured(f"needs a target with {key}={_fact_value(want)}; this target declared {key}={have}")
        return facts

    def core(self, **card: bool) -> Instance | None:
        """An instance for the core (``a2a``) family checks, launching it when the target is launched.

        ``card`` flips capabilities of a launched target's card (``streaming``, ``push``,
        ``extended``; on the scripted agent also ``required_extension``: an extension marked required;
        ``secured``: a declared bearer scheme every A2A request needs, the instance holding its token (on the
        scripted agent two: the user's and the agent role's, two principals each seeing only its own tasks);
        ``signed``, on the scripted agent only: a card signature, A2A §8.4;
        on the reference agentd that is its principals' configuration) so
        both sides of a capability claim can be measured; the result is None when
        this target cannot be switched that way (a running target never can). Launch names:
        ``reference`` (the reference agentd, via :meth:`agentd`), ``scripted`` (the scripted agent on
        JSON-RPC, HTTP+JSON and gRPC with the core script) and ``sdk`` (a plain a2a-sdk agent).
        """
        inst = self.kind.core(self, card)
        return self.timed(inst) if inst is not None else None

    def launched_core(self, card: dict[str, bool]) -> Instance | None:
        """The launched scripted or plain SDK agent with its card flipped as ``card`` asks (one per card)."""
        name = self.target.name
        key = ("core", name, tuple(sorted(card.items())))
        if key in self._cache:
            return self._cache[key]
        server: ScriptedAgent | PlainSdkAgent
        control: Control | None = None
        tokens: dict[str, str] = {}
        if name == "scripted":
            from conformance.fixtures.scripted_agent.core import start_core_agent

            flips: dict[str, Any] = dict(card)
            if flips.pop("secured", False):
                tokens["user"] = flips["secured"] = self._token("user")
                tokens["agent"] = self._token("agent")  # a second principal (A2A_LIST_009, A2A_SEC_003)
                flips["callers"] = (tokens["agent"],)
            server = start_core_agent(defects=self.defects, **flips)
            control = ScriptedControl(server)
        elif name == "sdk":
            from conformance.fixtures.plain_sdk_agent import PlainSdkAgent

            # by name: its other keywords (bindings, limit, ...) are never card flips
            server = PlainSdkAgent(streaming=card.get("streaming", True), push=card.get("push", True),
                                   extended=card.get("extended", False)).start()
        else:
            return None
        self._started.append(server)
        inst = Instance(url=server.base_url + "/", uds_path=None, tokens=tokens, facts={}, launched=server,
                        control=control)
        self._cache[key] = inst
        return inst

    def close(self) -> None:
        for s in self._started:
            with contextlib.suppress(Exception):  # best effort: the process ends anyway
                s.stop()
        self._started.clear()
        self._cache.clear()
        if self.containers is not None:
            self.containers.close()
