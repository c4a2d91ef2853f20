"""The suite's process (``python -m conformance.pytest_main``, ``conformance/pytest_main.py``) is pytest ended
without the interpreter's module teardown: its exit code is pytest's, its output is all there, and what a
normal exit runs still runs (exit handlers, the finalizers of temporary folders a check left behind)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conformance.paths import python_module

SUITE = '''
import atexit, os, tempfile

def _note():
    with open(os.environ["NOTE"], "w") as fh:
        fh.write("exit handlers ran")

atexit.register(_note)
LEFT = tempfile.TemporaryDirectory(prefix="left-by-a-check-")  # never cleaned up by the check

def test_passes():
    print("out of the check")

def test_fails():
    assert {LEFT_OK}, "the check failed"
'''


@pytest.mark.parametrize("passing", [True, False], ids=["pass", "fail"])
def test_exit_code_output_and_exit_handlers_are_pytests(tmp_path: Path, passing: bool) -> None:
    (tmp_path / "test_it.py").write_text(SUITE.replace("{LEFT_OK}", str(passing)), encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env.update(NOTE=str(tmp_path / "note"), TMPDIR=str(temp), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    proc = subprocess.run([*python_module("conformance.pytest_main"), "-p", "no:cacheprovider", "-q",
                           str(tmp_path / "test_it.py")], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == (0 if passing else 1), proc.stdout + proc.stderr
    assert proc.stderr == "", proc.stderr  # no warning of pytest's about how it was started
    last = proc.stdout.strip().splitlines()[-1]
    assert ("2 passed" if passing else "1 failed, 1 passed") in last, proc.stdout
    assert (tmp_path / "note").read_text(encoding="utf-8") == "exit handlers ran"
    assert list(temp.iterdir()) == [], "a temporary folder's finalizer did not run"
