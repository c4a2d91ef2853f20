"""Before and after a container run (in the command's process): engine, image, first start, clean-up.

Pre-flight: the engine answers (else exit 3, one line naming ``DOCKER_HOST`` or the socket), labelled
leftovers of crashed runs are reaped, the image is on the engine (nothing is pulled; else exit 2), and
its default configuration becomes ready (else exit 3 naming why, with its logs saved in the report
folder). After the run, whatever the suite's processes left (a crash, Ctrl-C) is removed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.evidence import SecretSet
from conformance.targets.model import AgentTarget

if TYPE_CHECKING:  # imported at run time where a pre-flight starts one
    from conformance.targets.container import ContainerAgent


class PreflightUsage(Exception):
    """The target is wrong as given (an image that is not there): exit 2."""


class PreflightFailure(Exception):
    """The target could not be run at all (nothing answers, the engine does not): exit 3, one line."""


def preflight(target: AgentTarget, report_dir: Path, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """Check that ``target`` (kind container) can run, completing it from the image (socket folder, image id,
    long-running hint, the run's network); returns identity facts for the report."""
    from conformance.targets.container import ContainerAgent, ContainerFailure, ContainerSpec, make_network
    from conformance.targets.engine import EngineUnavailable, docker_client, engine_version, reap

    try:
        client = docker_client()
    except EngineUnavailable as exc:
        raise PreflightFailure(f"{exc}; nothing was measured") from None
    stale = reap(client)
    if stale:
        sys.stderr.write(f"agentd-conformance: removed {len(stale)} container(s)/network(s) left by an earlier "
                         f"run: {', '.join(stale[:5])}\n")
    entry = target.container if target.container is not None else {}
    try:
        spec = ContainerSpec.resolve(entry, client)
    except ContainerFailure as exc:
        raise PreflightUsage(str(exc)) from None
    entry.setdefault("socket_dir", spec.socket_dir)
    # What the image can be switched to (its labels, with the entry's overrides): provides() reads it.
    entry["switches"] = dict(spec.switches)
    target.socket_dir = spec.socket_dir
    target.image_id = spec.image_id
    if spec.long_running_text and target.long_running is None:
        target.long_running = {"text": spec.long_running_text}
    if spec.network_mode == "internal":
        # The run's network: the suite's processes join it; cleanup() removes it.
        spec.network = make_network(client, spec.run_labels)
        entry["network_name"] = spec.network.name
    if spec.v2.config is not None:
        entry["config_document"] = True  # provides() reads it: the image takes a configuration document
    # The default configuration, as the suite's pool makes it (a v2 image's document and fixed environment).
    from conformance.targets.pool import ContainerPool

    pool = ContainerPool(target, SecretSet(secrets))
    pool._spec = spec  # noqa: SLF001 - the spec and network this pre-flight resolved and made
    from conformance.outcome import CheckEnded

    try:
        env, _listen, _tokens, _facts, document = pool.configuration({})
    except CheckEnded:  # e.g. --defect on an image with no defects switch: its checks say so, one by one
        env, document = {}, None
    agent = ContainerAgent(spec, env, name="preflight", document=document.files if document is not None else None)
    try:
        agent.start()
    except ContainerFailure as exc:
        log = _save(report_dir, agent, SecretSet(secrets))
        first = str(exc).splitlines()[0]
        last = [ln for ln in agent.logs().splitlines() if ln.strip()][-1:] if agent.id else []
        agent.stop()
        cleanup(target)
        raise PreflightFailure(f"{first}{' last log line: ' + last[0][:200] if last else ''}"
                               f"{'; its logs: ' + str(log) if log else ''}") from None
    except BaseException:
        agent.stop()
        cleanup(target)
        raise
    agent.stop()
    return {"container_image": spec.image, "container_image_id": spec.image_id,
            "container_contract": spec.v2.contract,
            "container_engine": f"docker {engine_version(client)}",
            "container_ready_seconds": round(agent.ready_seconds, 2)}


def _save(report_dir: Path, agent: ContainerAgent, secrets: SecretSet) -> Path | None:
    text = agent.full_logs()
    if text is None:
        return None
    folder = report_dir / "containers"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "preflight.log"
    path.write_text(secrets.redact(text), encoding="utf-8")
    return path


def cleanup(target: AgentTarget) -> list[str]:
    """After the run (finished, stopped or crashed): remove labelled containers whose owning process has
    ended (the suite's), those this process started (the pre-flight's, one a signal cut short while it
    started), and the run's network."""
    from conformance.targets.engine import EngineUnavailable, docker_client, reap

    try:
        client = docker_client()
    except EngineUnavailable:
        return []
    removed = reap(client, own=True)
    name = (target.container or {}).get("network_name")
    if name:
        with contextlib.suppress(Exception):
            client.networks.get(name).remove()
            removed.append(name)
    return removed
