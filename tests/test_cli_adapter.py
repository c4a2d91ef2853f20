"""Adapters: each mapping rewrites spec grammar correctly, and each malformed file is refused by name."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter import SPEC_VALUE_FLAGS, Adapter, AdapterError, Unsupported
from conformance.outcome import CheckFailed


def make(**keys: Any) -> Adapter:
    return Adapter.from_dict({"adapter": 1, "tool": "mycli", **keys})


# ---- loading and identity --------------------------------------------------------------------------

def test_load_reads_the_file_and_reports_its_identity(tmp_path: Path) -> None:
    path = tmp_path / "mycli.yaml"
    path.write_text(
        "adapter: 1\ntool: mycli\nnotes: beta\n"
        "commands: {card get: [agent, card]}\nflags: {--context-id: --ctx}\nenv: {NO_COLOR: '1'}\n"
    )
    ad = Adapter.load(path)
    assert ad.identity() == {
        "adapter": str(path), "tool": "mycli", "schema": 1, "notes": "beta",
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    assert ad.translate(["card", "get", "--context-id", "c"]) == (
        ["agent", "card", "--ctx", "c"], {"NO_COLOR": "1"})


def test_an_empty_adapter_translates_nothing() -> None:
    args = ["send", "--context-id", "c1", "--text", "hi", "-o", "json", "--stream"]
    assert make().translate(args, {"X": "1"}) == (args, {"X": "1"})


# ---- commands --------------------------------------------------------------------------------------

def test_command_paths_are_rewritten_and_others_left_alone() -> None:
    ad = make(commands={"card get": ["agent", "card"], "task get": ["tasks", "show"]})
    assert ad.translate(["card", "get", "-a", "http://h"])[0] == ["agent", "card", "-a", "http://h"]
    assert ad.translate(["task", "get", "T1"])[0] == ["tasks", "show", "T1"]
    assert ad.translate(["task", "cancel", "T1"])[0] == ["task", "cancel", "T1"]


def test_longest_command_prefix_wins_and_subcommand_words_are_kept() -> None:
    ad = make(commands={"task": ["tasks"], "task push-config": ["webhooks"]})
    assert ad.translate(["task", "push-config", "set", "T"])[0] == ["webhooks", "set", "T"]
    assert ad.translate(["task", "list"])[0] == ["tasks", "list"]


def test_a_command_may_map_to_no_words() -> None:
    assert make(commands={"send": []}).translate(["send", "hello"])[0] == ["hello"]


def test_options_before_the_command_keep_their_place_and_values() -> None:
    ad = make(commands={"card get": ["agent", "card"]})
    args = ["--agent-card", "card", "-o", "json", "card", "get"]
    assert ad.translate(args)[0] == ["--agent-card", "card", "-o", "json", "agent", "card"]


# ---- flags and values ------------------------------------------------------------------------------

def test_flag_renames_cover_both_spellings_and_the_inline_form() -> None:
    ad = make(flags={"--context-id": "--ctx", "-o": "--format"})
    assert ad.translate(["send", "--context-id", "c", "-o", "json"])[0] == [
        "send", "--ctx", "c", "--format", "json"]
    assert ad.translate(["send", "--output", "json", "--context-id=c"])[0] == [
        "send", "--format", "json", "--ctx=c"]


def test_an_exact_spelling_entry_beats_the_alias_entry() -> None:
    ad = make(flags={"-o": "--output", "--output": "--fmt"})
    assert ad.translate(["send", "-o", "json", "--output", "text"])[0] == [
        "send", "--output", "json", "--fmt", "text"]


def test_values_are_mapped_for_their_flag() -> None:
    ad = make(flags={"--transport": "--binding"}, values={"--transport": {"JSONRPC": "jsonrpc"}})
    assert ad.translate(["send", "--transport", "JSONRPC", "--transport", "GRPC"])[0] == [
        "send", "--binding", "jsonrpc", "--binding", "GRPC"]
    assert ad.translate(["send", "--transport=JSONRPC"])[0] == ["send", "--binding=jsonrpc"]


def test_values_that_look_like_flags_stay_with_their_flag() -> None:
    ad = make(flags={"--text": "--message"}, unsupported=["--version"])
    # "-v" after --text is the text's value, not the (unsupported) version flag
    assert ad.translate(["send", "--text", "-v", "--data", "-"])[0] == [
        "send", "--message", "-v", "--data", "-"]


def test_a_value_flag_missing_its_value_passes_through_for_the_tool_to_reject() -> None:
    assert make().translate(["send", "--text", "a", "--media-type"])[0] == [
        "send", "--text", "a", "--media-type"]


def test_everything_after_double_dash_is_passed_through() -> None:
    ad = make(flags={"--task-id": "--tid"}, positional_as_flag={"send": ["--message"]})
    assert ad.translate(["send", "hi", "--", "--task-id", "x"])[0] == [
        "send", "--message", "hi", "--", "--task-id", "x"]


# ---- positionals -----------------------------------------------------------------------------------

def test_positional_moves_a_flag_value_right_after_the_command() -> None:
    ad = make(commands={"task get": ["tasks", "show"]}, positional={"task get": ["--task-id"]})
    assert ad.translate(["task", "get", "--wait", "--task-id", "T1", "-o", "json"])[0] == [
        "tasks", "show", "T1", "--wait", "-o", "json"]
    assert ad.translate(["task", "get", "--task-id=T2"])[0] == ["tasks", "show", "T2"]
    # only for that command
    assert ad.translate(["send", "--task-id", "T1"])[0] == ["send", "--task-id", "T1"]


def test_several_positionals_follow_the_adapters_order() -> None:
    ad = make(positional={"send": ["--context-id", "--task-id"]})
    assert ad.translate(["send", "--task-id", "T", "--context-id", "C", "--text", "x"])[0] == [
        "send", "C", "T", "--text", "x"]


def test_positional_as_flag_carries_spec_positionals_in_named_flags() -> None:
    ad = make(positional_as_flag={"task get": ["--id"]})
    assert ad.translate(["task", "get", "T1", "--history", "3"])[0] == [
        "task", "get", "--id", "T1", "--history", "3"]
    assert make(positional_as_flag={"send": ["--message"]}).translate(["send", "a", "b"])[0] == [
        "send", "--message", "a", "b"]


# ---- credentials and environment -------------------------------------------------------------------

def test_credentials_move_from_argv_to_the_environment() -> None:
    ad = make(credentials_env={"--bearer": "MYCLI_TOKEN", "--api-key": "MYCLI_KEY"})
    args, env = ad.translate(["send", "--bearer", "tok", "--api-key=k", "--text", "x"])
    assert args == ["send", "--text", "x"]
    assert env == {"MYCLI_TOKEN": "tok", "MYCLI_KEY": "k"}


def test_env_is_pinned_under_the_callers_env_and_spec_variables_renamed() -> None:
    ad = make(env={"NO_COLOR": "1", "MYCLI_MODE": "plain"}, env_names={"A2ACLI_BEARER": "MYCLI_TOKEN"})
    _, env = ad.translate(["send"], {"A2ACLI_BEARER": "t", "MYCLI_MODE": "rich", "NO_COLOR": None})
    assert env == {"NO_COLOR": None, "MYCLI_MODE": "rich", "MYCLI_TOKEN": "t"}


# ---- unsupported -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("args", "env", "what"),
    [
        (["send", "--poll-interval", "1s"], {}, "--poll-interval"),
        (["send", "--poll-interval=1s"], {}, "--poll-interval"),
        (["send", "-o", "json"], {}, "-o"),  # unsupported --output covers its short spelling
        (["task", "cancel", "T1"], {}, "task cancel"),
        (["task", "push-config", "set", "T1"], {}, "task push-config"),
        (["send", "--text", "x"], {"A2ACLI_TIMEOUT": "5"}, "A2ACLI_TIMEOUT"),
    ],
)
def test_unsupported_use_fails_the_check(args: list[str], env: dict[str, str], what: str) -> None:
    ad = make(unsupported=["--poll-interval", "--output", "task cancel", "task push-config",
                           "A2ACLI_TIMEOUT"])
    with pytest.raises(Unsupported) as info:
        ad.translate(args, env)
    assert what in info.value.what
    assert isinstance(info.value, CheckFailed) and "unsupported is fail" in str(info.value)


def test_supported_neighbours_of_unsupported_things_still_translate() -> None:
    ad = make(unsupported=["--poll-interval", "task cancel", "A2ACLI_TIMEOUT"])
    assert ad.translate(["task", "get", "T", "--timeout", "5s"], {"A2ACLI_TIMEOUT": None})[0] == [
        "task", "get", "T", "--timeout", "5s"]


def test_the_value_flag_table_covers_spec_section_7() -> None:
    for flag in ("--agent-card", "-a", "--context-id", "--task-id", "--output", "-o", "--bearer",
                 "--api-key", "--svc-param", "--metadata", "--transport", "--a2a-version", "--config",
                 "--poll-interval", "--timeout", "--history", "--text", "--file", "--data",
                 "--media-type"):
        assert flag in SPEC_VALUE_FLAGS
    for switch in ("--async", "--stream", "--wait", "--debug", "--insecure", "--verbose", "--validate"):
        assert switch not in SPEC_VALUE_FLAGS


# ---- malformed adapters ----------------------------------------------------------------------------

BAD: list[tuple[Any, str]] = [
    ([1, 2], "(file)"),
    ({"tool": "x"}, "adapter"),
    ({"adapter": 4, "tool": "x"}, "adapter"),
    ({"adapter": "1", "tool": "x"}, "adapter"),
    ({"adapter": True, "tool": "x"}, "adapter"),
    ({"adapter": 1}, "tool"),
    ({"adapter": 1, "tool": "  "}, "tool"),
    ({"adapter": 1, "tool": "x", "flag": {}}, "flag"),
    ({"adapter": 1, "tool": "x", "notes": 3}, "notes"),
    ({"adapter": 1, "tool": "x", "commands": ["card get"]}, "commands"),
    ({"adapter": 1, "tool": "x", "commands": {"tasks get": ["t"]}}, "commands.tasks get"),
    ({"adapter": 1, "tool": "x", "commands": {"card get": "agent card"}}, "commands.card get"),
    ({"adapter": 1, "tool": "x", "commands": {"card get": ["agent", ""]}}, "commands.card get"),
    ({"adapter": 1, "tool": "x", "flags": {"--context-id": ""}}, "flags.--context-id"),
    ({"adapter": 1, "tool": "x", "flags": {"--context-id": None}}, "flags.--context-id"),
    ({"adapter": 1, "tool": "x", "flags": {"--context-id": "ctx"}}, "flags.--context-id"),
    ({"adapter": 1, "tool": "x", "flags": {"context-id": "--ctx"}}, "flags"),
    ({"adapter": 1, "tool": "x", "values": {"--stream": {"a": "b"}}}, "values.--stream"),
    ({"adapter": 1, "tool": "x", "values": {"--transport": {"JSONRPC": 1}}}, "values.--transport"),
    ({"adapter": 1, "tool": "x", "positional": {"task get": ["--wait"]}}, "positional.task get.--wait"),
    ({"adapter": 1, "tool": "x", "positional": {"task get": []}}, "positional.task get"),
    ({"adapter": 1, "tool": "x", "positional": {"task get": "--task-id"}}, "positional.task get"),
    ({"adapter": 1, "tool": "x", "positional_as_flag": {"send": ["message"]}}, "positional_as_flag.send"),
    ({"adapter": 1, "tool": "x", "credentials_env": {"--bearer": "MY-TOKEN"}}, "credentials_env.--bearer"),
    ({"adapter": 1, "tool": "x", "credentials_env": {"--insecure": "T"}}, "credentials_env.--insecure"),
    ({"adapter": 1, "tool": "x", "env_names": {"BEARER": "T"}}, "env_names"),
    ({"adapter": 1, "tool": "x", "env_names": {"A2ACLI_BEARER": ""}}, "env_names.A2ACLI_BEARER"),
    ({"adapter": 1, "tool": "x", "env": {"NO_COLOR": 1}}, "env.NO_COLOR"),
    ({"adapter": 1, "tool": "x", "env": {"NO COLOR": "1"}}, "env"),
    ({"adapter": 1, "tool": "x", "env": ["NO_COLOR=1"]}, "env"),
    ({"adapter": 1, "tool": "x", "unsupported": "task cancel"}, "unsupported"),
    ({"adapter": 1, "tool": "x", "unsupported": ["task kill"]}, "unsupported.task kill"),
    ({"adapter": 1, "tool": "x", "unsupported": [3]}, "unsupported"),
    ({"adapter": 1, "tool": "x", "unsupported": ["-o"], "flags": {"--output": "--fmt"}}, "flags.-o"),
    ({"adapter": 1, "tool": "x", "unsupported": ["send"], "commands": {"send": ["s"]}}, "commands.send"),
]


@pytest.mark.parametrize(("doc", "key"), BAD, ids=[f"{i}-{k}" for i, (_, k) in enumerate(BAD)])
def test_malformed_adapter_is_refused_naming_file_and_key(tmp_path: Path, doc: Any, key: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(AdapterError) as info:
        Adapter.load(path)
    assert info.value.key == key
    assert str(path) in str(info.value) and key in str(info.value)


def test_unreadable_or_invalid_yaml_is_refused_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(AdapterError, match="missing.yaml"):
        Adapter.load(missing)
    broken = tmp_path / "broken.yaml"
    broken.write_text("adapter: 1\ntool: [unclosed\n")
    with pytest.raises(AdapterError, match="broken.yaml.*not valid YAML"):
        Adapter.load(broken)


def test_the_documented_example_is_a_valid_adapter(tmp_path: Path) -> None:
    import conformance.cli.adapter as module

    doc = module.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    path = tmp_path / "example.yaml"
    path.write_text(block)
    ad = Adapter.load(path)
    args, env = ad.translate(["task", "get", "--task-id", "T", "--bearer", "tok", "-o", "json"])
    assert args == ["tasks", "show", "T", "--format", "json"]
    assert env == {"NO_COLOR": "1", "MYCLI_TOKEN": "tok"}
