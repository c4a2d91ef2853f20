"""A container target: one agent image started through testcontainers, in one configuration.

The harness starts the image with the configuration's environment on a labelled *internal* bridge
network it creates (no route out of the machine; each container gets a fixed address, and the
harness maps it to a 127.0.0.1 port itself, :mod:`conformance.targets.forward`, since the engine
publishes no port on an internal network), or with ``network: bridge`` on the engine's default
bridge with its port published on 127.0.0.1 only; for the unix socket it bind-mounts a folder.
Either way the card is told (``AGENTD_PUBLIC_URL``) the loopback URL the harness calls. It waits
until the card answers (bounded: on timeout, or when the container exits first, the failure carries
its last log lines), and stops
and removes it at the end. Every container is labelled (:data:`conformance.targets.engine.LABEL`)
so one left by a crash is reaped by the next run.

What an image understands is read from its labels (the reference image carries them all) and may be
overridden by the target's ``container:`` entry:

``dev.agentd-conformance.port``        the TCP port it listens on inside
``dev.agentd-conformance.socket-dir``  the folder its unix socket appears in (bind-mounted)
``dev.agentd-conformance.switches``    ``fact=VAR,...``: environment variables that switch a fact
``dev.agentd-conformance.defaults``    ``fact=value,...``: the facts when no switch is set
``dev.agentd-conformance.tokens``      ``role=VAR,...``: variables that give a role's bearer token
``dev.agentd-conformance.long-running-text``  a message answered with a task that stays working
                                       (as ``--long-running-text``, which overrides it)
``dev.agentd-conformance.control``     the variable naming a socket path where the image serves the
                                       harness's control (tasks in chosen states, revocation): the
                                       reference image's back door, :mod:`conformance.targets.serve`

Contract v2 (:mod:`conformance.targets.contract`) adds TLS (``tls``), the advertised URL's variable
(``public-url``), a configuration document written into the container (``config``, ``config-template``,
``config-takes``), a fixed environment (``env``) and the schemes the image calls back to (``callbacks``).

On the internal network the container reaches the harness at the network's gateway address (a
bridge the harness made, with no route out): receivers a check serves for it (a peer, a webhook)
listen there, and the image is told the host (``callback_hosts`` switch) so it may call it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from conformance.targets.contract import V2, ContractError
from conformance.targets.engine import LABEL, docker_client, owner_label
from conformance.wire.tlsdefault import verify_arg

PREFIX = "dev.agentd-conformance"
READY_PATH = "/.well-known/agent-card.json"
READY_TIMEOUT = 60.0
SOCKET_NAME = "agentd.sock"
#: Where the control socket's host folder is mounted inside.
CONTROL_MOUNT = "/run/agentd-control"
#: Bounds on what a container may cost the run: its log file on the engine, and what the harness reads back.
LOG_MAX_SIZE, LOG_FILES = "2m", "1"
LOG_TAIL_LINES, LOG_TAIL_CHARS = 200, 8000
_POLL = 0.1


class ContainerFailure(Exception):
    """A container did not start, did not become ready, or died; the message says which, with its logs."""


class ContainerExited(ContainerFailure):
    """The container's process ended before its card answered (as a daemon refusing its configuration does)."""


def _pairs(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        k, sep, v = part.strip().partition("=")
        if sep and k and v:
            out[k] = v
    return out


@dataclass
class ContainerSpec:
    """How to run one image as an agent target (the ``container:`` entry, after the image's labels)."""

    image: str
    port: int = 8420
    env: dict[str, str] = field(default_factory=dict)
    socket_dir: str | None = None
    tokens_env: dict[str, str] = field(default_factory=dict)
    switches: dict[str, str] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)
    ready_path: str = READY_PATH
    ready_timeout: float = READY_TIMEOUT
    image_id: str = ""
    #: Replaces the image's entry point and command (argv), for an image whose default is not the daemon.
    command: list[str] | None = None
    #: Labels every container of this run carries besides the owner (the run's id).
    run_labels: dict[str, str] = field(default_factory=dict)
    #: A message the daemon answers with a task that stays working until canceled (label only).
    long_running_text: str | None = None
    #: The uid the image runs as (from its USER), when numeric: a socket folder of the caller's is handed to it.
    uid: int | None = None
    #: "internal" (default: a network of the harness's own, no egress) or "bridge" (published on loopback).
    network_mode: str = "internal"
    network: Network | None = None
    #: The variable that names the control socket (label ``control``), when the image serves one.
    control_env: str | None = None
    #: Contract v2: TLS, the advertised URL's variable, a configuration document, fixed environment, callbacks.
    v2: V2 = field(default_factory=V2)

    @property
    def scheme(self) -> str:
        """How the harness speaks to the TCP listener: https when the image serves TLS (contract v2)."""
        return "https" if self.v2.tls is not None else "http"

    @property
    def public_url_env(self) -> str:
        """The variable the harness sets to the URL it reaches the listener at (v1: AGENTD_PUBLIC_URL)."""
        return self.v2.public_url_env or "AGENTD_PUBLIC_URL"

    @classmethod
    def resolve(cls, entry: dict[str, Any], client: Any | None = None) -> ContainerSpec:
        """The spec of ``entry`` (``image`` plus optional overrides), completed from the image's labels.

        Raises :class:`ContainerFailure` when the image is not present on the engine (nothing is pulled).
        """
        import docker.errors

        client = client or docker_client()
        image = str(entry["image"])
        try:
            img = client.images.get(image)
        except docker.errors.ImageNotFound:
            raise ContainerFailure(f"image {image!r} is not on the engine and is never pulled; build it first "
                                   "(agentd-conformance image build-reference for the reference)") from None
        labels: dict[str, str] = dict(img.labels or {})
        spec = cls(image=image, image_id=str(img.id))
        user = str((img.attrs.get("Config") or {}).get("User") or "").split(":")[0]
        spec.uid = int(user) if user.isdigit() else (0 if user in ("", "root") else None)
        spec.port = int(labels.get(f"{PREFIX}.port", spec.port))
        spec.socket_dir = labels.get(f"{PREFIX}.socket-dir") or None
        spec.switches = _pairs(labels.get(f"{PREFIX}.switches"))
        spec.defaults = _pairs(labels.get(f"{PREFIX}.defaults"))
        spec.tokens_env = _pairs(labels.get(f"{PREFIX}.tokens"))
        spec.long_running_text = labels.get(f"{PREFIX}.long-running-text") or None
        spec.control_env = labels.get(f"{PREFIX}.control") or None
        if entry.get("port") is not None:
            spec.port = int(entry["port"])
        if entry.get("socket_dir"):
            spec.socket_dir = str(entry["socket_dir"])
        if entry.get("ready_path"):
            spec.ready_path = str(entry["ready_path"])
        if entry.get("ready_timeout") is not None:
            spec.ready_timeout = float(entry["ready_timeout"])
        if entry.get("command"):
            spec.command = [str(a) for a in entry["command"]]
        if entry.get("run_id"):
            spec.run_labels = {f"{PREFIX}.run-id": str(entry["run_id"])}
        spec.network_mode = str(entry.get("network") or labels.get(f"{PREFIX}.network") or "internal")
        if spec.network_mode not in ("internal", "bridge", "host"):
            raise ContainerFailure(f"image {image}: network {spec.network_mode!r} is not internal, bridge or host")
        try:
            spec.v2 = V2.read(labels, entry, image)
        except ContractError as exc:
            raise ContainerFailure(str(exc)) from None
        for key in ("env", "tokens_env", "switches"):
            if entry.get(key):
                getattr(spec, key).update({str(k): str(v) for k, v in entry[key].items()})
        return spec


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tail(raw: bytes | str) -> str:
    """The last lines of a log, bounded in lines and characters."""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    lines = text.splitlines()[-LOG_TAIL_LINES:]
    out = "\n".join(lines)
    return out if len(out) <= LOG_TAIL_CHARS else "…" + out[-LOG_TAIL_CHARS:]


class ContainerAgent:
    """One running container of ``spec`` with ``env``: ``with ContainerAgent(...) as c: c.url``."""

    def __init__(self, spec: ContainerSpec, env: dict[str, str], *, listen: str = "tcp", name: str = "agent",
                 socket_folder: str | None = None, mounts: tuple[str, ...] = (),
                 files: dict[str, bytes] | None = None,
                 document: Callable[[str, dict[str, str] | None], dict[str, bytes]] | None = None) -> None:
        """``socket_folder``: a host folder of the caller's to bind-mount for the socket (default: a fresh one);
        ``mounts``: host folders bind-mounted at the same path (a unix peer's socket folder); ``files``: path
        inside -> content, put into the container before it starts; ``document``: files made once the URL the
        harness reaches it at and the TLS files' paths inside are known (a configuration document)."""
        self.spec = spec
        self.env = dict(env)
        self.files = dict(files or {})
        self.document = document
        self._state_dir: Path | None = None
        self.mounts = tuple(mounts)
        #: The control socket on this host, when the image serves one (see ContainerSpec.control_env).
        self.control_path: str | None = None
        self._control_dir: Path | None = None
        self.listen = listen
        self.name = name
        self.url = ""
        self.uds_path: str | None = None
        self.host_dir: Path | None = None
        self._own_dir = socket_folder is None
        self._socket_folder = socket_folder
        self._tc: Any = None
        self._forward: Any = None
        self.started_at = 0.0
        self.ready_seconds = 0.0

    # ---- lifecycle -------------------------------------------------------------------------------
    def start(self) -> ContainerAgent:
        from docker.types import LogConfig
        from testcontainers.core.container import DockerContainer

        env = {**self.spec.v2.env, **self.spec.env, **self.env}
        files = {**self.files, **self.tls_files(env)}
        scheme = "http"
        tls_paths: dict[str, str] | None = None
        if self.spec.v2.tls is not None and self.listen == "tcp":
            from conformance.tls import harness_tls

            harness_tls().trust()  # this process's https clients trust the CA from now on
            scheme = "https"
            tls_paths = {name: path for name, (path, _var) in self.spec.v2.tls.placements().items()}
        kwargs: dict[str, Any] = {
            "labels": {LABEL: owner_label(), f"{PREFIX}.config": self.name, **self.spec.run_labels},
            "log_config": LogConfig(type="json-file", config={"max-size": LOG_MAX_SIZE, "max-file": LOG_FILES}),
            "init": False, "stop_signal": "SIGTERM",
        }
        if self.spec.command:
            kwargs["entrypoint"] = self.spec.command[:1]
        if self.spec.network_mode == "host":
            kwargs["network_mode"] = "host"
        if self.spec.v2.state and self.spec.v2.state_env:
            env[self.spec.v2.state_env] = self.spec.v2.state
        ip = None
        if self.spec.network_mode == "internal":
            from docker.types import EndpointConfig

            net = self.spec.network
            if net is None:
                raise ContainerFailure("harness: no internal network was made for the containers")
            ip = net.allocate()
            kwargs["network"] = net.name
            kwargs["networking_config"] = {net.name: EndpointConfig(net.api_version, ipv4_address=ip)}
        if self.listen == "unix":
            if not self.spec.socket_dir:
                raise ContainerFailure(f"{self.spec.image}: no socket folder known (container.socket_dir)")
            if self._socket_folder is not None:
                self.host_dir = Path(self._socket_folder)
                if self.spec.uid is not None and os.geteuid() == 0:
                    os.chown(self.host_dir, self.spec.uid, -1)  # the daemon's folder: it makes its socket there
            else:
                self.host_dir = Path(tempfile.mkdtemp(prefix="agentd-sock-"))
                self.host_dir.chmod(0o777)  # the daemon runs under its own uid inside; the socket itself is 0600
            self.uds_path = str(self.host_dir / SOCKET_NAME)
            self.url = f"unix://{self.uds_path}"
            env.setdefault("AGENTD_LISTEN", "unix")
        if self.spec.control_env and self._control_dir is None:
            self._control_dir = Path(tempfile.mkdtemp(prefix="agentd-control-"))
            self._control_dir.chmod(0o777)  # the daemon makes its socket here under its own uid
            self.control_path = str(self._control_dir / "control.sock")
            env[self.spec.control_env] = f"{CONTROL_MOUNT}/control.sock"
            env["AGENTD_CONTROL_UID"] = str(os.geteuid())
        for attempt in range(5):
            tc = DockerContainer(self.spec.image, env=dict(env)).with_kwargs(**kwargs)
            if self.spec.command:
                tc.with_command(self.spec.command[1:])
            if self._control_dir is not None:
                tc.with_volume_mapping(str(self._control_dir), CONTROL_MOUNT, "rw")
            for folder in self.mounts:
                tc.with_volume_mapping(folder, folder, "rw")
            public = self.spec.public_url_env
            # v2's public-url is an origin (scheme://127.0.0.1:port, no path: a bind address may not have one);
            # v1's AGENTD_PUBLIC_URL keeps its trailing slash.
            slash = "" if self.spec.v2.public_url_env else "/"
            for state in self._state_folders():
                tc.with_copy_into_container(state, str(Path(self.spec.v2.state or "/").parent))
            if self.listen == "unix" and self.host_dir is not None and self.spec.socket_dir:
                tc.with_volume_mapping(str(self.host_dir), self.spec.socket_dir, "rw")
                tc.env[public] = self.url
            elif self.spec.network_mode == "host":
                # The image binds and advertises the URL it is given, on this host's loopback: an image whose
                # card names its bind address (no separate advertised URL) is reached at what it names.
                host_port = _free_port()
                self.url = f"{scheme}://127.0.0.1:{host_port}/"
                tc.env[public] = self.url.rstrip("/") + slash
            elif ip is not None:
                from conformance.targets.forward import Forwarder

                if self._forward is None:
                    self._forward = Forwarder((ip, self.spec.port)).start()
                self.url = f"{scheme}://127.0.0.1:{self._forward.port}/"
                tc.env.setdefault(public, self.url.rstrip("/") + slash)
            else:
                host_port = _free_port()
                # Loopback only, never 0.0.0.0 (docker-py takes (ip, port); testcontainers types it int).
                tc.ports[f"{self.spec.port}/tcp"] = ("127.0.0.1", host_port)  # type: ignore[assignment]
                self.url = f"{scheme}://127.0.0.1:{host_port}/"
                tc.env.setdefault(public, self.url.rstrip("/") + slash)
            late = self.document(self.url, tls_paths) if self.document is not None else {}
            for path, content in sorted({**files, **late}.items()):
                tc.with_copy_into_container(content, path, 0o644)  # read by the image's own uid
            try:
                self._tc = tc  # before it starts: a signal during the start still finds it to stop
                tc.start()
                break
            except Exception as exc:  # noqa: BLE001 - an engine refusal is one line; a taken port is retried
                with contextlib.suppress(Exception):
                    tc.stop()
                text = " ".join(str(exc).split())
                if "port is already allocated" in text and attempt < 4:
                    continue
                self.stop()
                raise ContainerFailure(f"{self.spec.image}: the engine could not start the container: "
                                       f"{text[:300]}") from None
        self.started_at = time.monotonic()
        self.wait_ready()
        self.ready_seconds = time.monotonic() - self.started_at
        return self

    def _state_folders(self) -> list[Path]:
        """The image's state folder (contract v2 ``state``) as an empty folder anyone may write, made in the
        container before it starts (a restart keeps it: the same container)."""
        if not self.spec.v2.state:
            return []
        if self._state_dir is None:
            self._state_dir = Path(tempfile.mkdtemp(prefix="agentd-state-"))
            folder = self._state_dir / Path(self.spec.v2.state).name
            folder.mkdir()
            folder.chmod(0o777)  # the image's own uid writes there; the engine keeps the mode
        return [self._state_dir / Path(self.spec.v2.state).name]

    def tls_files(self, env: dict[str, str]) -> dict[str, bytes]:
        """The TLS files the image reads (contract v2's ``tls``) by their paths inside, the variables naming them
        set in ``env``: on TCP the harness CA's server certificate and key, and the CA bundle where the label names
        one (``ca=``) — the CA the harness's https receivers are issued by (:class:`conformance.receiver.Receiver`),
        so on a unix socket, where no TLS is served, the image still gets the bundle for its calls back."""
        tls_spec = self.spec.v2.tls
        if tls_spec is None:
            return {}
        from conformance.tls import harness_tls

        tls = harness_tls()
        wanted = ("cert", "key", "ca") if self.listen == "tcp" else ("ca",)
        files: dict[str, bytes] = {}
        for name, (path, var) in tls_spec.placements().items():
            if name not in wanted:
                continue
            if name == "ca":
                files[path] = tls.ca_pem
            else:
                pair = tls.server()
                files[path] = pair.chain if name == "cert" else pair.key
            if var:
                env[var] = path
        return files

    def _client(self, timeout: float) -> httpx.Client:
        if self.uds_path:
            return httpx.Client(transport=httpx.HTTPTransport(uds=self.uds_path, verify=verify_arg()),
                                base_url="http://localhost", verify=verify_arg(), timeout=timeout)
        return httpx.Client(base_url=self.url.rstrip("/"), verify=verify_arg(), timeout=timeout)

    def wait_ready(self) -> None:
        """Until the card answers 200 with JSON, the container exits, or ``ready_timeout`` passes."""
        deadline = time.monotonic() + self.spec.ready_timeout
        last = "no answer yet"
        with self._client(timeout=2.0) as http:
            while True:
                state, code = self.state()
                if state not in ("running", "created", "restarting"):
                    raise ContainerExited(f"{self.describe()} exited (status {state}, exit code {code}) before "
                                           f"its card answered; last log lines:\n{self.logs()}")
                if not self.uds_path or os.path.exists(self.uds_path):
                    try:
                        r = http.get(self.spec.ready_path)
                        if r.status_code == 200 and isinstance(r.json(), dict):
                            return
                        last = f"HTTP {r.status_code}"
                    except (httpx.HTTPError, ValueError) as exc:
                        last = type(exc).__name__
                if time.monotonic() > deadline:
                    raise ContainerFailure(f"{self.describe()} was not ready within {self.spec.ready_timeout:g}s "
                                           f"({self.spec.ready_path}: {last}); last log lines:\n{self.logs()}")
                time.sleep(_POLL)

    def restart(self) -> None:
        """Restart the container (the daemon loses its in-memory state) and wait until it answers again."""
        if self.uds_path and os.path.exists(self.uds_path):
            os.unlink(self.uds_path)  # so readiness waits for the new daemon's socket
        self._tc.get_wrapped_container().restart(timeout=10)
        self.wait_ready()

    def stop(self) -> None:
        if self._tc is not None:
            with contextlib.suppress(Exception):
                self._tc.stop(force=True, delete_volume=True)
            self._tc = None
        if self._forward is not None:
            self._forward.stop()
            self._forward = None
        self._cleanup_dir()

    def _cleanup_dir(self) -> None:
        if self._state_dir is not None:
            shutil.rmtree(self._state_dir, ignore_errors=True)
            self._state_dir = None
        if self._control_dir is not None:
            shutil.rmtree(self._control_dir, ignore_errors=True)
            self._control_dir = None
        if self.host_dir is not None:
            if self._own_dir:
                shutil.rmtree(self.host_dir, ignore_errors=True)
            elif self.uds_path:
                with contextlib.suppress(OSError):
                    os.unlink(self.uds_path)
            self.host_dir = None

    def __enter__(self) -> ContainerAgent:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- views -----------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        wrapped = self._tc.get_wrapped_container() if self._tc is not None else None
        return str(wrapped.id) if wrapped is not None else ""  # none yet: a start cut short

    def describe(self) -> str:
        short = self.id[:12] if self.id else "?"
        return f"container {short} of {self.spec.image} ({self.name})"

    def state(self) -> tuple[str, int | None]:
        """(status, exit code) as the engine reports them; ``removed`` once it is gone."""
        if self._tc is None:
            return "removed", None
        try:
            c = self._tc.get_wrapped_container()
            c.reload()
            st = c.attrs.get("State", {})
            return str(st.get("Status", "?")), st.get("ExitCode")
        except Exception:  # noqa: BLE001 - the engine lost it
            return "removed", None

    def logs(self) -> str:
        """The container's last log lines (stdout and stderr), bounded."""
        if self._tc is None:
            return "(no container)"
        try:
            return tail(self._tc.get_wrapped_container().logs(tail=LOG_TAIL_LINES))
        except Exception as exc:  # noqa: BLE001 - best effort
            return f"(logs unavailable: {type(exc).__name__})"

    def full_logs(self, limit: int = 1_000_000) -> str | None:
        """All the container's logs (the engine keeps at most LOG_MAX_SIZE), the last ``limit`` characters."""
        if self._tc is None:
            return None
        try:
            raw = self._tc.get_wrapped_container().logs()
        except Exception:  # noqa: BLE001 - best effort; the evidence has the tail
            return None
        return str(raw.decode("utf-8", errors="replace")[-limit:])

    def evidence(self) -> dict[str, Any]:
        state, code = self.state()
        return {"image": self.spec.image, "image_id": self.spec.image_id, "container": self.id[:12],
                "configuration": self.name, "url": self.url, "state": state, "exit_code": code,
                "ready_seconds": round(self.ready_seconds, 3), "logs_tail": self.logs()}


@dataclass
class Network:
    """A labelled internal bridge network with a subnet of its own, so containers get fixed addresses."""

    name: str
    subnet: str
    api_version: str
    #: Where this process's addresses start (xdist workers of one run share the network, not addresses).
    offset: int = 0
    _next: int = 0

    @property
    def gateway(self) -> str:
        """The harness's own address on this network (its first host): what a container reaches it at."""
        return str(next(ipaddress.ip_network(self.subnet).hosts()))

    def allocate(self) -> str:
        hosts = ipaddress.ip_network(self.subnet).hosts()
        index = 2 + self.offset + self._next  # .1 is the gateway
        self._next += 1
        for i, addr in enumerate(hosts):
            if i == index - 1:
                return str(addr)
        raise ContainerFailure(f"harness: network {self.name} ({self.subnet}) has no address left")


def make_network(client: Any | None = None, run_labels: dict[str, str] | None = None) -> Network:
    """Create the labelled internal network: the engine picks a free subnet, which is then pinned."""
    import docker.types

    client = client or docker_client()
    labels = {LABEL: owner_label(), **(run_labels or {})}
    last = ""
    for _ in range(5):
        name = f"agentd-conformance-{os.getpid()}-{secrets.token_hex(3)}"
        probe = client.networks.create(name, driver="bridge", internal=True, labels=labels)
        try:
            probe.reload()
            subnet = probe.attrs["IPAM"]["Config"][0]["Subnet"]
        finally:
            probe.remove()
        gateway = str(next(ipaddress.ip_network(subnet).hosts()))
        ipam = docker.types.IPAMConfig(pool_configs=[docker.types.IPAMPool(subnet=subnet, gateway=gateway)])
        try:
            client.networks.create(name, driver="bridge", internal=True, labels=labels, ipam=ipam)
        except Exception as exc:  # noqa: BLE001 - another run took the subnet meanwhile: try again
            last = " ".join(str(exc).split())[:200]
            continue
        return Network(name=name, subnet=subnet, api_version=str(client.api._version))
    raise ContainerFailure(f"harness: could not create an internal network: {last}")


def join_network(entry: dict[str, Any], client: Any | None = None) -> Network:
    """The run's network (made by the command's pre-flight) as this process sees it."""
    client = client or docker_client()
    name = entry["network_name"]
    net = client.networks.get(name)
    subnet = net.attrs["IPAM"]["Config"][0]["Subnet"]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    offset = 256 * (1 + int(worker[2:])) if worker.startswith("gw") and worker[2:].isdigit() else 0
    return Network(name=name, subnet=subnet, api_version=str(client.api._version), offset=offset)
