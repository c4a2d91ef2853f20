"""pya2a: an A2A command-line client built with plain argparse, one flat level of commands (for adapter tests).

``python tests/adapter_clis/argparse_cli.py COMMAND [options]``: commands ``ask``, ``show-card``, ``show-task``,
``cancel-task``, ``list-tasks``, ``settings``; options after the command only, argparse's own usage errors
("unrecognized arguments: --x", "invalid choice: 'x'", exit 2). The agent is ``--endpoint``, the output
``--json`` / ``--json-lines`` (JSON Lines implies streaming), streaming ``--live``, the version ``--about``.
Every invocation is turned into the a2a-cli specification's grammar and run by the reference CLI in this
process.
"""

from __future__ import annotations

import argparse
import runpy
import sys


def build() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="pya2a", description="A2A client (argparse)")
    top.add_argument("--about", action="version", version="pya2a 2.1")
    cmds = top.add_subparsers(dest="cmd", metavar="COMMAND", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = cmds.add_parser(name, help=help_text)
        p.add_argument("--endpoint", help="the agent: URL, host:port or card file")
        p.add_argument("--json", action="store_true", help="one JSON document")
        p.add_argument("--json-lines", action="store_true", help="JSON Lines (streams)")
        p.add_argument("--plain", action="store_true", help="text output")
        p.add_argument("--bearer", help="bearer token")
        p.add_argument("--debug", action="store_true")
        return p

    ask = command("ask", "send a message")
    ask.add_argument("--text", action="append", help="a text part")
    ask.add_argument("--live", action="store_true", help="stream the events")
    ask.add_argument("--context-id")
    ask.add_argument("--task-id")
    ask.add_argument("--no-block", action="store_true", help="return at once")
    ask.add_argument("--transport", choices=("JSONRPC", "HTTP+JSON"))
    card = command("show-card", "fetch and show a card")
    card.add_argument("--validate", action="store_true")
    get = command("show-task", "show a task")
    get.add_argument("task_id")
    get.add_argument("--history", type=int)
    cancel = command("cancel-task", "cancel a task")
    cancel.add_argument("task_id")
    listing = command("list-tasks", "list tasks")
    listing.add_argument("--status", choices=("TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED"))
    listing.add_argument("--context-id")
    listing.add_argument("--page-size", type=int)
    command("settings", "show the effective settings")
    return top


COMMAND = {"ask": ["send"], "show-card": ["card", "get"], "show-task": ["task", "get"],
           "cancel-task": ["task", "cancel"], "list-tasks": ["task", "list"], "settings": ["config", "show"]}
OPTIONS = {"endpoint": "-a", "bearer": "--bearer", "debug": "--debug", "text": "--text", "live": "--stream",
           "context_id": "--context-id", "task_id": "--task-id", "no_block": "--async", "transport": "--transport",
           "validate": "--validate", "history": "--history", "status": "--status", "page_size": "--page-size"}


def main() -> None:
    ns = build().parse_args()
    args = list(COMMAND[ns.cmd])
    if ns.cmd in ("show-task", "cancel-task"):
        args.append(ns.task_id)
    for attr, flag in OPTIONS.items():
        value = getattr(ns, attr, None)
        if attr == "task_id" and ns.cmd != "ask":
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, list):
            args += [a for v in value for a in (flag, v)]
        elif value not in (None, False):
            args += [flag, str(value)]
    args += ["-o", "json"] if ns.json or ns.json_lines else (["-o", "text"] if ns.plain else [])
    if ns.json_lines and "--stream" not in args:
        args.append("--stream")
    sys.argv = ["a2a-cli", *args]
    runpy.run_module("conformance.fixtures.reference_cli", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
