"""The run context: what the command tells the pytest session (and every xdist worker) about a run.

It is a private JSON file (mode 0600, in a temporary folder, never in the report) because it holds
the run's secrets: tokens given on the command line and any the harness generated before pytest.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from conformance.redact import MARK, SecretSet


@dataclass
class RunContext:
    family: str = "a2acli"
    target: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)
    scope: list[str] | None = None
    scope_note: str = ""
    secret_dir: str = ""
    #: Registry needs this run's target provides (None: all of them, as a launched reference does).
    provides: list[str] | None = None

    def __repr__(self) -> str:
        """The context without its secrets (pytest prints the repr of a failing check's fixtures)."""
        secrets = SecretSet(self.secrets)
        target = {k: ({role: MARK for role in v} if k == "tokens" and isinstance(v, dict) else v)
                  for k, v in self.target.items()}
        return secrets.redact(f"RunContext(family={self.family!r}, target={target!r}, run={self.run!r}, "
                              f"secrets=<{len(self.secrets)}>, scope={self.scope!r})")

    def dump(self, path: Path) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh)

    @classmethod
    def load(cls, path: Path) -> RunContext:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def private_dir(prefix: str = "agentd-conformance-") -> Path:
    """A fresh private temporary folder (mode 0700)."""
    return Path(tempfile.mkdtemp(prefix=prefix))
