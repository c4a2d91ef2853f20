"""The one kill-matrix runner: run the command on a bundled reference, read back its report, judge
whether a defect was caught. ``tests/test_kill_matrix.py`` applies it to the three references."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.fixtures.defect import Defect
from conformance.fixtures.reference_agentd import DEFECTS as AGENTD_DEFECTS
from conformance.fixtures.reference_cli.defects import DEFECTS as CLI_DEFECTS
from conformance.fixtures.reference_cli.defects import materialize_skill
from conformance.fixtures.scripted_agent.defects import DEFECTS as CORE_DEFECTS
from conformance.registry import default_registry
from conformance.report import Report, load_report
from conformance.report.model import RequirementResult

#: Statuses that show a defect was caught (partial: some separable part of the requirement failed).
DETECTED = ("fail", "partial")


def run_command(args: list[str], report_dir: Path, timeout: float = 900) -> Report:
    """Run ``agentd-conformance ARGS --report-dir DIR`` in a child; return the report it wrote (read by
    the one report model, so a report that does not fit the template's shape fails the test)."""
    cmd = [sys.executable, "-m", "conformance.command", *args, "--report-dir", str(report_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ),
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"the run itself failed (exit {proc.returncode}): {proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return load_report(report_dir, default_registry())


def outcomes(report_dir: Path) -> list[dict[str, Any]]:
    """The run's per-check outcomes (``outcomes.jsonl`` beside the report)."""
    lines = (report_dir / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def killed(outs: list[dict[str, Any]], target: str) -> bool:
    """True when ``target`` ("ID" or "ID:part") has a failing outcome from an assertion of its own check
    (for an observed row, also a finding: another check's evidence that the row's rule was broken).

    A harness error is not a kill (the check crashed, it did not judge the target); for a parted row
    named with its part, the failure must be in that part.
    """
    rid, _, part = target.partition(":")
    return any(o["requirement"] == rid and o["status"] == "fail" and not o["harness_error"]
               and (not part or o["part"] == part) for o in outs)


def survivors(report: Report, ids: list[str], report_dir: Path) -> dict[str, str]:
    """The ids among ``ids`` (each "ID" or "ID:part") the defect was not caught on, with their status.

    Caught means: the rolled-up status shows it (fail or partial) AND some check of that id (in that
    part) failed on an assertion, not a harness error.
    """
    reqs = report.requirements
    outs = outcomes(report_dir)
    out: dict[str, str] = {}
    for target in ids:
        rid = target.partition(":")[0]
        status = reqs[rid].status
        if status not in DETECTED:
            out[target] = status
        elif not killed(outs, target):
            out[target] = f"{status} (no assertion failure{' in that part' if ':' in target else ''})"
    return out


def moved(report: Report, ids: Sequence[str], clean: dict[str, str]) -> dict[str, str]:
    """The rows outside ``ids`` (a defect's declared ids, "ID" or "ID:part") whose status differs from
    ``clean`` (id → status of the clean reference), each with its status and note: what the defect moved
    that it does not own (DESIGN.md §2.11). A row left ``not_measured`` "blocked by" one of the defect's
    own rows is not moved: the blame rule sends it there (a card that is not served blocks every row)."""
    own = {rid.partition(":")[0] for rid in ids}
    reqs = report.requirements
    return {rid: f"{clean[rid]} → {reqs[rid].status}: {reqs[rid].note}" for rid in clean
            if rid not in own and reqs[rid].status != clean[rid] and not blocked_by_own(reqs[rid], own)}


def blocked_by_own(entry: RequirementResult, own: set[str]) -> bool:
    """Whether a row is ``not_measured`` only because one of ``own`` blocked it."""
    note = str(entry.note or "")
    return entry.status == "not_measured" and any(note.startswith(f"blocked by {rid}:") for rid in own)


# ── the three references ────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Reference:
    """One reference implementation, its defect table, and how the command runs checks against it.

    ``args(defects, tmp)`` is the command line (without ``--only``) that runs the family's checks against
    the reference, with the named ``defects`` switched on (none: the clean reference).
    """

    key: str
    family: str
    defects: dict[str, Defect]
    args: Callable[[Sequence[str], Path], list[str]]
    timeout: float = 900

    @property
    def ids(self) -> list[str]:
        return [r.id for r in default_registry().select(family=self.family)]

    def run(self, tmp: Path, ids: list[str] | None = None, defect: str | None = None,
            extra: Sequence[str] = (), defects: Sequence[str] = ()) -> Report:
        args = [*self.args([*([defect] if defect else []), *defects], tmp), *extra]
        if ids:
            args += ["--only", *ids]
        return run_command(args, tmp / "report", timeout=self.timeout)


def _cli_args(defects: Sequence[str], tmp: Path) -> list[str]:
    # File defects (the skill layout) cannot be switched by the environment: lay the skill out as shipped
    # under these defects and point --skill at it, as a vendor would for their own tool.
    skill = materialize_skill(tmp / "skill", set(defects))[0]
    return ["cli", "--skill", str(skill), *(["--env-plain", f"REFCLI_DEFECTS={','.join(defects)}"] if defects else [])]


def _core_args(defects: Sequence[str], tmp: Path, launch: str = "scripted") -> list[str]:
    return ["agent", "--family", "a2a", "--launch", launch, "--timeout", "240",
            *[arg for d in defects for arg in ("--defect", d)]]


def _agentd_args(defects: Sequence[str], tmp: Path) -> list[str]:
    return ["agent", "--launch", "reference", "--family", "agentd", *[arg for d in defects for arg in ("--defect", d)]]


CLI = Reference("cli", "a2acli", CLI_DEFECTS, _cli_args)
CORE = Reference("core", "a2a", CORE_DEFECTS, _core_args, timeout=300)
AGENTD = Reference("agentd", "agentd", AGENTD_DEFECTS, _agentd_args)
REFERENCES = (CLI, CORE, AGENTD)


def covering(ref: Reference, shown: frozenset[str] = frozenset()) -> list[str]:
    """A small set of ``ref``'s defects that together name every id (and part) any of its defects names, but
    those in ``shown`` (ids another test of the same CI run already fails on an assertion of their own check,
    under a defect of ``ref``): greedily, the defect naming most of what is still uncovered first (ties by name,
    so the set is the same on every machine). Running these proves every check of the family can fail; running
    every defect also proves each defect is caught (``python -m benchmarks.kill_matrix``)."""
    named = {n: set(d.ids) - shown for n, d in ref.defects.items()}
    left = set().union(*named.values()) if named else set()
    chosen: list[str] = []
    while left:
        best = max(sorted(named), key=lambda n: len(named[n] & left))
        chosen.append(best)
        left -= named[best]
    return sorted(chosen)


#: Most defects CI runs together in one narrow run (see :func:`batches`): the rows of different areas, so a
#: larger group is fewer runs (each several seconds of start-up) for the same checks.
BATCH = 8


def batches(ref: Reference, names: Sequence[str], size: int = BATCH) -> list[tuple[str, ...]]:
    """``names`` grouped for CI into runs of up to ``size`` defects each, the members of a group naming rows
    of different areas (so none of them is the feature another member's rows are judged on). Each group runs
    once with all its defects on, narrowed to their ids; an id not caught there is run again with its own
    defect alone (:func:`caught_in_batch`). Every defect alone: ``python -m benchmarks.kill_matrix``."""
    reg = default_registry()
    groups: list[tuple[list[str], set[str]]] = []
    for name in sorted(names):
        areas = {reg[rid.partition(":")[0]].area for rid in ref.defects[name].ids}
        for members, used in groups:
            if len(members) < size and not used & areas:
                members.append(name)
                used |= areas
                break
        else:
            groups.append(([name], set(areas)))
    return [tuple(members) for members, _ in groups]


def caught_in_batch(ref: Reference, group: Sequence[str], tmp: Path,
                    extra: Sequence[str] = ()) -> dict[str, dict[str, str]]:
    """Run ``group``'s defects together on ``ref`` (narrowed to the ids they name); each defect whose ids were
    not all caught is run again alone. Returns defect → its survivors (id → status) after that: empty when
    every id of every member was caught, in the group's run or, failing that, in its own."""
    ids = [rid for name in group for rid in ref.defects[name].ids]
    only = list(dict.fromkeys(rid.partition(":")[0] for rid in ids))
    report = ref.run(tmp / "together", only, defects=group, extra=extra)
    left: dict[str, dict[str, str]] = {}
    for name in group:
        own = list(ref.defects[name].ids)
        missed = survivors(report, own, tmp / "together" / "report")
        if missed and len(group) > 1:
            missed = survivors(ref.run(tmp / name, [rid.partition(":")[0] for rid in own], name, extra=extra), own,
                               tmp / name / "report")
        if missed:
            left[name] = missed
    return left


def run_core(tmp: Path, launch: str, only: list[str] | None = None, defect: str | None = None) -> Report:
    """The a2a family against a launched target (``scripted``, ``reference`` or ``sdk``)."""
    args = _core_args([defect] if defect else [], tmp, launch)
    if only:
        args += ["--only", *only]
    return run_command(args, tmp, timeout=CORE.timeout)
