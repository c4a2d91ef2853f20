"""Allure labels a team can navigate: epic = family, feature = area, story = requirement id.

The plugin calls :func:`mark` at collection (markers allure-pytest reads when a test starts) and
:func:`attach` when a check's evidence has been written (the redacted files, as attachments).
Severity comes from the tier or level; the link points at the requirement's section of its source.
Nothing here runs unless allure-pytest is active (``--alluredir``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

#: Where each family's normative text lives (override with AGENTD_CONFORMANCE_SPEC_URL_<FAMILY>).
SPEC_DOCS = {
    "a2a": "https://a2a-protocol.org/v1.0.0/specification/",
    "a2acli": "reference/a2a-cli/SPEC.md",
    "agentd": "seeds/agentd-a2a-extensions.txt",
}
#: allure severities: blocker, critical, normal, minor, trivial.
SEVERITY = {1: "critical", 2: "normal", 3: "minor", "must": "critical", "should": "normal", "may": "minor"}
FAMILY_NAMES = {"a2a": "A2A 1.0 core", "a2acli": "a2a-cli", "agentd": "agentd extensions"}


def active(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "allure_report_dir", None))


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def spec_link(family: str, spec: str, heading: str | None) -> str:
    base = os.environ.get(f"AGENTD_CONFORMANCE_SPEC_URL_{family.upper()}") or SPEC_DOCS.get(family, family)
    section = heading or spec.split(",")[0].strip()
    return f"{base}#{_anchor(section.lstrip('§'))}"


def labels_for(req: Any) -> list[tuple[str, str]]:
    """(label type, value) pairs for one registry requirement."""
    rank = req.tier if req.tier is not None else req.level
    return [("epic", FAMILY_NAMES.get(req.family, req.family)), ("feature", req.area), ("story", req.id),
            ("severity", SEVERITY.get(rank, "normal")), ("tag", req.family)]


def mark(item: pytest.Item, requirements: Iterable[Any]) -> None:
    """Put allure label and link markers on ``item`` for each requirement it measures."""
    for req in requirements:
        for kind, value in labels_for(req):
            item.add_marker(pytest.mark.allure_label(value, label_type=kind))
        item.add_marker(pytest.mark.allure_link(spec_link(req.family, req.spec, req.heading), link_type="link",
                                                name=f"{req.id}: {req.spec}"))


def attach(report_dir: Path | None, paths: Iterable[str]) -> None:
    """Attach the written (already redacted) evidence files to the running allure test."""
    if report_dir is None:
        return
    try:
        import allure
    except ImportError:  # pragma: no cover - a declared dependency
        return
    for rel in paths:
        path = report_dir / rel
        try:
            body = path.read_text(encoding="utf-8")
        except OSError:
            continue
        allure.attach(body, name=rel, attachment_type=allure.attachment_type.JSON)
