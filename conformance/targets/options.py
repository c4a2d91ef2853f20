"""One table of the options that describe a target: what the command line says with a flag and a targets
file (``matrix --targets``) says with a key.

The argument parser (:mod:`conformance.command.parser`) adds each option's flag from this table, the
targets file (:mod:`conformance.campaign.targets_file`) takes each option's key and checks its value's
form from it, and a test holds the README to it (every flag and key named). Options about the run rather
than the target (``--jobs``, ``--timeout``, ``--report-dir``, baselines, ``--require-*``) are not here: a
matrix sets those once for every target, or has its own.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Final, Literal

from conformance.agentd_page import ROLES
from conformance.revision import NEWEST, REVISIONS

#: The form of an option's value: in a targets file, a string (``text``, ``path``: resolved against the
#: file's folder), a positive number of seconds, a mapping of strings (``pairs``: the flag is repeated as
#: KEY=VALUE), a list of strings (the flag is repeated), or a mapping (``container``: the image and more).
Form = Literal["text", "path", "seconds", "pairs", "list", "container"]


@dataclass(frozen=True)
class TargetOption:
    """One option describing a target, as a flag and as a targets-file key."""

    flag: str
    #: The target kinds it applies to: ``cli``, ``agent``.
    kind: str
    #: Its targets-file key (a flag given once per value is a list or mapping key, spelled in the plural).
    key: str
    form: Form
    help: str
    metavar: str | None = None
    #: The flags sharing a group are mutually exclusive (``where``: the agent's location).
    group: str | None = None
    default: Any = None
    #: How the docs' table shows the key and its value, where the key and its form do not say it.
    key_shown: str | None = None
    value_shown: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def add_to(self, parser: argparse.ArgumentParser | Any) -> None:
        """Add this option's flag to ``parser`` (an argument parser or a mutually exclusive group)."""
        kw: dict[str, Any] = {"help": self.help}
        if self.metavar:
            kw["metavar"] = self.metavar
        if self.form in ("pairs", "list"):
            kw.update(action="append", default=[])
        elif self.form == "seconds":
            kw.update(type=float, default=self.default)
        elif self.default is not None:
            kw["default"] = self.default
        parser.add_argument(self.flag, **kw)


_PAIR = "KEY=VALUE"

#: Every option describing a target, in the order ``--help`` lists them.
OPTIONS: Final[tuple[TargetOption, ...]] = (
    # ---- a CLI ----
    TargetOption("--exe", "cli", "exe", "text", "the CLI under test as a command line (argv prefix)", "CMD"),
    TargetOption("--adapter", "cli", "adapter", "path", "adapter YAML mapping the spec's grammar onto the tool's",
                 "FILE"),
    TargetOption("--skill", "cli", "skill", "path", "the Agent Skill (SKILL.md) the tool ships, if any", "PATH"),
    TargetOption("--cli-timeout", "cli", "cli_timeout", "seconds",
                 "bound on each invocation of the CLI (default 20 s; also caps longer waits checks ask for)", "S"),
    TargetOption("--env", "cli", "env", "pairs",
                 "environment variable for the CLI under test, its value a secret kept out of every file the run "
                 "writes (repeatable; the run is otherwise isolated)", _PAIR),
    TargetOption("--env-plain", "cli", "env_plain", "pairs",
                 "environment variable for the CLI under test whose value is not a secret: the report shows it "
                 "(repeatable)", _PAIR),
    TargetOption("--language", "cli", "language", "text", "the tool's implementation language, for the report's "
                 "identity", "LANG"),
    TargetOption("--repository", "cli", "repository", "text", "the tool's repository, for the report's identity",
                 "URL"),
    TargetOption("--maintainer", "cli", "maintainer", "text", "the tool's maintainer or contact, for the report's "
                 "identity", "WHO"),
    # ---- an agent: where it is (one of) ----
    TargetOption("--url", "agent", "url", "text", "base URL of the agent (loopback or a test network)", group="where"),
    TargetOption("--unix", "agent", "unix", "path", "unix socket of the agent's JSON-RPC binding", "PATH",
                 group="where"),
    TargetOption("--launch", "agent", "launch", "text", "start a bundled target: reference (default), scripted, sdk",
                 "NAME", group="where"),
    TargetOption("--container", "agent", "container", "container",
                 "start IMAGE (a local image; nothing is pulled) once per configuration the checks need "
                 "(targets file: a mapping with its image and more, see conformance/targets/container.py)", "IMAGE",
                 group="where"),
    # ---- an agent: what it is given and told ----
    TargetOption("--container-env", "agent", "container", "pairs",
                 "(with --container) an environment variable for every container, its value a secret kept out of "
                 "every file the run writes (at least 4 characters); repeatable (targets file: the container's "
                 "secret_env_from, KEY: VARIABLE of the harness's environment)", _PAIR,
                 key_shown="container.secret_env_from", value_shown="KEY: VARIABLE (the harness's environment)"),
    TargetOption("--container-env-plain", "agent", "container", "pairs",
                 "(with --container) the same for a value that is not a secret (the report may show it; targets "
                 "file: the container's env)", _PAIR, key_shown="container.env"),
    TargetOption("--token", "agent", "tokens_env", "pairs",
                 f"bearer token for a role ({', '.join(ROLES)}); repeatable (targets file: role -> the environment "
                 "variable holding it)", "ROLE=TOKEN", value_shown="role: VARIABLE (the harness's environment)"),
    TargetOption("--fact", "agent", "facts", "pairs",
                 "a declared fact about the target the harness cannot switch (e.g. events=on)", _PAIR),
    TargetOption("--long-running-text", "agent", "long_running_text", "text",
                 "a message text the agent answers with a task that stays working until canceled (lets the core "
                 "checks that need a working task measure a --url target)", "TEXT"),
    TargetOption("--call-timeout", "agent", "call_timeout", "seconds",
                 "seconds to wait for one answer of the agent (default 60, for agents that answer through a model); "
                 "a call cut by it is not_measured, never a fail. --timeout bounds the whole run", "S"),
    TargetOption("--spec-revision", "agent", "spec_revision", "text",
                 f"the revision of the A2A text to judge by where revisions differ ({', '.join(REVISIONS)}; "
                 f"default {NEWEST}, the newest); the report names it", "REV"),
    TargetOption("--allow-origin", "agent", "allow_origins", "list",
                 "(with --url/--unix) an origin besides the one given whose interfaces are the agent's own (a reverse "
                 "proxy, another port); a card interface anywhere else fails the card row and is never called; "
                 "repeatable", "ORIGIN"),
    TargetOption("--defect", "agent", "defects", "list",
                 "(launched reference targets only) switch on a named defect, as the kill matrix does", "NAME"),
    TargetOption("--schema-source", "agent", "schema_source", "text",
                 "JSON Schema bundles to validate frames, results and annotations against: ours (default), target "
                 "(printed by the target's binary: see --agentd-binary), or a folder holding command.schema.json, "
                 "events.schema.json and task-annotations.schema.json", "ours|target|DIR", default="ours"),
    TargetOption("--agentd-binary", "agent", "agentd_binary", "text",
                 "the target's executable, for --schema-source target (default for --launch reference: the bundled "
                 "reference)", "CMD"),
)


def options_of(kind: str) -> tuple[TargetOption, ...]:
    """The options describing a target of ``kind`` (``cli`` or ``agent``), in table order."""
    return tuple(o for o in OPTIONS if o.kind == kind)


def add_target_options(parser: argparse.ArgumentParser, kind: str) -> None:
    """Add the flags of every option describing a ``kind`` target to ``parser`` (a group's flags exclusive)."""
    groups: dict[str, Any] = {}
    for opt in options_of(kind):
        if opt.group is None:
            opt.add_to(parser)
        else:
            if opt.group not in groups:  # (setdefault's default would make an empty group per option)
                groups[opt.group] = parser.add_mutually_exclusive_group()
            opt.add_to(groups[opt.group])


def keys_of(kind: str, *forms: Form) -> set[str]:
    """The targets-file keys of ``kind``'s options (of these forms only, when given)."""
    return {o.key for o in options_of(kind) if not forms or o.form in forms}


_FORM_WORDS = {"text": "a string", "path": "a path (relative to the targets file)", "seconds": "seconds",
               "pairs": "a mapping", "list": "a list", "container": "a mapping: image, port, env, ..."}


def options_table_md() -> str:
    """The table of :data:`OPTIONS` as the README shows it (a test holds the README's copy to this)."""
    lines = ["| flag | targets-file key | target | key's value |", "| --- | --- | --- | --- |"]
    for o in OPTIONS:
        lines.append(f"| `{o.flag}` | `{o.key_shown or o.key}` | {o.kind} | {o.value_shown or _FORM_WORDS[o.form]} |")
    return "\n".join(lines) + "\n"
