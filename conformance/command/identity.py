"""What a run's report says about what was judged: the tool's own version line, the adapter by file name
and hash, the bundled target and its defects, the command line without this machine's paths, and what
this machine lacks that limits the claim (``conformance.report.model.Identity``)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.cli.adapter import Adapter, Unsupported
from conformance.context import private_dir
from conformance.redact import MARK
from conformance.registry import Registry

#: Programs this machine must have for a requirement's checks to measure it (else it is not_measured,
#: naming the program): the shells whose completion CLI_002 loads.
MACHINE_PROGRAMS: dict[str, tuple[str, ...]] = {"A2ACLI_CLI_002": ("zsh", "fish")}

#: What the scripted agent a CLI is exercised against is, in the form's "TCK-conformant?" field.
SCRIPTED_AGENT_TCK = ("not run against the A2A TCK; the scripted agent passes every A2A_* row of "
                      "agentd-conformance's own A2A v1.0.1 family")

#: The bundled reference CLI's own identity fields (COMPLIANCE.md §1).
REFERENCE_CLI_FACTS = {"language": "Python", "repository": "bundled with agentd-conformance "
                       "(conformance/fixtures/reference_cli)", "maintainer": "agentd-conformance"}

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_VERSIONISH = re.compile(r"\d+\.\d+")
VERSION_TIMEOUT = 20.0


def public_path(path: str) -> str:
    """``path`` as a report may show it: relative to the working directory when inside it, else its
    file name alone (an absolute path of the machine that ran the harness is never published)."""
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path, os.getcwd())
    except ValueError:
        rel = ".."
    return rel if not rel.startswith("..") else Path(path).name


def _public_word(word: str) -> str:
    flag, sep, value = word.partition("=")
    if sep and flag.startswith("-") and os.path.isabs(value):
        return f"{flag}={public_path(value)}"
    if " " in word:  # a command line given as one argument (--exe 'node /x/cli.js')
        try:
            return shlex.join(public_path(w) for w in shlex.split(word))
        except ValueError:
            return word
    return public_path(word)


#: The flags whose ``KEY=VALUE`` values are secrets: the command line a report records shows their keys only.
SECRET_FLAGS = ("--token", "--env", "--container-env")


def secret_free_argv(argv: Sequence[str]) -> list[str]:
    """The command's arguments with the value of every ``--token ROLE=TOKEN``, ``--env KEY=VALUE`` and
    ``--container-env KEY=VALUE`` hidden (``--env-plain``/``--container-env-plain`` values stay: the user said
    they are not secret)."""
    out: list[str] = []
    hide = False
    for a in argv:
        flag, eq, given = a.partition("=")
        if hide:
            out.append(f"{a.partition('=')[0]}={MARK}")
            hide = False
        elif a in SECRET_FLAGS:
            out.append(a)
            hide = True
        elif eq and flag in SECRET_FLAGS:
            out.append(f"{flag}={given.partition('=')[0]}={MARK}")
        else:
            out.append(a)
    return out


def public_argv(argv: Sequence[str]) -> list[str]:
    """The command's arguments with every absolute path made relative or cut to its file name."""
    return [_public_word(a) for a in argv]


def tool_version(prefix: Sequence[str], adapter: str | None = None, env: Mapping[str, str] | None = None,
                 timeout: float = VERSION_TIMEOUT) -> str | None:
    """The version the tool prints for ``--version`` (asked through the adapter, if any): the first line of
    its stdout, or of its stderr when stdout is empty (a JSON answer gives its ``version``); None when it
    prints nothing, or fails without printing anything that reads as a version."""
    args = ["--version"]
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", **dict(env or {})}
    if adapter:
        try:
            args, extra = Adapter.load(Path(adapter)).translate(args)
        except Unsupported:
            return None
        full.update({k: v for k, v in extra.items() if v is not None})
    home = private_dir("agentd-conformance-version-")
    full["HOME"] = full["TMPDIR"] = str(home)
    try:
        proc = subprocess.run([*prefix, *args], capture_output=True, timeout=timeout, env=full,
                              stdin=subprocess.DEVNULL, cwd=home)
    except (OSError, subprocess.TimeoutExpired):
        return None
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for stream in (proc.stdout, proc.stderr):
        line = version_line(stream.decode("utf-8", errors="replace"))
        if line and (proc.returncode == 0 or _VERSIONISH.search(line)):
            return line
    return None


def version_line(text: str) -> str | None:
    """The version a ``--version`` output states: a JSON document's ``version``, else its first line."""
    text = _ANSI.sub("", text).strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("version"), str | int | float):
        name = doc.get("name")
        return f"{name} {doc['version']}" if isinstance(name, str) else str(doc["version"])
    return text.splitlines()[0].strip()[:120]


def adapter_info(adapter: Adapter) -> dict[str, Any]:
    """The fields of the report's ``AdapterInfo``: the file by name, its sha256, schema, tool, notes and
    the version check's rewrites."""
    return {"file": Path(adapter.source).name, "sha256": adapter.sha256, "schema": adapter.version,
            "tool": adapter.tool, "notes": adapter.notes or None, "version_check": adapter.version_check()}


def machine_caveats(registry: Registry, scope: Iterable[str] | None, family: str,
                    which: Callable[[str], str | None] = shutil.which) -> list[str]:
    """One sentence per requirement in ``scope`` that this machine cannot measure in full, naming the
    missing programs and the highest tier the run can still claim."""
    ids = set(scope) if scope is not None else {r.id for r in registry.select(family=family)}
    out: list[str] = []
    for rid, programs in MACHINE_PROGRAMS.items():
        missing = [p for p in programs if which(p) is None]
        if rid not in ids or not missing:
            continue
        tier = registry[rid].tier
        cap = (f"no tier above {tier - 1} can be claimed on this machine" if tier and tier > 1
               else "no tier can be claimed on this machine")
        out.append(f"{' and '.join(missing)} not installed: {rid} (Tier {tier}) cannot be measured in full, "
                   f"so {cap}")
    return out
