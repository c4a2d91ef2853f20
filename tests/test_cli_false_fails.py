"""False fails on real CLIs (issue 17 §3): a tool that differs from the reference CLI only where the
specification leaves it a choice passes the row. Each test runs the command, as a vendor would, on the
reference CLI with one conforming variation (``tests/variant_cli.py``) and reads the report back.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from conformance.paths import PACKAGE_DIR
from tests.killmatrix import outcomes, run_command

VARIANT_CLI = PACKAGE_DIR.parent / "tests" / "variant_cli.py"


def variant_exe(tmp: Path) -> str:
    exe = tmp / "variant-cli"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{VARIANT_CLI}" "$@"\n', encoding="utf-8")
    exe.chmod(0o755)
    return str(exe)


def run_variant(tmp: Path, variants: str, only: list[str], *extra: str) -> dict[str, Any]:
    """The requirements of a run of ``only`` on the reference CLI with ``variants`` switched on."""
    report = run_command(["cli", "--exe", variant_exe(tmp), "--jobs", "2", "--env-plain", f"VARIANT_CLI={variants}",
                          *extra, "--only", *only], tmp / "report")
    reqs: dict[str, Any] = report.to_dict()["requirements"]
    return reqs


def row(reqs: dict[str, Any], rid: str) -> tuple[str, str]:
    return reqs[rid]["status"], str(reqs[rid].get("note") or "")


def check_outcomes(tmp: Path, rid: str) -> dict[str, str]:
    """Per check of ``rid`` (its test name): the status it ended with."""
    return {o["nodeid"].rsplit("::", 1)[-1]: o["status"] for o in outcomes(tmp / "report") if o["requirement"] == rid}


def test_zsh_completing_an_option_as_name_equals_is_a_completion_of_it(tmp_path: Path) -> None:
    """zsh's ``_arguments`` (what Click, clap and cobra generate) completes ``send --ag`` as
    ``--agent-card=``: that offers ``--agent-card``, and CLI_002 passes on every shell."""
    reqs = run_variant(tmp_path, "zsh-arguments", ["A2ACLI_CLI_002"])
    checks = check_outcomes(tmp_path, "A2ACLI_CLI_002")
    zsh = checks.get("test_completion_script_loads_and_completes_the_commands[zsh]")
    assert zsh == "pass", (checks, row(reqs, "A2ACLI_CLI_002"))
    assert row(reqs, "A2ACLI_CLI_002")[0] == "pass", row(reqs, "A2ACLI_CLI_002")


def test_a_tool_without_verbose_is_judged_on_debug_redaction_alone(tmp_path: Path) -> None:
    """AUTH_004 is about --debug output (and a verbosity flag not defeating its redaction): a tool that has
    no --verbose, and redacts every credential under --debug, passes it."""
    reqs = run_variant(tmp_path, "no-verbose", ["A2ACLI_AUTH_004"])
    assert row(reqs, "A2ACLI_AUTH_004")[0] == "pass", row(reqs, "A2ACLI_AUTH_004")


def test_config_show_naming_the_source_by_kind_satisfies_tier1(tmp_path: Path) -> None:
    """`config show` printing "A2ACLI_AGENT_CARD: <value> (source: global .env file)", no path: the
    stored value is inspectable, which is CONFIG_001's (Tier 1) demand; naming the file by its path is
    CONFIG_002's (Tier 2) source rule, which this tool fails."""
    reqs = run_variant(tmp_path, "config-source-label", ["A2ACLI_CONFIG_001", "A2ACLI_CONFIG_002"])
    assert row(reqs, "A2ACLI_CONFIG_001")[0] == "pass", row(reqs, "A2ACLI_CONFIG_001")
    status, note = row(reqs, "A2ACLI_CONFIG_002")
    assert status == "partial" and "show_source" in note, (status, note)


def test_validate_is_judged_against_the_proto_schema_not_a_fields_comment(tmp_path: Path) -> None:
    """A `--validate` that checks the card against the proto's types and REQUIRED fields, and so accepts
    apiKey `location: "body"` (a plain string in the normative proto, accepted by the SDK's strict
    reader), passes CARD_GET_002."""
    reqs = run_variant(tmp_path, "validate-schema-only", ["A2ACLI_CARD_GET_002"])
    assert row(reqs, "A2ACLI_CARD_GET_002")[0] == "pass", row(reqs, "A2ACLI_CARD_GET_002")


def test_a_help_tree_reaching_every_command_satisfies_the_help_part(tmp_path: Path) -> None:
    """Top-level help naming the groups `card` and `task`, each group's `--help` naming `get` / `cancel`
    (Click, clap, cobra): CLI_001 passes, its help part included."""
    reqs = run_variant(tmp_path, "nested-help", ["A2ACLI_CLI_001"])
    assert row(reqs, "A2ACLI_CLI_001")[0] == "pass", row(reqs, "A2ACLI_CLI_001")


def test_an_unrelated_404_earns_no_passing_part_of_send_003(tmp_path: Path) -> None:
    """`send` fetches a card path that is not the card's (404) and exits 1: the tool never learnt the card
    has no streaming, so SEND_003's stream_unsupported part is not measured (blocked by CARD_GET_001),
    never passed on that error."""
    run_variant(tmp_path, "card-at-old-path", ["A2ACLI_SEND_003"])
    checks = check_outcomes(tmp_path, "A2ACLI_SEND_003")
    part = checks.get("test_stream_without_streaming_capability_does_not_hang")
    assert part == "not_measured", checks


def test_output_fields_missing_the_context_do_not_fail_the_text_floor(tmp_path: Path) -> None:
    """Defect `no-context-in-output` (OUT_001's, INTERACT_004's: the context id is not printed) leaves the
    text floor (OUT_005: label lines, stable labels, no control sequences) as it was: OUT_005 passes."""
    report = run_command(["cli", "--jobs", "2", "--env-plain", "REFCLI_DEFECTS=no-context-in-output", "--only",
                          "A2ACLI_OUT_005"], tmp_path / "report")
    reqs = report.to_dict()["requirements"]
    assert row(reqs, "A2ACLI_OUT_005")[0] == "pass", row(reqs, "A2ACLI_OUT_005")
