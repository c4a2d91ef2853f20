"""a2a-rs: an A2A command-line client with a clap-style grammar (for adapter tests).

``python tests/adapter_clis/clap_cli.py [OPTIONS] <COMMAND>``. Built with argparse's nested subparsers, but
speaking as a clap (Rust) tool does: ``error: unexpected argument '--x' found``, ``error: unrecognized
subcommand 'x'``, exit 2; ``-V, --version``; a ``help [COMMAND]...`` subcommand. Its shape: global options
anywhere before the command, the message text as a positional (``message send <TEXT>``), push configs
created as ``push-config create <TASK> <URL>`` (the URL a positional after the task), ``--format json``,
``--format jsonl`` for streamed JSON Lines, states as the A2A enum names. Every invocation is turned into
the a2a-cli specification's grammar and run by the reference CLI in this process.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from typing import Any, NoReturn

PROG = "a2a-rs"


class ClapParser(argparse.ArgumentParser):
    """argparse with clap's error wording and exit status."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments: "):
            first = message.removeprefix("unrecognized arguments: ").split()[0]
            message = f"unexpected argument '{first}' found"
        elif "invalid choice: " in message:
            bad = message.split("invalid choice: ", 1)[1].split(" (choose", 1)[0].strip("'")
            message = f"unrecognized subcommand '{bad}'"
        sys.stderr.write(f"error: {message}\n\nUsage: {self.prog} [OPTIONS] <COMMAND>\n\n"
                         "For more information, try '--help'.\n")
        sys.exit(2)


def build() -> ClapParser:
    top = ClapParser(prog=PROG, description="A2A client (clap-style grammar)")
    top.add_argument("-V", "--version", action="version", version=f"{PROG} 0.3.1")
    top.add_argument("--agent", metavar="<URL>", help="Agent URL, host:port or card file")
    top.add_argument("--format", choices=("text", "json", "jsonl"), help="Output format")
    top.add_argument("--binding", choices=("JSONRPC", "HTTP+JSON"), help="Preferred binding")
    top.add_argument("--token", metavar="<TOKEN>", help="Bearer token")
    top.add_argument("--key", metavar="<KEY>", help="API key")
    top.add_argument("-H", "--param", action="append", metavar="<K:V>", help="Service parameter (repeatable)")
    top.add_argument("--protocol-version", metavar="<V>", help="A2A version to ask for")
    top.add_argument("--debug", action="store_true")
    top.add_argument("--verbose", action="store_true")
    top.add_argument("--insecure", action="store_true")
    top.add_argument("--env-file", metavar="<PATH>")
    cmds = top.add_subparsers(dest="cmd", metavar="<COMMAND>", parser_class=ClapParser)
    helpc = cmds.add_parser("help", help="Print this message or the help of the given subcommand(s)")
    helpc.add_argument("topic", nargs="*")

    msg = cmds.add_parser("message", help="Messages").add_subparsers(dest="sub", metavar="<COMMAND>",
                                                                     parser_class=ClapParser)
    send = msg.add_parser("send", help="Send a message")
    send.add_argument("text", nargs="?", metavar="<TEXT>")
    send.add_argument("--attach", metavar="<PATH>")
    send.add_argument("--mime", metavar="<TYPE>")
    send.add_argument("--data", metavar="<PATH>")
    send.add_argument("--context", metavar="<ID>")
    send.add_argument("--task", metavar="<ID>")
    send.add_argument("--metadata", metavar="<JSON>")
    send.add_argument("--stream", action="store_true")
    send.add_argument("--detach", action="store_true")

    card = cmds.add_parser("card", help="Agent cards").add_subparsers(dest="sub", metavar="<COMMAND>",
                                                                     parser_class=ClapParser)
    cget = card.add_parser("get", help="Fetch a card")
    cget.add_argument("--validate", action="store_true")
    cget.add_argument("--extended", action="store_true")

    task = cmds.add_parser("task", help="Tasks").add_subparsers(dest="sub", metavar="<COMMAND>",
                                                               parser_class=ClapParser)
    tget = task.add_parser("get", help="Get a task")
    tget.add_argument("id", metavar="<ID>")
    tget.add_argument("--history", metavar="<N>")
    tget.add_argument("--wait", action="store_true")
    tget.add_argument("--interval", metavar="<DURATION>")
    tget.add_argument("--timeout", metavar="<DURATION>")
    task.add_parser("cancel", help="Cancel a task").add_argument("id", metavar="<ID>")
    tlist = task.add_parser("list", help="List tasks")
    tlist.add_argument("--state", metavar="<STATE>")
    tlist.add_argument("--context", metavar="<ID>")
    tlist.add_argument("--limit", metavar="<N>")
    task.add_parser("subscribe", help="Follow a task").add_argument("id", metavar="<ID>")

    push = cmds.add_parser("push-config", help="Push configs").add_subparsers(dest="sub", metavar="<COMMAND>",
                                                                             parser_class=ClapParser)
    create = push.add_parser("create", help="Create a push config")
    create.add_argument("task_id", metavar="<TASK>")
    create.add_argument("url", metavar="<URL>")
    create.add_argument("--secret", metavar="<TOKEN>")
    create.add_argument("--scheme", metavar="<SCHEME>")
    create.add_argument("--credentials", metavar="<CREDENTIALS>")
    for name in ("get", "delete"):
        p = push.add_parser(name, help=f"{name.capitalize()} a push config")
        p.add_argument("task_id", metavar="<TASK>")
        p.add_argument("config_id", metavar="<CONFIG>")
    push.add_parser("list", help="List push configs").add_argument("task_id", metavar="<TASK>")

    cfg = cmds.add_parser("config", help="Settings").add_subparsers(dest="sub", metavar="<COMMAND>",
                                                                    parser_class=ClapParser)
    cfg.add_parser("show", help="Show the effective settings")
    return top


def _pairs(ns: argparse.Namespace, table: dict[str, str]) -> list[str]:
    out: list[str] = []
    for attr, flag in table.items():
        value: Any = getattr(ns, attr, None)
        if value is True:
            out.append(flag)
        elif isinstance(value, list):
            out += [a for v in value for a in (flag, v)]
        elif value not in (None, False):
            out += [flag, str(value)]
    return out


GLOBAL = {"agent": "-a", "binding": "--transport", "token": "--bearer", "key": "--api-key", "param": "--svc-param",
          "protocol_version": "--a2a-version", "debug": "--debug", "verbose": "--verbose", "insecure": "--insecure",
          "env_file": "--config"}


def spec_args(ns: argparse.Namespace) -> list[str]:
    fmt = {"json": ["-o", "json"], "jsonl": ["-o", "json", "--stream"], "text": ["-o", "text"], None: []}[ns.format]
    common = [*_pairs(ns, GLOBAL), *fmt]
    where = (ns.cmd, getattr(ns, "sub", None))
    if where == ("message", "send"):
        if fmt[-1:] == ["--stream"] and ns.stream:
            common = common[:-1]
        return ["send", *(["--text", ns.text] if ns.text else []), *common,
                *_pairs(ns, {"attach": "--file", "mime": "--media-type", "data": "--data", "context": "--context-id",
                             "task": "--task-id", "metadata": "--metadata", "stream": "--stream",
                             "detach": "--async"})]
    if where == ("card", "get"):
        return ["card", "get", *common, *_pairs(ns, {"validate": "--validate", "extended": "--extended"})]
    if where == ("task", "get"):
        return ["task", "get", ns.id, *common, *_pairs(ns, {"history": "--history", "wait": "--wait",
                                                             "interval": "--poll-interval", "timeout": "--timeout"})]
    if ns.cmd == "task" and ns.sub in ("cancel", "subscribe"):
        return ["task", ns.sub, ns.id, *common]
    if where == ("task", "list"):
        return ["task", "list", *common, *_pairs(ns, {"state": "--status", "context": "--context-id",
                                                       "limit": "--page-size"})]
    if where == ("push-config", "create"):
        return ["task", "push-config", "create", ns.task_id, "--url", ns.url, *common,
                *_pairs(ns, {"secret": "--token", "scheme": "--auth-scheme", "credentials": "--auth-credentials"})]
    if ns.cmd == "push-config" and ns.sub in ("get", "delete"):
        return ["task", "push-config", ns.sub, ns.task_id, ns.config_id, *common]
    if where == ("push-config", "list"):
        return ["task", "push-config", "list", ns.task_id, *common]
    if where == ("config", "show"):
        return ["config", "show", *common]
    build().error("a subcommand is required")


def main() -> None:
    parser = build()
    ns = parser.parse_args()
    if ns.cmd is None:
        parser.error("a subcommand is required")
    if ns.cmd == "help":
        sys.argv = [PROG, *ns.topic, "--help"]
        parser.parse_args()  # prints the topic's help and exits 0 (or rejects an unknown topic, exit 2)
    if "A2A_RS_TOKEN" in os.environ:
        os.environ["A2ACLI_BEARER"] = os.environ.pop("A2A_RS_TOKEN")
    sys.argv = ["a2a-cli", *spec_args(ns)]
    runpy.run_module("conformance.fixtures.reference_cli", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
