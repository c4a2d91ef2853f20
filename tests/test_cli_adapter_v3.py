"""Adapter format version 3: the three shapes real CLIs needed and versions 1 and 2 could not say — a flag's
value as a positional in the tool's order (``arguments``), routing by the shape of a value (``rewrites`` with
``{shape: ...}`` / ``{matches: ...}``, ``{FLAG}`` and ``words``), and ``help X`` spelled ``X --help``
(``help_topic: flag``) — each translating as documented, and each malformed entry refused by key path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.cli.adapter import Adapter, AdapterError, shape_of
from tests.test_cli_adapter_v2 import refused


def make(**keys: Any) -> Adapter:
    return Adapter.from_dict({"adapter": 3, "tool": "mycli", **keys})


# ---- arguments: a flag's value as a positional, in the tool's order -----------------------------------

def test_a_flag_value_goes_after_the_specs_own_positional() -> None:
    """`push-config create <task> <url>`: version 2's `positional` could only put the URL *first*."""
    ad = make(commands={"task push-config": ["push-config"]},
              arguments={"task push-config create": ["$1", "--url"]})
    args = ["task", "push-config", "create", "T1", "--url=http://h/hook", "--token", "k", "-a", "http://a"]
    assert ad.translate(args)[0] == ["push-config", "create", "T1", "http://h/hook", "--token", "k",
                                     "-a", "http://a"]
    v2 = Adapter.from_dict({"adapter": 2, "tool": "x", "commands": {"task push-config": ["push-config"]},
                            "positional": {"task push-config create": ["--url"]}})
    assert v2.translate(args)[0][:4] == ["push-config", "create", "http://h/hook", "T1"]


def test_arguments_reorder_spec_positionals_and_keep_the_unlisted_ones_after() -> None:
    ad = make(arguments={"task push-config get": ["$2", "$1"]})
    assert ad.translate(["task", "push-config", "get", "T", "C", "extra"])[0] == [
        "task", "push-config", "get", "C", "T", "extra"]


def test_arguments_skip_what_an_invocation_does_not_give_and_translate_values() -> None:
    ad = make(arguments={"task list": ["--status"]}, values={"--status": {"TASK_STATE_WORKING": "working"}})
    assert ad.translate(["task", "list", "--status", "TASK_STATE_WORKING"])[0] == ["task", "list", "working"]
    assert ad.translate(["task", "list", "-a", "u"])[0] == ["task", "list", "-a", "u"]


# ---- routing by the shape of a value -----------------------------------------------------------------

@pytest.mark.parametrize(("value", "shape"), [
    ("http://127.0.0.1:8000", "url"), ("https://h/.well-known/agent-card.json", "url"),
    ("file:///tmp/card.json", "file"), ("/tmp/card.json", "file"), ("./card.json", "file"),
    ("~/c.json", "file"), ("cards/agent", "file"), ("card.json", "file"),
    ("localhost:8000", "host"), ("example.com", "host"),
])
def test_a_value_has_one_shape_decided_from_its_text(value: str, shape: str) -> None:
    assert shape_of(value) == shape


HANDLER_LIKE: dict[str, Any] = {
    "rewrites": [
        {"command": "card get", "when": {"-a": {"shape": "file"}}, "words": ["card", "validate"],
         "to": ["--file", "{-a}"]},
        {"when": {"-a": {"shape": "url"}}, "to": ["--url", "{-a}"]},
        {"when": {"-a": {"matches": "[a-z0-9.-]+:[0-9]+"}}, "to": ["--url", "http://{--agent-card}"]},
    ],
}


def test_a_file_and_a_url_route_to_different_commands_and_flags() -> None:
    ad = make(**HANDLER_LIKE)
    assert ad.translate(["card", "get", "-a", "/tmp/c.json"])[0] == ["card", "validate", "--file", "/tmp/c.json"]
    assert ad.translate(["card", "get", "--agent-card=http://h:1"])[0] == ["card", "get", "--url", "http://h:1"]
    assert ad.translate(["send", "--text", "x", "-a", "h:8000"])[0] == ["send", "--text", "x", "--url", "http://h:8000"]


def test_a_value_no_rule_matches_is_translated_as_before() -> None:
    ad = make(**HANDLER_LIKE, flags={"-a": "--card"})
    assert ad.translate(["send", "-a", "example.com"])[0] == ["send", "--card", "example.com"]
    assert ad.translate(["send", "-a", "/c.json"])[0] == ["send", "--card", "/c.json"]


def test_routing_words_beat_a_plain_command_mapping() -> None:
    ad = make(commands={"card get": ["agent", "card"]}, **HANDLER_LIKE)
    assert ad.translate(["card", "get", "-a", "./c.json", "-o", "json"])[0] == [
        "card", "validate", "--file", "./c.json", "-o", "json"]
    assert ad.translate(["card", "get", "-a", "http://h"])[0] == ["agent", "card", "--url", "http://h"]


# ---- help X spelled X --help ---------------------------------------------------------------------------

def test_help_topic_flag_asks_the_command_for_its_help() -> None:
    ad = make(commands={"send": ["message", "send"], "card get": ["card", "show"]}, help_topic="flag")
    assert ad.translate(["help", "send"])[0] == ["message", "send", "--help"]
    assert ad.translate(["help", "card", "get"])[0] == ["card", "show", "--help"]
    assert ad.translate(["help"])[0] == ["--help"]
    assert ad.translate(["help", "task", "list"])[0] == ["task", "list", "--help"]


def test_help_topic_flag_uses_the_tools_spelling_of_help_and_keeps_options() -> None:
    ad = make(help_topic="flag", flags={"--help": "-H"})
    assert ad.translate(["help", "send", "--debug"])[0] == ["send", "--debug", "-H"]


def test_the_default_help_topic_keeps_help_as_a_command() -> None:
    ad = make(commands={"send": ["message", "send"]})
    assert ad.translate(["help", "send"])[0] == ["help", "message", "send"]


# ---- malformed version 3 entries -----------------------------------------------------------------------

BAD: list[tuple[dict[str, Any], str]] = [
    ({"adapter": 2, "arguments": {}}, "arguments"),
    ({"adapter": 2, "help_topic": "flag"}, "help_topic"),
    ({"adapter": 2, "rewrites": [{"when": {"-a": {"shape": "url"}}, "to": []}]}, "rewrites[0].when.-a"),
    ({"adapter": 2, "rewrites": [{"when": {"-a": "x"}, "to": [], "words": ["w"]}]}, "rewrites[0].words"),
    ({"adapter": 2, "rewrites": [{"when": {"-a": "x"}, "to": ["{-a}"]}]}, "rewrites[0].to"),
    ({"arguments": {"task list": ["--wait"]}}, "arguments.task list.--wait"),
    ({"arguments": {"task list": ["$0"]}}, "arguments.task list"),
    ({"arguments": {"task list": []}}, "arguments.task list"),
    ({"arguments": {"task list": ["--status", "--status"]}}, "arguments.task list"),
    ({"arguments": {"task get": ["$1"]}, "positional": {"task get": ["--task-id"]}}, "arguments.task get"),
    ({"arguments": {"send": ["$1"]}, "positional_as_flag": {"send": ["--message"]}}, "arguments.send"),
    ({"help_topic": "after"}, "help_topic"),
    ({"rewrites": [{"when": {"-a": {"shape": "uri"}}, "to": []}]}, "rewrites[0].when.-a.shape"),
    ({"rewrites": [{"when": {"-a": {"matches": "("}}, "to": []}]}, "rewrites[0].when.-a.matches"),
    ({"rewrites": [{"when": {"-a": {"like": "x"}}, "to": []}]}, "rewrites[0].when.-a"),
    ({"rewrites": [{"when": {"-a": "x"}, "to": ["{--text}"]}]}, "rewrites[0].to"),
    ({"rewrites": [{"when": {"-a": "x"}, "to": [], "words": []}]}, "rewrites[0].words"),
]


@pytest.mark.parametrize(("doc", "key"), BAD, ids=[f"{i}-{k}" for i, (_, k) in enumerate(BAD)])
def test_a_malformed_version_3_entry_is_refused_naming_the_key_path(tmp_path: Path, doc: dict[str, Any],
                                                                     key: str) -> None:
    _, err = refused(tmp_path, 3, doc)
    assert err.key == key, str(err)


# ---- where a malformed file is wrong: the line, in one line -------------------------------------------

@pytest.mark.parametrize(("text", "line", "key"), [
    ("adapter: 3\ntool: x\nrewrites:\n  - when: {-o: json}\n    to: [--json]\n  - when:\n      -o: true\n    to: []\n",
     7, "rewrites[1].when.-o"),
    ("adapter: 3\ntool: x\ncommands:\n  card get: [c]\n  tasks get: [t]\n", 5, "commands.tasks get"),
    ("adapter: 3\ntool: x\nflags:\n  --context-id: ctx\n", 4, "flags.--context-id"),
    ("adapter: 2\ntool: x\n\nhelp_topic: flag\n", 4, "help_topic"),
    ("adapter: 3\ntool: x\nflags: {a: [\n", 4, "(file)"),
    ("adapter: 3\ntool: x\n  bad: indent\n", 3, "(file)"),
])
def test_a_malformed_file_names_the_line_and_the_key_in_one_line(tmp_path: Path, text: str, line: int,
                                                                 key: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(AdapterError) as info:
        Adapter.load(path)
    said = str(info.value)
    assert (info.value.line, info.value.key) == (line, key), said
    assert said.startswith(f"adapter {path}:{line}: {key}: ") and "\n" not in said, said


def test_a_key_the_file_lacks_has_no_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("adapter: 3\n")
    with pytest.raises(AdapterError) as info:
        Adapter.load(path)
    assert str(info.value) == f"adapter {path}: tool: must be a non-empty string"


def test_a_command_a_rule_routes_to_is_one_of_the_tools_spellings_of_it() -> None:
    """A usage error naming `validate` blames `card get` when a rule routes `card get` there."""
    ad = make(**HANDLER_LIKE)
    assert ("card validate", True) in ad.spellings("card get")
    assert ("--url", False) in ad.spellings("--agent-card")
