"""Adapter format version 2: each new key rewrites spec grammar as documented, version 1 files keep
their meaning, and a malformed version 2 file is refused naming its key path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter import CREDENTIAL_VARS, Adapter, AdapterError, Unsupported
from conformance.cli.runner import CliResult
from conformance.clicheck.features import rejected_feature

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "twin.adapter.yaml"


def make(**keys: Any) -> Adapter:
    return Adapter.from_dict({"adapter": 2, "tool": "mycli", **keys})


# ---- placement -------------------------------------------------------------------------------------

def test_placement_moves_each_flag_before_or_after_the_command_words() -> None:
    ad = make(commands={"send": ["message", "send"]},
              placement={"--agent-card": "before", "-o": "before", "--text": "after"})
    args = ["--text", "hi", "send", "-a", "http://h", "--output=json", "--debug"]
    assert ad.translate(args)[0] == ["-a", "http://h", "--output=json", "message", "send", "--text", "hi",
                                     "--debug"]


def test_placement_keeps_the_relative_order_of_flags_moved_to_one_side() -> None:
    ad = make(placement={"--text": "after", "--file": "after", "--media-type": "after"})
    args = ["--file", "a.bin", "--media-type", "x/y", "send", "--text", "t"]
    assert ad.translate(args)[0] == ["send", "--file", "a.bin", "--media-type", "x/y", "--text", "t"]


def test_flags_without_placement_stay_where_the_check_put_them() -> None:
    ad = make(placement={"--agent-card": "before"})
    assert ad.translate(["--debug", "task", "get", "T", "--verbose", "-a", "u"])[0] == [
        "--debug", "-a", "u", "task", "get", "T", "--verbose"]


def test_placement_means_nothing_without_a_command() -> None:
    ad = make(placement={"--version": "after", "--debug": "after"})
    assert ad.translate(["--debug", "--version"])[0] == ["--debug", "--version"]


# ---- credentials by variable name --------------------------------------------------------------------

def test_a_credential_is_passed_by_the_name_of_a_variable_the_harness_chose() -> None:
    ad = make(credentials_by_name={"--bearer": "--bearer-env", "--api-key": "--key-var"},
              placement={"--bearer": "before"})
    args, env = ad.translate(["send", "--text", "x", "--bearer", "s3cret", "--api-key=k3y"])
    bearer, key = CREDENTIAL_VARS["--bearer"], CREDENTIAL_VARS["--api-key"]
    assert args == ["--bearer-env", bearer, "send", "--text", "x", f"--key-var={key}"]
    assert env == {bearer: "s3cret", key: "k3y"}
    assert "s3cret" not in args and "k3y" not in " ".join(args)


def test_a_credential_given_twice_gets_two_variables() -> None:
    ad = make(credentials_by_name={"--bearer": "--bearer-env"})
    args, env = ad.translate(["send", "--bearer", "a", "--bearer", "b"])
    first, second = CREDENTIAL_VARS["--bearer"], CREDENTIAL_VARS["--bearer"] + "_2"
    assert args == ["send", "--bearer-env", first, "--bearer-env", second]
    assert env == {first: "a", second: "b"}


# ---- value-dependent and combined rewrites --------------------------------------------------------------

TWIN_OUTPUT = [{"when": {"-o": "json", "--stream": True}, "to": ["--jsonl"]},
               {"when": {"-o": "json"}, "to": ["--json"]},
               {"when": {"-o": "text"}, "to": ["--plain"]}]


def test_a_valued_flag_maps_to_a_switch_by_its_value() -> None:
    ad = make(rewrites=TWIN_OUTPUT)
    assert ad.translate(["card", "get", "-o", "json"])[0] == ["card", "get", "--json"]
    assert ad.translate(["card", "get", "--output=text"])[0] == ["card", "get", "--plain"]
    # a value no rule names is left to the flag tables (here: passed through for the tool to judge)
    assert ad.translate(["card", "get", "-o", "yaml"])[0] == ["card", "get", "-o", "yaml"]


def test_a_combination_of_options_maps_to_the_tools_own_mode() -> None:
    ad = make(rewrites=TWIN_OUTPUT)
    assert ad.translate(["send", "--stream", "--text", "x", "-o", "json"])[0] == ["send", "--jsonl", "--text", "x"]
    assert ad.translate(["send", "--stream", "-o", "text"])[0] == ["send", "--stream", "--plain"]


def test_a_rule_fires_once_per_match_and_takes_its_place_from_the_rule_or_its_first_flag() -> None:
    ad = make(commands={"send": ["message", "send"]}, placement={"-o": "before"},
              rewrites=[{"when": {"-o": "json"}, "to": ["--json"]},
                        {"when": {"--async": True}, "to": ["--detach", "--quiet"], "place": "after"}])
    assert ad.translate(["--async", "send", "-o", "json", "-o", "json"])[0] == [
        "--json", "--json", "message", "send", "--detach", "--quiet"]


def test_a_rule_limited_to_a_command_leaves_others_alone() -> None:
    ad = make(rewrites=[{"command": "task get", "when": {"--history": "0"}, "to": ["--no-history"]}])
    assert ad.translate(["task", "get", "T", "--history", "0"])[0] == ["task", "get", "T", "--no-history"]
    assert ad.translate(["send", "--history", "0"])[0] == ["send", "--history", "0"]


def test_a_value_is_rewritten_for_its_flag() -> None:
    ad = make(values={"--transport": {"HTTP+JSON": "rest", "JSONRPC": "jsonrpc"}})
    assert ad.translate(["send", "--transport", "HTTP+JSON", "--transport=JSONRPC"])[0] == [
        "send", "--transport", "rest", "--transport=jsonrpc"]


# ---- a flag that selects another command ------------------------------------------------------------

def test_a_switch_selects_another_of_the_tools_commands() -> None:
    ad = make(commands={"send": ["message", "send"]},
              flag_commands={"send": {"--stream": ["stream"]}, "task get": {"--wait": ["task", "watch"]}})
    assert ad.translate(["send", "--stream", "--text", "x"])[0] == ["stream", "--text", "x"]
    assert ad.translate(["send", "--text", "x"])[0] == ["message", "send", "--text", "x"]
    assert ad.translate(["task", "get", "T", "--wait", "--poll-interval", "1s"])[0] == [
        "task", "watch", "T", "--poll-interval", "1s"]
    assert ad.translate(["task", "get", "T"])[0] == ["task", "get", "T"]


def test_a_selecting_switch_still_counts_in_a_combined_rewrite() -> None:
    ad = make(flag_commands={"send": {"--stream": ["stream"]}}, rewrites=TWIN_OUTPUT, placement={"-o": "before"})
    assert ad.translate(["send", "--text", "x", "-o", "json", "--stream"])[0] == ["--jsonl", "stream", "--text", "x"]


# ---- help and version -----------------------------------------------------------------------------

def test_help_topics_and_command_words_are_the_tools() -> None:
    ad = make(commands={"send": ["message", "send"], "card get": ["card", "show"]})
    assert ad.translate(["help", "send"])[0] == ["help", "message", "send"]
    assert ad.translate(["help", "card", "get"])[0] == ["help", "card", "show"]
    assert ad.translate(["help"])[0] == ["help"]
    assert ad.command_words(["send"]) == ["message", "send"]
    assert ad.command_words(["task", "get"]) == ["task", "get"]


def test_the_identity_records_the_rewrites_that_touch_the_version_check() -> None:
    ad = make(flags={"-v": "-V", "--version": "--version"})
    assert ad.translate(["-v"])[0] == ["-V"] and ad.translate(["--version"])[0] == ["--version"]
    assert ad.identity()["version_check"] == {"-v": "-V"}
    assert ad.identity()["schema"] == 2
    assert "version_check" not in make().identity()
    assert make(unsupported=["-v"]).identity()["version_check"] == {
        "-v": "unsupported by the tool (adapter)", "--version": "unsupported by the tool (adapter)"}


def test_a_tools_rejection_is_blamed_on_the_spec_feature_it_stands_for() -> None:
    ad = make(flag_commands={"send": {"--stream": ["stream"]}}, rewrites=TWIN_OUTPUT,
              credentials_by_name={"--bearer": "--bearer-env"})

    def rejected(stderr: str, features: list[str]) -> str | None:
        r = CliResult(argv=["t"], env_shown={}, exit_code=2, stdout=b"", stderr=stderr.encode(), duration=0.1)
        m = rejected_feature(r, features, adapter=ad)
        return None if m is None else m.feature

    assert rejected("error: unknown command 'stream'", ["send", "--stream"]) == "--stream"
    assert rejected("error: unknown option --jsonl", ["send", "--output"]) == "--output"
    assert rejected("error: unknown option --bearer-env", ["send", "--bearer"]) == "--bearer"


# ---- unsupported stays local ----------------------------------------------------------------------

def test_unsupported_in_a_version_2_file_names_the_spec_feature() -> None:
    ad = make(unsupported=["--poll-interval", "task cancel"], flag_commands={"task get": {"--wait": ["watch"]}},
              placement={"--agent-card": "before"})
    with pytest.raises(Unsupported) as info:
        ad.translate(["task", "get", "T", "--wait", "--poll-interval", "1s"])
    assert info.value.feature == "--poll-interval"
    with pytest.raises(Unsupported) as info:
        ad.translate(["task", "cancel", "T"])
    assert info.value.feature == "task cancel"
    assert ad.translate(["task", "get", "T", "--wait", "-a", "u"])[0] == ["-a", "u", "watch", "T"]


# ---- version 1 keeps working ------------------------------------------------------------------------

def test_a_version_1_file_translates_as_before() -> None:
    v1 = {"adapter": 1, "tool": "mycli", "commands": {"task get": ["tasks", "show"]},
          "positional": {"task get": ["--task-id"]}, "flags": {"-o": "--format"},
          "credentials_env": {"--bearer": "MYCLI_TOKEN"}}
    ad = Adapter.from_dict(v1)
    assert ad.version == 1 and ad.identity()["schema"] == 1
    assert ad.translate(["-o", "json", "task", "get", "--task-id", "T", "--bearer", "b", "--wait"]) == (
        ["--format", "json", "tasks", "show", "T", "--wait"], {"MYCLI_TOKEN": "b"})
    assert Adapter.from_dict({**v1, "adapter": 2}).translate(["task", "get", "--task-id", "T"])[0] == [
        "tasks", "show", "T"]


def test_a_version_1_file_may_not_use_version_2_keys() -> None:
    with pytest.raises(AdapterError) as info:
        Adapter.from_dict({"adapter": 1, "tool": "x", "placement": {"-a": "before"}})
    assert info.value.key == "placement" and "adapter: 2" in str(info.value)


# ---- malformed version 2 files --------------------------------------------------------------------

def refused(tmp_path: Path, version: int, doc: dict[str, Any]) -> tuple[Path, AdapterError]:
    """An adapter file of ``version`` for tool ``x`` with ``doc`` written in ``tmp_path``, and how loading it fails."""
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"adapter": version, "tool": "x", **doc}))
    with pytest.raises(AdapterError) as info:
        Adapter.load(path)
    return path, info.value


BAD: list[tuple[dict[str, Any], str]] = [
    ({"adapter": 4}, "adapter"),
    ({"placement": ["-a"]}, "placement"),
    ({"placement": {"-a": "first"}}, "placement.-a"),
    ({"placement": {"agent-card": "before"}}, "placement"),
    ({"credentials_by_name": {"--bearer": "BEARER"}}, "credentials_by_name.--bearer"),
    ({"credentials_by_name": {"--text": "--text-env"}}, "credentials_by_name.--text"),
    ({"credentials_by_name": {"--bearer": "--b"}, "credentials_env": {"--bearer": "T"}},
     "credentials_by_name.--bearer"),
    ({"rewrites": {"when": {}}}, "rewrites"),
    ({"rewrites": ["-o json"]}, "rewrites[0]"),
    ({"rewrites": [{"when": {"-o": "json"}}]}, "rewrites[0].to"),
    ({"rewrites": [{"when": {}, "to": []}]}, "rewrites[0].when"),
    ({"rewrites": [{"when": {"-o": True}, "to": []}]}, "rewrites[0].when.-o"),
    ({"rewrites": [{"when": {"--stream": "yes"}, "to": []}]}, "rewrites[0].when.--stream"),
    ({"rewrites": [{"when": {"--made-up": True}, "to": []}]}, "rewrites[0].when.--made-up"),
    ({"rewrites": [{"when": {"--output": "json", "-o": "text"}, "to": []}]}, "rewrites[0].when.-o"),
    ({"rewrites": [{"when": {"-o": "json"}, "to": "--json"}]}, "rewrites[0].to"),
    ({"rewrites": [{"when": {"-o": "json"}, "to": [], "place": "middle"}]}, "rewrites[0].place"),
    ({"rewrites": [{"when": {"-o": "json"}, "to": [], "command": "sned"}]}, "rewrites[0].command.sned"),
    ({"rewrites": [{"when": {"-o": "json"}, "to": [], "then": 1}]}, "rewrites[0].then"),
    ({"rewrites": [{"when": {"-o": "json"}, "to": []}], "unsupported": ["--output"]}, "rewrites[0].when.-o"),
    ({"flag_commands": {"send": {"--text": ["t"]}}}, "flag_commands.send.--text"),
    ({"flag_commands": {"send": {"--stream": []}}}, "flag_commands.send.--stream"),
    ({"flag_commands": {"task": {"--wait": ["watch"]}}}, "flag_commands.task"),
    ({"flag_commands": {"task get": ["--wait"]}}, "flag_commands.task get"),
    ({"flag_commands": {"task get": {"--wait": ["w"]}}, "unsupported": ["task get"]}, "flag_commands.task get"),
    ({"placement": {"--debug": "after"}, "unsupported": ["--debug"]}, "placement.--debug"),
]


@pytest.mark.parametrize(("doc", "key"), BAD, ids=[f"{i}-{k}" for i, (_, k) in enumerate(BAD)])
def test_a_malformed_version_2_file_is_refused_naming_the_key_path(tmp_path: Path, doc: dict[str, Any],
                                                                   key: str) -> None:
    path, err = refused(tmp_path, 2, doc)
    assert err.key == key, str(err)
    assert str(path) in str(err)


# ---- the example -----------------------------------------------------------------------------------

def test_the_example_uses_every_key_of_version_2() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    assert doc["adapter"] == 2
    for key in ("placement", "credentials_by_name", "rewrites", "flag_commands", "commands", "flags", "values",
                "unsupported", "env"):
        assert doc.get(key), f"the example adapter does not use {key}"
    assert {p for p in doc["placement"].values()} == {"before", "after"}
    assert any(len(r["when"]) > 1 for r in doc["rewrites"]), "no combined rewrite in the example"


def test_the_example_translates_the_checks_invocations_into_the_twins_grammar() -> None:
    ad = Adapter.load(EXAMPLE)
    bearer = CREDENTIAL_VARS["--bearer"]
    cases: list[tuple[list[str], list[str]]] = [
        (["send", "--text", "hi", "-a", "u", "--bearer", "tok", "-o", "json", "--stream"],
         ["--card", "u", "--bearer-env", bearer, "--jsonl", "stream", "--text", "hi"]),
        (["task", "get", "T", "--wait", "-a", "u", "--poll-interval", "200ms", "-o", "json"],
         ["--card", "u", "--poll-interval", "200ms", "--json", "task", "watch", "T"]),
        (["send", "--text", "x", "--task-id", "T", "--context-id", "C", "-a", "u", "--async", "--transport",
          "HTTP+JSON"], ["--card", "u", "--transport", "rest", "message", "send", "--text", "x", "--task", "T",
                         "--context", "C", "--detach"]),
        (["card", "get", "-a", "u", "--verbose"], ["--card", "u", "--verbose", "card", "show"]),
        (["-v"], ["-V"]),
        (["send", "--help"], ["message", "send", "--help"]),
    ]
    for spec, tool in cases:
        assert ad.translate(spec)[0] == tool, spec
    assert ad.translate(["send", "--bearer", "tok"])[1] == {"NO_COLOR": "1", bearer: "tok"}


def test_the_documented_version_2_keys_are_a_valid_adapter() -> None:
    import conformance.cli.adapter as module

    doc = module.__doc__ or ""
    block = doc.split("keeps every key above and adds::\n\n", 1)[1].split("\n\n", 1)[0]
    ad = Adapter.from_dict({"adapter": 2, "tool": "mycli", **yaml.safe_load(block)})
    assert ad.translate(["send", "--text", "hi", "-a", "u", "-o", "json", "--stream", "--bearer", "t"])[0] == [
        "-a", "u", "stream", "--text", "hi", "--jsonl", "--bearer-env", CREDENTIAL_VARS["--bearer"]]
