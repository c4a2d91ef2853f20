"""Build hook: record the git commit the wheel is built from in ``conformance/_build_commit.txt``, so an
installed harness names its commit in every report (``conformance.provenance``). Without git (a build
from an sdist that carries the file already, or from a plain copy) nothing is added."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CommitHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":  # an editable install reads git at run time
            return
        root = Path(self.root)
        sys.path.insert(0, str(root))
        try:
            from conformance.provenance import BUILD_COMMIT_FILE, git_commit
        finally:
            sys.path.pop(0)
        commit = git_commit(root)
        if commit is None:
            return
        out = Path(tempfile.mkdtemp(prefix="agentd-conformance-build-")) / BUILD_COMMIT_FILE
        out.write_text(commit + "\n", encoding="utf-8")
        build_data["force_include"][str(out)] = f"conformance/{BUILD_COMMIT_FILE}"
