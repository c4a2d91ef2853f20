"""pytest's own output holds no piece of a secret even before the final sweep.

A check registers a token, prints it, and fails on a comparison whose values pytest renders cut short
around ``...``, and a fixture holding the token is printed in the traceback. The plugin's scrubber must
leave no 6 consecutive characters of the token in what pytest prints (what the command keeps as
pytest.log), in one process and under xdist, where the token exists only in a worker.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.paths import PACKAGE_DIR, PLUGIN_ARGS

WINDOW = 6

CHECK = '''
import os

import pytest


@pytest.fixture
def holder(run_secrets):
    token = run_secrets.make("bearer")
    with open(os.environ["TOKEN_LOG"], "a", encoding="utf-8") as fh:
        fh.write(token + "\\n")
    return {"argv": ["/" + "a-long-folder/" * 12 + "cli", "--token", token, "send"], "token": token}


@pytest.mark.requirement("A2ACLI_AUTH_004")
def test_fails_quoting_a_token(holder):
    print("the tool printed", holder["token"])
    assert holder["argv"] == ["/cli", "send"]
'''


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.Pytester:
    root = PACKAGE_DIR.parent
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.setenv("TOKEN_LOG", str(tmp_path / "tokens.txt"))
    pytester.makepyfile(test_check=CHECK)
    return pytester


@pytest.mark.parametrize("jobs", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_pytests_output_holds_no_piece_of_a_token(suite: pytest.Pytester, tmp_path: Path, jobs: list[str]) -> None:
    report = tmp_path / "report"
    result = suite.runpytest_subprocess(*PLUGIN_ARGS, "-p", "no:cacheprovider", "--conformance-report",
                                        str(report), "--conformance-family", "a2acli", *jobs)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = "\n".join(result.outlines + result.errlines)
    assert "test_fails_quoting_a_token" in output and "Captured stdout call" in output
    (token,) = (tmp_path / "tokens.txt").read_text(encoding="utf-8").split()
    pieces = {token[i:i + WINDOW] for i in range(len(token) - WINDOW + 1)}
    assert [p for p in pieces if p in output] == [], f"pieces of the token in pytest's output:\n{output}"
    assert "[REDACTED]" in output
