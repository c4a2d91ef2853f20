"""``agentd-conformance adapter check``: a malformed file is refused naming its key path; mapped commands
and flags the tool's help never mentions are warnings; every spec command's translation is shown."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter import SPEC_COMMANDS
from conformance.cli.adapter_check import SAMPLES
from conformance.command import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "twin.adapter.yaml"
TWIN_EXE = f"{sys.executable} -m conformance.fixtures.twin_cli"


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["adapter", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def variant(tmp_path: Path, **changes: Any) -> Path:
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    for key, value in changes.items():
        doc[key] = {**doc.get(key, {}), **value} if isinstance(value, dict) else value
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_the_example_is_valid_and_agrees_with_the_twins_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, str(EXAMPLE), "--exe", TWIN_EXE, "--strict")
    assert code == 0, out + err
    assert "valid (schema 2, tool twin-cli)" in out and "warnings: none" in out
    for helped in ("message send --help", "card show --help", "stream --help", "task watch --help"):
        assert f"{helped}  -> exit 0" in out, helped
    assert "version check: the spec's `-v` is asked as `-V`" in out


def test_every_spec_command_has_a_sample_translation(capsys: pytest.CaptureFixture[str]) -> None:
    assert {tuple(w for w in s if not w.startswith("-"))[: len(c)] for s in SAMPLES for c in SPEC_COMMANDS
            if s[: len(c)] == c} == set(SPEC_COMMANDS)
    code, out, _ = check(capsys, str(EXAMPLE))
    assert code == 0 and "the tool's help was not consulted" in out
    lines = out.splitlines()
    spec = lines.index("  send --text hello -a http://127.0.0.1:8000 --bearer TOKEN --transport HTTP+JSON -o json "
                       "--stream")
    assert lines[spec + 1] == ("    -> twin-cli --card http://127.0.0.1:8000 --bearer-env AGENTD_CONFORMANCE_BEARER "
                               "--transport rest --jsonl stream --text hello")
    assert lines[spec + 2] == "       env: AGENTD_CONFORMANCE_BEARER=TOKEN"
    chat = lines.index("  chat -a http://127.0.0.1:8000")
    assert "unsupported by the tool (adapter)" in lines[chat + 1]
    assert "(every run's environment pins NO_COLOR=1)" in out


def test_a_mapping_the_help_never_mentions_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = variant(tmp_path, flags={"--context-id": "--ctxt"}, commands={"card get": ["card", "fetch"]})
    code, out, _ = check(capsys, str(path), "--exe", TWIN_EXE)
    assert code == 0, out
    assert "warning: flags.--context-id: the tool's help never mentions the flag '--ctxt'" in out
    assert "warning: commands.card get: the tool's help never mentions the command 'card fetch'" in out
    assert "card fetch --help` (help for spec `card get --help`) exited 2" in out
    strict, _, _ = check(capsys, str(path), "--exe", TWIN_EXE, "--strict")
    assert strict == 1


@pytest.mark.parametrize(("doc", "key"), [
    ({"adapter": 2, "tool": "x", "rewrites": [{"when": {"-o": True}, "to": []}]}, "rewrites[0].when.-o"),
    ({"adapter": 2, "tool": "x", "placement": {"--text": "later"}}, "placement.--text"),
    ({"adapter": 1, "tool": "x", "flag_commands": {}}, "flag_commands"),
    ({"adapter": 2, "tool": "x", "flagz": {}}, "flagz"),
])
def test_a_malformed_file_is_one_line_naming_the_key_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          doc: dict[str, Any], key: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    code, out, err = check(capsys, str(path), "--exe", TWIN_EXE)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert re.search(rf"{re.escape(str(path))}:\d+: {re.escape(key)}: ", err), err


def test_a_missing_tool_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = check(capsys, str(EXAMPLE), "--exe", "/nonexistent/mycli")
    assert code == 2 and "executable not found" in err
