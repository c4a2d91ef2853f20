"""The flags of ``cli`` and ``agent`` and the keys of a targets file describe a target the same way: every
flag that says something about the target (not about one run's output or gate) has its targets-file key,
so a target the command can check is one a matrix can check; and a key given reaches the run."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.campaign.targets_file import _KEYS, load_targets
from conformance.command.parser import build_parser
from conformance.paths import PACKAGE_DIR
from conformance.registry import default_registry
from conformance.report import load_report
from conformance.targets.options import OPTIONS, options_of, options_table_md
from tests.test_cli_robustness import cli_runs
from tests.test_command import _env

#: Flags that are about the run, not the target (a matrix sets them once for every target, or has its own).
RUN_FLAGS = {"jobs", "report_dir", "timeout", "allure_dir", "baseline", "write_baseline", "rerun_failed",
             "require_tier", "require_level"}
#: Flags naming what to run, whose targets-file keys are the entry's own (not a target option).
ENTRY_FLAGS = {"tier", "family", "name", "only"}


def _flags(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest for a in sub.choices[command]._actions if a.option_strings and a.dest != "help"}


@pytest.mark.parametrize("command", ["cli", "agent"])
def test_every_flag_describing_the_target_comes_from_the_one_table(command: str) -> None:
    """The parser's flags are the table's options, the run's flags and the entry's: nothing added by hand
    beside the table; and every option's key is a key of the targets file."""
    table = {o.dest for o in options_of(command)}
    assert _flags(command) - RUN_FLAGS - ENTRY_FLAGS == table, _flags(command) ^ table
    assert {o.key for o in options_of(command)} | (_flags(command) & ENTRY_FLAGS) <= _KEYS[command]


def test_the_readme_names_every_option_as_a_flag_and_as_a_key() -> None:
    """The docs are held to the table: the README names each flag, and each key a flag does not spell."""
    readme = (PACKAGE_DIR.parent / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|[a-z][a-z_]*)(?![\w-])", readme))
    missing = [o.flag for o in OPTIONS if o.flag not in named]
    missing += [o.key for o in OPTIONS if o.key not in named]
    assert not missing, f"the README does not name: {missing}"


def test_the_readme_shows_the_table_as_it_is() -> None:
    readme = (PACKAGE_DIR.parent / "README.md").read_text(encoding="utf-8")
    shown = readme.split("<!-- options:begin -->\n", 1)[1].split("<!-- options:end -->", 1)[0]
    assert shown == options_table_md(), "README.md's options table differs from conformance/targets/options.py"


def test_every_key_of_the_table_is_read_by_the_loader(tmp_path: Path) -> None:
    """A value of the wrong form is refused naming the key, for every key the table gives a form to check."""
    wrong = {"text": 3, "path": 3, "seconds": 0, "pairs": ["x"], "list": "x"}
    for opt in OPTIONS:
        if opt.form not in wrong or opt.form == "pairs" and opt.key == "container":
            continue
        entry = {"name": "x", "kind": opt.kind, opt.key: wrong[opt.form]}
        f = tmp_path / "t.yaml"
        f.write_text(yaml.safe_dump({"targets": [entry]}), encoding="utf-8")
        with pytest.raises(ValueError, match=rf"targets\[0\] \(x\)\.{opt.key}"):
            load_targets(f)


def test_bad_values_of_the_new_keys_are_errors_naming_the_key(tmp_path: Path) -> None:
    for key, value in (("cli_timeout", 0), ("cli_timeout", "soon"), ("language", 3)):
        f = tmp_path / "t.yaml"
        f.write_text(yaml.safe_dump({"targets": [{"name": "x", "kind": "cli", key: value}]}), encoding="utf-8")
        with pytest.raises(ValueError, match=rf"targets\[0\] \(x\)\.{key}"):
            load_targets(f)


def test_the_identity_and_the_invocation_bound_of_a_targets_file_reach_the_run(tmp_path: Path) -> None:
    """A tool that answers after 8 s is cut at the targets file's ``cli_timeout: 1`` (the default, 20 s, would
    have let it answer), and the identity keys fill COMPLIANCE.md's fields."""
    tool = tmp_path / "slowcli"
    tool.write_text("#!/bin/sh\nsleep 8\necho late\n", encoding="utf-8")
    tool.chmod(0o755)
    targets = tmp_path / "targets.yaml"
    targets.write_text(yaml.safe_dump({"targets": [
        {"name": "slow", "kind": "cli", "exe": str(tool), "only": ["A2ACLI_SEND_001"], "cli_timeout": 1,
         "language": "Shell", "repository": "https://example.test/slowcli", "maintainer": "team@example.test"}]}),
        encoding="utf-8")
    out = tmp_path / "m"
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "matrix", "--targets", str(targets),
                           "--report-dir", str(out)], capture_output=True, text=True, env=_env(), timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = load_report(out / "slow", default_registry())
    assert report.requirements["A2ACLI_SEND_001"].status == "fail"
    runs = cli_runs(out / "slow")
    assert runs and all(r["timed_out"] for r in runs), runs
    identity = (out / "slow" / "compliance-report.yaml").read_text(encoding="utf-8")
    assert "https://example.test/slowcli" in identity and "team@example.test" in identity and "Shell" in identity
