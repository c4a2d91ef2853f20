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


def _add(parser: argparse.ArgumentParser, *specs: str) -> None:
    """Add one argument for each spec: ``"NAME <METAVAR>"`` takes a value (a positional unless NAME starts with
    ``-``), a bare ``"--NAME"`` is a switch."""
    for spec in specs:
        name, _, metavar = spec.partition(" ")
        if metavar:
            parser.add_argument(name, metavar=metavar)
        else:
            parser.add_argument(name, action="store_true")


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
    _add(top, "--debug", "--verbose", "--insecure", "--env-file <PATH>")
    cmds = top.add_subparsers(dest="cmd", metavar="<COMMAND>", parser_class=ClapParser)
    helpc = cmds.add_parser("help", help="Print this message or the help of the given subcommand(s)")
    helpc.add_argument("topic", nargs="*")

    def group(name: str, help_text: str) -> argparse._SubParsersAction[ClapParser]:
        """A command whose own subcommands are added to what this returns."""
        return cmds.add_parser(name, help=help_text).add_subparsers(dest="sub", metavar="<COMMAND>",
                                                                    parser_class=ClapParser)

    send = group("message", "Messages").add_parser("send", help="Send a message")
    send.add_argument("text", nargs="?", metavar="<TEXT>")
    _add(send, "--attach <PATH>", "--mime <TYPE>", "--data <PATH>", "--context <ID>", "--task <ID>",
         "--metadata <JSON>", "--stream", "--detach")

    _add(group("card", "Agent cards").add_parser("get", help="Fetch a card"), "--validate", "--extended")

    task = group("task", "Tasks")
    _add(task.add_parser("get", help="Get a task"),
         "id <ID>", "--history <N>", "--wait", "--interval <DURATION>", "--timeout <DURATION>")
    _add(task.add_parser("cancel", help="Cancel a task"), "id <ID>")
    _add(task.add_parser("list", help="List tasks"), "--state <STATE>", "--context <ID>", "--limit <N>")
    _add(task.add_parser("subscribe", help="Follow a task"), "id <ID>")

    push = group("push-config", "Push configs")
    _add(push.add_parser("create", help="Create a push config"),
         "task_id <TASK>", "url <URL>", "--secret <TOKEN>", "--scheme <SCHEME>", "--credentials <CREDENTIALS>")
    for name in ("get", "delete"):
        _add(push.add_parser(name, help=f"{name.capitalize()} a push config"), "task_id <TASK>", "config_id <CONFIG>")
    _add(push.add_parser("list", help="List push configs"), "task_id <TASK>")

    group("config", "Settings").add_parser("show", help="Show the effective settings")
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
