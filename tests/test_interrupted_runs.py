"""A run stopped by SIGTERM (``kill``, ``timeout``, a cancelled CI job) or SIGHUP ends as Ctrl-C ends it.

A real ``agentd-conformance cli`` run of the bundled reference CLI, narrowed to one row whose checks
include a slow one (A2ACLI_EXIT_001: ``send --timeout 3s`` on a task that stays working), is signalled
while that check's CLI is running. Everything the run started must be gone within the bound (every
process whose environment names the run's private TMPDIR: the command, pytest, the CLI under test),
nothing may be left in that TMPDIR, and the report must say the run was interrupted: the check in
flight ``not_measured`` "interrupted" (never a fail of the tool), no tier claimed, no COMPLIANCE.md,
and the folder still verifiable. One run per signal, shared by the assertions.

A run whose suite process dies (SIGKILL on the process running the slow check: pytest itself with
``--jobs 1``, an xdist worker with ``--jobs 2``) ends the same way, the report naming the crash: before, with
two workers, xdist started a new worker and the run went on, the crashed check a fail of the tool.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conformance.command.run import STOP_GRACE
from conformance.interrupts import CRASHED, unfinished
from conformance.outcome import NOT_MEASURED, PASS, Outcome
from conformance.registry import default_registry
from conformance.report.model import load_report
from conformance.report.verify import verify
from conformance.verdict import NO_CHECK, rollup, verdicts_for

ROW = "A2ACLI_EXIT_001"
#: The slow check of ROW and what its CLI's command line holds while it runs.
SLOW_CHECK = "test_timeout_exit_agrees_with_the_timeout"
SLOW_ARGV = b"--timeout\x003s"
#: The command's own bound (the suite gets STOP_GRACE, then is killed) plus its wrap-up on a loaded machine.
BOUND = STOP_GRACE + 10
#: The command as a user starts it, with SIGTERM and SIGHUP at their defaults whatever this test session
#: inherited (``nohup`` would pass an ignored SIGHUP on, and the command rightly keeps an ignore it is given).
FRONT = ("import signal, sys\n"
         "for s in (signal.SIGTERM, signal.SIGHUP):\n"
         "    signal.signal(s, signal.SIG_DFL)\n"
         "from conformance.command import main\n"
         "sys.exit(main(sys.argv[1:]))\n")


def _processes(marker: bytes) -> list[tuple[int, bytes]]:
    """Every process (but this one) whose environment names ``marker``, with its command line."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if marker not in fh.read():
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                found.append((int(entry), fh.read()))
        except OSError:  # gone, or not ours to read
            continue
    return found


@dataclass
class Stopped:
    signame: str
    folder: Path
    tmp: Path
    code: int
    seconds: float
    left: list[tuple[int, bytes]]
    stdout: str
    stderr: str


def _start(tmp: Path, out: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["TMPDIR"] = str(tmp)
    logs = out.parent / f"{out.name}-front"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "stdout", "wb") as o, open(logs / "stderr", "wb") as e:
        proc = subprocess.Popen([sys.executable, "-c", FRONT, "cli", *args, "--report-dir", str(out)], env=env,
                                stdin=subprocess.DEVNULL, stdout=o, stderr=e)
    return proc, logs


@contextlib.contextmanager
def _reaped(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """The run ``proc`` is killed on the way out if it is still running (a test that failed waiting on it)."""
    try:
        yield
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _slow_check(proc: subprocess.Popen[bytes], marker: bytes) -> list[int]:
    """The pids of the slow check's CLI, once it runs; the run must not end first nor take 180 s to start it."""
    deadline = time.monotonic() + 180
    while not (slow := [pid for pid, cmd in _processes(marker) if SLOW_ARGV in cmd]):
        assert proc.poll() is None, f"the run ended (exit {proc.returncode}) before its slow check ran"
        assert time.monotonic() < deadline, "the slow check's CLI never started"
        time.sleep(0.05)
    return slow


@pytest.fixture(scope="module", params=["SIGTERM", "SIGHUP"])
def stopped(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Stopped:
    """The run, signalled while the slow check's CLI runs."""
    base = tmp_path_factory.mktemp(f"stopped-{request.param}")
    tmp, folder = base / "tmp", base / "report"
    marker = str(tmp).encode()
    proc, logs = _start(tmp, folder, "--only", ROW)
    with _reaped(proc):
        _slow_check(proc, marker)
        t0 = time.monotonic()
        proc.send_signal(getattr(signal, request.param))
        code = proc.wait(timeout=BOUND + 60)
        seconds = time.monotonic() - t0
    left = _settle(marker)
    return Stopped(request.param, folder, tmp, code, seconds, left, (logs / "stdout").read_text(encoding="utf-8"),
                   (logs / "stderr").read_text(encoding="utf-8"))


def _settle(marker: bytes) -> list[tuple[int, bytes]]:
    """The run's processes still alive a moment after it exited (a killed process leaves /proc a moment after
    its parent saw it go), each then killed so that none is left to the next test."""
    settle = time.monotonic() + 3
    left = _processes(marker)
    while left and time.monotonic() < settle:
        time.sleep(0.05)
        left = _processes(marker)
    for pid, _ in left:
        os.kill(pid, signal.SIGKILL)
    return left


def _ancestors(pid: int) -> list[tuple[int, bytes]]:
    """``pid``'s parent, its parent, and so on, each with its command line."""
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                out.append((pid, fh.read()))
        except OSError:
            break
    return out


#: A second, quick row: with one row selected the run uses one process whatever --jobs says.
QUICK_ROW = "A2ACLI_OUT_002"


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs1", "jobs2"])
def crashed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Stopped:
    """The run, its suite process (pytest itself, or the xdist worker) killed while the slow check's CLI runs."""
    jobs = request.param
    base = tmp_path_factory.mktemp(f"crashed-jobs{jobs}")
    tmp, folder = base / "tmp", base / "report"
    marker = str(tmp).encode()
    proc, logs = _start(tmp, folder, "--only", ROW, QUICK_ROW, "--jobs", str(jobs))
    with _reaped(proc):
        slow = _slow_check(proc, marker)
        chain = _ancestors(slow[0])
        at = next(i for i, (_, cmd) in enumerate(chain) if b"pytest" in cmd and b"--conformance-report" in cmd)
        victim, what = chain[at] if jobs == 1 else chain[at - 1]
        assert at >= (0 if jobs == 1 else 1) and b"--conformance-report" in what or jobs == 2, chain
        if jobs == 2:
            assert b"pytest" not in what and b"python" in what, f"not an xdist worker: {what!r}"
        t0 = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        code = proc.wait(timeout=BOUND + 60)
        seconds = time.monotonic() - t0
    left = _settle(marker)
    return Stopped(CRASHED, folder, tmp, code, seconds, left, (logs / "stdout").read_text(encoding="utf-8"),
                   (logs / "stderr").read_text(encoding="utf-8"))


def test_a_crashed_suite_process_ends_the_run_as_an_interrupt(crashed: Stopped) -> None:
    """Exit 3 within the bound, one line saying the suite process crashed, nothing of the run left; the
    report is the stopped run's (the check in flight "interrupted", never a fail of the tool, nothing
    claimed, no COMPLIANCE.md) and it is sealed: ``report verify`` finds nothing wrong. Before, with
    ``--jobs 2``, xdist replaced the worker and the run went on."""
    assert crashed.code == 3, f"exit {crashed.code}; stderr {crashed.stderr[-800:]!r}"
    assert crashed.seconds < BOUND, f"the run took {crashed.seconds:.1f}s to stop (bound {BOUND}s)"
    assert crashed.left == [], f"processes of the run still alive after it exited: {crashed.left}"
    # The run's private folder (the context, the secrets in clear) is gone; what the killed process itself made
    # in TMPDIR (the CLI's isolated home) it could not remove.
    private = [p for p in crashed.tmp.iterdir() if p.name.startswith("agentd-conformance-")]
    assert private == [], f"the run left its private folder: {private}"
    last = crashed.stderr.strip().splitlines()[-1]
    assert "the suite process crashed" in last and str(crashed.folder) in last, crashed.stderr[-800:]
    assert "Traceback" not in crashed.stderr, crashed.stderr[-2000:]
    assert "replacing crashed worker" not in (crashed.folder / "pytest.log").read_text(encoding="utf-8")
    report = load_report(crashed.folder, default_registry())
    assert report.identity.interrupted == CRASHED
    row = report.requirements[ROW]
    assert row.status == NOT_MEASURED and unfinished(row.status, row.note), (row.status, row.note)
    assert not [rid for rid, e in report.rows("fail", "partial")], "a crashed run recorded a fail"
    assert report.identity.tier_claimed is None and not [g for g, s in report.summary.items() if s.satisfied]
    assert not (crashed.folder / "COMPLIANCE.md").exists()
    assert f"Interrupted ({CRASHED})" in crashed.stdout and "Tier claimed: none" in crashed.stdout
    checked, problems = verify(crashed.folder, default_registry())
    assert problems == [] and checked is not None, problems


def test_the_whole_run_ends_within_the_bound(stopped: Stopped) -> None:
    """Before: SIGTERM/SIGHUP ended only the command; pytest and the CLI under test ran on."""
    assert stopped.code == 3, f"exit {stopped.code}; stderr {stopped.stderr[-800:]!r}"
    assert stopped.seconds < BOUND, f"the run took {stopped.seconds:.1f}s to stop (bound {BOUND}s)"
    assert stopped.left == [], f"processes of the run still alive after it exited: {stopped.left}"
    assert list(stopped.tmp.iterdir()) == [], f"the run left temporary files: {list(stopped.tmp.iterdir())}"
    last = stopped.stderr.strip().splitlines()[-1]
    assert f"interrupted ({stopped.signame})" in last and str(stopped.folder) in last, stopped.stderr[-800:]
    assert "Traceback" not in stopped.stderr


def test_the_report_says_it_was_interrupted_and_claims_nothing(stopped: Stopped) -> None:
    """The identity's mark, the row not measured "interrupted", no fail, no tier, no COMPLIANCE.md, and
    summary.md and the printed table saying so."""
    report = load_report(stopped.folder, default_registry())
    assert report.identity.interrupted == stopped.signame
    row = report.requirements[ROW]
    assert row.status == NOT_MEASURED and unfinished(row.status, row.note), (row.status, row.note)
    assert stopped.signame in (row.note or "")
    assert not [rid for rid, e in report.rows("fail", "partial")], "a stopped run recorded a fail"
    assert report.identity.tier_claimed is None
    assert not [g for g, s in report.summary.items() if s.satisfied]
    assert not (stopped.folder / "COMPLIANCE.md").exists(), "COMPLIANCE.md was written from an interrupted run"
    summary = (stopped.folder / "summary.md").read_text(encoding="utf-8")
    assert f"Interrupted ({stopped.signame})" in summary.split("\n- ")[0], summary[:600]
    assert f"Interrupted ({stopped.signame})" in stopped.stdout and "Tier claimed: none" in stopped.stdout
    # The check in flight: before (even on Ctrl-C), "the test started but never reported", a harness-error
    # fail of the tool.
    outs = [Outcome.from_dict(json.loads(line)) for line in
            (stopped.folder / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()]
    cut = [o for o in outs if o.nodeid.endswith(SLOW_CHECK)]
    assert cut and all(o.status == NOT_MEASURED and o.interrupted and not o.harness_error for o in cut), cut


def test_the_stopped_report_verifies_and_an_edit_of_its_mark_is_caught(stopped: Stopped, tmp_path: Path) -> None:
    """``report verify`` re-derives the mark, the unfinished rows and the empty claim; an interrupted report
    with its mark removed, or with a COMPLIANCE.md put beside it, does not verify."""
    registry = default_registry()
    checked, problems = verify(stopped.folder, registry)
    assert problems == [] and checked is not None, problems
    unmarked, published = tmp_path / "unmarked", tmp_path / "published"
    shutil.copytree(stopped.folder, unmarked)
    shutil.copytree(stopped.folder, published)
    path = unmarked / "compliance-report.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["report"]["interrupted"]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    _, problems = verify(unmarked, registry)
    assert any(p.startswith("report.interrupted:") for p in problems), problems
    (published / "COMPLIANCE.md").write_text("# published anyway\n", encoding="utf-8")
    _, problems = verify(published, registry)
    assert any(p.startswith("COMPLIANCE.md: present, but the run was stopped") for p in problems), problems


@pytest.mark.parametrize("stopped", ["SIGTERM"], indirect=True)  # one rerun: the reports differ only by name
def test_rerunning_what_a_stopped_run_left_gives_a_complete_report(stopped: Stopped, tmp_path: Path) -> None:
    """``--rerun-failed`` takes a stopped run's unfinished rows; the merge no longer says interrupted."""
    out = tmp_path / "rerun"
    proc, logs = _start(tmp_path / "tmp", out, "--only", ROW, "--rerun-failed", str(stopped.folder))
    code = proc.wait(timeout=300)
    assert code == 0, (logs / "stderr").read_text(encoding="utf-8")[-800:]
    report = load_report(out, default_registry())
    assert report.identity.interrupted is None and report.requirements[ROW].status == PASS
    _, problems = verify(out, default_registry())
    assert problems == [], problems


# ---- the rules, on their own ------------------------------------------------------------------------

def test_a_stopped_runs_unfinished_rows_are_interrupted_and_nothing_is_satisfied() -> None:
    """A row with a finished pass and a check cut off, a row no check reached, an observed row (judged
    on every check), and a row that finished: only the last keeps its verdict; no group is satisfied."""
    registry = default_registry()
    rows = [r for r in registry.select(family="a2a") if not (r.needs or r.parts or r.observed or r.withdrawn)]
    done, cut, untouched = rows[0].id, rows[1].id, rows[2].id
    observed = next(r.id for r in registry.select(family="a2a") if r.observed and not r.needs)
    outs = [Outcome(done, PASS, "t::done"), Outcome(cut, PASS, "t::a"),
            Outcome(cut, NOT_MEASURED, "t::b", "interrupted", interrupted=True), Outcome(observed, PASS, "t::o")]
    verdicts = verdicts_for(registry, "a2a", outs, interrupted="SIGTERM")
    assert verdicts[done].status == PASS
    for rid in (cut, untouched, observed):
        assert verdicts[rid].status == NOT_MEASURED and unfinished(NOT_MEASURED, verdicts[rid].note), verdicts[rid]
        assert verdicts[rid].note != NO_CHECK
    every_pass = {r.id: PASS for r in registry.select(family="a2a")}
    assert any(s.satisfied for s in rollup(registry, "a2a", every_pass).values())
    assert not any(s.satisfied for s in rollup(registry, "a2a", every_pass, interrupted=True).values())
