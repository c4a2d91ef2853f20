"""The JSON Schema bundles (command, events, task-annotations) a target is validated against: the
page's own (:data:`conformance.agentd_page.SCHEMA_DIR`) unless the run names others."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

from jsonschema import Draft202012Validator

from conformance.agentd_page import (
    SCHEMA_DIR,
)
from conformance.judge import quote
from conformance.outcome import fail

#: Where the bundles come from by default: the harness's own copy, written from the page.
DEFAULT_BUNDLE_DIR: Final = SCHEMA_DIR


class Bundles:
    """The JSON Schema bundles (command, events, task-annotations) a target is validated against."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._docs: dict[str, dict[str, Any]] = {}
        self._validators: dict[tuple[str, str], Draft202012Validator] = {}

    def doc(self, name: str) -> dict[str, Any]:
        if name not in self._docs:
            path = self.directory / f"{name}.schema.json"
            self._docs[name] = json.loads(path.read_text(encoding="utf-8"))
        return self._docs[name]

    def validator(self, name: str, pointer: str = "") -> Draft202012Validator:
        key = (name, pointer)
        if key not in self._validators:
            root = self.doc(name)
            schema = {"$ref": f"#/{pointer}", "$defs": root.get("$defs", {})} if pointer else root
            self._validators[key] = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        return self._validators[key]

    def has(self, name: str, pointer: str) -> bool:
        node: Any = self.doc(name)
        for step in pointer.split("/"):
            if not isinstance(node, dict) or step not in node:
                return False
            node = node[step]
        return True

    def errors(self, name: str, pointer: str, instance: Any) -> list[str]:
        """Every schema error of ``instance`` against ``#/<pointer>`` of bundle ``name``."""
        out = []
        for err in sorted(self.validator(name, pointer).iter_errors(instance), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(root)"
            out.append(f"{where}: {err.message}")
        return out

    def check(self, name: str, pointer: str, instance: Any, what: str) -> None:
        errs = self.errors(name, pointer, instance)
        if errs:
            fail(f"{what} is not valid against the {name} bundle (#/{pointer}): {'; '.join(errs[:5])}; "
                 f"value {quote(instance)}")

    def kinds(self) -> dict[str, str]:
        """The closed event-kind vocabulary and each kind's audience (owner, everyone, operator)."""
        kinds: dict[str, str] = self.doc("events").get("x-agentd-kinds", {})
        return kinds


@cache
def _bundles_at(directory: str) -> Bundles:
    return Bundles(Path(directory))


def bundles(run_context: Any) -> Bundles:
    """The bundles of this run: ``target.schema_dir`` when the run names one, else the harness's copy."""
    target = getattr(run_context, "target", None) or {}
    return _bundles_at(str(target.get("schema_dir") or DEFAULT_BUNDLE_DIR))
