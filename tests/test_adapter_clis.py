"""Adapters for differently built CLIs, proven by ``adapter check``: a Click group (kli), a clap-style grammar
(a2a-rs: argparse with nested subcommands and clap's wording), plain argparse (pya2a), and a real third-party
A2A CLI from PyPI, a2a-handler 0.4.0 (Click). Each correct adapter gets zero warnings with every probe it does
not mark unsupported run against a scripted agent; three real mistakes seen writing such adapters — an output
flag left unmapped, a rewrite that swallowed ``--stream``, ``--status`` values left untranslated — are each
caught, by what the tool or the agent answered.

The adapters use the three shapes format 3 added: kli and handler route ``-a`` by the shape of its value (a
card file to ``card validate --file``, a host to ``--url http://host``) and spell ``help X`` as ``X --help``;
a2a-rs takes the push webhook as a positional after the task (``push-config create <TASK> <URL>``) and the
message text as a positional.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.adapter_probes import PROBES, Probe
from conformance.clicheck.adapter_check import check_adapter

HERE = Path(__file__).resolve().parent / "adapter_clis"
HANDLER = shutil.which("handler", path=str(Path(sys.executable).parent))

#: tool -> (adapter file, argv prefix, probes a correct adapter must run at least)
CLIS: dict[str, tuple[Path, list[str], int]] = {
    "kli (Click group)": (HERE / "kli.adapter.yaml", [sys.executable, str(HERE / "click_cli.py")], 30),
    "a2a-rs (clap-style)": (HERE / "a2a-rs.adapter.yaml", [sys.executable, str(HERE / "clap_cli.py")], 36),
    "pya2a (argparse)": (HERE / "pya2a.adapter.yaml", [sys.executable, str(HERE / "argparse_cli.py")], 23),
    "a2a-handler 0.4.0 (PyPI, Click)": (HERE / "handler.adapter.yaml", [str(HANDLER)], 25),
}
#: a2a-handler starts slowly (about a second of CPU); on a loaded machine a run can take several seconds.
TIMEOUT = 60.0


def test_a2a_handler_is_installed_with_the_dev_extras() -> None:
    assert HANDLER is not None, "a2a-handler (dev extra) is not installed beside this interpreter"


@pytest.mark.timeout(1200)  # 23-36 runs of a tool; a2a-handler takes seconds a run on a loaded 2-core machine
@pytest.mark.parametrize("tool", list(CLIS))
def test_a_correct_adapter_gets_no_warning_and_every_supported_shape_runs(tool: str) -> None:
    adapter, prefix, at_least = CLIS[tool]
    result = check_adapter(adapter, prefix, timeout=TIMEOUT)
    assert not result.warnings, "\n".join(result.warnings)
    ran = [p for p in result.probes if p.ran]
    assert len(ran) >= at_least, [p.spec_args for p in result.probes if not p.ran]
    assert all(p.exit_code == 0 for p in ran)


def test_the_new_shapes_translate_as_each_tool_needs() -> None:
    kli, handler = (check_adapter(CLIS[t][0]) for t in ("kli (Click group)", "a2a-handler 0.4.0 (PyPI, Click)"))
    rs = check_adapter(CLIS["a2a-rs (clap-style)"][0])

    def argv(result: Any, spec: str) -> str:
        return " ".join(next(p.argv for p in result.probes if " ".join(p.probe.args) == spec) or [])

    assert argv(kli, "help send") == "message send --help"
    assert argv(handler, "card get -a {card_file} -o json") == "--output json card validate --file {card_file}"
    assert argv(handler, "card get -a {host}") == "card get --url {agent}"  # http:// + the host: the agent's URL
    assert argv(rs, "task push-config create {held} --url={hook} --token={push_token} -a {agent}") == (
        "--agent {agent} push-config create {held} {hook} --secret={push_token}")
    assert argv(rs, "send --text probe -a {agent} --task-id {input}") == (
        "--agent {agent} message send probe --task {input}")


# ---- three real mistakes, on a Click tool of our own and on a2a-handler -------------------------------------

def _mistake(tmp_path: Path, tool: str, change: str) -> Path:
    doc = yaml.safe_load(CLIS[tool][0].read_text(encoding="utf-8"))
    if change == "output flag unmapped":
        del doc["flags"]["-o"]
    elif change == "rewrite swallows --stream":
        del doc["flag_commands"]
    elif change == "status values missing":
        del doc["values"]["--status"]
    path = tmp_path / "mistake.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _probes(*specs: str) -> list[Probe]:
    return [p for p in PROBES if " ".join(p.args) in specs]


MISTAKES: dict[str, list[Probe]] = {
    "output flag unmapped": _probes("card get -a {agent} -o json"),
    "rewrite swallows --stream": _probes("send --text probe -a {agent} -o json --stream"),
    "status values missing": _probes("task list -a {agent} -o json --status TASK_STATE_WORKING --context-id ctx-probe "
                                     "--page-size 5"),
}
KLI, HANDLER_CLI = "kli (Click group)", "a2a-handler 0.4.0 (PyPI, Click)"
#: What each tool answered, as the warning quotes it. Both reject -o by name. handler sends without streaming,
#: so the agent shows the lost --stream; kli (the reference behind it) streams to wait whenever the card offers
#: it, so its output shows it: one JSON document where JSON Lines were due. kli's Choice refuses the state with a
#: usage error; handler with exit 1 and its own error.
SAID = {
    (KLI, "output flag unmapped"): "rejected --output as a usage error: \"No such option '-o'",
    (HANDLER_CLI, "output flag unmapped"): "rejected --output as a usage error: \"No such option '-o'",
    (KLI, "rewrite swallows --stream"): "asked for -o json --stream, the output is not JSON Lines",
    (HANDLER_CLI, "rewrite swallows --stream"): "the agent received CARD, SendMessage, not SendStreamingMessage "
                                                "(adapter: rewrites[0])",
    (KLI, "status values missing"): "usage error (exit 2): \"Error: Invalid value for '--status': "
                                    "'TASK_STATE_WORKING' is not one of",
    (HANDLER_CLI, "status values missing"): "exit 1: 'Unknown task state: TASK_STATE_WORKING' (adapter: no entry "
                                            "for --status)",
}


@pytest.mark.parametrize("tool", [KLI, HANDLER_CLI])
@pytest.mark.parametrize("change", list(MISTAKES))
def test_a_real_mistake_is_a_warning_quoting_what_came_back(tmp_path: Path, tool: str, change: str) -> None:
    probes = MISTAKES[change]
    assert len(probes) == 1, change
    result = check_adapter(_mistake(tmp_path, tool, change), CLIS[tool][1], timeout=TIMEOUT, probes=probes)
    assert len(result.warnings) == 1, result.warnings
    assert SAID[tool, change] in result.warnings[0], result.warnings[0]
