"""Reading a YAML document the harness wrote itself (a report, a matrix): a mapping that holds a
mapping under a known key, or an error of the caller's kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

#: libyaml's parser where PyYAML was built with it (about ten times faster than the pure-Python one; the
#: registry and every report are read by each process of a run), else PyYAML's own. Same safe types.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` through :data:`SafeLoader`."""
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


def load_mapping(path: Path, key: str, cannot_read: Callable[[Exception], Exception],
                 malformed: Callable[[], Exception]) -> dict[str, Any]:
    """The document at ``path``. A file that cannot be read or parsed raises ``cannot_read(exc)``
    (chained to ``exc``); one that is not a mapping with a mapping under ``key`` raises ``malformed()``."""
    try:
        doc = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise cannot_read(exc) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get(key), dict):
        raise malformed()
    return doc
