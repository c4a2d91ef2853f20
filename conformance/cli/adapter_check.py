"""``agentd-conformance adapter check FILE --exe TOOL``: is an adapter file right for its tool?

Three things, in order:

1. **Valid?** The file is loaded as a run would load it; a malformed one is refused by
   :class:`~conformance.cli.adapter.AdapterError`, naming the key path (``rewrites[1].when.-o``).
2. **Does the tool know what the adapter says it spells?** With an executable, the tool is asked for
   its help — the tool's own ``--help`` and, through the adapter, ``<command> --help`` of each Tier 1
   command, of each command the adapter maps and of each command a flag selects — and every command
   and flag the adapter maps to is looked for in what those helps printed. One the help never
   mentions is a warning (a typo in the adapter, or a hidden option worth a second look).
3. **What will run?** One sample invocation per spec command (and the version and help flags),
   translated, so a vendor sees the argv and environment each check's invocation becomes.

Runs are isolated and bounded as the checks' runs are (:class:`~conformance.cli.runner.CliRunner`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.cli.adapter import SPEC_COMMANDS, Adapter, Unsupported
from conformance.cli.features import ADAPTER_UNSUPPORTED
from conformance.cli.runner import CliRunner

URL = "http://127.0.0.1:8000"
#: One invocation per spec command (SPEC.md §7.1), the richer ones using the flags adapters most often
#: have to rewrite; then the surface flags.
SAMPLES: tuple[tuple[str, ...], ...] = (
    ("auth", "login", "-a", URL),
    ("card", "get", "-a", URL, "-o", "json"),
    ("chat", "-a", URL),
    ("completion", "bash"),
    ("config", "show"),
    ("conformance", "-a", URL),
    ("demo-server",),
    ("help", "send"),
    ("send", "--text", "hello", "-a", URL, "--bearer", "TOKEN", "--transport", "HTTP+JSON", "-o", "json",
     "--stream"),
    ("task", "cancel", "TASK_ID", "-a", URL),
    ("task", "download", "TASK_ID", "-a", URL),
    ("task", "get", "TASK_ID", "--wait", "-a", URL, "--poll-interval", "2s", "-o", "json"),
    ("task", "list", "-a", URL),
    ("task", "push-config", "list", "TASK_ID", "-a", URL),
    ("task", "subscribe", "TASK_ID", "-a", URL),
    ("--help",),
    ("-v",),
    ("--version",),
)
#: The commands whose help is always asked for (the Tier 1 surface, §7.1).
TIER1 = (("send",), ("card", "get"), ("task", "get"), ("task", "cancel"))


@dataclass
class HelpRun:
    spec_args: list[str]
    argv: list[str]
    exit_code: int | None
    text: str


@dataclass
class Sample:
    spec_args: list[str]
    argv: list[str] | None  # None: unsupported by the tool (adapter)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class CheckResult:
    adapter: Adapter
    tool: list[str]
    """How the tool is shown: its executable's name and the rest of its argv prefix."""
    helps: list[HelpRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    version: str | None = None


def _help_invocations(adapter: Adapter) -> list[list[str]]:
    """Spec-grammar help invocations: the tool's, then each command's, then each flag-selected command's."""
    paths: list[tuple[str, ...]] = list(TIER1)
    paths += [p for p in adapter.commands if p in SPEC_COMMANDS and p not in paths]
    out: list[list[str]] = [["--help"]] + [[*p, "--help"] for p in paths]
    for path, table in adapter.flag_commands.items():
        out += [[*path, flag, "--help"] for flag in table]
    return out


def _mapped(adapter: Adapter) -> list[tuple[str, str, bool]]:
    """(key path, tool spelling, is a command) of everything the adapter says the tool spells."""
    out: list[tuple[str, str, bool]] = []
    out += [(f"commands.{' '.join(p)}", " ".join(w), True) for p, w in adapter.commands.items() if w]
    out += [(f"flag_commands.{' '.join(p)}.{f}", " ".join(w), True)
            for p, table in adapter.flag_commands.items() for f, w in table.items()]
    out += [(f"flags.{k}", v, False) for k, v in adapter.flags.items()]
    out += [(f"credentials_by_name.{k}", v, False) for k, v in adapter.credentials_by_name.items()]
    out += [(f"positional_as_flag.{' '.join(p)}", f, False) for p, fs in adapter.positional_as_flag.items() for f in fs]
    for i, rule in enumerate(adapter.rewrites):
        out += [(f"rewrites[{i}].to", w, False) for w in rule.to if w.startswith("-")]
    return out


def _mentioned(spelling: str, command: bool, text: str) -> bool:
    if command:
        pattern = r"\s+".join(re.escape(w) for w in spelling.split())
        return re.search(rf"(?<![\w-]){pattern}(?![\w-])", text) is not None
    return re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w=-])|(?<![\w-]){re.escape(spelling)}=", text) is not None


def check_adapter(path: str | Path, prefix: Sequence[str] | None = None, *, timeout: float = 10.0) -> CheckResult:
    """Load ``path`` (raises :class:`~conformance.cli.adapter.AdapterError`), consult the tool ``prefix``
    when given (raises :class:`~conformance.cli.runner.ExecutableNotFound`), translate the samples."""
    adapter = Adapter.load(path)
    tool = [Path(prefix[0]).name, *prefix[1:]] if prefix else [adapter.tool]
    result = CheckResult(adapter, tool)
    for spec in SAMPLES:
        try:
            argv, env = adapter.translate(spec)
        except Unsupported:
            result.samples.append(Sample(list(spec), None))
            continue
        extra = {k: v for k, v in env.items() if v is not None and adapter.env.get(k) != v}
        result.samples.append(Sample(list(spec), argv, extra))
    if not prefix:
        return result
    runner = CliRunner(list(prefix), adapter=adapter, timeout=timeout)
    runner.check_executable()
    for help_args in _help_invocations(adapter):
        try:
            r = runner.run(help_args)
        except Unsupported:
            continue
        text = r.stdout_text + r.stderr_text
        run = HelpRun(help_args, r.argv[len(prefix):], r.exit_code, text)
        result.helps.append(run)
        if r.exit_code != 0 or not text.strip():
            result.warnings.append(f"`{shlex.join([*tool, *run.argv])}` (help for spec `{shlex.join(help_args)}`) "
                                   f"exited {r.exit_code if r.exit_code is not None else 'on a signal'}"
                                   f"{'' if text.strip() else ' and printed nothing'}")
    everything = "\n".join(h.text for h in result.helps if h.exit_code == 0)
    for key, spelling, command in _mapped(adapter):
        if not _mentioned(spelling, command, everything):
            what = "command" if command else "flag"
            result.warnings.append(f"{key}: the tool's help never mentions the {what} {spelling!r}")
    try:
        r = runner.run(["--version"])
        line = (r.stdout_text or r.stderr_text).strip().splitlines()
        if r.exit_code == 0 and line:
            result.version = f"{line[0][:120]} (asked as `{shlex.join(r.argv[len(prefix):])}`)"
    except Unsupported:
        pass
    return result


def render(result: CheckResult) -> str:
    """What the command prints: validity, the helps consulted, the warnings, the translations."""
    ad = result.adapter
    lines = [f"adapter {ad.source}: valid (schema {ad.version}, tool {ad.tool})"]
    if result.version:
        lines.append(f"tool version: {result.version}")
    for flag, argv in ad.version_check().items():
        lines.append(f"version check: the spec's `{flag}` is asked as `{argv}` (the report says so)")
    if result.helps:
        lines += ["", "help consulted:"]
        lines += [f"  {shlex.join([*result.tool, *h.argv])}  -> exit {h.exit_code}" for h in result.helps]
        lines += ["", f"warnings: {len(result.warnings) or 'none'}"]
        lines += [f"  warning: {w}" for w in result.warnings]
    else:
        lines += ["", "no --exe given: the tool's help was not consulted"]
    lines += ["", "translations (spec grammar -> the tool's):"]
    if ad.env:
        lines.append(f"  (every run's environment pins {' '.join(f'{k}={shlex.quote(v)}' for k, v in ad.env.items())})")
    for s in result.samples:
        lines.append(f"  {shlex.join(s.spec_args)}")
        if s.argv is None:
            lines.append(f"    -> {ADAPTER_UNSUPPORTED}: the rows that name it fail")
            continue
        lines.append(f"    -> {shlex.join([*result.tool, *s.argv])}")
        if s.env:
            lines.append(f"       env: {' '.join(f'{k}={shlex.quote(v)}' for k, v in sorted(s.env.items()))}")
    return "\n".join(lines) + "\n"
