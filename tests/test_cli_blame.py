"""The blame rule on the CLI side (DESIGN.md §2.8; ``conformance/clicheck/features.py``).

Unit level: how a run shows a feature is missing, and what that does to a check of its own
requirement (fail) and of another's (blocked). Run level: the reference CLI made "otherwise right on
X" but missing a feature another requirement governs — X must not fail; the governing requirement
must.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter import Adapter, Unsupported
from conformance.cli.runner import CliResult
from conformance.clicheck.features import (
    ADAPTER_UNSUPPORTED,
    OWNERS,
    Missing,
    judge_missing,
    rejected_feature,
    rejected_features,
    undeclared,
    used_features,
)
from conformance.judge import Blocked
from conformance.outcome import CheckFailed
from conformance.registry import default_registry
from tests.killmatrix import run_command


def result(exit_code: int, stderr: str = "", stdout: str = "") -> CliResult:
    return CliResult(argv=["tool"], env_shown={}, exit_code=exit_code, stdout=stdout.encode(),
                     stderr=stderr.encode(), duration=0.1)


WAIT = ["task get", "--wait", "--agent-card", "--poll-interval"]


# ── which features an invocation uses, and who governs them ───────────────────────────────────────

def test_every_feature_is_governed_by_known_requirements() -> None:
    reg = default_registry()
    unknown = {f: [r for r in who if r not in reg] for f, who in OWNERS.items()}
    assert not any(unknown.values()), unknown
    assert all(OWNERS.values()), "every feature names at least one requirement"


def test_used_features_reads_the_command_flags_short_forms_and_credential_variables() -> None:
    args = ["task", "get", "T1", "--wait", "-a", "http://h", "--poll-interval", "200ms", "-o", "json",
            "--no-such-option"]
    assert used_features(args, {"A2ACLI_BEARER": "x", "OTHER": "y", "A2ACLI_API_KEY": None}) == [
        "task get", "--wait", "--agent-card", "--poll-interval", "--output", "A2ACLI_BEARER"]


def test_a_check_must_declare_the_owner_of_every_feature_it_uses_but_not_its_own() -> None:
    own = ["A2ACLI_OUT_002"]
    assert undeclared(WAIT + ["--output"], own, ["A2ACLI_TASK_GET_001", "A2ACLI_TASK_POLL_001",
                                                  "A2ACLI_CARD_GET_001", "A2ACLI_TASK_POLL_002"]) == []
    assert undeclared(WAIT, own, ["A2ACLI_TASK_GET_001", "A2ACLI_CARD_GET_001"]) == [
        "--wait (governed by A2ACLI_TASK_POLL_001)", "--poll-interval (governed by A2ACLI_TASK_POLL_002)"]
    assert undeclared(["--made-up"], own, []) == ["--made-up (in no requirement's feature list)"]


# ── how a run shows a feature is missing ──────────────────────────────────────────────────────────

@pytest.mark.parametrize("stderr", [
    "a2a-cli: error: unknown option --poll-interval",
    "error: unrecognized arguments: --poll-interval 200ms",
    "Error: No such option: --poll-interval",
    "Error: unknown flag: --poll-interval",
])
def test_a_usage_error_rejecting_a_flag_by_name_shows_it_missing(stderr: str) -> None:
    low = stderr.lower()
    said = stderr[low.index(next(w for w in ("unknown", "unrecognized", "no such") if w in low)):]
    missing = Missing("--poll-interval", f"rejected as a usage error: {said!r}")
    assert rejected_feature(result(2, stderr), WAIT) == missing


@pytest.mark.parametrize("stderr", [
    "unknown command 'config'", "Error: No such command 'config'.", "argument command: invalid choice: 'config'",
    'unknown command "config" for "a2a"',
])
def test_a_usage_error_rejecting_a_command_by_name_shows_it_missing(stderr: str) -> None:
    missing = rejected_feature(result(2, stderr), ["config show"])
    assert missing is not None and missing.feature == "config show"


@pytest.mark.parametrize("stderr", [
    "Error: No such option '--timeout'. Did you mean '--text'?",                 # click
    "Error: No such option '--timeout'. (Did you mean one of: '--text', '--task-id'?)",
    "error: unrecognized arguments: --timeout 5s; maybe you meant --text",
    "error: unknown flag: --timeout (similar flags: --text, --context-id)",
])
def test_a_parsers_suggestions_are_never_taken_for_the_rejected_feature(stderr: str) -> None:
    """Seen on a real tool (a2a-handler 0.4.0): the suggestion named --text, and the check was blocked
    by the row owning --text although the tool has it; the rejected flag is the one before the hint."""
    missing = rejected_feature(result(2, stderr), ["send", "--text", "--context-id", "--task-id", "--timeout"])
    assert missing is not None and missing.feature == "--timeout", missing
    assert rejected_feature(result(2, stderr), ["send", "--text", "--task-id"]) is None


@pytest.mark.parametrize("run", [
    result(2, "usage: null-cli <command> [options]"),            # a usage error naming nothing
    result(1, "error: unknown option --poll-interval"),          # not the usage status
    result(2, "--async and --stream contradict each other"),     # a usage error, but no rejection
    result(2, "unknown option --no-such for command 'task get'"),  # rejects another word, not `task get`
    result(0, "unknown option --poll-interval"),
])
def test_runs_that_do_not_reject_a_used_feature_by_name_show_nothing_missing(run: CliResult) -> None:
    assert rejected_feature(run, WAIT + ["--async", "--stream"]) is None


def test_the_checks_own_feature_is_named_first_and_flags_before_commands() -> None:
    run = result(2, "error: unknown option '--poll-interval' for unknown command 'task get'\nunknown option --wait")
    assert rejected_feature(run, WAIT).feature == "--wait"  # type: ignore[union-attr]
    assert rejected_feature(run, WAIT, own=["A2ACLI_TASK_POLL_002"]).feature == "--poll-interval"  # type: ignore[union-attr]


def test_an_adapter_rename_is_recognised_in_the_rejection() -> None:
    ad = Adapter.from_dict({"adapter": 1, "tool": "t", "flags": {"--poll-interval": "--interval"}})
    assert rejected_feature(result(2, "unknown flag: --interval"), WAIT, adapter=ad).feature == "--poll-interval"  # type: ignore[union-attr]


def test_an_adapter_unsupported_entry_names_the_spec_feature() -> None:
    ad = Adapter.from_dict({"adapter": 1, "tool": "t", "unsupported": ["-o", "task cancel", "A2ACLI_BEARER"]})
    cases: list[tuple[list[str], dict[str, str | None], str]] = [
        (["send", "--output", "json"], {}, "--output"), (["task", "cancel", "T"], {}, "task cancel"),
        (["send"], {"A2ACLI_BEARER": "x"}, "A2ACLI_BEARER")]
    for args, env, feature in cases:
        with pytest.raises(Unsupported) as info:
            ad.translate(args, env)
        assert info.value.feature == feature


def test_an_adapter_names_every_unsupported_feature_of_an_invocation_in_argv_order() -> None:
    ad = Adapter.from_dict({"adapter": 1, "tool": "t", "unsupported": ["--poll-interval", "--wait", "A2ACLI_BEARER"]})
    with pytest.raises(Unsupported) as info:
        ad.translate(["task", "get", "T", "--wait", "--poll-interval", "1s"], {"A2ACLI_BEARER": "x"})
    assert info.value.features == ("--wait", "--poll-interval", "A2ACLI_BEARER")
    assert "--wait" in str(info.value) and "--poll-interval" in str(info.value)


def test_a_parser_rejecting_several_features_shows_each_missing_the_checks_own_first() -> None:
    run = result(2, "error: unrecognized arguments: --wait --poll-interval 200ms")
    found = rejected_features(run, WAIT, own=["A2ACLI_TASK_POLL_002"])
    assert [m.feature for m in found] == ["--poll-interval", "--wait"], found


# ── what a missing feature does to a check ────────────────────────────────────────────────────────

def test_a_missing_feature_the_check_s_own_requirement_names_is_its_fail() -> None:
    with pytest.raises(CheckFailed) as info:
        judge_missing(Missing("--poll-interval", ADAPTER_UNSUPPORTED), ["A2ACLI_TASK_POLL_002"])
    assert str(info.value) == ("expected --poll-interval, which TASK_POLL_002 names; missing: "
                               "unsupported by the tool (adapter)")


def test_a_missing_feature_another_requirement_governs_blocks_the_check() -> None:
    with pytest.raises(Blocked) as info:
        judge_missing(Missing("--poll-interval", "rejected as a usage error: 'unknown option'"), ["A2ACLI_OUT_002"])
    assert info.value.by == "A2ACLI_TASK_POLL_002"
    assert info.value.reason == ("blocked by A2ACLI_TASK_POLL_002: no --poll-interval (rejected as a usage error: "
                                 "'unknown option')")


def test_the_checks_own_missing_feature_fails_it_whatever_the_argument_order() -> None:
    """--wait (TASK_POLL_001's) comes before --poll-interval (TASK_POLL_002's) in the invocation; both
    missing: TASK_POLL_002's check fails for its own flag and names the other too, it is not blocked."""
    missing = [Missing("--wait", ADAPTER_UNSUPPORTED), Missing("--poll-interval", ADAPTER_UNSUPPORTED)]
    with pytest.raises(CheckFailed) as info:
        judge_missing(missing, ["A2ACLI_TASK_POLL_002"])
    assert str(info.value) == ("expected --poll-interval, which TASK_POLL_002 names; missing: unsupported by the "
                               "tool (adapter); also missing: --wait (unsupported by the tool (adapter))")
    with pytest.raises(Blocked) as blocked:
        judge_missing(missing, ["A2ACLI_OUT_002"])
    assert blocked.value.by == "A2ACLI_TASK_POLL_001" and "also missing: --poll-interval" in blocked.value.reason


# ── the reference CLI, otherwise right on X, missing what Y governs ───────────────────────────────

def _cli(tmp: Path, only: list[str], *extra: str) -> dict[str, Any]:
    report = run_command(["cli", "--jobs", "2", "--only", *only, *extra], tmp / "report")
    return report.requirements


def _row(reqs: dict[str, Any], rid: str) -> tuple[str, str]:
    return reqs[rid].status, str(reqs[rid].note or "")


def test_exit_statuses_are_judged_without_an_envelope_or_task_get_wait(tmp_path: Path) -> None:
    """Exit 2 on usage errors, 1 on protocol errors and unreachable agents, 0 on success, no reserved
    status of the wrong meaning: EXIT_001 passes though the tool prints no Appendix B envelope (OUT_004)
    and its `task get --wait` reads once (TASK_POLL_001)."""
    reqs = _cli(tmp_path, ["A2ACLI_EXIT_001"], "--env-plain", "REFCLI_DEFECTS=no-error-envelope,no-task-get-wait")
    assert _row(reqs, "A2ACLI_EXIT_001")[0] == "pass", _row(reqs, "A2ACLI_EXIT_001")


def test_a_timeout_exit_is_judged_through_task_get_wait_when_send_does_not_wait(tmp_path: Path) -> None:
    """`send` returns at once (defect no-wait-by-default, SEND_002's), so `send --timeout` never times
    out; `task get --wait --timeout` does, and shows exit 5: EXIT_001 is judged on that run and passes."""
    reqs = _cli(tmp_path, ["A2ACLI_EXIT_001"], "--env-plain", "REFCLI_DEFECTS=no-wait-by-default")
    assert _row(reqs, "A2ACLI_EXIT_001")[0] == "pass", _row(reqs, "A2ACLI_EXIT_001")


def test_the_second_route_to_a_timeout_still_catches_a_wrong_exit(tmp_path: Path) -> None:
    """The same tool also exiting 3 on a timeout (defect timeout-exit-3): the `task get --wait` route
    shows it, and EXIT_001 fails."""
    reqs = _cli(tmp_path, ["A2ACLI_EXIT_001"], "--env-plain", "REFCLI_DEFECTS=no-wait-by-default,timeout-exit-3")
    status, note = _row(reqs, "A2ACLI_EXIT_001")
    assert status == "fail" and "timeout" in note, (status, note)


def test_redaction_is_judged_whatever_the_agent_answered(tmp_path: Path) -> None:
    """The API key goes in the wrong header (AUTH_001's defect): AUTH_001 fails, AUTH_004 (redaction
    under --debug) is still judged on the diagnostics, and passes."""
    reqs = _cli(tmp_path, ["A2ACLI_AUTH_004", "A2ACLI_AUTH_001"],
                "--env-plain", "REFCLI_DEFECTS=api-key-ignores-scheme")
    assert _row(reqs, "A2ACLI_AUTH_004")[0] == "pass", _row(reqs, "A2ACLI_AUTH_004")
    assert _row(reqs, "A2ACLI_AUTH_001")[0] in ("fail", "partial"), _row(reqs, "A2ACLI_AUTH_001")


TWIN_ADAPTER = Path(__file__).resolve().parent.parent / "docs" / "examples" / "twin.adapter.yaml"
ONLY_POLL = ["A2ACLI_TASK_POLL_002", "A2ACLI_TASK_POLL_004", "A2ACLI_OUT_002"]


def test_a_row_whose_own_flag_is_unsupported_fails_though_another_rows_flag_comes_first(tmp_path: Path) -> None:
    """An adapter marks --wait (TASK_POLL_001's) and --poll-interval (TASK_POLL_002's) unsupported; the
    TASK_POLL_002 check runs `task get T --wait ... --poll-interval`: it fails for --poll-interval, naming
    --wait as well, rather than "blocked by TASK_POLL_001" because --wait comes first in argv."""
    adapter = tmp_path / "adapter.yaml"
    adapter.write_text("adapter: 1\ntool: refcli-without-waiting\nunsupported: [--wait, --poll-interval]\n")
    reqs = _cli(tmp_path, ["A2ACLI_TASK_POLL_002"], "--adapter", str(adapter))
    status, note = _row(reqs, "A2ACLI_TASK_POLL_002")
    own_first = "expected --poll-interval, which TASK_POLL_002 names" in note
    assert status == "fail" and own_first and "--wait" in note, (status, note)


@pytest.mark.parametrize("how", ["adapter", "adapter-v2", "rejected"])
def test_a_missing_poll_interval_fails_only_the_requirement_that_names_it(tmp_path: Path, how: str) -> None:
    """No --poll-interval — marked unsupported in an adapter (version 1 on the reference CLI, version 2 on
    the twin CLI, where `task get --wait` becomes `task watch`), or rejected by the tool as an unknown
    option: TASK_POLL_002 (which names it) fails saying so; OUT_002, whose `task get --wait` check
    uses it, is blocked by TASK_POLL_002; TASK_POLL_004 (stream fallback) does not use it and passes."""
    if how == "adapter":
        adapter = tmp_path / "adapter.yaml"
        adapter.write_text("adapter: 1\ntool: refcli-without-poll-interval\nunsupported: [--poll-interval]\n")
        reqs = _cli(tmp_path, ONLY_POLL, "--adapter", str(adapter))
        says = "unsupported by the tool (adapter)"
    elif how == "adapter-v2":
        doc = yaml.safe_load(TWIN_ADAPTER.read_text(encoding="utf-8"))
        doc["unsupported"].append("--poll-interval")
        del doc["placement"]["--poll-interval"]
        adapter = tmp_path / "adapter.yaml"
        adapter.write_text(yaml.safe_dump(doc), encoding="utf-8")
        reqs = _cli(tmp_path, ONLY_POLL, "--adapter", str(adapter), "--exe", f"{sys.executable} -m "
                    "conformance.fixtures.twin_cli")
        says = "unsupported by the tool (adapter)"
    else:
        reqs = _cli(tmp_path, ONLY_POLL, "--env-plain", "REFCLI_DEFECTS=no-poll-interval-flag")
        says = "unknown option --poll-interval"
    status, note = _row(reqs, "A2ACLI_TASK_POLL_002")
    assert status == "fail" and "--poll-interval" in note and says in note, (status, note)
    status, note = _row(reqs, "A2ACLI_OUT_002")
    assert status == "not_measured" and note.startswith("blocked by A2ACLI_TASK_POLL_002: no --poll-interval"), note
    assert _row(reqs, "A2ACLI_TASK_POLL_004")[0] == "pass", _row(reqs, "A2ACLI_TASK_POLL_004")


# ── what one row's rule breaks is read past by the others ─────────────────────────────────────────

def test_a_colour_hides_no_state_or_identifier_from_the_readers() -> None:
    """Colour in the text output is OUT_005's to judge (on the raw output); the readers other rows use
    find a state or an identifier inside it, as a terminal would show them."""
    from conformance.clicheck.output import control_sequences, has_token, state_matches, without_escapes

    text = "Task-Id: \x1b[36mtask-7\x1b[0m\nState: \x1b[1;32mTASK_STATE_COMPLETED\x1b[0m\n"
    assert state_matches(text, "TASK_STATE_COMPLETED") and has_token(text, "task-7")
    assert without_escapes(text) == "Task-Id: task-7\nState: TASK_STATE_COMPLETED\n"
    assert control_sequences(text), "the raw output still shows the escapes to OUT_005's check"


def test_a_coloured_state_fails_only_the_colour_row(tmp_path: Path) -> None:
    """Defect color-off-tty (OUT_005's: the state field coloured when piped): OUT_005 fails; INTERACT_004,
    which looks for the state in the text output, still finds it and passes."""
    reqs = _cli(tmp_path, ["A2ACLI_OUT_005", "A2ACLI_INTERACT_004"], "--env-plain", "REFCLI_DEFECTS=color-off-tty")
    assert _row(reqs, "A2ACLI_OUT_005")[0] in ("fail", "partial"), _row(reqs, "A2ACLI_OUT_005")
    assert _row(reqs, "A2ACLI_INTERACT_004")[0] == "pass", _row(reqs, "A2ACLI_INTERACT_004")


def test_an_exit_status_at_an_interrupted_state_fails_only_the_exit_row(tmp_path: Path) -> None:
    """Defect exit-1-on-failed-task (EXIT_002's: exit 1 at INPUT_REQUIRED/AUTH_REQUIRED): the wait that
    stops at once at those states (TASK_POLL_003) is judged on stopping and reporting, and passes."""
    reqs = _cli(tmp_path, ["A2ACLI_TASK_POLL_003"], "--env-plain", "REFCLI_DEFECTS=exit-1-on-failed-task")
    assert _row(reqs, "A2ACLI_TASK_POLL_003")[0] == "pass", _row(reqs, "A2ACLI_TASK_POLL_003")


#: The rows a tool speaking JSON-RPC alone reaches through HTTP+JSON parts or two-transport comparisons.
TRANSPORT_ROWS = ["A2ACLI_TX_001", "A2ACLI_TX_002", "A2ACLI_TX_003", "A2ACLI_TX_004", "A2ACLI_VER_001",
                  "A2ACLI_CARD_GET_001", "A2ACLI_CARD_GET_005"]


def test_a_tool_speaking_one_transport_fails_only_the_two_transport_row(tmp_path: Path) -> None:
    """Tier 1 lets a tool speak one transport (SPEC.md §13.1: it selects the first card entry it supports;
    TX_004, Tier 2, asks for two). The reference CLI speaking JSON-RPC alone (defect jsonrpc-only): TX_004
    fails; TX_001 passes (it took the first entry it speaks, in both card orders); the parts about
    HTTP+JSON, or about a preference between two transports, are blocked by TX_004 — not failed, as they
    were (TX_003, VER_001 and CARD_GET_001 on their HTTP+JSON part, CARD_GET_005 on its HTTP+JSON entry)."""
    reqs = _cli(tmp_path, TRANSPORT_ROWS, "--env-plain", "REFCLI_DEFECTS=jsonrpc-only")
    assert _row(reqs, "A2ACLI_TX_004")[0] == "fail", _row(reqs, "A2ACLI_TX_004")
    assert _row(reqs, "A2ACLI_TX_001")[0] == "pass", _row(reqs, "A2ACLI_TX_001")
    assert _row(reqs, "A2ACLI_CARD_GET_005")[0] == "pass", _row(reqs, "A2ACLI_CARD_GET_005")
    for rid in ("A2ACLI_TX_002", "A2ACLI_TX_003", "A2ACLI_VER_001"):
        status, note = _row(reqs, rid)
        assert status == "not_measured" and "A2ACLI_TX_004" in note and "does not speak HTTP+JSON" in note, (
            rid, status, note)
    status, note = _row(reqs, "A2ACLI_CARD_GET_001")
    assert status != "fail" and (status == "pass" or "A2ACLI_TX_004" in note), (status, note)


def test_a_tool_refusing_unsigned_cards_fails_the_card_rows_not_the_ones_built_on_a_card(tmp_path: Path) -> None:
    """The reference CLI refusing every unsigned card (defect absent-signature-fails) fetches cards but presents
    none: CARD_GET_004 (signatures) and CARD_GET_001 (presenting a card) fail; AUTH_008's public fetch carried
    no credential, and CARD_GET_005 resolved the catalog entry and fetched its card — each is blocked by
    CARD_GET_001, not failed (both failed before, on the presentation's exit status)."""
    rows = ["A2ACLI_CARD_GET_001", "A2ACLI_CARD_GET_004", "A2ACLI_CARD_GET_005", "A2ACLI_AUTH_008"]
    reqs = _cli(tmp_path, rows, "--env-plain", "REFCLI_DEFECTS=absent-signature-fails")
    for rid in ("A2ACLI_CARD_GET_001", "A2ACLI_CARD_GET_004"):
        assert _row(reqs, rid)[0] in ("fail", "partial"), _row(reqs, rid)
    for rid in ("A2ACLI_CARD_GET_005", "A2ACLI_AUTH_008"):
        status, note = _row(reqs, rid)
        assert status == "not_measured" and "blocked by A2ACLI_CARD_GET_001" in note, (rid, status, note)
