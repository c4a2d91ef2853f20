"""The container engine: one client, one reachability check, and the labels the harness puts on what it starts.

testcontainers' reaper (Ryuk) needs an image from a registry, which the project's machines cannot
pull; it is switched off, and the harness cleans up itself: every container and network it starts
carries :data:`LABEL`, removed at exit, and any left by an earlier crashed run removed at start.
"""

from __future__ import annotations

import os
from typing import Any

#: Every container and network the harness starts carries this label (value: the owning process id).
LABEL = "dev.agentd-conformance.run"
#: Seconds a single engine API call may take before the engine counts as unreachable.
API_TIMEOUT = 30

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")


class EngineUnavailable(Exception):
    """No container engine answers; the message is one line naming DOCKER_HOST or the socket."""


def where() -> str:
    host = os.environ.get("DOCKER_HOST")
    return f"DOCKER_HOST={host}" if host else "the socket /var/run/docker.sock (DOCKER_HOST is not set)"


def docker_client() -> Any:
    """A docker SDK client that has answered a ping, or :class:`EngineUnavailable`."""
    try:
        import docker
        import docker.errors
    except ImportError as exc:  # pragma: no cover - a declared dependency (through testcontainers)
        raise EngineUnavailable(f"the docker SDK is not installed: {exc}") from exc
    try:
        client = docker.from_env(timeout=API_TIMEOUT)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the engine is the same answer
        reason = " ".join(str(exc).split())[:200]
        raise EngineUnavailable(f"no container engine reachable at {where()}: {reason}") from None
    return client


def engine_version(client: Any) -> str:
    try:
        return str(client.version().get("Version", "?"))
    except Exception:  # noqa: BLE001 - informational only
        return "?"


def reap(client: Any, *, only_dead_owners: bool = True, own: bool = False) -> list[str]:
    """Remove labelled containers (then networks) whose owning process is gone (or all, when asked), and
    with ``own`` those of this very process too (its run is over: even one whose start a signal cut short).

    Returns the names removed. A run's own containers (owner alive) are left alone, so parallel runs
    on one machine do not reap each other.
    """
    removed: list[str] = []
    mine = owner_label() if own else None

    def spared(value: str) -> bool:
        return only_dead_owners and value != mine and _owner_alive(value)

    for c in client.containers.list(all=True, filters={"label": LABEL}):
        if spared(c.labels.get(LABEL, "")):
            continue
        try:
            c.remove(force=True, v=True)
            removed.append(c.name)
        except Exception:  # noqa: BLE001,S112 - already gone
            continue
    for n in client.networks.list(filters={"label": LABEL}):
        if spared(n.attrs.get("Labels", {}).get(LABEL, "")):
            continue
        try:
            n.remove()
            removed.append(n.name)
        except Exception:  # noqa: BLE001,S112 - in use or already gone
            continue
    return removed


def owner_label() -> str:
    """This process's owner value: host name and pid (a pid alone could be reused by another run)."""
    return f"{os.uname().nodename}:{os.getpid()}:{_start_time(os.getpid())}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"


def _owner_alive(value: str) -> bool:
    host, _, rest = value.partition(":")
    pid, _, started = rest.partition(":")
    if host != os.uname().nodename:
        return True  # another machine's run on a shared engine: not ours to judge
    if not pid.isdigit():
        return False
    return _start_time(int(pid)) == started and started != "?"
