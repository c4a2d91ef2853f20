"""``matrix --shard I/N`` and ``matrix merge``: the shards' merged table is the one unsharded run's table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.campaign import Entry, MergeError, load_previous, merge_shards, run_campaign, shard
from conformance.report import Report, render_report
from tests.reports import REG, report_of

NAMES = ["alpha", "bravo", "charlie", "delta", "echo"]
STATUS = {  # per target: the status of each of three requirements; "delta" cannot run at all
    "alpha": ("pass", "pass", "fail"), "bravo": ("pass", "not_measured", "fail"),
    "charlie": ("fail", "pass", "pass"), "echo": ("pass", "pass", "partial"),
}
IDS = ("A2A_CARD_001", "A2A_CARD_002", "A2A_SEND_001")


def _fake_runner(entry: Entry, out: Path) -> Report:
    """Writes a report like the agent command would, or fails like a target that cannot run."""
    if entry.name == "delta":
        raise RuntimeError("target could not run: engine gone")
    report = report_of(dict(zip(IDS, STATUS[entry.name], strict=True)), family="a2a")
    report.identity.target = entry.name
    out.mkdir(parents=True, exist_ok=True)
    (out / "compliance-report.yaml").write_text(render_report(report, REG), encoding="utf-8")
    return report


def _targets() -> list[Entry]:
    return [Entry(name=n, kind="agent") for n in NAMES]


def _sharded(tmp_path: Path, count: int, previous: dict[str, Any] | None) -> tuple[Path, dict[str, Any]]:
    dirs = []
    for i in range(1, count + 1):
        d = tmp_path / f"shard-{i}"
        run_campaign(shard(_targets(), i, count), d, None, _fake_runner, (i, count, NAMES))
        dirs.append(d)
    merged = tmp_path / "merged"
    return merged, merge_shards(list(reversed(dirs)), merged, previous)


def test_shards_are_a_deterministic_partition_of_the_file() -> None:
    parts = [[t.name for t in shard(_targets(), i, 3)] for i in (1, 2, 3)]
    assert parts == [["alpha", "delta"], ["bravo", "echo"], ["charlie"]]
    assert sorted(n for p in parts for n in p) == sorted(NAMES)
    with pytest.raises(ValueError):
        shard(_targets(), 4, 3)


@pytest.mark.parametrize("count", [1, 2, 3, 5, 7])
def test_merged_shards_give_the_unsharded_table(tmp_path: Path, count: int) -> None:
    whole = run_campaign(_targets(), tmp_path / "whole", None, _fake_runner)
    merged_dir, merged = _sharded(tmp_path, count, None)
    assert merged == whole
    assert (merged_dir / "matrix.md").read_text("utf-8") == (tmp_path / "whole" / "matrix.md").read_text("utf-8")
    assert whole["targets"]["delta"].startswith("error: RuntimeError"), whole["targets"]
    assert whole["no_target_passes"] == [], whole["no_target_passes"]


def test_regressions_are_judged_against_the_previous_merged_result(tmp_path: Path) -> None:
    before = tmp_path / "before"
    (before).mkdir()
    cells = {rid: {n: "pass" for n in NAMES} for rid in IDS}
    (before / "matrix.yaml").write_text(yaml.safe_dump({"cells": cells}), encoding="utf-8")
    previous = load_previous(before)
    whole = run_campaign(_targets(), tmp_path / "whole", before, _fake_runner)
    _, merged = _sharded(tmp_path, 2, previous)
    assert merged["regressions"] == whole["regressions"]
    assert {"requirement": "A2A_SEND_001", "target": "alpha", "before": "pass", "now": "fail"} in merged["regressions"]


def test_a_missing_or_repeated_shard_never_merges(tmp_path: Path) -> None:
    dirs = []
    for i in (1, 2, 3):
        d = tmp_path / f"s{i}"
        run_campaign(shard(_targets(), i, 3), d, None, _fake_runner, (i, 3, NAMES))
        dirs.append(d)
    with pytest.raises(MergeError, match="shard\\(s\\) 2/3 missing"):
        merge_shards([dirs[0], dirs[2]], tmp_path / "m1", None)
    with pytest.raises(MergeError, match="given twice"):
        merge_shards([dirs[0], dirs[0], dirs[1], dirs[2]], tmp_path / "m2", None)


def test_the_command_shards_and_merges_real_runs(tmp_path: Path) -> None:
    """End to end through the command: two launched targets, two shards, one merge, one unsharded run."""
    targets = tmp_path / "targets.yaml"
    targets.write_text(yaml.safe_dump({"targets": [
        {"name": "ref-agentd", "kind": "agent", "launch": "reference", "only": ["AGENTD_DECL_001"]},
        {"name": "ref-core", "kind": "agent", "family": "a2a", "launch": "reference", "only": ["A2A_CARD_001"]},
    ]}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "conformance.command", "matrix", *args], capture_output=True,
                              text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)

    for i in (1, 2):
        p = run("--targets", str(targets), "--shard", f"{i}/2", "--report-dir", str(tmp_path / f"s{i}"))
        assert p.returncode == 0, p.stderr[-1000:]
    p = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--report-dir", str(tmp_path / "merged"),
            "--previous", str(tmp_path / "s1"), "--fail-on-regression")
    assert p.returncode == 0, p.stderr[-1000:]
    p = run("--targets", str(targets), "--report-dir", str(tmp_path / "whole"))
    assert p.returncode == 0, p.stderr[-1000:]
    whole = (tmp_path / "whole" / "matrix.md").read_text("utf-8")
    assert (tmp_path / "merged" / "matrix.md").read_text("utf-8") == whole
    assert "| `AGENTD_DECL_001` | pass | — |" in whole, whole
    p = run("merge", str(tmp_path / "s1"), "--report-dir", str(tmp_path / "partial"))
    assert p.returncode == 2 and "2/2 missing" in p.stderr, p.stderr
    p = run("--targets", str(targets), "--shard", "3/2")
    assert p.returncode == 2 and "--shard" in p.stderr, p.stderr
