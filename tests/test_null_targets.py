"""The null-target invariant (DESIGN.md §2.7): a target that does nothing gets zero ``pass`` and zero
``partial``, in every family and every tier; ``na`` only on a row whose source text makes it conditional
and whose condition truly holds for the run.

Each target is run through the ``agentd-conformance`` command, as a vendor would, and its whole report
is read back.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.a2a.security import declares_security, requires_credential
from conformance.clicheck.features import OWNERS
from conformance.paths import PACKAGE_DIR
from conformance.registry import default_registry
from conformance.report import Report, load_report
from conformance.report.model import RequirementResult
from tests.killmatrix import run_command
from tests.null_agents import (
    minimal_card,
    serve_401,
    serve_404,
    serve_a2a_0_3,
    serve_a2a_nothing,
    serve_untagged_card,
)
from tests.tier1_only_cli import removed

REGISTRY = default_registry()

# ── CLIs ────────────────────────────────────────────────────────────────────────────────────────
#
# A CLI that does nothing (/bin/true), one that fails everything (/bin/false), and one that prints its
# usage and exits 2 for every argv. No --skill is given, so the two SKILL rows are na ("no --skill
# given"): that condition holds. Nothing else may be na — TX_003's condition (the selected interface
# declares no tenant) cannot be known of a tool that selects nothing.

CLI_IDS = [r.id for r in REGISTRY.select(family="a2acli")]
SKILL_ROWS = {"A2ACLI_SKILL_001", "A2ACLI_SKILL_002"}

USAGE_SCRIPT = """#!/bin/sh
echo "usage: null-cli <command> [options]" >&2
echo "commands: card get, send, task get, task cancel, help" >&2
exit 2
"""


def _null_cli(name: str, tmp: Path) -> str:
    if name == "usage":
        script = tmp / "usage-cli"
        script.write_text(USAGE_SCRIPT, encoding="utf-8")
        script.chmod(0o755)
        return str(script)
    return f"/bin/{name}"


@pytest.mark.parametrize("name", ["true", "false", "usage"])
def test_a_null_cli_gets_no_pass_no_partial_and_na_only_where_the_condition_holds(name: str, tmp_path: Path
                                                                                   ) -> None:
    report = run_command(["cli", "--exe", _null_cli(name, tmp_path), "--jobs", "2"], tmp_path / "report")
    reqs = report.requirements
    assert sorted(reqs) == sorted(CLI_IDS), "the report must carry every a2acli id (Tier 1, 2 and 3)"
    credited = {rid: (e.status, e.note) for rid, e in reqs.items() if e.status in ("pass", "partial")}
    assert not credited, f"a CLI that does nothing ({name}) was credited: {credited}"
    na = {rid: e.note for rid, e in reqs.items() if e.status == "na"}
    assert set(na) == SKILL_ROWS, f"na only for the skill rows (no --skill given); got {na}"
    assert all(REGISTRY[rid].conditional and "no --skill given" in str(note) for rid, note in na.items()), na
    # Every row is measured, and a tool with none of the Tier 2/3 features fails those rows: a missing
    # command is the row's own failure ("unsupported is fail"), never "not measured".
    # The one exception is a row whose check needs an exchange a Tier 1 feature makes (OUT_007 logs the
    # exchange of a `send`): it is "blocked by" that Tier 1 row, which must itself fail in the same report.
    def settled(e: RequirementResult) -> bool:
        if e.status == "fail":
            return True
        by = str(e.note or "").removeprefix("blocked by ").split(":", 1)[0]
        return e.status == "not_measured" and by in reqs and reqs[by].status == "fail"
    upper = {rid: (e.status, e.note) for rid, e in reqs.items()
             if REGISTRY[rid].tier in (2, 3) and not settled(e)}
    assert not upper, f"Tier 2/3 rows a null CLI ({name}) neither failed nor were blocked by a failing row: {upper}"
    assert not any(group.satisfied for group in report.summary.values()), report.summary
    assert report.identity.tier_claimed is None
    assert report.identity.extra["skill_given"] is False
    # a default the tool never showed is "not measured", never "no" (nor, from a usage error, "yes")
    cells = {(row, side): getattr(cell, side) for row, cell in (report.default_001_breakdown or {}).items()
             for side in ("shipped", "overridable")}
    assert all(v is None for v in cells.values()), {k: v for k, v in cells.items() if v is not None}


# ── agent targets ─────────────────────────────────────────────────────────────────────────────
#
# Three HTTP servers (tests/null_agents.py) run through `agentd-conformance agent --url` in both
# agent families: one answering 404 (HTML) to everything, one answering 401 with a Bearer challenge
# to everything, and an "A2A-shaped nothing" that serves a valid minimal card (one JSON-RPC interface
# at /rpc, no extensions, no capabilities) and answers every JSON-RPC call -32601.

AGENT_FAMILIES = ("agentd", "a2a")
#: Exit codes of a completed agent run (0: ran; 1: a required level unmet / regression); 3 is the
#: pre-flight's "authentication required" (and the harness's "could not run").
COMPLETED = (0, 1)
#: The rows whose own text demands what a null target lacks: the only rows that may fail on one.
#: agentd: the public card always declares command / task-annotations (and, with the feed on, events);
#: the listener routes the core method names; a client with no extension gets the core protocol.
#: a2a: the card is served at the well-known path; each declared interface speaks its binding.
OWN_FAILS = {
    "agentd": {"AGENTD_DECL_001", "AGENTD_DECL_002", "AGENTD_DECL_003", "AGENTD_DECL_005", "AGENTD_DECL_013"},
    # a card served without caching headers fails the rows that demand them (A2A_CARD_008/009, SHOULD;
    # A2A_CARD_013, Last-Modified, a MAY)
    "a2a": {"A2A_CARD_001", "A2A_CARD_007", "A2A_CARD_008", "A2A_CARD_009", "A2A_CARD_013"},
}


def _run_agent(url: str, family: str, report_dir: Path) -> tuple[int, Report | None, str]:
    """``agentd-conformance agent --url URL --family FAMILY``: exit code, report (None if none), stderr."""
    cmd = [sys.executable, "-m", "conformance.command", "agent", "--url", url, "--family", family,
           "--jobs", "2", "--report-dir", str(report_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    path = report_dir / "compliance-report.yaml"
    report = load_report(path, REGISTRY) if path.exists() else None
    return proc.returncode, report, proc.stderr


def _excluded(condition: str, card: dict[str, Any] | None) -> bool:
    """Whether ``card`` truly falls outside a registry condition (a2a.yaml's wording: the row applies
    when "the card declares ..."), so that the row's na is genuine. A target with no card makes no
    condition about its card known either way: never excluded."""
    if card is None:
        return False
    caps = card.get("capabilities") or {}
    bindings = {i.get("protocolBinding") for i in card.get("supportedInterfaces") or []}
    spelled = {"JSON-RPC": "JSONRPC", "HTTP+JSON": "HTTP+JSON", "gRPC": "GRPC"}
    if condition == "the card declares capabilities.extendedAgentCard and a security scheme":
        return not (caps.get("extendedAgentCard") is True and declares_security(card))
    if condition.startswith("the card declares security requirements every caller must meet"):
        return not requires_credential(card)
    if condition.startswith("the card declares a security scheme"):
        return not declares_security(card)
    if condition.startswith("the card declares signatures"):
        return not card.get("signatures")
    if condition.startswith("the card declares capabilities."):
        return caps.get(condition.rsplit(".", 1)[1]) is not True
    if condition.startswith("the card declares a") and condition.endswith("interface"):
        named = [spelled[w] for w in spelled if w in condition]
        assert named, f"no binding named in the condition {condition!r}"
        return not bindings & set(named)
    if condition == "the card declares an extension with required: true":
        return not any(isinstance(e, dict) and e.get("required") is True for e in caps.get("extensions") or [])
    raise AssertionError(f"the null-target test cannot read the condition {condition!r}: teach _excluded")


def _judge_null(report: Report, family: str, card: dict[str, Any] | None,
                allowed: set[str] | frozenset[str] = frozenset()) -> None:
    """Zero pass and partial (but for the rows of ``allowed``, which a test has shown to rest on
    positive evidence); na only where the row's condition truly excludes it for this card; fails only
    on the rows whose own text demands what is missing; every other row not_measured, naming what
    blocked it or what the run lacks."""
    registry = default_registry()
    reqs = report.requirements
    assert set(reqs) == {r.id for r in registry.select(family=family)}, "every id of the family is reported"
    passed = {rid: e.note for rid, e in reqs.items()
              if e.status in ("pass", "partial") and rid not in allowed}
    assert not passed, f"a null target passed: {passed}"
    for rid, e in reqs.items():
        req = registry[rid]
        if e.status == "na":
            assert req.conditional, f"{rid} is na but gating: {e.note}"
            assert _excluded(req.condition, card), (
                f"{rid} is na ({e.note}) but its condition {req.condition!r} is not known to exclude it")
        if e.status == "fail":
            assert rid in OWN_FAILS[family], f"{rid} fails on a null target, blaming the wrong row: {e.note}"
        if e.status == "not_measured":
            note = e.note or ""
            assert note.startswith(("blocked by ", "needs ")) or "authentication" in note, (
                f"{rid} is not_measured without naming what blocked it or what the run needs: {note!r}")
            assert "--fact auth=on" not in note, f"{rid} advises a fact that cannot help: {note!r}"
    assert not set(report.identity.transports_covered) - ({"JSON-RPC"} if card else set()), (
        f"transports_covered lists bindings that never answered: {report.identity.transports_covered}")


@pytest.mark.parametrize("family", AGENT_FAMILIES)
def test_a_server_answering_404_to_everything_passes_nothing(family: str, tmp_path: Path) -> None:
    """An HTTP server with no agent (404, HTML, for every request): the card rows fail, every other
    row is not_measured, blocked by the row that owns the card; no na (no card, so no condition about
    it is known to hold); no binding covered."""
    with serve_404() as url:
        code, report, err = _run_agent(url, family, tmp_path / "r")
    assert code in COMPLETED, f"exit {code}: {err[-1500:]}"
    assert report is not None, err[-1500:]
    _judge_null(report, family, None)
    assert not [rid for rid, e in report.requirements.items() if e.status == "na"]


@pytest.mark.parametrize("family", AGENT_FAMILIES)
def test_a_server_answering_401_to_everything_passes_nothing(family: str, tmp_path: Path) -> None:
    """A server that demands a credential the run was not given (401 with a Bearer challenge to every
    request): no pass, no partial, no na. The pre-flight may end the run with exit 3 ("authentication
    required"), with or without a report of all-not_measured rows; when a report is written it is
    held to the invariant."""
    with serve_401() as url:
        code, report, err = _run_agent(url, family, tmp_path / "r")
    assert code in (*COMPLETED, 3), f"exit {code}: {err[-1500:]}"
    if report is None:
        assert code == 3, f"no report, yet exit {code}: {err[-1500:]}"
        return
    _judge_null(report, family, None)
    assert not [rid for rid, e in report.requirements.items() if e.status == "na"]


def test_an_a2a_shaped_nothing_passes_no_agentd_row(tmp_path: Path) -> None:
    """A valid minimal card (JSON-RPC at /rpc, no extensions, no capabilities) whose endpoint answers
    every call -32601: the card declares none of agentd's identifiers, so the declaration rows fail
    naming the missing URIs, the listener rows fail on -32601 for the core methods, and every row
    about how a declared extension behaves is not_measured, blocked by its declaration row."""
    with serve_a2a_nothing() as url:
        code, report, err = _run_agent(url, "agentd", tmp_path / "r")
        card = minimal_card(url)
    assert code in COMPLETED, f"exit {code}: {err[-1500:]}"
    assert report is not None
    _judge_null(report, "agentd", card)
    reqs = report.requirements
    assert reqs["AGENTD_DECL_001"].status == "fail", reqs["AGENTD_DECL_001"]
    assert "agentd.dev/a2a/ext/command" in (reqs["AGENTD_DECL_001"].note or "")
    assert reqs["AGENTD_DECL_013"].status == "fail"
    for rid in ("AGENTD_DECL_004", "AGENTD_DECL_008", "AGENTD_DECL_009", "AGENTD_NEG_003", "AGENTD_NEG_004"):
        assert reqs[rid].status == "not_measured" and (reqs[rid].note or "").startswith("blocked by AGENTD_DECL_00"), (
            rid, reqs[rid])


def test_an_unreadable_card_is_the_card_rows_fail_and_blocks_the_other_declaration_rows(tmp_path: Path) -> None:
    """A card that is JSON but not a strictly valid AgentCard (a skill without tags) fails AGENTD_DECL_001,
    the row that reads the card, and only it: DECL_002 and DECL_003 are blocked by it, not failed for it.
    It declares none of the extension URIs, and that is what the note says (the missing tags are
    A2A_CARD_002's business)."""
    with serve_untagged_card() as url:
        cmd = [sys.executable, "-m", "conformance.command", "agent", "--url", url, "--only", "AGENTD_DECL_001",
               "AGENTD_DECL_002", "AGENTD_DECL_003", "--report-dir", str(tmp_path / "r")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode in COMPLETED, proc.stderr[-1500:]
    reqs = load_report(tmp_path / "r", REGISTRY).requirements
    card_row = reqs["AGENTD_DECL_001"]
    assert card_row.status == "fail" and "declares none of the extension URIs" in (card_row.note or ""), card_row
    for rid in ("AGENTD_DECL_002", "AGENTD_DECL_003"):
        assert reqs[rid].status == "not_measured", (rid, reqs[rid])
        assert (reqs[rid].note or "").startswith("blocked by AGENTD_DECL_001"), (rid, reqs[rid])


def test_an_a2a_shaped_nothing_passes_only_its_card_rows(tmp_path: Path) -> None:
    """The same target in the a2a family. What is right, row by row:

    * A2A_CARD_001/002/003 pass: the card *is* served at the well-known path, strictly valid, with a
      complete interface entry. That is positive evidence, not a vacuous pass; they are the only rows
      that may pass.
    * A2A_CARD_007 fails: the declared JSON-RPC interface answers GetTask with -32601 (method not
      found), so it does not speak A2A over its binding.
    * Every row measured over that interface is not_measured, blocked by A2A_CARD_007 (it, not each
      behaviour row, is what the target got wrong), including A2A_CARD_004/005/006.
    * Rows conditional on what this card does not declare are na, genuinely: SUB/STREAM on
      capabilities.streaming, PUSH on capabilities.pushNotifications, ERR_002/ERR_005 on a gRPC or
      HTTP+JSON interface, CARD_010/SEC_002/SEC_003/LIST_009 on security it does not declare, CARD_011/012 on signatures
      it does not carry. Rows conditional on a JSON-RPC interface (ERR_003/004, DATA_003, VER_005)
      are not na: their condition holds, so they are blocked like the others.
    * A2A_CARD_008/009/013 fail: the card is served without the caching headers they ask for.
    """
    with serve_a2a_nothing() as url:
        code, report, err = _run_agent(url, "a2a", tmp_path / "r")
        card = minimal_card(url)
    assert code in COMPLETED, f"exit {code}: {err[-1500:]}"
    assert report is not None
    reqs = report.requirements
    passes = {rid for rid, e in reqs.items() if e.status == "pass"}
    assert passes <= {"A2A_CARD_001", "A2A_CARD_002", "A2A_CARD_003"}, passes
    assert reqs["A2A_CARD_007"].status == "fail", reqs["A2A_CARD_007"]
    assert "-32601" in (reqs["A2A_CARD_007"].note or "")
    # The card's caching headers (A2A_CARD_008/009, SHOULD; A2A_CARD_013, MAY) are judged on the card
    # itself: a card served without them fails them, whatever else the target does.
    for rid, e in reqs.items():
        if rid in passes or rid in ("A2A_CARD_007", "A2A_CARD_008", "A2A_CARD_009", "A2A_CARD_013"):
            continue
        assert e.status in ("not_measured", "na"), (rid, e)
        if e.status == "not_measured":
            assert (e.note or "").startswith(("blocked by A2A_CARD_007", "needs ")), (rid, e.note)
    _judge_null(report, "a2a", card, allowed=passes)


def test_an_agent_speaking_only_a2a_0_3_is_told_so_once_and_judged_by_no_1_0_row(tmp_path: Path) -> None:
    """Issue 19 §3: a 0.3 card whose JSON-RPC interface answers the 0.3 method names and not the 1.0 ones
    is not a wall of fails (nor of 'blocked by' notes): the command says so in one line, every a2a row is
    na "speaks A2A 0.3" quoting both answers, and no level is satisfied (na satisfies no gating row)."""
    with serve_a2a_0_3() as url:
        code, report, err = _run_agent(url, "a2a", tmp_path / "r")
    assert code in COMPLETED, f"exit {code}: {err[-1500:]}"
    assert report is not None
    said = [line for line in err.splitlines() if "speaks A2A 0.3" in line]
    assert len(said) == 1 and url in said[0] and "every row is na" in said[0], err[-1500:]
    wrong = {rid: (e.status, (e.note or "")[:120]) for rid, e in report.requirements.items()
             if e.status != "na" or not (e.note or "").startswith("speaks A2A 0.3")}
    assert not wrong, wrong
    note = report.requirements["A2A_SEND_001"].note or ""
    assert "tasks/get" in note and "GetTask" in note and "0.3.0" in note, note
    assert not report.identity.levels_satisfied, report.identity.levels_satisfied
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "report", "verify", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the verdicts re-derive from the report's inputs


def test_a_tier1_only_cli_fails_each_tier23_row_whose_feature_it_lacks(tmp_path: Path) -> None:
    """The reference CLI with every Tier 2/3 command and flag removed (``tests/tier1_only_cli.py``):
    each row that names a removed feature fails (``partial`` where a part needs only Tier 1), the note
    naming the feature; every other Tier 2/3 row — a behaviour the stand-in still has — passes. No
    row is "not measured": lacking a feature is the failure of the requirement that names it."""
    exe = tmp_path / "tier1-only-cli"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{PACKAGE_DIR.parent / "tests" / "tier1_only_cli.py"}" "$@"\n',
                   encoding="utf-8")
    exe.chmod(0o755)
    upper = [rid for rid in CLI_IDS if REGISTRY[rid].tier in (2, 3)]
    report = run_command(["cli", "--exe", str(exe), "--jobs", "3", "--only", *upper], tmp_path / "report")
    reqs = report.requirements
    gone = removed()
    naming = {rid for feature in gone for rid in OWNERS[feature]}
    assert naming, "the stand-in removes no feature: nothing is tested"
    wrong = {}
    for rid in upper:
        status, note = reqs[rid].status, str(reqs[rid].note or "")
        if rid in naming:
            if status not in ("fail", "partial") or not any(f"expected {f}," in note for f in gone):
                wrong[rid] = (status, note[:200])
        elif status != "pass":
            wrong[rid] = (status, note[:200])
    assert not wrong, f"rows of a Tier-1-only CLI judged otherwise than by the feature it lacks: {wrong}"
