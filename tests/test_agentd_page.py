"""The agentd page's oracle (``conformance.agentd_page``): its bundles agree with the page's own
tables, and the reference agentd serves them rather than a copy of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conformance import agentd_page as page
from conformance.paths import FIXTURES_DIR


def _bundle(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(page.schema_text(name))
    return doc


@pytest.mark.parametrize("name", sorted(page.SCHEMA_NAMES))
def test_each_bundle_is_a_valid_schema_published_under_its_uri(name: str) -> None:
    doc = _bundle(name)
    Draft202012Validator.check_schema(doc)
    assert doc["$id"] == f"{page.SCHEMA_NAMES[name]}/schema.json"


def test_the_command_op_table_is_the_pages() -> None:
    ops = {o["op"]: o for o in _bundle("command")["x-agentd-ops"]}
    assert list(ops) == list(page.PAGE_OPS)
    served = {"always": set(page.ALWAYS_OPS), "introspection": set(page.INTROSPECTION_OPS),
              "device_grant": set(page.SIGN_IN_OPS), "tcp": set(page.SESSION_OPS)}
    assert {w: {op for op, o in ops.items() if o["served"] == w} for w in served} == served
    assert {op for op, o in ops.items() if o["access"] == "operator"} == set(page.OPERATOR_ONLY_OPS)
    # the page's example of the extended card: status and workflow.status are reads, workflow.run is work
    assert (ops["status"]["reply"], ops["workflow.status"]["reply"], ops["workflow.run"]["reply"]) == \
        ("message", "message", "task")
    assert set(_bundle("command")["x-agentd-reserved"]) == set(page.PAGE_OPS)


def test_the_events_bundle_has_the_pages_frames_and_kinds() -> None:
    doc = _bundle("events")
    defs = doc["$defs"]
    assert set(doc["x-agentd-kinds"]) == set(page.EVENT_KINDS) == set(defs["kinds"])
    assert set(defs["event"]["properties"]["event"]["properties"]["kind"]["enum"]) == set(page.EVENT_KINDS)
    assert set(defs["hello"]["properties"]["hello"]["properties"]) == {"seq", "resume", "resync", "introspection",
                                                                      "version"}
    assert set(defs["event"]["properties"]["event"]["properties"]) == {"seq", "ts", "kind", "data"}
    goodbye = defs["goodbye"]["properties"]["goodbye"]["properties"]
    assert set(goodbye) == {"seq", "reason"} and set(goodbye["reason"]["enum"]) == {"deadline", "revoked"}
    assert set(defs["params"]["properties"]) == {"fromSeq"}


def test_the_annotations_bundle_has_the_pages_members() -> None:
    doc = _bundle("task-annotations")
    assert set(doc["properties"]) == {"link", "created", "statusHistory", "principal", "askSchema", "askChannel",
                                      "command"}
    assert set(doc["required"]) == {"link", "created", "statusHistory"}  # the page's "Always: yes" rows
    assert set(doc["properties"]["link"]["properties"]["kind"]["enum"]) == {"run", "subagent", "turn"}


@pytest.mark.parametrize("name", sorted(page.SCHEMA_NAMES))
def test_the_reference_prints_the_oracles_bundle_byte_for_byte(name: str) -> None:
    out = subprocess.run([sys.executable, "-m", "conformance.fixtures.reference_agentd", "--extension-schema", name],
                         capture_output=True, timeout=60, check=True, stdin=subprocess.DEVNULL).stdout
    assert out == page.schema_path(name).read_bytes()


def test_the_reference_keeps_no_copy_of_the_bundles() -> None:
    copies = sorted(p.name for p in (FIXTURES_DIR / "reference_agentd").rglob("*.schema.json"))
    assert not copies, f"the reference holds its own bundles {copies}; it must import conformance.agentd_page"
