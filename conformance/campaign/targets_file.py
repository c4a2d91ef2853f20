"""The targets file of ``agentd-conformance matrix``: one entry per (suite, target) run.

A targets file (YAML) lists the runs::

    targets:
      - name: reference-cli          # unique; the report folder's name
        kind: cli                    # cli | agent
        exe: "mycli --flag"          # cli: the command line (omit for the bundled reference CLI)
        adapter: mycli.adapter.yaml  # cli: optional, relative to the targets file
        skill: SKILL.md              # cli: optional
        env: {A2ACLI_BEARER: "..."}  # cli: optional; secrets (as --env: kept out of every report file)
        env_plain: {NO_COLOR: "1"}   # cli: optional; not secrets (as --env-plain: the report shows them)
        tier: 1                      # cli: optional
        cli_timeout: 30              # cli: optional; seconds each invocation may take (as --cli-timeout)
        language: Rust               # cli: optional; the tool's identity (as --language, --repository,
        repository: https://example.test/mycli   #   --maintainer)
        maintainer: cli-team@example.test
      - name: reference-agentd
        kind: agent
        family: agentd               # agent: agentd | a2a
        launch: reference            # agent: one of launch / url / unix
        tokens_env: {operator: AGENTD_OPERATOR_TOKEN}   # agent: role -> environment variable
        facts: {events: "on"}
        defects: [extension-required]   # agent, launch only: named defects of the bundled target
        long_running_text: "hold"      # agent: a message text the agent answers with a task it keeps WORKING
        call_timeout: 90             # agent: seconds to wait for one answer (default 60; the run's bound is apart)
        allow_origins: ["https://proxy.test:8443"]  # agent, url/unix: other origins whose interfaces are its own
        agentd_binary: "agentd"      # agent: the target's own executable (as --agentd-binary)
        schema_source: target        # agent, agentd family: ours | target | a folder (as --schema-source)
        spec_revision: "1.0.0"       # agent: the A2A text to judge by where revisions differ (as --spec-revision)
      - name: agentd-image
        kind: agent
        container:                   # agent: a local image, one container per configuration
          image: agentd:ci           #   required; never pulled
          port: 8420                 #   optional, else the image's label (see conformance/targets/container.py)
          env: {AGENTD_LOG: debug}   #   optional, for every container
          socket_dir: /run/agentd    #   optional: the folder its unix socket appears in (bind-mounted)
          tokens_env: {operator: AGENTD_OPERATOR_TOKEN}  # role -> variable the harness puts a token in
          switches: {events: AGENTD_EVENTS}              # fact -> variable that switches it (on/off)
          ready_path: /.well-known/agent-card.json
          ready_timeout: 60
          command: [agentd, serve]   #   optional: argv replacing the image's entry point and command
          network: internal          #   internal (default: no route out; a loopback port per container) | bridge

:func:`load_targets` checks the file's shape (a malformed file is a usage error naming the key) and
gives one :class:`Entry` per run; :meth:`Entry.target` turns an entry into the target model
(``conformance.targets.model``) the command builds from its flags — so a target the model refuses is
that target's error in the table, and the other targets still run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.targets.kinds import build_target
from conformance.targets.model import AgentTarget, CliTarget
from conformance.targets.options import keys_of

#: Per kind of target, the keys of an entry: what to run (name, kind, family, only, tier) and the target's own
#: options, from the one table of them (:mod:`conformance.targets.options`).
_KEYS = {
    "cli": {"name", "kind", "tier", "only"} | keys_of("cli"),
    "agent": {"name", "kind", "family", "only"} | keys_of("agent"),
}
CONTAINER_KEYS = {"image", "port", "env", "secret_env_from", "socket_dir", "tokens_env", "switches", "ready_path",
                  "ready_timeout", "network", "command"}


#: What the list keys hold, for their error messages.
_LIST_OF = {"defects": "defect names", "allow_origins": "origins (scheme://host:port)"}


class TargetFileError(ValueError):
    """The targets file is malformed; the message names the file and the key."""


def _err(path: Path, where: str, msg: str) -> TargetFileError:
    return TargetFileError(f"targets file {path}: {where}: {msg}")


@dataclass(frozen=True)
class Entry:
    """One run of the targets file: a target (``kind`` cli or agent, ``settings`` its keys as written,
    paths resolved) and what to run against it."""

    name: str
    kind: str = "agent"
    #: a2acli for a CLI; agentd or a2a for an agent.
    family: str = "agentd"
    only: list[str] | None = None
    #: CLI entries: run checks up to this tier.
    tier: int = 3
    settings: dict[str, Any] = field(default_factory=dict)

    def target(self) -> AgentTarget | CliTarget:
        """The target model of this entry; :class:`~conformance.targets.model.TargetError` when it cannot
        be used as given (an executable that is not there, a token too short to redact, ...)."""
        s = self.settings
        if self.kind == "cli":
            return CliTarget.build(exe=s.get("exe"), adapter=s.get("adapter"), skill=s.get("skill"),
                                   env=dict(s.get("env") or {}), env_plain=dict(s.get("env_plain") or {}),
                                   cli_timeout=s.get("cli_timeout"))
        container = dict(s["container"]) if s.get("container") else None
        # ``secret_env_from`` (KEY: VARIABLE): the container's KEY gets the harness's VARIABLE, a secret.
        named = (container or {}).pop("secret_env_from", None) or {}
        secret_env = {key: os.environ[var] for key, var in named.items()}
        return build_target(url=s.get("url"), unix=s.get("unix"), launch=s.get("launch"),
                            container=container, container_env=secret_env,
                            tokens={role: os.environ[var] for role, var in (s.get("tokens_env") or {}).items()},
                            facts=dict(s.get("facts") or {}), defects=list(s.get("defects") or ()),
                            long_running_text=s.get("long_running_text"), binary=s.get("agentd_binary"),
                            call_timeout=s.get("call_timeout"), spec_revision=s.get("spec_revision"),
                            allow_origins=list(s.get("allow_origins") or ()))


def load_targets(path: Path) -> list[Entry]:
    """Read and validate a targets file; relative paths are resolved against its folder."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TargetFileError(f"targets file {path}: cannot read: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"targets"} or not isinstance(data["targets"], list):
        raise _err(path, "top level", "expected a mapping with exactly one key, 'targets', holding a list")
    if not data["targets"]:
        raise _err(path, "targets", "the list is empty")
    out: list[Entry] = []
    names: set[str] = set()
    for i, raw in enumerate(data["targets"]):
        where = f"targets[{i}]"
        if not isinstance(raw, dict):
            raise _err(path, where, "expected a mapping")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise _err(path, f"{where}.name", "a non-empty name without '/' is required")
        where = f"targets[{i}] ({name})"
        if name in names:
            raise _err(path, where, "duplicate name")
        names.add(name)
        kind = raw.get("kind")
        if kind not in _KEYS:
            raise _err(path, f"{where}.kind", f"must be 'cli' or 'agent', got {kind!r}")
        unknown = set(raw) - _KEYS[kind]
        if unknown:
            raise _err(path, where, f"unknown key(s) {sorted(unknown)}")
        t = dict(raw)
        for key in sorted(keys_of(kind, "text", "path") | {"family"}):
            if key in t and t[key] is not None and not isinstance(t[key], str):
                raise _err(path, f"{where}.{key}", "must be a string")
        for key in sorted(keys_of(kind, "path")):
            if t.get(key):
                t[key] = str((path.parent / t[key]).resolve()) if not os.path.isabs(t[key]) else t[key]
        for key in sorted(keys_of(kind, "pairs") - keys_of(kind, "container")):
            v = t.get(key)
            if v is not None and not (isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                                   for k, x in v.items())):
                raise _err(path, f"{where}.{key}", "must be a mapping of strings to strings (quote on/off)")
        if "only" in t and not (isinstance(t["only"], list) and all(isinstance(x, str) for x in t["only"])):
            raise _err(path, f"{where}.only", "must be a list of requirement ids")
        if kind == "cli" and "tier" in t and t["tier"] not in (1, 2, 3):
            raise _err(path, f"{where}.tier", "must be 1, 2 or 3")
        for key in sorted(keys_of(kind, "seconds")):
            seconds = t.get(key, 1)
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < float("inf"):
                raise _err(path, f"{where}.{key}", "must be a positive number of seconds")
        if kind == "agent":
            given = [k for k in ("launch", "url", "unix", "container") if t.get(k)]
            if len(given) > 1:
                raise _err(path, where, f"give one of launch, url, unix, container (got {given})")
            if "container" in t:
                _check_container(path, f"{where}.container", t["container"])
            for key in sorted(keys_of(kind, "list")):
                if key in t and not (isinstance(t[key], list) and all(isinstance(x, str) and x for x in t[key])):
                    raise _err(path, f"{where}.{key}", f"must be a list of {_LIST_OF.get(key, 'strings')}")
            if t.get("family", "agentd") not in ("agentd", "a2a"):
                raise _err(path, f"{where}.family", "must be agentd or a2a")
            for role, var in (t.get("tokens_env") or {}).items():
                if var not in os.environ:
                    raise _err(path, f"{where}.tokens_env.{role}", f"environment variable {var} is not set")
        settings = {k: v for k, v in t.items() if k not in ("name", "kind", "family", "only", "tier")}
        family = "a2acli" if kind == "cli" else t.get("family", "agentd")
        out.append(Entry(name=name, kind=kind, family=family, only=t.get("only"), tier=t.get("tier", 3),
                         settings=settings))
    return out


def _check_container(path: Path, where: str, c: Any) -> None:
    if not isinstance(c, dict) or not isinstance(c.get("image"), str) or not c["image"]:
        raise _err(path, where, "must be a mapping with an image (a local image name)")
    unknown = set(c) - CONTAINER_KEYS
    if unknown:
        raise _err(path, where, f"unknown key(s) {sorted(unknown)}")
    for key in ("env", "secret_env_from", "tokens_env", "switches"):
        v = c.get(key)
        if v is not None and not (isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                               for k, x in v.items())):
            raise _err(path, f"{where}.{key}", "must be a mapping of strings to strings")
    for key, var in (c.get("secret_env_from") or {}).items():
        if var not in os.environ:
            raise _err(path, f"{where}.secret_env_from.{key}", f"environment variable {var} is not set")
    both = sorted(set(c.get("secret_env_from") or {}) & set(c.get("env") or {}))
    if both:
        raise _err(path, f"{where}.secret_env_from", f"{', '.join(both)} also set in env")
    if "port" in c and not (isinstance(c["port"], int) and 0 < c["port"] < 65536):
        raise _err(path, f"{where}.port", "must be a port number")
    if "ready_timeout" in c and not (isinstance(c["ready_timeout"], int | float) and c["ready_timeout"] > 0):
        raise _err(path, f"{where}.ready_timeout", "must be a positive number of seconds")
    if "command" in c and not (isinstance(c["command"], list) and c["command"]
                               and all(isinstance(a, str) for a in c["command"])):
        raise _err(path, f"{where}.command", "must be a non-empty list of strings (argv)")
    if "network" in c and c["network"] not in ("internal", "bridge"):
        raise _err(path, f"{where}.network", "must be internal (default) or bridge")


