"""``agentd-conformance image build-reference``: an image of the bundled reference agentd, built locally.

Nothing is pulled. Two layers:

1. a base image: a minimal Debian root filesystem (``debootstrap --variant=minbase`` plus
   ``python3``) with a non-root user (uid 65532, as agentd's own image), brought in with
   ``docker import``. Keyed by the recipe (suite, packages, uid), so it is made once per machine.
2. the harness: its package in the wheel's layout (``conformance`` with ``suites`` and ``fixtures``
   inside) plus its dependencies as binary wheels for the rootfs's Python, added with a
   ``FROM <base>`` build (classic builder, ``pull=False``, no network while it runs).

The final image is tagged by a content hash (the recipe, the base key, the dependency set and every
file of the harness package), so a second call with nothing changed only looks the tag up.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.agentd_page import ROLES
from conformance.paths import PACKAGE_DIR

#: Bump when the recipe below changes in a way the hashes would not see.
RECIPE = "reference-image/1"
SUITE = "bookworm"
PYTHON = "3.11"  # bookworm's python3
PACKAGES = ("python3",)
UID = 65532
PORT = 8420
SOCKET_DIR = "/run/agentd"
SITE = "/opt/agentd-conformance/site"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
REPOSITORY = "agentd-conformance/reference-agentd"
BASE_REPOSITORY = "agentd-conformance/debian-python"
LABEL = "dev.agentd-conformance"
#: What the entry point (``conformance.targets.serve``) reads: fact -> environment variable, and its defaults.
SWITCHES = {"listen": "AGENTD_LISTEN", "events": "AGENTD_EVENTS", "introspection": "AGENTD_INTROSPECTION",
            "device_grant": "AGENTD_DEVICE_GRANT", "push": "AGENTD_PUSH", "ring": "AGENTD_RING",
            "stream_deadline": "AGENTD_STREAM_DEADLINE", "cors_origins": "AGENTD_CORS_ORIGINS",
            "defects": "AGENTD_DEFECTS", "config": "AGENTD_CONFIG", "callback_hosts": "AGENTD_CALLBACK_HOSTS"}
DEFAULTS = {"listen": "tcp", "events": "on", "introspection": "off", "device_grant": "off", "push": "on"}
#: Folders of a minbase rootfs nothing at run time reads.
TRIM = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale", "usr/share/lintian",
        "var/cache/apt", "var/lib/apt/lists", "var/log", "var/cache/debconf")


class ImageBuildError(Exception):
    """The image could not be built; the message is one line saying why."""


@dataclass(frozen=True)
class Built:
    """The outcome of a build: the content-hash tag, the image id, and whether it was already there."""

    tag: str
    image_id: str
    cached: bool
    seconds: float


def cache_dir() -> Path:
    base = os.environ.get("AGENTD_CONFORMANCE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentd-conformance")
    return Path(base) / "image"


def _arch() -> tuple[str, str]:
    """(Debian architecture, wheel platform suffix) of this machine."""
    machine = platform.machine()
    table = {"x86_64": ("amd64", "x86_64"), "amd64": ("amd64", "x86_64"),
             "aarch64": ("arm64", "aarch64"), "arm64": ("arm64", "aarch64")}
    if machine not in table:
        raise ImageBuildError(f"unsupported machine architecture {machine!r} (x86_64 or aarch64)")
    return table[machine]


def _sha(parts: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "big"))
        h.update(p)
    return h.hexdigest()


def base_key(mirror: str = DEFAULT_MIRROR) -> str:
    """The base image's key: what debootstrap is asked for (the mirror is where, not what)."""
    del mirror
    return _sha(s.encode() for s in (RECIPE, SUITE, _arch()[0], *PACKAGES, str(UID), *TRIM))[:16]


def requirements() -> list[str]:
    """The harness's own runtime dependencies (no extras), from its installed metadata."""
    try:
        reqs = importlib.metadata.requires("agentd-conformance") or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise ImageBuildError("the agentd-conformance distribution is not installed (pip install it first)") from exc
    return sorted(r for r in reqs if "extra ==" not in r)


def _package_files() -> list[tuple[str, Path]]:
    """Every file of the harness package in the wheel's layout: (path inside site, file on disk)."""
    out: list[tuple[str, Path]] = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        rel = path.relative_to(PACKAGE_DIR)
        if "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo") or not path.is_file():
            continue
        out.append((f"conformance/{rel.as_posix()}", path))
    return sorted(out)


def _platforms(suffix: str) -> list[str]:
    # bookworm has glibc 2.36: every manylinux wheel up to that runs there.
    return [f"manylinux_2_{v}_{suffix}" for v in range(36, 16, -1)] + [f"manylinux2014_{suffix}"]


def _deps_site(reqs: list[str], log: Callable[[str], None]) -> Path:
    """The dependencies as installed by pip for the rootfs's Python (cached by the requirement set)."""
    _, suffix = _arch()
    key = _sha(s.encode() for s in (RECIPE, PYTHON, suffix, *reqs))[:16]
    site = cache_dir() / f"deps-{key}"
    if (site / ".complete").is_file():
        return site
    tmp = Path(tempfile.mkdtemp(prefix=f"deps-{key}-", dir=cache_dir()))
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
           "--target", str(tmp), "--only-binary=:all:", "--python-version", PYTHON, "--implementation", "cp",
           "--abi", f"cp{PYTHON.replace('.', '')}"]
    for p in _platforms(suffix):
        cmd += ["--platform", p]
    log(f"installing {len(reqs)} dependencies for Python {PYTHON} ({suffix}) with pip")
    proc = subprocess.run([*cmd, *reqs], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        tail = " ".join(proc.stderr.strip().splitlines()[-3:])
        raise ImageBuildError(f"pip could not install the dependencies for the image: {tail}")
    (tmp / ".complete").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    shutil.rmtree(site, ignore_errors=True)
    tmp.rename(site)
    return site


def _installed(site: Path) -> list[str]:
    return sorted(p.name for p in site.glob("*.dist-info"))


def content_hash(site: Path) -> str:
    """The final image's key: recipe, base, the dependency set pip installed, every harness file."""
    parts: list[bytes] = [RECIPE.encode(), base_key().encode(), *(n.encode() for n in _installed(site))]
    for rel, path in _package_files():
        parts += [rel.encode(), path.read_bytes()]
    return _sha(parts)


# ── the engine ───────────────────────────────────────────────────────────────────────────────

def _client() -> Any:
    from conformance.targets.engine import docker_client

    return docker_client()


def _image_id(client: Any, ref: str) -> str | None:
    import docker.errors

    try:
        return str(client.images.get(ref).id)
    except docker.errors.ImageNotFound:
        return None


def _debootstrap(root: Path, mirror: str, log: Callable[[str], None]) -> None:
    exe = shutil.which("debootstrap")
    if exe is None:
        raise ImageBuildError("debootstrap is not installed (apt-get install -y debootstrap)")
    if os.geteuid() != 0:
        raise ImageBuildError("making the base root filesystem with debootstrap needs root (run as root or sudo)")
    arch, _ = _arch()
    log(f"debootstrap --variant=minbase --include={','.join(PACKAGES)} {SUITE} ({arch}) from {mirror}")
    proc = subprocess.run([exe, "--variant=minbase", f"--arch={arch}", f"--include={','.join(PACKAGES)}",
                           SUITE, str(root), mirror], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise ImageBuildError(f"debootstrap failed (exit {proc.returncode}): {tail}")
    for rel in TRIM:
        folder = root / rel
        if folder.is_dir():
            for child in folder.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
    with open(root / "etc/passwd", "a", encoding="utf-8") as fh:
        fh.write(f"nonroot:x:{UID}:{UID}:nonroot:/home/nonroot:/usr/sbin/nologin\n")
    with open(root / "etc/group", "a", encoding="utf-8") as fh:
        fh.write(f"nonroot:x:{UID}:\n")
    for folder in (root / "home/nonroot", root / SOCKET_DIR.lstrip("/")):
        folder.mkdir(parents=True, exist_ok=True)
        os.chown(folder, UID, UID)
        folder.chmod(0o755)


def _remove_rootfs(work: Path) -> None:
    """Remove a build folder, never through a mount debootstrap may have left inside it (/proc, /dev)."""
    inside = str(work.resolve()) + "/"
    try:
        with open("/proc/mounts", encoding="utf-8") as fh:
            mounts = [line.split()[1] for line in fh if line.split()[1].startswith(inside)]
    except OSError:
        mounts = []
    for m in sorted(mounts, key=len, reverse=True):
        subprocess.run(["umount", "-l", m], capture_output=True, timeout=60)
    try:
        with open("/proc/mounts", encoding="utf-8") as fh:
            if any(line.split()[1].startswith(inside) for line in fh):
                return  # still mounted: leave it rather than delete through it
    except OSError:
        pass
    shutil.rmtree(work, ignore_errors=True)


def ensure_base(client: Any, mirror: str, log: Callable[[str], None]) -> str:
    """The base image (debootstrap'd rootfs with python3 and the non-root user), imported once."""
    ref = f"{BASE_REPOSITORY}:{base_key()}"
    if _image_id(client, ref):
        return ref
    work = Path(tempfile.mkdtemp(prefix="rootfs-", dir=cache_dir()))
    try:
        root = work / "rootfs"
        _debootstrap(root, mirror, log)
        tarball = work / "rootfs.tar"
        proc = subprocess.run(["tar", "--numeric-owner", "--one-file-system", "-C", str(root), "-cf",
                               str(tarball), "."],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise ImageBuildError(f"tar of the root filesystem failed: {proc.stderr.strip()[-300:]}")
        log(f"docker import → {ref}")
        repo, tag = ref.split(":")
        client.api.import_image_from_file(str(tarball), repository=repo, tag=tag,
                                          changes=[f"LABEL {LABEL}.base={base_key()}"])
    finally:
        _remove_rootfs(work)
    if not _image_id(client, ref):
        raise ImageBuildError(f"docker import did not produce {ref}")
    return ref


def image_labels(digest: str) -> dict[str, str]:
    """The labels a container target reads (see conformance/targets/container.py), set at build time."""
    return {f"{LABEL}.kind": "reference-agentd", f"{LABEL}.content": digest, f"{LABEL}.recipe": RECIPE,
            f"{LABEL}.port": str(PORT), f"{LABEL}.socket-dir": SOCKET_DIR,
            f"{LABEL}.switches": ",".join(f"{k}={v}" for k, v in SWITCHES.items()),
            f"{LABEL}.defaults": ",".join(f"{k}={v}" for k, v in DEFAULTS.items()),
            f"{LABEL}.long-running-text": "hold",  # the reference's hold_text: a task that stays working
            f"{LABEL}.control": "AGENTD_CONTROL_SOCKET",  # the harness's hooks (conformance.targets.serve)
            f"{LABEL}.tokens": ",".join(f"{r}=AGENTD_{r.upper()}_TOKEN" for r in ROLES)}


def _dockerfile(base: str, digest: str) -> str:
    # Steps that never change first, then the dependencies, then the harness: a change to the harness
    # rebuilds only its own two steps (each step is a slow commit on some storage drivers).
    return "\n".join([
        f"FROM {base}",
        f"ENV PYTHONPATH={SITE} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 AGENTD_PORT={PORT} "
        f"AGENTD_SOCKET_DIR={SOCKET_DIR}",
        "WORKDIR /home/nonroot",
        f"EXPOSE {PORT}",
        'ENTRYPOINT ["python3", "-m", "conformance.targets.serve"]',
        f"USER {UID}:{UID}",
        f"COPY deps {SITE}",
        f"COPY harness {SITE}",
        # Last, and in the Dockerfile: labels given to the build API would join every step's cache key.
        "LABEL " + " ".join(f"{k}={json.dumps(v)}" for k, v in image_labels(digest).items()),
        "",
    ])


def _compile(client: Any, base: str, folder: Path) -> None:
    """Byte-compile ``folder`` with the image's own Python (no network; pyc files never checked against
    the sources, whose times the build does not keep)."""
    import docker.errors

    try:
        client.containers.run(base, ["python3", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                                     "unchecked-hash", "/src"], remove=True, network_mode="none",
                              user=f"{os.getuid()}:{os.getgid()}",
                              volumes={str(folder): {"bind": "/src", "mode": "rw"}},
                              labels={f"{LABEL}.build": "compile"})
    except docker.errors.ContainerError as exc:
        raise ImageBuildError(f"byte-compiling {folder.name} in {base} failed: {str(exc)[-300:]}") from exc


def _stage_harness(work: Path) -> Path:
    stage = work / "harness"
    for rel, path in _package_files():
        dest = stage / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
        if os.access(path, os.X_OK):
            dest.chmod(0o755)
    return stage


def _context(base: str, digest: str, deps: Path, harness: Path, out: Path) -> None:
    """The build context as a tar file: the Dockerfile, ``deps/`` and ``harness/`` (both byte-compiled)."""
    def root_owned(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = 1  # the same bytes make the same layer (the builder's cache compares headers too)
        info.mode = 0o755 if info.isdir() or info.mode & 0o100 else 0o644
        return info

    with tarfile.open(out, "w") as tar:
        data = _dockerfile(base, digest).encode()
        ti = tarfile.TarInfo("Dockerfile")
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
        for child in sorted(deps.iterdir()):
            if not child.name.startswith("."):
                tar.add(child, arcname=f"deps/{child.name}", filter=root_owned)
        tar.add(harness, arcname="harness", filter=root_owned)


#: How many content-hash images of the reference to keep (older ones are untagged after a build).
KEEP = 3


def _prune(client: Any, keep: str) -> None:
    """Untag all but the newest :data:`KEEP` reference images (never one a container still uses)."""
    images = sorted(client.images.list(name=REPOSITORY), key=lambda i: i.attrs.get("Created", ""), reverse=True)
    for img in images[KEEP:]:
        for t in img.tags:
            if t.startswith(f"{REPOSITORY}:") and t != keep:
                with contextlib.suppress(Exception):  # in use, or gone already
                    client.images.remove(t, noprune=False)


def build_reference(tag: str | None = None, *, mirror: str | None = None,
                    log: Callable[[str], None] = lambda _m: None) -> Built:
    """Build (or find) the reference agentd image; tag it ``tag`` too when given.

    One build at a time per cache folder (a file lock): parallel test workers wait for the first.
    """
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / "build.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_reference(tag, mirror, log)


@contextlib.contextmanager
def _building(ref: str, work: Path) -> Iterator[None]:
    """Building ``ref`` in the folder ``work``: a failure is one :class:`ImageBuildError` line, and ``work``
    is removed after."""
    try:
        yield
    except ImageBuildError:
        raise
    except Exception as exc:  # docker.errors.BuildError / APIError: one line
        raise ImageBuildError(f"docker build of {ref} failed: {' '.join(str(exc).split())[:300]}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _docker_build(client: Any, ctx: Path, ref: str, *, labels: dict[str, str] | None = None) -> None:
    """Build the context tar ``ctx`` as ``ref`` with no network and nothing pulled."""
    with open(ctx, "rb") as fh:
        client.images.build(fileobj=fh, custom_context=True, tag=ref, pull=False, rm=True, forcerm=True,
                            network_mode="none", use_config_proxy=False, timeout=900, labels=labels)


def _built_id(client: Any, ref: str) -> str:
    """The id of the image just built as ``ref``."""
    image_id = _image_id(client, ref)
    if image_id is None:
        raise ImageBuildError(f"the build did not produce {ref}")
    return image_id


def _build_reference(tag: str | None, mirror: str | None, log: Callable[[str], None]) -> Built:
    t0 = time.monotonic()
    mirror = mirror or os.environ.get("AGENTD_CONFORMANCE_DEBIAN_MIRROR") or DEFAULT_MIRROR
    client = _client()
    deps = _deps_site(requirements(), log)
    digest = content_hash(deps)
    ref = f"{REPOSITORY}:{digest[:16]}"
    image_id = _image_id(client, ref)
    cached = image_id is not None
    if image_id is None:
        base = ensure_base(client, mirror, log)
        log(f"building {ref} from {base}")
        work = Path(tempfile.mkdtemp(prefix="context-", dir=cache_dir()))
        ctx = work / "context.tar"
        with _building(ref, work):
            if not (deps / ".compiled").is_file():
                _compile(client, base, deps)
                (deps / ".compiled").write_text("unchecked-hash\n", encoding="utf-8")
            harness = _stage_harness(work)
            _compile(client, base, harness)
            _context(base, digest, deps, harness, ctx)
            _docker_build(client, ctx, ref)
        image_id = _built_id(client, ref)
        _prune(client, ref)
    if tag and tag != ref:
        repo, _, name = tag.rpartition(":") if ":" in tag.rsplit("/", 1)[-1] else (tag, "", "latest")
        client.images.get(ref).tag(repo, tag=name)
    return Built(tag=ref, image_id=image_id, cached=cached, seconds=time.monotonic() - t0)


def build_on_base(repository: str, files: dict[str, bytes], steps: list[str], labels: dict[str, str], *,
                  mirror: str | None = None, log: Callable[[str], None] = lambda _m: None) -> Built:
    """An image other than the reference's (a foreign agent's, for the harness's own tests of the container
    contract): FROM the base root filesystem, the harness's dependency set at :data:`SITE` (the same wheels as
    the reference image: a2a-sdk, uvicorn, ...), ``files`` (path in the build context -> bytes, copied to
    ``/opt/app``), then ``steps`` (Dockerfile lines: ENV, USER, ENTRYPOINT, ...) and ``labels``. Tagged
    ``repository:<content hash>``: a second call with nothing changed is a look-up. Nothing is pulled.

    Built in two steps: the unlabelled image (``repository:app-<hash>``: the large layer of dependencies), then
    the labels on top of it, so images differing only in their labels (a broken contract beside the right one)
    share the first and each costs a build of one small layer."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / "build.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        t0 = time.monotonic()
        mirror = mirror or os.environ.get("AGENTD_CONFORMANCE_DEBIAN_MIRROR") or DEFAULT_MIRROR
        client = _client()
        deps = _deps_site(requirements(), log)
        parts = [RECIPE.encode(), base_key().encode(), *(n.encode() for n in _installed(deps)),
                 *(s.encode() for s in steps)]
        for name in sorted(files):
            parts += [name.encode(), files[name]]
        app = f"{repository}:app-{_sha(parts)[:16]}"
        ref = f"{repository}:{_sha([*parts, json.dumps(labels, sort_keys=True).encode()])[:16]}"
        image_id = _image_id(client, ref)
        if image_id is not None:
            return Built(tag=ref, image_id=image_id, cached=True, seconds=time.monotonic() - t0)
        if _image_id(client, app) is None:
            base = ensure_base(client, mirror, log)
            dockerfile = "\n".join([f"FROM {base}", f"COPY deps {SITE}", "COPY app /opt/app", *steps, ""])
            members = [("Dockerfile", dockerfile.encode())] + [(f"app/{n}", b) for n, b in sorted(files.items())]
            log(f"building {app} from {base}")
            _build_context(client, app, members, deps)
        # The labels go through the build API, not a LABEL line: a Dockerfile would expand a template's ${...}.
        log(f"building {ref} from {app}")
        _build_context(client, ref, [("Dockerfile", f"FROM {app}\n".encode())], None, labels=labels)
        image_id = _built_id(client, ref)
        return Built(tag=ref, image_id=image_id, cached=False, seconds=time.monotonic() - t0)


def _build_context(client: Any, ref: str, members: list[tuple[str, bytes]], deps: Path | None, *,
                   labels: dict[str, str] | None = None) -> None:
    """Build ``ref`` from a context of ``members`` (name, bytes) and, when given, the folder ``deps`` as
    ``deps/``."""
    work = Path(tempfile.mkdtemp(prefix="context-", dir=cache_dir()))
    with _building(ref, work):
        ctx = work / "context.tar"
        with tarfile.open(ctx, "w") as tar:
            for name, data in members:
                ti = tarfile.TarInfo(name)
                ti.size, ti.mode, ti.mtime = len(data), 0o644, 1
                tar.addfile(ti, io.BytesIO(data))
            for child in sorted(deps.iterdir()) if deps is not None else ():
                if not child.name.startswith("."):
                    tar.add(child, arcname=f"deps/{child.name}")
        _docker_build(client, ctx, ref, labels=labels)
