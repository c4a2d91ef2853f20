"""The twin CLI (``fixtures/twin_cli``): the reference a2a-cli behind a grammar of its own, and the proof
that adapter version 2 measures a tool as its native-grammar twin — the same verdict on every row.

Unit level: the twin's grammar (what each invocation becomes in the spec's grammar, what it refuses).
Run level: ``agentd-conformance cli`` on the twin through ``docs/examples/twin.adapter.yaml`` agrees row
for row with the reference CLI run directly; without the adapter's mappings the twin fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.fixtures.twin_cli.main import Plan, UsageError, defaults_block, plan
from conformance.paths import FIXTURES_DIR
from tests.killmatrix import run_command

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "twin.adapter.yaml"
TWIN = [sys.executable, "-m", "conformance.fixtures.twin_cli"]
TWIN_EXE = " ".join(TWIN)
TWIN_SKILL = FIXTURES_DIR / "twin_cli" / "skill" / "SKILL.md"


def twin(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TWIN, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, **(env or {})})


# ── the grammar ───────────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize(("argv", "spec"), [
    (["--card", "u", "message", "send", "--text", "hi", "--context", "C", "--detach"],
     ["send", "--agent-card", "u", "--text", "hi", "--context-id", "C", "--async"]),
    (["--card", "u", "--jsonl", "stream", "hi", "--text", "more"],
     ["send", "--stream", "--agent-card", "u", "-o", "json", "hi", "--text", "more"]),
    (["--json", "--poll-interval", "1s", "task", "watch", "T"],
     ["task", "get", "--wait", "-o", "json", "--poll-interval", "1s", "T"]),
    (["--transport", "rest", "--transport=grpc", "--header", "k:v", "card", "show"],
     ["card", "get", "--transport", "HTTP+JSON", "--transport", "GRPC", "--svc-param", "k:v"]),
    (["-v", "--plain", "task", "cancel", "T"], ["task", "cancel", "--verbose", "-o", "text", "T"]),
    (["-V"], ["--version"]),
    (["message", "send", "--", "--text"], ["send", "--", "--text"]),
])
def test_each_twin_invocation_becomes_its_spec_invocation(argv: list[str], spec: list[str]) -> None:
    assert plan(argv, {}) == Plan(spec)


def test_a_credential_is_read_from_the_variable_the_option_names() -> None:
    assert plan(["--bearer-env", "MY_TOKEN", "message", "send"], {"MY_TOKEN": "s3cret"}) == Plan(
        ["send", "--bearer", "s3cret"])
    with pytest.raises(UsageError, match="MISSING is not set"):
        plan(["--api-key-env", "MISSING", "message", "send"], {})


@pytest.mark.parametrize(("argv", "says"), [
    (["send", "--text", "hi"], "unknown command 'send'"),
    (["message", "send", "--card", "u"], "unknown option --card for 'message send' (a global option"),
    (["--text", "hi", "message", "send"], "unknown option --text before the command"),
    (["message", "send", "-o", "json"], "unknown option -o"),
    (["--transport", "HTTP+JSON", "card", "show"], "invalid choice for --transport: 'HTTP+JSON'"),
    (["task", "get", "--wait", "T"], "unknown option --wait"),
    (["task"], "'task' needs a subcommand"),
    (["--card"], "--card needs a value"),
])
def test_the_spec_grammar_is_not_the_twins(argv: list[str], says: str) -> None:
    with pytest.raises(UsageError) as info:
        plan(argv, {})
    assert says in str(info.value)


def test_a_usage_error_follows_the_error_contract_in_each_output_mode() -> None:
    text = twin("send", "--text", "hi")
    assert text.returncode == 2 and "Error-Code: A2ACLI_ERR_USAGE" in text.stderr and text.stdout == ""
    doc = twin("--json", "send")
    assert doc.returncode == 2 and yaml.safe_load(doc.stdout)["error"]["code"] == "A2ACLI_ERR_USAGE"
    line = twin("--jsonl", "message", "send", "--bogus")
    assert line.returncode == 2 and len(line.stdout.splitlines()) == 1 and "--bogus" in line.stdout


def test_help_names_the_twins_commands_and_carries_the_references_defaults() -> None:
    top = twin("--help")
    assert top.returncode == 0, top.stderr
    for words in ("card show", "message send", "stream", "task watch", "--bearer-env", "-V, --version"):
        assert words in top.stdout, words
    assert "Effective defaults" in top.stdout and "A2ACLI_BEARER" in top.stdout
    send = twin("message", "send", "--help")
    assert send.returncode == 0 and "--detach" in send.stdout and "Effective defaults" in send.stdout
    assert twin("help", "task", "watch").stdout.startswith("Usage: twin-cli [global options] task watch")


def test_the_defaults_block_is_cut_at_its_blank_line() -> None:
    assert defaults_block("Usage: x\n\nEffective defaults (...):\n  a  b\n  c  d\n\nNotes\n") == (
        "Effective defaults (...):\n  a  b\n  c  d")
    assert defaults_block("no such block\n") == ""


def test_version_is_capital_v_and_lowercase_v_is_verbose() -> None:
    version = twin("-V")
    assert version.returncode == 0 and version.stdout == twin("--version").stdout and "0." in version.stdout
    verbose = twin("-v")
    assert verbose.returncode == 2 and "no command given" in verbose.stderr


# ── through the example adapter: the same verdicts as the reference, row for row ─────────────────────

def _report(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((path / "compliance-report.yaml").read_text(encoding="utf-8"))
    return data


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a Tier 1 run on a shared 2-core machine
def test_the_twin_through_its_adapter_gets_the_references_verdicts_row_for_row(tmp_path: Path) -> None:
    """Tier 1 against the twin through the example adapter (every v2 key in use): the reference's verdict on
    every id, which is pass on all 39 Tier 1 rows (``test_kill_matrix.py::test_clean_reference_cli_passes_
    every_tier`` holds that of the clean reference, so it is not run again here); and the identity says an
    adapter was used and how the version check was asked."""
    through = run_command(["cli", "--exe", TWIN_EXE, "--adapter", str(EXAMPLE), "--skill", str(TWIN_SKILL),
                           "--tier", "1", "--jobs", "2"], tmp_path / "twin")
    got = through.requirements
    tier1 = [rid for rid, r in got.items() if r.tier == 1]
    assert len(tier1) == 39, tier1
    differ = {rid: (got[rid].status, got[rid].note) for rid in tier1 if got[rid].status != "pass"}
    assert not differ, differ
    assert through.identity.tier_claimed == 1
    ident = through.identity
    assert ident.adapter_used is True and ident.tool == "twin-cli" and ident.adapter is not None
    assert ident.adapter.schema == 2 and ident.adapter.version_check == {"-v": "-V"}
    assert ident.adapter.file == "twin.adapter.yaml" and len(ident.adapter.sha256) == 64, ident.adapter
    summary = (tmp_path / "twin" / "summary.md").read_text(encoding="utf-8")
    compliance = (tmp_path / "twin" / "COMPLIANCE.md").read_text(encoding="utf-8")
    for text in (summary, compliance):
        assert "twin.adapter.yaml" in text and "`-v` as `-V`" in text
    assert "Measured through an adapter" in compliance


def test_without_its_version_mapping_the_twins_version_check_fails(tmp_path: Path) -> None:
    """The version check asks the spec's ``-v`` through the adapter: drop the ``-v: -V`` mapping and the
    twin's ``-v`` (its verbose switch) fails the version part of CLI_001, while help still passes. (Both
    entries go: a flag entry also covers the option's other spelling.)"""
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    del doc["flags"]["-v"], doc["flags"]["--version"]
    adapter = tmp_path / "no-v.yaml"
    adapter.write_text(yaml.safe_dump(doc), encoding="utf-8")
    report = run_command(["cli", "--exe", TWIN_EXE, "--adapter", str(adapter), "--only", "A2ACLI_CLI_001",
                          "--jobs", "2"], tmp_path / "report")
    row = report.requirements["A2ACLI_CLI_001"]
    assert row.status in ("fail", "partial") and "-v" in (row.note or ""), row
    parts = row.parts
    assert parts.get("version") == "fail" and parts.get("help") == "pass", row
    assert report.identity.adapter is not None and not report.identity.adapter.version_check
