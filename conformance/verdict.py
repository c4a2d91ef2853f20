"""From test outcomes to requirement statuses to tier (or level) rollups.

The rules are COMPLIANCE.md's legend and Appendix A.2/A.3, applied fail-closed:

* a requirement with no outcome is ``not_measured`` ("no check implemented");
* any ``fail`` makes it ``fail`` — or ``partial`` when the registry lists separable parts, at least
  one part passed in full, and every failure belongs to a named part;
* otherwise any ``not_measured`` makes it ``not_measured`` (a check blocked by another requirement's
  missing feature says "blocked by Y: ...");
* ``pass`` needs every check (every part, every transport) to pass: ``pass`` mixed with ``na`` is
  ``not_measured``;
* ``na`` needs every check to say so, and is genuine only on a conditional requirement with no
  ``needs``; ``na`` claimed for a gating one, or for some parts only, blocks;
* a requirement whose registry ``needs`` the run does not provide is ``not_measured``, naming the need;
* in a run that was stopped (SIGINT, SIGTERM, SIGHUP), a row the run did not finish — a check of it
  never reported, no check of it ran, or (an ``observed`` row, judged on every check's answers) any
  check of the run never reported — is ``not_measured`` "interrupted", whatever its finished checks
  said: a check cut off by the stop is never the tool's fail; and no group of a stopped run is satisfied;
* only ``pass`` and a genuine ``na`` satisfy a group; a missing id, an unknown status, a
  ``withdrawn`` the registry does not declare, or an all-``not_measured`` group never does; tiers
  are cumulative.

Every status other than ``pass`` carries a short note (``NOTE_LIMIT``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.interrupts import note as interrupted_note
from conformance.outcome import FAIL, NA, NOT_MEASURED, PARTIAL, PASS, WITHDRAWN, Outcome
from conformance.registry import Registry, Requirement, needs_note

NO_CHECK = "no check implemented"
COUNTED = (PASS, PARTIAL, FAIL, NOT_MEASURED, NA)
#: A note is short (DESIGN.md §8): what was expected, what was seen, where the evidence is. The full
#: assertion text of every check lives in its evidence file.
NOTE_LIMIT = 300

#: The six DEFAULT_001 rows (COMPLIANCE.md §4a), keyed as in the template.
DEFAULT_001 = "A2ACLI_DEFAULT_001"


@dataclass(frozen=True)
class Verdict:
    requirement: str
    status: str
    note: str | None
    transports: dict[str, str] = field(default_factory=dict)
    parts: dict[str, str] = field(default_factory=dict)
    evidence: tuple[str, ...] = ()
    tests: int = 0
    #: The other requirements whose missing features left this one unmeasured (the blame rule).
    blocked_by: tuple[str, ...] = ()


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _combine(outcomes: list[Outcome]) -> str:
    """The plain status of a set of outcomes: any fail, then any not-measured, then all-na, else pass.

    A mix of ``pass`` and ``na`` is ``not_measured``: a row (or a part, or a transport) is na only when
    every check of it is, and a pass needs every check to have measured something.
    """
    statuses = {o.status for o in outcomes}
    if not statuses:
        return NOT_MEASURED
    if FAIL in statuses:
        return FAIL
    if NOT_MEASURED in statuses:
        return NOT_MEASURED
    if statuses == {NA}:
        return NA
    if NA in statuses:
        return NOT_MEASURED
    return PASS


def _test(o: Outcome) -> str:
    where = [x for x in (o.transport and f"over {o.transport}", o.part and f"part {o.part}") if x]
    return o.nodeid.rsplit("::", 1)[-1] + (f" ({', '.join(where)})" if where else "")


def _note(lead: str, outs: list[Outcome], what: str, evidence: tuple[str, ...]) -> str:
    """``lead`` + the first outcome's message + how many more + the first evidence path, within NOTE_LIMIT."""
    first = outs[0]
    prefix = "harness error in " if first.harness_error else ""
    more = f" (+{len(outs) - 1} more {what})" if len(outs) > 1 else ""
    ev = first.evidence[0] if first.evidence else ""
    tail = f"{more}; evidence: {ev}" if ev else more
    head = f"{lead}{prefix}{_test(first)}: "
    room = max(60, NOTE_LIMIT - len(head) - len(tail))
    return f"{head}{_short(first.message or first.status, room)}{tail}"


def _unmeasured_note(outs: list[Outcome], evidence: tuple[str, ...]) -> str:
    """Blocked outcomes first ("blocked by Y: ..."), then the other reasons, each said once."""
    blocked = [o for o in outs if o.blocked_by]
    if blocked:
        reasons = list(dict.fromkeys(_short(o.message, NOTE_LIMIT) for o in blocked))
        text = "; ".join(reasons)
        return _short(text, NOTE_LIMIT)
    reasons = list(dict.fromkeys(" ".join(o.message.split()) for o in outs if o.message))
    if len(reasons) == 1:
        return _short(reasons[0], NOTE_LIMIT)
    return _note("", outs, "reason(s)", evidence)


def requirement_verdict(req: Requirement, outcomes: Iterable[Outcome]) -> Verdict:
    """The status of one requirement from all of its tests' outcomes."""
    # Sorted, so the verdict (note, evidence order) does not depend on the order tests finished in
    # (xdist schedules differently on every run): the same results always give the same report.
    outs = sorted((o for o in outcomes if o.requirement == req.id),
                  key=lambda o: (o.nodeid, o.transport or "", o.part or "", o.status, o.message))
    evidence = tuple(dict.fromkeys(e for o in outs for e in o.evidence))
    if not outs:
        return Verdict(req.id, NOT_MEASURED, NO_CHECK, tests=0)

    by_transport: dict[str, list[Outcome]] = defaultdict(list)
    by_part: dict[str, list[Outcome]] = defaultdict(list)
    for o in outs:
        if o.transport:
            by_transport[o.transport].append(o)
        if o.part:
            by_part[o.part].append(o)
    transports = {t: _combine(v) for t, v in sorted(by_transport.items())}
    parts = {p: _combine(by_part.get(p, [])) for p in req.parts} if req.parts else {}

    status = _combine(outs)
    failing = [o for o in outs if o.status == FAIL]
    # Assertion failures first: a harness error is named, but the note leads with what the target did.
    failing.sort(key=lambda o: (o.harness_error, not o.evidence))
    unmeasured = [o for o in outs if o.status == NOT_MEASURED]
    nas = [o for o in outs if o.status == NA]
    blocked = tuple(dict.fromkeys(o.blocked_by for o in unmeasured if o.blocked_by))
    note: str | None = None
    if status == FAIL:
        passed_parts = [p for p, s in parts.items() if s == PASS]
        lead = ""
        # Partial only when some part passed in full and every failure belongs to a named part: a failing
        # check of the whole requirement is a plain fail.
        if passed_parts and all(o.part for o in failing):
            status = PARTIAL
            failed_parts = [p for p, s in parts.items() if s == FAIL]
            lead = f"passes {', '.join(passed_parts)}; fails {', '.join(failed_parts)}. "
        bad_tx = [t for t, s in transports.items() if s == FAIL]
        if bad_tx and len(transports) > 1:
            lead += f"fails over {', '.join(bad_tx)}. "
        note = _note(lead, failing, "failing check(s)", evidence)
    elif status == NOT_MEASURED and unmeasured:
        note = _unmeasured_note(unmeasured, evidence)
    elif status == NOT_MEASURED:
        # pass and na mixed: some checks measured, others said the requirement does not apply.
        note = _note("checks disagree: some passed, others reported not applicable: ", nas, "such check(s)",
                     evidence)
    elif status == NA:
        uncovered = [p for p, s in parts.items() if s != NA]
        if uncovered:
            status = NOT_MEASURED
            note = _short(f"only some parts were reported not applicable; no check covered: {', '.join(uncovered)}",
                          NOTE_LIMIT)
        elif req.needs:
            status = NOT_MEASURED
            note = _short(f"needs {', '.join(req.needs)}: " + "; ".join(dict.fromkeys(o.message for o in nas)),
                          NOTE_LIMIT)
        elif req.conditional:
            note = _short("; ".join(dict.fromkeys(" ".join(o.message.split()) for o in nas)), NOTE_LIMIT)
        else:
            status = NOT_MEASURED
            note = _note("a check reported not applicable, but the requirement is gating, so it cannot be na: ",
                         nas, "such check(s)", evidence)
    elif parts:
        unpassed = [p for p, s in parts.items() if s != PASS]
        if unpassed:
            status = NOT_MEASURED
            note = f"no check covered part(s): {', '.join(unpassed)}"
    if status != PASS and not note:
        note = status
    # The evidence behind the verdict first (the failing checks' of a fail, the unmeasured ones' of a
    # not_measured, ...), so a link to a row's first evidence file opens what decided it.
    deciding = {FAIL: failing, PARTIAL: failing, NOT_MEASURED: unmeasured or nas, NA: nas}.get(status, [])
    evidence = tuple(dict.fromkeys([*(e for o in deciding for e in o.evidence), *evidence]))
    return Verdict(req.id, status, note, transports, parts, evidence, tests=len(outs), blocked_by=blocked)


def apply_default_001(verdict: Verdict, breakdown: Mapping[str, Mapping[str, Any]],
                      rows: Iterable[str]) -> Verdict:
    """``DEFAULT_001: pass`` only when every breakdown row is shipped and overridable (A.3 rule 3)."""
    if verdict.requirement != DEFAULT_001 or verdict.status != PASS:
        return verdict
    short = [r for r in rows if not (breakdown.get(r, {}).get("shipped") is True
                                     and breakdown.get(r, {}).get("overridable") is True)]
    if not short:
        return verdict
    return Verdict(verdict.requirement, FAIL,
                   f"breakdown rows not shipped and overridable: {', '.join(short)}",
                   verdict.transports, verdict.parts, verdict.evidence, verdict.tests)


@dataclass(frozen=True)
class GroupSummary:
    total: int
    counts: dict[str, int]
    unrecognized: int
    missing: int
    satisfied: bool

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"total": self.total}
        d.update({s: self.counts.get(s, 0) for s in COUNTED})
        if self.unrecognized:
            d["unrecognized"] = self.unrecognized
        if self.missing:
            d["missing"] = self.missing
        d["satisfied"] = self.satisfied
        return d


def _satisfies(req: Requirement, status: Any) -> bool:
    return status == PASS or (status == NA and req.conditional)


def rollup(registry: Registry, family: str, statuses: Mapping[str, Any],
           interrupted: bool = False) -> dict[str, GroupSummary]:
    """Per-group summary of ``statuses`` (id → status word) for ``family``, fail-closed.

    ``statuses`` may come from an untrusted report: missing ids, unknown words and non-strings are
    counted as blocking, never skipped. Tiers are cumulative: tier N needs tiers below it satisfied.
    A stopped run (``interrupted``) satisfies no group: it claims nothing.
    """
    out: dict[str, GroupSummary] = {}
    for group in registry.groups(family):
        reqs = [r for r in registry.select(family=family) if r.group == group]
        counts = dict.fromkeys(COUNTED, 0)
        unrecognized = missing = 0
        ok = True
        active = 0
        for r in reqs:
            if r.id not in statuses:
                missing += 1
                active += 1
                ok = False
                continue
            st = statuses[r.id]
            if r.withdrawn:
                continue  # withdrawn by the specification: excluded from totals whatever a report says
            active += 1
            if isinstance(st, str) and st in COUNTED:
                counts[st] += 1
            else:
                unrecognized += 1
            if not _satisfies(r, st):
                ok = False
        if active == 0 or counts[NOT_MEASURED] == active or interrupted:
            ok = False
        out[group] = GroupSummary(active, counts, unrecognized, missing, ok)
    tiers = sorted((g for g in out if g.startswith("tier_")), key=lambda g: int(g.split("_")[1]))
    below_ok = True
    for g in tiers:
        s = out[g]
        if not below_ok and s.satisfied:
            out[g] = GroupSummary(s.total, s.counts, s.unrecognized, s.missing, False)
        below_ok = below_ok and s.satisfied
    return out


def tier_claimed(summary: Mapping[str, GroupSummary]) -> int | None:
    """The highest tier satisfied (tiers are cumulative), or None."""
    best = None
    for g in sorted((g for g in summary if g.startswith("tier_")), key=lambda g: int(g.split("_")[1])):
        if not summary[g].satisfied:
            break
        best = int(g.split("_")[1])
    return best


def verdicts_for(registry: Registry, family: str, outcomes: Iterable[Outcome],
                 breakdown: Mapping[str, Mapping[str, Any]] | None = None,
                 scope: Iterable[str] | None = None, out_of_scope_note: str = "",
                 provided: Iterable[str] | None = None, interrupted: str | None = None,
                 inapplicable: str | None = None) -> dict[str, Verdict]:
    """A verdict for every requirement of ``family``.

    ``inapplicable``: why the family as a whole does not apply to the target (an agent that speaks only
    A2A 0.3 in the A2A 1.0 family, found before any check ran): every row is na with that note, gating
    rows too, and so the run satisfies nothing (na satisfies no gating row in the rollup).

    Ids outside ``scope`` are not_measured; so is every id with a need (registry ``needs:``) the run
    did not ``provide`` (None: the run provides every need, as a launched reference does). In a run
    stopped by the signal ``interrupted``, so is every row the run did not finish ("interrupted").
    """
    provided = set(provided) if provided is not None else None
    outs = list(outcomes)
    by_req: dict[str, list[Outcome]] = defaultdict(list)
    for o in outs:
        by_req[o.requirement].append(o)
    scope_set = set(scope) if scope is not None else None
    info = registry.families.get(family)
    rows = list((info.breakdowns.get("default_001") or {}).keys()) if info else []
    result: dict[str, Verdict] = {}
    cut_short = any(o.interrupted for o in outs)
    for req in registry.select(family=family):
        if req.withdrawn:
            result[req.id] = Verdict(req.id, WITHDRAWN, "withdrawn by the specification")
            continue
        if inapplicable:
            result[req.id] = Verdict(req.id, NA, inapplicable)
            continue
        if scope_set is not None and req.id not in scope_set:
            result[req.id] = Verdict(req.id, NOT_MEASURED, out_of_scope_note or "not selected for this run")
            continue
        lacking = [n for n in req.needs if provided is not None and n not in provided]
        if lacking:
            result[req.id] = Verdict(req.id, NOT_MEASURED, needs_note(lacking))
            continue
        v = requirement_verdict(req, by_req.get(req.id, []))
        if interrupted is not None and _unfinished(req, by_req.get(req.id, []), cut_short):
            result[req.id] = Verdict(req.id, NOT_MEASURED, interrupted_note(interrupted), evidence=v.evidence,
                                     tests=v.tests)
            continue
        if req.id == DEFAULT_001:
            v = apply_default_001(v, breakdown or {}, rows)
        result[req.id] = v
    return result


def _unfinished(req: Requirement, outs: list[Outcome], cut_short: bool) -> bool:
    """Whether a stopped run left ``req`` unfinished: no check of it ran, one never reported, or (an
    ``observed`` row, which takes findings from every check) some check of the run never reported."""
    return not outs or any(o.interrupted for o in outs) or (req.observed and cut_short)
