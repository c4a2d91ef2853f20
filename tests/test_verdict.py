"""Verdicts: test outcomes → requirement status → tier rollup, per COMPLIANCE.md's legend and Appendix A.

Example tests pin each rule on a small hand-built registry; hypothesis properties then check every
rule against a plainly written oracle over random outcome sets and random (untrusted) status maps.
The DEFAULT_001 rule is checked on the bundled a2acli registry, whose breakdown has the six rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS, STATUSES, TEST_OUTCOMES, WITHDRAWN, Outcome
from conformance.registry import FamilyInfo, Registry, Requirement, default_registry
from conformance.verdict import (
    DEFAULT_001,
    NO_CHECK,
    apply_default_001,
    requirement_verdict,
    rollup,
    tier_claimed,
    verdicts_for,
)

FAMILY = "a2acli"


def _req(rid: str, tier: int = 1, *, conditional: bool = False, parts: tuple[str, ...] = ()) -> Requirement:
    area = rid.split("_")[1]
    return Requirement(id=rid, family=FAMILY, area=area, spec="§1", summary=f"summary of {rid}", tier=tier,
                       kind="conditional" if conditional else "gating",
                       condition="na if the tool ships no skill" if conditional else None, parts=parts)


def _registry(reqs: list[Requirement], breakdowns: dict[str, Any] | None = None) -> Registry:
    info = FamilyInfo(name=FAMILY, title="test family", source="tests", spec_version="0.2",
                      spec_revision="2026-08-17", areas={r.area: r.area for r in reqs}, path=Path("test.yaml"),
                      breakdowns=breakdowns or {})
    return Registry(families={FAMILY: info}, requirements={r.id: r for r in reqs})


GATING = _req("A2ACLI_SEND_001")
CONDITIONAL = _req("A2ACLI_SKILL_001", conditional=True)
PARTED = _req("A2ACLI_PUSH_001", parts=("create", "get", "list", "delete"))
PARTS = PARTED.parts
TRANSPORTS = ("JSON-RPC", "HTTP+JSON", "GRPC")


def _out(rid: str, status: str, n: int = 0, *, message: str = "", transport: str | None = None,
         part: str | None = None, harness: bool = False) -> Outcome:
    return Outcome(requirement=rid, status=status, nodeid=f"suites/cli/test_x.py::test_{n}", message=message,
                   transport=transport, part=part, harness_error=harness)


# ── requirement status: examples ─────────────────────────────────────────────────────────────

def test_no_outcome_is_not_measured_no_check_implemented() -> None:
    v = requirement_verdict(GATING, [])
    assert (v.status, v.note, v.tests) == (NOT_MEASURED, NO_CHECK, 0)


def test_outcomes_of_other_requirements_are_ignored() -> None:
    v = requirement_verdict(GATING, [_out("A2ACLI_SEND_002", FAIL, message="other")])
    assert (v.status, v.note) == (NOT_MEASURED, NO_CHECK)


def test_all_pass_is_pass_without_a_note() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1), _out(GATING.id, PASS, 2)])
    assert (v.status, v.note, v.tests) == (PASS, None, 2)


def test_one_fail_among_passes_fails_and_quotes_the_message() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1),
                                     _out(GATING.id, FAIL, 2, message="expected exit 0, got 3")])
    assert v.status == FAIL
    assert v.note and "expected exit 0, got 3" in v.note and "test_2" in v.note


def test_harness_error_fails_and_says_so() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, FAIL, 1, message="KeyError: 'x'", harness=True)])
    assert v.status == FAIL
    assert v.note and "harness error" in v.note


def test_fail_beats_not_measured() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, NOT_MEASURED, 1, message="agent cannot"),
                                     _out(GATING.id, FAIL, 2, message="wrong")])
    assert v.status == FAIL


def test_not_measured_beats_pass_and_carries_the_reason() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1),
                                     _out(GATING.id, NOT_MEASURED, 2, message="no container engine")])
    assert v.status == NOT_MEASURED
    assert v.note and "no container engine" in v.note


def test_na_on_a_conditional_requirement_is_genuine() -> None:
    v = requirement_verdict(CONDITIONAL, [_out(CONDITIONAL.id, NA, 1, message="the tool ships no skill")])
    assert (v.status, v.note) == (NA, "the tool ships no skill")


def test_na_on_a_gating_requirement_is_not_na_and_blocks() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, NA, 1, message="agent cannot stream")])
    assert v.status == NOT_MEASURED
    assert v.note and "gating" in v.note and "agent cannot stream" in v.note


def test_partial_when_one_part_passed_in_full_and_another_failed() -> None:
    v = requirement_verdict(PARTED, [_out(PARTED.id, PASS, 1, part="create"),
                                     _out(PARTED.id, FAIL, 2, part="delete", message="delete ignored")])
    assert v.status == PARTIAL
    assert v.parts == {"create": PASS, "get": NOT_MEASURED, "list": NOT_MEASURED, "delete": FAIL}
    assert v.note and "create" in v.note and "delete ignored" in v.note


def test_fail_not_partial_when_no_part_passed_in_full() -> None:
    v = requirement_verdict(PARTED, [_out(PARTED.id, PASS, 1, part="create"),
                                     _out(PARTED.id, FAIL, 2, part="create", message="second create broke")])
    assert v.status == FAIL


def test_fail_not_partial_on_a_requirement_without_parts() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1, part=None),
                                     _out(GATING.id, FAIL, 2, message="x")])
    assert v.status == FAIL


def test_pass_needs_every_registered_part_covered() -> None:
    v = requirement_verdict(PARTED, [_out(PARTED.id, PASS, i, part=p) for i, p in enumerate(PARTS[:3])])
    assert v.status == NOT_MEASURED
    assert v.note and "delete" in v.note
    full = requirement_verdict(PARTED, [_out(PARTED.id, PASS, i, part=p) for i, p in enumerate(PARTS)])
    assert full.status == PASS


def test_transports_are_kept_and_one_failing_transport_fails_the_requirement() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1, transport="JSON-RPC"),
                                     _out(GATING.id, FAIL, 2, transport="GRPC", message="no tenant")])
    assert v.transports == {"GRPC": FAIL, "JSON-RPC": PASS}
    assert v.status == FAIL
    assert v.note and "GRPC" in v.note


def test_evidence_paths_are_kept_once_each() -> None:
    a = Outcome(GATING.id, PASS, "t::a", evidence=("evidence/X/a.json",))
    b = Outcome(GATING.id, PASS, "t::b", evidence=("evidence/X/a.json", "evidence/X/b.json"))
    assert requirement_verdict(GATING, [a, b]).evidence == ("evidence/X/a.json", "evidence/X/b.json")


def test_the_evidence_behind_the_verdict_comes_first() -> None:
    """A passing check sorted before the failing one: the fail's evidence leads, so a link to the row's first
    file (the implementation report's cells) opens what decided it; likewise a not_measured's own check."""
    ok = Outcome(GATING.id, PASS, "t::a_passes", evidence=("evidence/X/a_passes.json",))
    bad = Outcome(GATING.id, FAIL, "t::b_fails", message="wrong", evidence=("evidence/X/b_fails.json",))
    v = requirement_verdict(GATING, [ok, bad])
    assert v.status == FAIL and v.evidence == ("evidence/X/b_fails.json", "evidence/X/a_passes.json")
    assert v.note is not None and v.note.endswith("evidence: evidence/X/b_fails.json")
    unseen = Outcome(GATING.id, NOT_MEASURED, "t::c_unseen", message="no agent", evidence=("evidence/X/c.json",))
    v = requirement_verdict(GATING, [ok, unseen])
    assert v.status == NOT_MEASURED and v.evidence == ("evidence/X/c.json", "evidence/X/a_passes.json")


def test_many_failures_are_summarised_not_dropped() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, FAIL, i, message=f"m{i}") for i in range(8)])
    assert v.status == FAIL and v.note and "+7 more failing" in v.note


def test_a_note_is_short_and_names_the_evidence_whatever_the_message() -> None:
    long = "expected exit 0 for a COMPLETED task, got 1; stderr: " + "x" * 5000
    out = Outcome(GATING.id, FAIL, "suites/cli/test_x.py::test_long", message=long,
                  evidence=("evidence/A2ACLI_SEND_001/test_long.json",))
    v = requirement_verdict(GATING, [_out(GATING.id, FAIL, 2, message="y" * 900), out])
    assert v.note is not None and len(v.note) <= 320, len(v.note or "")
    assert "expected exit 0 for a COMPLETED task" in v.note
    assert v.note.endswith("evidence: evidence/A2ACLI_SEND_001/test_long.json")
    assert "+1 more failing" in v.note


def test_the_note_leads_with_an_assertion_failure_not_a_harness_error() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, FAIL, 1, message="KeyError: 'x'", harness=True),
                                     _out(GATING.id, FAIL, 2, message="expected exit 2, got 0")])
    assert v.note is not None and v.note.startswith("test_2: expected exit 2")


# ── item 4 of the "verdicts on unseen tools" issue: each rule fails on the earlier engine ─────────

def test_pass_mixed_with_na_on_a_gating_row_is_not_measured_not_pass() -> None:
    v = requirement_verdict(GATING, [_out(GATING.id, PASS, 1), _out(GATING.id, NA, 2, message="no skill")])
    assert v.status == NOT_MEASURED
    assert v.note and "not applicable" in v.note and "no skill" in v.note


def test_pass_mixed_with_na_on_a_conditional_row_is_not_measured_either() -> None:
    v = requirement_verdict(CONDITIONAL, [_out(CONDITIONAL.id, PASS, 1),
                                          _out(CONDITIONAL.id, NA, 2, message="no skill")])
    assert v.status == NOT_MEASURED


def test_a_failing_check_of_the_whole_row_is_fail_not_partial() -> None:
    outs = [_out(PARTED.id, PASS, i, part=p) for i, p in enumerate(PARTS)]
    outs.append(_out(PARTED.id, FAIL, 9, message="the whole command is missing"))
    v = requirement_verdict(PARTED, outs)
    assert v.status == FAIL
    assert v.note and "missing:" not in v.note and "the whole command is missing" in v.note


def test_one_parts_na_does_not_make_the_row_na() -> None:
    cond_parted = _req("A2ACLI_SKILL_002", conditional=True, parts=("a", "b"))
    v = requirement_verdict(cond_parted, [_out(cond_parted.id, NA, 1, part="a", message="no skill")])
    assert v.status == NOT_MEASURED and v.note and "b" in v.note
    both = requirement_verdict(cond_parted, [_out(cond_parted.id, NA, 1, part="a", message="no skill"),
                                             _out(cond_parted.id, NA, 2, part="b", message="no skill")])
    assert both.status == NA


def test_na_on_a_requirement_with_needs_is_not_measured_naming_the_need() -> None:
    needy = Requirement(id="A2ACLI_SEND_003", family=FAMILY, area="SEND", spec="§1", summary="s", tier=1,
                        kind="conditional", condition="c", needs=("root",))
    v = requirement_verdict(needy, [_out(needy.id, NA, 1, message="not root")])
    assert v.status == NOT_MEASURED and v.note and "needs root" in v.note


def test_a_blocked_check_says_which_requirement_blocked_it() -> None:
    o = Outcome(GATING.id, NOT_MEASURED, "t::a", message="blocked by A2ACLI_OUT_004: no error envelope",
                blocked_by="A2ACLI_OUT_004")
    v = requirement_verdict(GATING, [o, _out(GATING.id, PASS, 2)])
    assert v.status == NOT_MEASURED
    assert v.note == "blocked by A2ACLI_OUT_004: no error envelope"
    assert v.blocked_by == ("A2ACLI_OUT_004",)


def test_unprovided_needs_make_a_row_not_measured_whatever_its_outcomes() -> None:
    reg = default_registry()
    needy = next(r for r in reg.select(family="agentd") if "root" in r.needs)
    outs = [_out(needy.id, PASS, 1)]
    assert verdicts_for(reg, "agentd", outs, provided=None)[needy.id].status == PASS
    v = verdicts_for(reg, "agentd", outs, provided=["unix_socket"])[needy.id]
    assert v.status == NOT_MEASURED and v.note and "needs root" in v.note


def test_withdrawn_in_a_report_counts_only_for_ids_the_registry_withdrew() -> None:
    statuses = {r.id: PASS for r in ROLLUP_REQS}
    statuses["A2ACLI_TX_005"] = WITHDRAWN
    summary = rollup(ROLLUP_REG, FAMILY, statuses)
    assert summary["tier_3"].satisfied is False and summary["tier_3"].unrecognized == 1
    withdrawn = [r if r.id != "A2ACLI_TX_005" else Requirement(**{**r.__dict__, "withdrawn": True})
                 for r in ROLLUP_REQS]
    summary = rollup(_registry(withdrawn), FAMILY, statuses)
    assert summary["tier_3"].total == 1 and summary["tier_3"].satisfied is True


# ── requirement status: properties ───────────────────────────────────────────────────────────

def _oracle_plain(statuses: list[str]) -> str:
    """COMPLIANCE.md's legend, stated apart from the code's order of tests: any fail fails; otherwise only
    checks that all passed pass, only checks that were all na are na, and anything else (none at all, a
    not-measured, a mix of pass and na) is not measured."""
    seen = frozenset(statuses)
    if FAIL in seen:
        return FAIL
    return {frozenset({PASS}): PASS, frozenset({NA}): NA}.get(seen, NOT_MEASURED)


@st.composite
def outcome_sets(draw: st.DrawFn, req: Requirement) -> list[Outcome]:
    n = draw(st.integers(0, 8))
    outs = []
    for i in range(n):
        outs.append(_out(req.id, draw(st.sampled_from(TEST_OUTCOMES)), i,
                         message=draw(st.text(max_size=20)),
                         transport=draw(st.sampled_from((None, *TRANSPORTS))),
                         part=draw(st.sampled_from((None, *req.parts))),
                         harness=draw(st.booleans())))
    return outs


REQS = (GATING, CONDITIONAL, PARTED)


@given(st.sampled_from(REQS).flatmap(lambda r: st.tuples(st.just(r), outcome_sets(r))))
def test_requirement_status_follows_the_legend(case: tuple[Requirement, list[Outcome]]) -> None:
    req, outs = case
    v = requirement_verdict(req, outs)
    statuses = [o.status for o in outs]
    plain = _oracle_plain(statuses)
    parts_passed = [p for p in req.parts if _oracle_plain([o.status for o in outs if o.part == p]) == PASS]
    if not outs:
        expected = NOT_MEASURED
        assert v.note == NO_CHECK
    elif plain == FAIL:
        every_fail_in_a_part = all(o.part for o in outs if o.status == FAIL)
        expected = PARTIAL if parts_passed and every_fail_in_a_part else FAIL
    elif plain == NA:
        parts_na = all(_oracle_plain([o.status for o in outs if o.part == p]) == NA for p in req.parts)
        expected = NA if req.conditional and parts_na else NOT_MEASURED
    elif plain == PASS and len(parts_passed) < len(req.parts):
        expected = NOT_MEASURED
    else:
        expected = plain
    assert v.status == expected, (statuses, [o.part for o in outs])
    assert v.status in STATUSES
    if v.status != PASS:
        assert isinstance(v.note, str) and v.note.strip(), f"{v.status} without a note"
    assert v.tests == len(outs)


@given(st.sampled_from(REQS).flatmap(lambda r: st.tuples(st.just(r), outcome_sets(r))))
def test_per_transport_statuses_are_kept_and_any_failing_transport_blocks(
        case: tuple[Requirement, list[Outcome]]) -> None:
    req, outs = case
    v = requirement_verdict(req, outs)
    seen = {o.transport for o in outs if o.transport}
    assert set(v.transports) == seen
    for t in seen:
        assert v.transports[t] == _oracle_plain([o.status for o in outs if o.transport == t])
    if FAIL in v.transports.values():
        assert v.status in (FAIL, PARTIAL)
    if v.status in (PASS, NA):
        assert all(s in (PASS, NA) for s in v.transports.values())


@given(st.sampled_from(REQS).flatmap(lambda r: st.tuples(st.just(r), outcome_sets(r))), st.randoms())
def test_verdict_does_not_depend_on_the_order_tests_finished(case: tuple[Requirement, list[Outcome]],
                                                             rnd: Any) -> None:
    req, outs = case
    shuffled = list(outs)
    rnd.shuffle(shuffled)
    assert requirement_verdict(req, shuffled) == requirement_verdict(req, outs)


# ── rollup ───────────────────────────────────────────────────────────────────────────────────

ROLLUP_REQS = [
    _req("A2ACLI_SEND_001", 1), _req("A2ACLI_SEND_002", 1), _req("A2ACLI_SKILL_001", 1, conditional=True),
    _req("A2ACLI_TASK_LIST_001", 2), _req("A2ACLI_CONFIG_002", 2, conditional=True),
    _req("A2ACLI_TX_005", 3), _req("A2ACLI_AUTH_009", 3),
]
ROLLUP_REG = _registry(ROLLUP_REQS)
MISSING = object()
STATUS_VALUES = st.one_of(
    st.sampled_from(STATUSES),
    st.sampled_from(["PASS", "passed", "", "yes", "n/a", "skip"]),
    st.sampled_from([None, True, 1, 0.5, ["pass"], {"status": "pass"}]),
    st.just(MISSING),
)


def _satisfies(req: Requirement, value: Any) -> bool:
    return (isinstance(value, str) and value == PASS) or (value == NA and req.conditional)


@given(st.fixed_dictionaries({r.id: STATUS_VALUES for r in ROLLUP_REQS}))
def test_rollup_is_fail_closed_cumulative_and_counts_add_up(drawn: dict[str, Any]) -> None:
    statuses = {k: v for k, v in drawn.items() if v is not MISSING}
    summary = rollup(ROLLUP_REG, FAMILY, statuses)
    assert list(summary) == ["tier_1", "tier_2", "tier_3"]
    below = True
    claimed = None
    for tier in (1, 2, 3):
        reqs = [r for r in ROLLUP_REQS if r.tier == tier]
        active = reqs  # none of these is withdrawn by the registry, so a reported "withdrawn" blocks
        own = bool(active) and all(_satisfies(r, statuses.get(r.id, MISSING)) for r in active)
        expected = below and own
        s = summary[f"tier_{tier}"]
        assert s.satisfied is expected, (tier, {r.id: statuses.get(r.id, "<missing>") for r in reqs})
        assert s.total == len(active), "every row the registry does not withdraw is counted"
        assert sum(s.counts.values()) + s.unrecognized + s.missing == s.total
        assert s.missing == sum(r.id not in statuses for r in reqs)
        row = s.to_dict()
        assert row["satisfied"] is expected and row["total"] == s.total
        below = expected
        if expected:
            claimed = tier
    assert tier_claimed(summary) == claimed


@pytest.mark.parametrize("blocker", [PARTIAL, FAIL, NOT_MEASURED, "bogus", None, 3, ["pass"]])
def test_a_single_blocking_value_unsatisfies_its_tier_and_every_tier_above(blocker: Any) -> None:
    statuses: dict[str, Any] = {r.id: PASS for r in ROLLUP_REQS}
    statuses["A2ACLI_SEND_002"] = blocker
    summary = rollup(ROLLUP_REG, FAMILY, statuses)
    assert [summary[g].satisfied for g in ("tier_1", "tier_2", "tier_3")] == [False, False, False]
    assert tier_claimed(summary) is None


def test_missing_id_blocks_and_is_counted() -> None:
    statuses = {r.id: PASS for r in ROLLUP_REQS if r.id != "A2ACLI_TX_005"}
    summary = rollup(ROLLUP_REG, FAMILY, statuses)
    assert summary["tier_3"].satisfied is False and summary["tier_3"].missing == 1
    assert summary["tier_3"].to_dict()["missing"] == 1
    assert tier_claimed(summary) == 2


def test_empty_report_and_all_not_measured_are_never_satisfied() -> None:
    assert not any(s.satisfied for s in rollup(ROLLUP_REG, FAMILY, {}).values())
    all_nm = {r.id: NOT_MEASURED for r in ROLLUP_REQS}
    assert not any(s.satisfied for s in rollup(ROLLUP_REG, FAMILY, all_nm).values())


def test_genuine_na_satisfies_but_na_on_gating_blocks() -> None:
    statuses = {r.id: PASS for r in ROLLUP_REQS}
    statuses["A2ACLI_SKILL_001"] = NA
    assert tier_claimed(rollup(ROLLUP_REG, FAMILY, statuses)) == 3
    statuses["A2ACLI_SEND_001"] = NA
    assert tier_claimed(rollup(ROLLUP_REG, FAMILY, statuses)) is None


def test_tier_claimed_is_the_highest_cumulative_tier() -> None:
    statuses = {r.id: PASS for r in ROLLUP_REQS}
    statuses["A2ACLI_TASK_LIST_001"] = FAIL
    summary = rollup(ROLLUP_REG, FAMILY, statuses)
    assert summary["tier_3"].satisfied is False, "tier 3 needs tier 2"
    assert tier_claimed(summary) == 1


def test_bundled_registry_tier_totals() -> None:
    summary = rollup(default_registry(), FAMILY, {})
    assert {g: s.total for g, s in summary.items()} == {"tier_1": 39, "tier_2": 15, "tier_3": 12}


# ── DEFAULT_001 and verdicts_for ─────────────────────────────────────────────────────────────

REG = default_registry()
ROWS = tuple(REG.families[FAMILY].breakdowns["default_001"])


def _default_001_passing() -> list[Outcome]:
    parts = REG[DEFAULT_001].parts or (None,)
    return [_out(DEFAULT_001, PASS, i, part=p) for i, p in enumerate(parts)]


def test_registry_has_the_six_default_rows() -> None:
    assert len(ROWS) == 6


def test_default_001_passes_when_every_row_is_shipped_and_overridable() -> None:
    bd = {r: {"shipped": True, "overridable": True} for r in ROWS}
    v = verdicts_for(REG, FAMILY, _default_001_passing(), breakdown=bd)[DEFAULT_001]
    assert v.status == PASS


BREAKDOWN_ROW = st.one_of(
    st.just(MISSING),
    st.fixed_dictionaries({"shipped": st.one_of(st.booleans(), st.sampled_from(["yes", 1, None])),
                           "overridable": st.one_of(st.booleans(), st.sampled_from(["yes", 1, None]))}),
)


@given(st.fixed_dictionaries({r: BREAKDOWN_ROW for r in ROWS}))
def test_default_001_pass_is_impossible_unless_all_six_rows_shipped_and_overridable(drawn: dict[str, Any]) -> None:
    bd = {k: v for k, v in drawn.items() if v is not MISSING}
    v = verdicts_for(REG, FAMILY, _default_001_passing(), breakdown=bd)[DEFAULT_001]
    complete = all(r in bd and bd[r]["shipped"] is True and bd[r]["overridable"] is True for r in ROWS)
    assert (v.status == PASS) is complete
    if not complete:
        assert v.status == FAIL and v.note and "breakdown" in v.note


def test_default_001_without_any_breakdown_cannot_pass() -> None:
    v = verdicts_for(REG, FAMILY, _default_001_passing())[DEFAULT_001]
    assert v.status == FAIL


def test_apply_default_001_leaves_other_requirements_and_non_passes_alone() -> None:
    v = requirement_verdict(REG["A2ACLI_SEND_001"], [_out("A2ACLI_SEND_001", PASS)])
    assert apply_default_001(v, {}, ROWS) is v
    nm = requirement_verdict(REG[DEFAULT_001], [])
    assert apply_default_001(nm, {}, ROWS) is nm


def test_verdicts_for_covers_every_id_of_the_family() -> None:
    verdicts = verdicts_for(REG, FAMILY, [])
    assert len(verdicts) == 66
    assert all(v.status == NOT_MEASURED and v.note == NO_CHECK for v in verdicts.values())


def test_verdicts_for_marks_out_of_scope_ids_not_measured_with_the_scope_note() -> None:
    outs = [_out("A2ACLI_SEND_001", PASS), _out("A2ACLI_SEND_002", PASS)]
    verdicts = verdicts_for(REG, FAMILY, outs, scope=["A2ACLI_SEND_001"], out_of_scope_note="limited by --only")
    assert verdicts["A2ACLI_SEND_001"].status == PASS
    assert (verdicts["A2ACLI_SEND_002"].status, verdicts["A2ACLI_SEND_002"].note) == (NOT_MEASURED,
                                                                                      "limited by --only")
