"""``agentd-conformance adapter check``: an adapter is proven by running each translated command shape against
a scripted agent and judging what the tool answers; a malformed file is refused in one line naming its line
and key path; every spec command's translation is shown."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter_probes import NOT_PROBED, PROBES, Probe
from conformance.clicheck.adapter_check import check_adapter, render
from conformance.clicheck.features import OWNERS, canonical, used_features
from conformance.command import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "twin.adapter.yaml"
TWIN = [sys.executable, "-m", "conformance.fixtures.twin_cli"]
TWIN_EXE = " ".join(TWIN)
REFERENCE = [sys.executable, "-m", "conformance.fixtures.reference_cli"]


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["adapter", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def example() -> dict[str, Any]:
    """The example adapter's document, to change."""
    doc: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    return doc


def written(path: Path, doc: dict[str, Any]) -> Path:
    """``doc`` written as YAML to ``path``."""
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def variant(tmp_path: Path, **changes: Any) -> Path:
    doc = example()
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = {**doc.get(key, {}), **value} if isinstance(value, dict) else value
    path = written(tmp_path / "variant.yaml", doc)
    return path


def probes(*starts: str) -> list[Probe]:
    """The probes whose spec arguments start with one of ``starts`` (a cheap run of a few shapes)."""
    return [p for p in PROBES if any(" ".join(p.args).startswith(s) for s in starts)]


def only_warning(path: Path, start: str) -> str:
    """The adapter at ``path`` checked against the twin with the probes starting ``start``: its one warning."""
    result = check_adapter(path, TWIN, probes=probes(start))
    assert len(result.warnings) == 1, result.warnings
    return result.warnings[0]


# ---- a correct adapter: no warning -------------------------------------------------------------------

def test_the_reference_cli_through_an_empty_adapter_answers_every_probe_right(tmp_path: Path) -> None:
    """The probes are the spec's own grammar: the reference CLI, untranslated, answers each one right. A probe
    the reference fails would be a false warning for every vendor."""
    empty = tmp_path / "empty.yaml"
    empty.write_text("adapter: 3\ntool: a2a-cli\n", encoding="utf-8")
    result = check_adapter(empty, REFERENCE)
    assert not result.warnings, "\n".join(result.warnings)
    assert len([p for p in result.probes if p.ran]) == len(PROBES)


def test_the_example_adapter_is_proven_by_running_the_twin(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, str(EXAMPLE), "--exe", TWIN_EXE, "--strict")
    assert code == 0, out + err
    assert "valid (schema 2, tool twin-cli)" in out and "warnings: none" in out
    assert re.search(r"probes run against a scripted agent: (\d+) \(\1 right, 0 not\)", out), out
    assert "version check: the spec's `-v` is asked as `-V`" in out
    lines = out.splitlines()
    stream = lines.index("  send --text probe -a '{agent}' -o json --stream")
    assert lines[stream + 1].endswith(" -m conformance.fixtures.twin_cli --card '{agent}' --jsonl stream --text probe"
                                      "  [ok]"), lines[stream + 1]
    chat = lines.index("  chat --help")
    assert "unsupported by the tool (adapter)" in lines[chat + 1]


def test_the_probes_cover_every_feature_a_check_uses_or_say_why_not() -> None:
    probed = {canonical(f) for p in PROBES for f in used_features(list(p.args), dict(p.env))}
    probed |= {" ".join(p.args[:2]) for p in PROBES} | {p.args[0] for p in PROBES}
    missing = [f for f in OWNERS if f not in probed and f not in NOT_PROBED]
    assert not missing, missing
    assert not set(NOT_PROBED) & probed, "NOT_PROBED names a feature a probe runs"


def test_without_an_executable_the_translations_are_shown_and_nothing_runs(capsys: pytest.CaptureFixture[str]
                                                                         ) -> None:
    code, out, _ = check(capsys, str(EXAMPLE))
    assert code == 0 and "nothing was run" in out and "[ok]" not in out
    lines = out.splitlines()
    spec = lines.index("  send --text probe -a '{agent}' --bearer '{bearer}'")
    assert lines[spec + 1] == ("    -> twin-cli --card '{agent}' --bearer-env AGENTD_CONFORMANCE_BEARER message send "
                               "--text probe")
    assert lines[spec + 2] == "       env: AGENTD_CONFORMANCE_BEARER='{bearer}'"
    assert "(every run's environment pins NO_COLOR=1)" in out


def test_no_credential_the_probes_make_is_printed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = variant(tmp_path, credentials_by_name=None, placement={"--bearer": "before"})
    result = check_adapter(path, TWIN, probes=probes("send --text probe -a {agent} --bearer"))
    assert result.warnings, "the twin has no --bearer: the probe must say so"
    shown = render(result) + "\n".join(result.warnings)
    assert not re.search(r"probe-[0-9a-f]{16,}", shown), shown


# ---- real mistakes: each one a warning naming what the tool answered -----------------------------------

def test_a_renamed_flag_the_tool_rejects_is_a_warning_naming_the_adapter_key(tmp_path: Path) -> None:
    path = variant(tmp_path, flags={"--context-id": "--ctxt"})
    warning = only_warning(path, "send --text probe -a {agent} -o text --context-id")
    assert "rejected --context-id as a usage error: 'unknown option --ctxt'" in warning
    assert "(adapter: flags.--context-id, placement.--context-id)" in warning


def test_an_output_flag_left_unmapped_is_caught_by_what_the_tool_prints(tmp_path: Path) -> None:
    doc = example()
    doc["rewrites"] = [r for r in doc["rewrites"] if r["when"] != {"--output": "json"}]
    path = written(tmp_path / "no-json.yaml", doc)
    assert "-o json" in only_warning(path, "card get -a {agent} -o json")


def test_a_rewrite_that_swallows_stream_is_caught_by_what_the_agent_receives(tmp_path: Path) -> None:
    """``-o json --stream`` rewritten to ``--json`` with the stream command gone: the tool exits 0. The twin (the
    reference behind it) streams to wait whenever the card offers streaming, so the agent sees a stream either
    way; what shows the loss is the output: one JSON document where JSON Lines were due. (A tool that sends
    without streaming shows it at the agent too: SendMessage where SendStreamingMessage was due.)"""
    doc = example()
    doc["rewrites"][0]["to"] = ["--json"]
    del doc["flag_commands"]["send"]
    path = written(tmp_path / "swallow.yaml", doc)
    warning = only_warning(path, "send --text probe -a {agent} -o json --stream")
    assert "asked for -o json --stream, the output is not JSON Lines (one object a line): '{'" in warning
    assert "rewrites[0]" in warning


def test_a_command_the_tool_lacks_and_the_adapter_does_not_say_so_is_a_warning(tmp_path: Path) -> None:
    doc = example()
    doc["unsupported"].remove("task list")
    path = written(tmp_path / "incomplete.yaml", doc)
    assert "rejected task list as a usage error" in only_warning(path, "task list")


# ---- what is refused before anything runs ----------------------------------------------------------

@pytest.mark.parametrize(("doc", "key", "line"), [
    ({"adapter": 2, "tool": "x", "rewrites": [{"when": {"-o": True}, "to": []}]}, "rewrites[0].when.-o", 5),
    ({"adapter": 2, "tool": "x", "placement": {"--text": "later"}}, "placement.--text", 3),
    ({"adapter": 1, "tool": "x", "flag_commands": {}}, "flag_commands", 2),
    ({"adapter": 2, "tool": "x", "flagz": {}}, "flagz", 2),
])
def test_a_malformed_file_is_one_line_naming_the_line_and_key_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   doc: dict[str, Any], key: str, line: int) -> None:
    path = written(tmp_path / "bad.yaml", doc)
    code, out, err = check(capsys, str(path), "--exe", TWIN_EXE)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()], err
    assert f"adapter {path}:{line}: {key}: " in err, (err, path.read_text())


def test_a_missing_tool_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = check(capsys, str(EXAMPLE), "--exe", "/nonexistent/mycli")
    assert code == 2 and "executable not found" in err


def test_a_version_flag_listed_unsupported_says_the_entry_covers_both(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Seen writing kli's adapter: `unsupported: [-v]` (meant: the tool's -v is --verbose) also took --version."""
    doc = example()
    del doc["flags"]["-v"], doc["flags"]["--version"]
    doc["unsupported"].append("-v")
    path = written(tmp_path / "no-version.yaml", doc)
    code, out, _ = check(capsys, str(path))
    assert code == 0
    assert ("version check: the spec's `--version` is not asked: unsupported by the tool (adapter) (an `unsupported` "
            "entry covers both -v and --version; a tool whose -v means something else maps `-v: --version` under "
            "flags instead)") in out, out
