"""kli: an A2A command-line client built as a Click group, with a grammar of its own (for adapter tests).

``python tests/adapter_clis/click_cli.py [--output text|json|ndjson] [--verbose] [--debug] COMMAND ...``.
It is parsed by Click (so its usage errors are Click's: "No such option: --x", "Invalid value for
'--status'", exit 2), turned into the a2a-cli specification's grammar, and run by the reference CLI in
this process. Its shape is that of Click-built tools such as a2a-handler: global options only before the
command, the agent as ``--url`` (a URL only), a card file through ``card validate --file``, lowercase task
states, a ``stream`` command, credentials by variable name, no ``help`` command (``X --help``).
"""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Callable
from typing import Any

import click

STATES = ("submitted", "working", "completed", "failed", "canceled", "input-required", "rejected", "auth-required")


def run_reference(spec_args: list[str]) -> None:
    sys.argv = ["a2a-cli", *spec_args]
    runpy.run_module("conformance.fixtures.reference_cli", run_name="__main__", alter_sys=True)


def _globals(ctx: click.Context) -> list[str]:
    obj: dict[str, Any] = ctx.find_root().obj
    out = {"json": ["-o", "json"], "ndjson": ["-o", "json"], "text": ["-o", "text"]}[obj["output"]]
    return [*out, *(["--verbose"] if obj["verbose"] else []), *(["--debug"] if obj["debug"] else [])]


def _credentials(bearer_env: str | None, api_key_env: str | None) -> list[str]:
    out: list[str] = []
    for flag, var in (("--bearer", bearer_env), ("--api-key", api_key_env)):
        if var is not None:
            if var not in os.environ:
                raise click.UsageError(f"{var} is not set")
            out += [flag, os.environ[var]]
    return out


def agent_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--url", required=False, help="Agent URL (http or https)")(f)
    f = click.option("--bearer-env", help="Env var holding a bearer token")(f)
    f = click.option("--api-key-env", help="Env var holding an API key")(f)
    return f


def _url(url: str | None) -> list[str]:
    if url is None:
        return []
    if not url.startswith(("http://", "https://")):
        raise click.BadParameter(f"{url!r} is not an http(s) URL", param_hint="'--url'")
    return ["-a", url]


@click.group()
@click.option("--output", type=click.Choice(["text", "json", "ndjson"]), default="text", help="Output format")
@click.option("-v", "--verbose", is_flag=True, help="Show the exchanged data")
@click.option("-d", "--debug", is_flag=True, help="Developer diagnostics")
@click.version_option("kli 1.0.0 (a Click group in front of the reference a2a-cli)", prog_name="kli",
                      message="%(version)s")
@click.pass_context
def cli(ctx: click.Context, output: str, verbose: bool, debug: bool) -> None:
    """kli - an A2A client."""
    ctx.obj = {"output": output, "verbose": verbose, "debug": debug}


@cli.group()
def message() -> None:
    """Send messages."""


def _send_command(name: str, stream: bool) -> None:
    @message.command(name)
    @agent_options
    @click.option("-t", "--text", "texts", multiple=True, help="Message text")
    @click.option("--attach", help="Attach a local file")
    @click.option("--mime", help="Media type of the attached file")
    @click.option("--json-file", help="Attach a data part from a JSON file")
    @click.option("--context-id", help="Context ID")
    @click.option("--task-id", help="Task ID to continue")
    @click.option("--no-wait", is_flag=True, help="Return at once with the task's ids")
    @click.option("--header", "headers", multiple=True, help="Service parameter 'Name:Value'")
    @click.option("--protocol", type=click.Choice(["jsonrpc", "rest"]), help="Binding to use")
    @click.option("--a2a-version", help="A2A version to ask for")
    @click.option("--meta", help="Metadata as a JSON object")
    @click.option("--insecure", is_flag=True, help="Skip TLS verification")
    @click.option("--env-file", help="Read A2ACLI_* settings from this file")
    @click.pass_context
    def send(ctx: click.Context, url: str | None, bearer_env: str | None, api_key_env: str | None,
             texts: tuple[str, ...], attach: str | None, mime: str | None, json_file: str | None,
             context_id: str | None, task_id: str | None, no_wait: bool, headers: tuple[str, ...],
             protocol: str | None, a2a_version: str | None, meta: str | None, insecure: bool,
             env_file: str | None) -> None:
        args = ["send", *_url(url), *_globals(ctx), *_credentials(bearer_env, api_key_env)]
        args += [a for t in texts for a in ("--text", t)]
        args += ["--file", attach] if attach else []
        args += ["--media-type", mime] if mime else []
        args += ["--data", json_file] if json_file else []
        args += ["--context-id", context_id] if context_id else []
        args += ["--task-id", task_id] if task_id else []
        args += ["--async"] if no_wait else []
        args += [a for h in headers for a in ("--svc-param", h)]
        args += ["--transport", {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}[protocol]] if protocol else []
        args += ["--a2a-version", a2a_version] if a2a_version else []
        args += ["--metadata", meta] if meta else []
        args += ["--insecure"] if insecure else []
        args += ["--config", env_file] if env_file else []
        args += ["--stream"] if stream else []
        run_reference(args)


_send_command("send", stream=False)
_send_command("stream", stream=True)


@cli.group()
def card() -> None:
    """Agent card operations."""


@card.command("get")
@agent_options
@click.option("--extended", is_flag=True, help="Fetch the extended card")
@click.pass_context
def card_get(ctx: click.Context, url: str | None, bearer_env: str | None, api_key_env: str | None,
             extended: bool) -> None:
    """Retrieve an agent's card."""
    run_reference(["card", "get", *_url(url), *_globals(ctx), *_credentials(bearer_env, api_key_env),
                   *(["--extended"] if extended else [])])


@card.command("validate")
@click.option("--url", help="Agent URL to validate")
@click.option("--file", "path", help="Card file to validate")
@click.pass_context
def card_validate(ctx: click.Context, url: str | None, path: str | None) -> None:
    """Validate an agent card from a URL or a file."""
    if (url is None) == (path is None):
        raise click.UsageError("give one of --url or --file")
    ref = _url(url) if url else ["-a", str(path)]
    run_reference(["card", "get", *ref, *_globals(ctx), *(["--validate"] if url else [])])


@cli.group()
def task() -> None:
    """Manage tasks."""


@task.command("get")
@click.argument("task_id")
@agent_options
@click.option("-n", "--history-length", type=int, help="History messages to include")
@click.option("--follow", is_flag=True, help="Poll until the task ends")
@click.option("--every", help="Pause between polls (e.g. 2s)")
@click.option("--deadline", help="Give up after this long")
@click.pass_context
def task_get(ctx: click.Context, task_id: str, url: str | None, bearer_env: str | None, api_key_env: str | None,
             history_length: int | None, follow: bool, every: str | None, deadline: str | None) -> None:
    """Retrieve a task."""
    args = ["task", "get", task_id, *_url(url), *_globals(ctx), *_credentials(bearer_env, api_key_env)]
    args += ["--history", str(history_length)] if history_length is not None else []
    args += ["--wait"] if follow else []
    args += ["--poll-interval", every] if every else []
    args += ["--timeout", deadline] if deadline else []
    run_reference(args)


@task.command("cancel")
@click.argument("task_id")
@agent_options
@click.pass_context
def task_cancel(ctx: click.Context, task_id: str, url: str | None, bearer_env: str | None,
                api_key_env: str | None) -> None:
    """Cancel a task."""
    run_reference(["task", "cancel", task_id, *_url(url), *_globals(ctx), *_credentials(bearer_env, api_key_env)])


@task.command("list")
@agent_options
@click.option("--status", type=click.Choice(STATES), help="Only tasks in this state")
@click.option("--context-id", help="Only tasks in this context")
@click.option("--page-size", type=int, help="Tasks per page")
@click.pass_context
def task_list(ctx: click.Context, url: str | None, bearer_env: str | None, api_key_env: str | None,
              status: str | None, context_id: str | None, page_size: int | None) -> None:
    """List tasks."""
    args = ["task", "list", *_url(url), *_globals(ctx), *_credentials(bearer_env, api_key_env)]
    args += ["--status", "TASK_STATE_" + status.upper().replace("-", "_")] if status else []
    args += ["--context-id", context_id] if context_id else []
    args += ["--page-size", str(page_size)] if page_size is not None else []
    run_reference(args)


@cli.group()
def config() -> None:
    """Configuration."""


@config.command("show")
@click.pass_context
def config_show(ctx: click.Context) -> None:
    """Show the effective settings."""
    run_reference(["config", "show", *_globals(ctx)])


if __name__ == "__main__":
    # the spec's variables under the tool's own names
    for mine, spec in (("KLI_TOKEN", "A2ACLI_BEARER"), ("KLI_KEY", "A2ACLI_API_KEY"),
                       ("KLI_AGENT", "A2ACLI_AGENT_CARD")):
        if mine in os.environ:
            os.environ[spec] = os.environ.pop(mine)
    cli(prog_name="kli")
