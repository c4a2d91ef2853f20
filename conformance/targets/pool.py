"""The containers of one test process: one per configuration a check asks for, as ``--launch reference``.

A check's needs (``events=False``, ``listen="unix"``, ``auth=True``, ...) become the container's
environment through the image's switches; reference objects (workflows, principals with grants) go
as one configuration document through the image's ``config`` switch. What the image offers no
switch for ends the check ``not_measured`` naming the need: a container is configured only
through its environment. A unix peer a workflow names has its folder bind-mounted at the same path,
and the image is told the harness's address on the internal network (``callback_hosts``), so its
outbound calls reach the receivers a check serves there (:attr:`ContainerPool.callback_host`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import yaml

from conformance.agentd_page import ROLES
from conformance.agentd_page.launch import Principal, Workflow, harness_document, principal_document, workflow_document
from conformance.evidence import SecretSet, slug
from conformance.outcome import fail, not_measured
from conformance.targets.container import (
    SOCKET_NAME,
    ContainerAgent,
    ContainerExited,
    ContainerFailure,
    ContainerSpec,
    Network,
    join_network,
    make_network,
)
from conformance.targets.contract import PREFIX, ConfigSpec, ContractError, render, render_context
from conformance.targets.control import ContainerControl
from conformance.targets.model import AgentTarget

#: Needs that are reference objects: only an image with a ``config`` switch (the reference's) takes them,
#: as one YAML document of the reference's Config fields.
STRUCTURED = ("principals", "workflows", "grants", "tick", "instance")


def need_text(key: str, value: Any) -> str:
    """A structured need as a note says it: workflows and principals by name (their repr would fill a report's
    note before its reason), anything else as ``key=value``."""
    if isinstance(value, tuple | list) and value and all(isinstance(v, Workflow | Principal) for v in value):
        return f"{key} {', '.join(v.name for v in value)}"
    return f"{key}={value!r}"
FULL_LOG_CHARS = 1_000_000


@dataclasses.dataclass
class Document:
    """A configuration document (contract v2's ``config``) for one container, rendered once the URL the harness
    reaches it at and the TLS files' paths inside are known."""

    spec: ConfigSpec
    facts: dict[str, str]
    principals: list[dict[str, Any]]
    structured: dict[str, Any]
    callback_hosts: list[str]
    listen: str = "tcp"
    port: int = 0
    network: str = "internal"

    def reference(self) -> dict[str, Any]:
        """The launch configuration document (:mod:`conformance.agentd_page.launch`, the reference's shape)."""
        doc: dict[str, Any] = {}
        if self.principals:
            doc["principals"] = [{k: p[k] for k in ("name", "token", "role", "grants")} for p in self.principals]
        if self.structured.get("workflows"):
            doc["workflows"] = [workflow_document(w) for w in self.structured["workflows"]]
        for key in ("tick", "instance"):
            if key in self.structured:
                doc[key] = self.structured[key]
        for key in ("events", "introspection", "device_grant", "push"):
            if key in self.facts:
                doc[key] = self.facts[key] == "on"
        if self.callback_hosts:
            doc["callback_hosts"] = list(self.callback_hosts)
        return harness_document(doc)

    def context(self, url: str, tls: dict[str, str] | None) -> dict[str, Any]:
        """What the image's ``config-template`` reads for a container reached at ``url`` (its JSON Schema:
        ``conformance/agentd_page/config/context.schema.json``)."""
        return render_context(
            facts=self.facts, principals=self.principals,
            workflows=[workflow_document(w) for w in self.structured.get("workflows", ())],
            extra={k: v for k, v in self.structured.items() if k in ("tick", "instance", "grants")},
            tls=tls, public_url=url.rstrip("/"), listen=self.listen,
            # On the host's network the image binds the port of the URL the harness gave it.
            port=(urlsplit(url).port or self.port) if self.network == "host" else self.port,
            network=self.network, callback_hosts=self.callback_hosts, reference=self.reference())

    def files(self, url: str, tls: dict[str, str] | None) -> dict[str, bytes]:
        """The document's file (path inside -> bytes) for a container reached at ``url``."""
        try:
            return {self.spec.path: render(self.spec, self.context(url, tls))}
        except ContractError as exc:
            raise ContainerFailure(f"the configuration document could not be made: {exc}") from None


def fact_value(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, tuple | list | frozenset | set):
        return ",".join(str(x) for x in v)
    return str(v)


#: Why a receiver of the harness cannot be reached from a container on the engine's default bridge
#: (``network: bridge``): its 127.0.0.1 is its own, and the harness listens on no other address there.
UNREACHABLE = ("delivery from a container on the engine's default bridge to a receiver of the harness cannot be "
               "provoked (the container's 127.0.0.1 is its own); run it on the harness's internal network (leave "
               "the container's network unset) to measure it")


class CallsBack(Protocol):
    """What knows how the agent under test reaches a receiver of the harness (an Instance, a CoreAgent, the
    AgentTargets): the address to listen on, the scheme to serve, and why a call back cannot be provoked."""

    @property
    def callback_host(self) -> str | None: ...

    @property
    def callback_scheme(self) -> str: ...

    @property
    def callback_gap(self) -> str | None: ...


def way_back(target: CallsBack) -> str:
    """The address a receiver of the harness listens on so ``target`` calls it, for a check that needs the call
    to arrive (a delivery, a peer's send); ``not_measured`` when the agent has no way back to the harness
    (:data:`UNREACHABLE`) or cannot be made to trust the receiver's certificate (``callback_gap``)."""
    if target.callback_host is None:
        not_measured(UNREACHABLE)
    if target.callback_gap:
        not_measured(target.callback_gap)
    return target.callback_host


def https_only_gap(image: str, tls_label: bool) -> str:
    """The note of a call back that cannot be provoked: the image calls https URLs only and names no CA bundle
    (kept under the report's note limit with a long image name: the fix comes before anything else could be cut)."""
    fix = (f"add ca=VARIABLE (or ca=/path) to its label {PREFIX}.tls" if tls_label else
           f"label it {PREFIX}.tls=cert=VAR,key=VAR,ca=VAR")
    return (f"the image {image} calls back to https only (callbacks=schemes=https) and names no CA bundle, so it "
            f"cannot trust the harness's https receivers: {fix}")


class ContainerHandle:
    """What a check may do to a container it was handed (``Instance.launched``): restart it, and revoke
    a credential through the image's control socket (the in-process hook a launched reference offers)."""

    def __init__(self, agent: ContainerAgent) -> None:
        self.agent = agent

    def restart(self) -> None:
        try:
            self.agent.restart()
        except ContainerFailure as exc:
            fail(f"after a restart: {exc}")

    def logs(self) -> str:
        """The container's log stream (stdout and stderr) so far; empty when the engine has none."""
        return self.agent.full_logs() or ""

    def revoke(self, token: str) -> bool:
        if self.agent.control_path is None:
            not_measured(f"revoking a session needs the daemon's control hook; the image {self.agent.spec.image} "
                         "serves none (label dev.agentd-conformance.control)")
        return ContainerControl(self.agent.control_path).revoke(token)


@dataclasses.dataclass(frozen=True)
class _Failed:
    """A container that did not become ready: the redacted message, and whether its process exited first."""

    message: str
    exited: bool


class ContainerPool:
    """Starts, caches and finally removes the containers of one test process."""

    def __init__(self, target: AgentTarget, secrets: SecretSet, report_dir: Path | None = None) -> None:
        self.entry = dict(target.container or {})
        self.facts = dict(target.facts)
        self.defects = tuple(sorted(target.defects))
        self.secrets = secrets
        self.report_dir = report_dir
        self._spec: ContainerSpec | None = None
        self._own_network: Network | None = None
        self._cache: dict[tuple[Any, ...], tuple[ContainerAgent, dict[str, str], dict[str, str]] | str] = {}
        self.started: list[ContainerAgent] = []
        self.used: list[ContainerAgent] = []

    @property
    def spec(self) -> ContainerSpec:
        if self._spec is None:
            try:
                self._spec = ContainerSpec.resolve(self.entry)
            except ContainerFailure as exc:
                fail(str(exc))
            if self._spec.network_mode == "internal":
                if self.entry.get("network_name"):
                    self._spec.network = join_network(self.entry)
                else:
                    self._own_network = self._spec.network = make_network()
        return self._spec

    @property
    def callback_host(self) -> str | None:
        """The address a receiver of the harness listens on so this run's containers reach it: the gateway
        of the harness's internal network; None on the engine's default bridge."""
        if self.spec.network_mode == "host":
            return "127.0.0.1"  # the container shares this host's loopback
        net = self.spec.network
        return net.gateway if net is not None else None

    @property
    def callback_scheme(self) -> str:
        """How a receiver of the harness serves this run's containers: https when the image calls back to https
        only (contract v2's ``callbacks``), with a certificate of the CA the image is given (``tls`` ``ca=``)."""
        return "https" if self.spec.v2.callbacks.https_only else "http"

    @property
    def callback_gap(self) -> str | None:
        """Why a call of the image to a receiver of the harness cannot be provoked though it can reach one: it
        calls back to https only and its ``tls`` label names no ``ca=`` (None when it can be)."""
        spec = self.spec
        if not spec.v2.callbacks.https_only or (spec.v2.tls is not None and spec.v2.tls.ca):
            return None
        return https_only_gap(spec.image, spec.v2.tls is not None)

    def environment(self, needs: dict[str, Any]) -> tuple[dict[str, str], str, dict[str, str], dict[str, str]]:
        """(environment, listen, tokens, facts) for ``needs``, or ``not_measured`` naming what cannot be set."""
        env, listen, tokens, facts, _document = self.configuration(needs)
        return env, listen, tokens, facts

    def configuration(self, needs: dict[str, Any]) -> tuple[dict[str, str], str, dict[str, str], dict[str, str],
                                                            Document | None]:
        """(environment, listen, tokens, facts, the configuration document to write) for ``needs``, or
        ``not_measured`` naming what the image cannot be given."""
        spec = self.spec
        needs = dict(needs)
        env: dict[str, str] = {}
        if self.callback_host and "callback_hosts" in spec.switches:
            env[spec.switches["callback_hosts"]] = self.callback_host
        facts = {**spec.defaults, **self.facts}
        tokens: dict[str, str] = {}
        cfg = spec.v2.config
        structured = {k: needs.pop(k) for k in STRUCTURED if k in needs}
        auth = bool(needs.pop("auth", False))
        document: Document | None = None
        if cfg is not None:
            # Contract v2: what the document expresses goes there; the rest through switches as in v1.
            in_doc = {k: needs.pop(k) for k in list(needs) if k in cfg.takes and k not in ("listen", "uds_path")}
            missing = [k for k in structured if k not in cfg.takes]
            if missing:
                key = missing[0]
                what = need_text(key, structured[key])
                not_measured(f"needs {what}; the image {spec.image}'s configuration document "
                             f"does not take {key} (container config-takes: {', '.join(cfg.takes) or 'nothing'})")
            if auth and "principals" not in cfg.takes and not all(r in spec.tokens_env for r in ROLES):
                not_measured(f"needs bearer tokens for {', '.join(ROLES)}; the image takes no principals in its "
                             "configuration document (config-takes) and names no variable per role (tokens)")
            principals = self._principals(structured, auth)
            for i, p in enumerate(principals):
                p["token_env"] = f"AGENTD_CONFORMANCE_TOKEN_{i + 1}"
                env[p["token_env"]] = p["token"]
                tokens.setdefault(p["role"], p["token"])
            for role, role_var in spec.tokens_env.items():
                if role in tokens:
                    env[role_var] = tokens[role]
            for key, want in in_doc.items():
                facts[key] = fact_value(want)
            document = Document(cfg, facts=dict(facts), principals=principals, structured=structured,
                                callback_hosts=[self.callback_host] if self.callback_host else [])
            if cfg.env:
                env[cfg.env] = cfg.path
        elif structured:
            if "config" not in spec.switches:
                key = next(iter(structured))
                what = need_text(key, structured[key])
                not_measured(f"needs a configuration ({what}) that this image cannot be given "
                             "through its environment: declare a switch that takes a whole configuration document "
                             "(container.switches.config, label dev.agentd-conformance.switches) or a configuration "
                             "document of the image's own (contract v2: docs/containers.md) to measure it")
            env[spec.switches["config"]], tokens = self._config_document(structured, auth)
        elif auth:
            missing = [r for r in ROLES if r not in spec.tokens_env]
            if missing:
                not_measured(f"needs bearer tokens for {', '.join(missing)}; the image names no variable for them "
                             "(container.tokens_env)")
            for role in ROLES:
                tokens[role] = self._token(role)
                env[spec.tokens_env[role]] = tokens[role]
        uds_path = needs.pop("uds_path", None)
        facts["auth"] = "on" if tokens else "off"
        listen = str(needs.pop("listen", "tcp"))
        if self.defects:
            needs["defects"] = self.defects
        for key, want in needs.items():
            value = fact_value(want)
            var = spec.switches.get(key)
            if var is None:
                if facts.get(key) == value:
                    continue  # the image's default already is what the check needs
                not_measured(f"needs {key}={value}; the image {spec.image} declares no switch for {key} "
                             f"(container.switches.{key}: VARIABLE)")
            env[var] = value
            facts[key] = value
        if listen == "unix" and not spec.socket_dir:
            not_measured(f"needs the unix socket listener; the image {spec.image} names no socket folder "
                         "(container.socket_dir)")
        if uds_path is not None and os.path.basename(str(uds_path)) != SOCKET_NAME:
            not_measured(f"needs the socket at {uds_path}; a container's socket is always {SOCKET_NAME} in the "
                         "bind-mounted folder")
        facts["uds_folder"] = os.path.dirname(str(uds_path)) if uds_path else ""
        if listen != "tcp" and "listen" in spec.switches:
            env[spec.switches["listen"]] = listen
        facts["listen"] = listen
        if document is not None:
            document.listen, document.port, document.network = listen, spec.port, spec.network_mode
            document.facts.update({k: v for k, v in facts.items() if k not in ("uds_folder",)})
        return env, listen, tokens, facts, document

    def _principals(self, structured: dict[str, Any], auth: bool) -> list[dict[str, Any]]:
        """The principals a configuration needs (given, or one per role when ``auth``), their tokens known."""
        given: tuple[Principal, ...] = tuple(structured.get("principals", ()))
        principals = [principal_document(p) for p in given]
        if auth and not principals:
            grants = structured.get("grants") or {}
            principals = [{"name": f"{role}-1", "token": self._token(role), "role": role,
                           "grants": sorted(grants.get(role, ()))} for role in ROLES]
        for p in principals:
            self.secrets.add(p["token"])
        return principals

    def _token(self, role: str) -> str:
        # SecretSet.make keeps the readable part short: a token spelled "operator-…" would redact the
        # word operator wherever a report says it.
        return self.secrets.make(role)

    def _config_document(self, structured: dict[str, Any], auth: bool) -> tuple[str, dict[str, str]]:
        """The reference's Config fields as YAML (its ``--config`` shape), and the roles' tokens in it."""
        doc: dict[str, Any] = {}
        principals = self._principals(structured, auth)
        tokens: dict[str, str] = {}
        for p in principals:
            tokens.setdefault(p["role"], p["token"])
        if principals:
            doc["principals"] = principals
        if structured.get("workflows"):
            doc["workflows"] = [workflow_document(w) for w in structured["workflows"]]
        for key in ("tick", "instance"):
            if key in structured:
                doc[key] = structured[key]
        return yaml.safe_dump(harness_document(doc), sort_keys=True), tokens

    @staticmethod
    def _key(needs: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(sorted((k, repr(v)) for k, v in needs.items()))

    @staticmethod
    def _unix_peers(needs: dict[str, Any]) -> tuple[str, ...]:
        """Folders of the unix peers the needs' workflows name (bind-mounted at the same path), opened to the
        daemon's uid: it may pass the private folder and connect() (write) to the socket."""
        folders = []
        workflows: tuple[Workflow, ...] = tuple(needs.get("workflows") or ())
        for w in workflows:
            path = w.send_to.uds_path if w.send_to is not None else None
            if path:
                folder = os.path.dirname(path)
                with contextlib.suppress(OSError):
                    os.chmod(folder, os.stat(folder).st_mode | 0o011)
                    os.chmod(path, 0o666)
                folders.append(folder)
        return tuple(dict.fromkeys(folders))

    def start(self, needs: dict[str, Any]) -> str | tuple[ContainerAgent, dict[str, str], dict[str, str]]:
        """A private container for ``needs`` expecting the image may refuse the configuration: the text of
        its exit (with its last log lines) when it ended before its card answered, else the ready container
        with its tokens and facts. One that neither exits nor becomes ready fails the check."""
        started = self._start(needs)
        if isinstance(started, _Failed):
            if not started.exited:
                fail(started.message)
            return started.message
        return started

    def _start(self, needs: dict[str, Any]) -> _Failed | tuple[ContainerAgent, dict[str, str], dict[str, str]]:
        """A started, ready container for ``needs`` with its tokens and facts, or how it failed to start
        (its logs saved, the container removed)."""
        env, listen, tokens, facts, document = self.configuration(needs)
        name = "-".join(f"{k}={fact_value(v)}" for k, v in sorted(needs.items())) or "default"
        agent = ContainerAgent(self.spec, env, listen=listen, name=slug(name, 60),
                               socket_folder=facts.pop("uds_folder") or None, mounts=self._unix_peers(needs),
                               document=document.files if document is not None else None)
        self.started.append(agent)
        try:
            agent.start()
        except ContainerFailure as exc:
            self._save_logs(agent)
            agent.stop()
            return _Failed(self.secrets.redact(str(exc)), isinstance(exc, ContainerExited))
        self.used.append(agent)
        return agent, tokens, facts

    def get(self, needs: dict[str, Any], fresh: bool) -> tuple[ContainerAgent, dict[str, str], dict[str, str]]:
        """A ready container for ``needs`` (cached unless ``fresh``); fails with its logs when it is not."""
        key = self._key(needs)
        cached = None if fresh else self._cache.get(key)
        if isinstance(cached, str):
            fail(cached)  # it did not start before: the same failure, without waiting again
        if cached is not None:
            agent = cached[0]
            state, code = agent.state()
            if state != "running":
                fail(f"{agent.describe()} exited mid-run (status {state}, exit code {code}); last log lines:\n"
                     f"{agent.logs()}")
            self.used.append(agent)
            return cached
        started = self._start(needs)
        result = started.message if isinstance(started, _Failed) else started
        if not fresh:
            self._cache[key] = result
        if isinstance(result, str):
            fail(result)
        return result

    def drain_used(self) -> list[ContainerAgent]:
        used, self.used = list(dict.fromkeys(self.used)), []
        return used

    def _save_logs(self, agent: ContainerAgent) -> None:
        if self.report_dir is None:
            return
        text = agent.full_logs(FULL_LOG_CHARS)
        if text is None:
            return
        folder = self.report_dir / "containers"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{agent.name}-{agent.id[:12]}.log").write_text(self.secrets.redact(text), encoding="utf-8")

    def close(self) -> None:
        for agent in self.started:
            with contextlib.suppress(Exception):
                self._save_logs(agent)
            agent.stop()
        self.started.clear()
        self._cache.clear()
        if self._own_network is not None:
            from conformance.targets.engine import docker_client

            with contextlib.suppress(Exception):
                docker_client().networks.get(self._own_network.name).remove()
            self._own_network = None
