"""Issue 19 §3: the requirements frozen per revision of the A2A text (``--spec-revision``).

The harness judges by A2A v1.0.1 unless told otherwise; v1.0.0's text differs in six cells of the error
table (§5.4), the HTTP+JSON media type and the level of ErrorInfo on JSON-RPC. The registry carries what
differs as data (``revisions:`` in a2a.yaml), the error table per revision (``wire.errors.TABLES``), and a
report names the revision it was judged by, so that it is read, verified and rendered by that text.

The differential: the scripted agent with defect ``errors-v1.0.0`` speaks the v1.0.0 text where the two
differ. Judged by each revision, its reports differ in exactly the rows whose text differs — and those
rows fail by the other text — while every other row keeps its status.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import revision
from conformance.registry import (
    RegistryError,
    default_registry,
    judged_by,
    load_registry,
    registry_at,
)
from conformance.wire.errors import TABLES, current
from tests.killmatrix import CORE

#: The rows whose verdict depends on the revision, for an agent that follows v1.0.0 where it differs.
REVISED_ROWS = {"A2A_ERR_001", "A2A_DATA_005"}


def test_the_newest_revision_is_the_default_and_each_names_itself() -> None:
    assert revision.selected() == revision.NEWEST == "1.0.1"
    assert default_registry() is registry_at("1.0.1")
    assert default_registry().families["a2a"].judged_against == ("A2A v1.0.1",)
    assert registry_at("1.0.0").families["a2a"].judged_against == ("A2A v1.0.0",)
    assert current() is TABLES["1.0.1"]


def test_the_revisions_differ_only_where_the_text_does() -> None:
    old, new = registry_at("1.0.0"), registry_at("1.0.1")
    changed = {r.id for r in new if old[r.id] != r}
    assert changed == {"A2A_ERR_001", "A2A_ERR_003", "A2A_DATA_005"}
    assert (old["A2A_ERR_003"].level, new["A2A_ERR_003"].level) == ("must", "should")
    assert "application/json" in old["A2A_DATA_005"].summary and "a2a+json" in new["A2A_DATA_005"].summary
    fields = ("jsonrpc_code", "http_status", "grpc_status", "reason")
    cells = {(a.name, f) for a, b in zip(TABLES["1.0.0"].errors, TABLES["1.0.1"].errors, strict=True)
             for f in fields if getattr(a, f) != getattr(b, f)}
    assert cells == {("TaskNotCancelableError", "http_status"), ("ContentTypeNotSupportedError", "http_status"),
                     ("InvalidAgentResponseError", "http_status"), ("PushNotificationNotSupportedError", "grpc_status"),
                     ("UnsupportedOperationError", "grpc_status"), ("VersionNotSupportedError", "grpc_status")}
    assert (TABLES["1.0.0"].rest_media_type, TABLES["1.0.1"].rest_media_type) == ("application/json",
                                                                                  "application/a2a+json")
    assert old.families["a2acli"] == new.families["a2acli"]  # a family without revisions reads the same
    assert old.families["agentd"].judged_against[-1] == "A2A v1.0.0"  # the page builds on the core text


def test_a_report_is_read_by_the_revision_it_names() -> None:
    assert judged_by(default_registry(), ["A2A v1.0.0"]) is registry_at("1.0.0")
    assert judged_by(registry_at("1.0.0"), ["A2A v1.0.1"]) is registry_at("1.0.1")
    assert judged_by(default_registry(), ["a2a-cli specification v0.2 of 2026-08-17"]) is default_registry()


@pytest.mark.parametrize(("fragment", "message"), [
    ('revisions: {"0.9": {judged_against: ["A2A v0.9"]}}', "unknown revision"),
    ('revisions: {"1.0.0": {judged_against: ["A2A v1.0.0"], rows: {A2A_NOPE_001: {level: must}}}}',
     "not a requirement of this family"),
    ('revisions: {"1.0.0": {judged_against: ["A2A v1.0.0"], rows: {A2A_ERR_003: {level: sometimes}}}}',
     "must be one of"),
    ('revisions: {"1.0.0": {judged_against: ["A2A v1.0.0"], rows: {A2A_ERR_003: {tier: 2}}}}', "a mapping of"),
    ('revisions: {"1.0.0": {rows: {}}}', "judged_against"),
])
def test_malformed_revision_data_is_refused_naming_the_key(tmp_path: Path, fragment: str, message: str) -> None:
    src = Path(default_registry().families["a2a"].path).read_text(encoding="utf-8")
    head, _, rest = src.partition("\nrevisions:\n")
    body = rest[rest.index("\nareas:"):]
    (tmp_path / "a2a.yaml").write_text(f"{head}\n{fragment}{body}", encoding="utf-8")
    with pytest.raises(RegistryError, match=message):
        load_registry(tmp_path)


def _verify(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", "report", "verify", str(folder)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_an_agent_speaking_v1_0_0_differs_by_revision_in_exactly_the_revised_rows(tmp_path: Path) -> None:
    """The whole a2a family, twice, on the same v1.0.0-speaking agent: by v1.0.1 the revised rows fail,
    by v1.0.0 they pass, and no other row moves. Each report names its revision and verifies."""
    new = CORE.run(tmp_path / "new", None, "errors-v1.0.0")
    old = CORE.run(tmp_path / "old", None, "errors-v1.0.0", extra=["--spec-revision", "1.0.0"])
    assert new.identity.judged_against == ["A2A v1.0.1"] and old.identity.judged_against == ["A2A v1.0.0"]
    moved = {rid for rid, row in new.requirements.items() if row.status != old.requirements[rid].status}
    assert moved == REVISED_ROWS, {rid: (new.requirements[rid].status, old.requirements[rid].status)
                                   for rid in moved | REVISED_ROWS}
    assert all(new.requirements[rid].status == "fail" and old.requirements[rid].status == "pass"
               for rid in REVISED_ROWS)
    assert old.requirements["A2A_ERR_003"].requirement == registry_at("1.0.0")["A2A_ERR_003"].summary
    assert "level_must" in old.summary and old.summary["level_must"].total == new.summary["level_must"].total + 1
    for folder in (tmp_path / "new" / "report", tmp_path / "old" / "report"):
        proc = _verify(folder)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = (tmp_path / "old" / "report" / "summary.md").read_text(encoding="utf-8")
    assert "A2A v1.0.0" in summary and registry_at("1.0.0")["A2A_DATA_005"].summary in summary


def test_registry_lists_a_revision_and_what_changed_in_it() -> None:
    """``registry --spec-revision 1.0.0 --changed``: a spec author sees the rows v1.0.0 reads otherwise."""
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "registry", "--spec-revision", "1.0.0",
                           "--changed", "--format", "json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = {r["id"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {"A2A_ERR_001", "A2A_ERR_003", "A2A_DATA_005"}
    assert rows["A2A_ERR_003"]["level"] == "must" and "application/json" in rows["A2A_DATA_005"]["summary"]
