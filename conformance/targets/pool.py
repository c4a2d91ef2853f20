"""The containers of one test process: one per configuration a check asks for, as ``--launch reference``.

A check's needs (``events=False``, ``listen="unix"``, ``auth=True``, ...) become the container's
environment through the image's switches. What no switch expresses (workflow objects, principals
with grants, a socket at a path of the check's choosing) ends the check ``not_measured`` naming the
need: a container is configured only through its environment.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets as _secrets
from pathlib import Path
from typing import Any

import yaml

from conformance.agentd_page import ROLES
from conformance.evidence import SecretSet, slug
from conformance.outcome import fail, not_measured
from conformance.targets.container import (
    SOCKET_NAME,
    ContainerAgent,
    ContainerFailure,
    ContainerSpec,
    Network,
    join_network,
    make_network,
)
from conformance.targets.model import AgentTarget

#: Needs that are reference objects: only an image with a ``config`` switch (the reference's) takes them,
#: as one YAML document of the reference's Config fields.
STRUCTURED = ("principals", "workflows", "grants", "tick", "instance")
FULL_LOG_CHARS = 1_000_000


def _workflow(w: Any) -> dict[str, Any]:
    """A reference Workflow as the mapping its YAML loader reads."""
    out = {k: v for k, v in dataclasses.asdict(w).items() if v is not None and k != "send_to"}
    out["roles"] = list(w.roles)
    if w.send_to is not None:
        out["send_to"] = w.send_to.url
    return out


def fact_value(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, tuple | list | frozenset | set):
        return ",".join(str(x) for x in v)
    return str(v)


class ContainerHandle:
    """What a check may do to a container it was handed (``Instance.launched``): restart it, no more."""

    #: Why a webhook on the harness's loopback cannot be reached from inside the container (checks of
    #: delivery end not_measured with it; the container's loopback is its own).
    webhook_unreachable = ("webhook delivery from a container to a receiver on the harness's loopback cannot be "
                           "provoked: the container's 127.0.0.1 is its own; run with --launch reference to measure it")

    def __init__(self, agent: ContainerAgent) -> None:
        self.agent = agent

    def restart(self) -> None:
        try:
            self.agent.restart()
        except ContainerFailure as exc:
            fail(f"after a restart: {exc}")

    def revoke(self, token: str) -> bool:
        del token
        not_measured("revoking a session needs the daemon's in-process hook; a container target offers none")


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

    def environment(self, needs: dict[str, Any]) -> tuple[dict[str, str], str, dict[str, str], dict[str, str]]:
        """(environment, listen, tokens, facts) for ``needs``, or ``not_measured`` naming what cannot be set."""
        spec = self.spec
        needs = dict(needs)
        env: dict[str, str] = {}
        facts = {**spec.defaults, **self.facts}
        tokens: dict[str, str] = {}
        structured = {k: needs.pop(k) for k in STRUCTURED if k in needs}
        auth = bool(needs.pop("auth", False))
        if structured:
            if "config" not in spec.switches:
                key = next(iter(structured))
                not_measured(f"needs a reference-style configuration ({key}={structured[key]!r}) that this image "
                             "cannot be given through its environment (no container.switches.config); run with "
                             "--launch reference to measure it")
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
        return env, listen, tokens, facts

    def _token(self, role: str) -> str:
        tok = f"{role}-{_secrets.token_urlsafe(18)}"
        self.secrets.add(tok)
        return tok

    def _config_document(self, structured: dict[str, Any], auth: bool) -> tuple[str, dict[str, str]]:
        """The reference's Config fields as YAML (its ``--config`` shape), and the roles' tokens in it."""
        doc: dict[str, Any] = {}
        principals = [{"name": p.name, "token": p.token, "role": p.role, "grants": sorted(p.grants)}
                      for p in structured.get("principals", ())]
        if auth and not principals:
            grants = structured.get("grants") or {}
            principals = [{"name": f"{role}-1", "token": self._token(role), "role": role,
                           "grants": sorted(grants.get(role, ()))} for role in ROLES]
        tokens: dict[str, str] = {}
        for p in principals:
            self.secrets.add(p["token"])
            tokens.setdefault(p["role"], p["token"])
        if principals:
            doc["principals"] = principals
        if structured.get("workflows"):
            doc["workflows"] = [_workflow(w) for w in structured["workflows"]]
        for key in ("tick", "instance"):
            if key in structured:
                doc[key] = structured[key]
        return yaml.safe_dump(doc, sort_keys=True), tokens

    def get(self, needs: dict[str, Any], fresh: bool) -> tuple[ContainerAgent, dict[str, str], dict[str, str]]:
        """A ready container for ``needs`` (cached unless ``fresh``); fails with its logs when it is not."""
        key = tuple(sorted((k, repr(v)) for k, v in needs.items()))
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
        env, listen, tokens, facts = self.environment(needs)
        name = "-".join(f"{k}={fact_value(v)}" for k, v in sorted(needs.items())) or "default"
        agent = ContainerAgent(self.spec, env, listen=listen, name=slug(name, 60),
                               socket_folder=facts.pop("uds_folder") or None)
        self.started.append(agent)
        try:
            agent.start()
        except ContainerFailure as exc:
            message = self.secrets.redact(str(exc))
            if not fresh:
                self._cache[key] = message
            self._save_logs(agent)
            agent.stop()
            fail(message)
        result = (agent, tokens, facts)
        if not fresh:
            self._cache[key] = result
        self.used.append(agent)
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
