"""Which harness wrote a report: its version and the git commit it was built from.

From a checkout (``.git`` beside the package) the commit is read from git at run time, with ``-dirty``
when tracked files differ from it. An installed wheel carries the commit it was built from in
``conformance/_build_commit.txt`` (written by the build hook, ``hatch_build.py``). Where neither
answers (a wheel built without git), the commit is unknown and the report says so.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

from conformance import __version__

#: The file the build hook writes into the wheel (never committed).
BUILD_COMMIT_FILE = "_build_commit.txt"
UNKNOWN_COMMIT = "unknown (installed without git metadata)"
_COMMIT = re.compile(r"^[0-9a-f]{40}(-dirty)?$")
PACKAGE_DIR = Path(__file__).resolve().parent


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root`` (``-dirty`` when tracked files were changed), or None when
    ``root`` is not a git checkout or git cannot answer."""
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    try:
        head = subprocess.run([git, "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, stdin=subprocess.DEVNULL)
        if head.returncode != 0 or not _COMMIT.match(head.stdout.strip()):
            return None
        status = subprocess.run([git, "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    dirty = status.returncode != 0 or bool(status.stdout.strip())
    return head.stdout.strip() + ("-dirty" if dirty else "")


def commit_of(package_dir: Path) -> str | None:
    """The commit the harness at ``package_dir`` comes from: git in a checkout, else the build's record."""
    found = git_commit(package_dir.parent)
    if found is not None:
        return found
    try:
        recorded = (package_dir / BUILD_COMMIT_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return recorded if _COMMIT.match(recorded) else None


@functools.cache
def harness_commit() -> str:
    """This harness's commit, or :data:`UNKNOWN_COMMIT`."""
    return commit_of(PACKAGE_DIR) or UNKNOWN_COMMIT


def harness_version() -> str:
    return __version__
