"""An isolated home for a CLI under test: HOME, the XDG directories, TMPDIR and a working directory.

A CLI run through the harness never sees the user's real home, configuration or credentials: it
gets a fresh private directory tree (mode 0700) laid out like a real home. The tree can be kept
after a run so a check can inspect what the CLI stored there (for example, that no ``taskId`` was
saved for replay), or shared by several runs (for example, a token stored by ``auth login`` and
attached by a later ``send``).
"""

from __future__ import annotations

import hashlib
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType


@dataclass(frozen=True)
class FileState:
    """One regular file as a snapshot saw it: permission bits, size, modification time, content hash."""

    mode: int
    size: int
    mtime_ns: int
    sha256: str


class IsolatedHome:
    """A private directory tree standing in for a user's home; remove it with :meth:`cleanup`."""

    def __init__(self, prefix: str = "a2acli-run-") -> None:
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.home = self.root / "home"
        self.config = self.home / ".config"
        self.data = self.home / ".local" / "share"
        self.state = self.home / ".local" / "state"
        self.cache = self.home / ".cache"
        self.tmp = self.root / "tmp"
        #: Default working directory of a run: outside the harness's checkout, so a CLI that looks
        #: for a local ``.env`` by walking up from its working directory finds none of ours.
        self.work = self.root / "work"
        for d in (self.config, self.data, self.state, self.cache, self.tmp, self.work):
            d.mkdir(parents=True, exist_ok=True)

    @property
    def exists(self) -> bool:
        return self.root.is_dir()

    def env(self) -> dict[str, str]:
        """The environment variables that point a program at this home."""
        return {
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_DATA_HOME": str(self.data),
            "XDG_STATE_HOME": str(self.state),
            "XDG_CACHE_HOME": str(self.cache),
            "TMPDIR": str(self.tmp),
        }

    def files(self) -> list[Path]:
        """Every regular file under the home, sorted (what a CLI left behind)."""
        if not self.home.is_dir():
            return []
        return sorted(p for p in self.home.rglob("*") if p.is_file())

    def snapshot(self) -> dict[Path, FileState]:
        """Every regular file of the whole tree (home, XDG dirs, tmp, work) and its state."""
        out: dict[Path, FileState] = {}
        for p in sorted(self.root.rglob("*")):
            try:
                st = p.lstat()
                if not stat.S_ISREG(st.st_mode):
                    continue
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                continue
            out[p] = FileState(stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns, digest)
        return out

    def written_since(self, before: dict[Path, FileState]) -> list[Path]:
        """Files created or changed since ``before`` (what the tool wrote in between), sorted."""
        now = self.snapshot()
        return sorted(p for p, s in now.items() if before.get(p) != s)

    def conventional(self, path: Path) -> bool:
        """Under the XDG configuration, data, state or cache directory (``~/.config/a2a-cli/`` and kin)."""
        return any(path.is_relative_to(d) for d in (self.config, self.data, self.state, self.cache))

    def cleanup(self) -> None:
        """Remove the whole tree; safe to call twice."""
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> IsolatedHome:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        return f"IsolatedHome({str(self.root)!r})"
