"""Adapters: map the a2a-cli specification's command grammar onto one tool's own spelling.

Checks are written in the grammar of SPEC.md §7 (``send --context-id C --text hi``). A tool that
spells things differently is measured through an adapter file; a report made through one records
its identity (:meth:`Adapter.identity`), because it measures a translation. Unsupported is fail:
translating arguments that use something the adapter marks unsupported raises
:class:`Unsupported`, an ``AssertionError`` that ends the check as ``fail``.

Schema (YAML; every key except ``adapter`` and ``tool`` optional; unknown keys are errors)::

    adapter: 1                      # schema version, the integer 1
    tool: mycli                     # the tool's name, for the report
    notes: "free text"              # shown in the report's identity block
    commands:                       # spec command path (or group, e.g. "task") -> the tool's
      card get: [agent, card]       #   words (a list, may be empty); the longest matching path
                                    #   wins and the words after it are kept
      task get: [tasks, show]       #   ("task push-config set" -> [webhooks, set] given
      task push-config: [webhooks]  #    task push-config: [webhooks])
    flags:                          # spec flag -> the tool's flag
      --context-id: --ctx           # a key applies to the other spelling of the same option too
      -o: --format                  #   (-o also covers --output, and the reverse)
    values:                         # spec flag -> {spec value: tool value}
      --transport: {JSONRPC: jsonrpc, HTTP+JSON: rest}
    positional:                     # command -> spec flags whose values become positional
      task get: [--task-id]         #   arguments, right after the command words, in this order
    positional_as_flag:             # command -> the tool flags that carry the spec's 1st, 2nd, ...
      send: [--message]             #   positional argument of that command
    credentials_env:                # spec credential flag -> env var the tool reads it from
      --bearer: MYCLI_TOKEN         #   (the flag and its value leave argv)
    env_names:                      # spec env var -> the tool's env var
      A2ACLI_BEARER: MYCLI_TOKEN
    unsupported:                    # what the tool lacks: flags ("-..."), commands
      - --poll-interval             #   ("task cancel", a prefix covers its subcommands),
      - task cancel                 #   and spec env vars ("A2ACLI_...")
    env:                            # environment pinned for every run (the run's env wins)
      NO_COLOR: "1"

Argument parsing knows which spec flags take a value (:data:`SPEC_VALUE_FLAGS`, built from SPEC.md
§7.2 and the per-command flags of §7.2/§10), so ``--task-id T`` moves as a pair, and
``--flag=value`` is understood. Any other flag is treated as a switch; a check that uses a
value-taking flag outside the spec's tables must add it to :data:`SPEC_VALUE_FLAGS`. After ``--``
every token is passed through unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.outcome import CheckFailed

ADAPTER_VERSION = 1

#: The spec's command paths (SPEC.md §7.1).
SPEC_COMMANDS: frozenset[tuple[str, ...]] = frozenset(
    tuple(c.split())
    for c in (
        "auth login", "card get", "chat", "completion", "config show", "conformance", "demo-server",
        "help", "send", "task cancel", "task download", "task get", "task list", "task push-config",
        "task subscribe",
    )
)

#: Spec flags that take a value: the global options of SPEC.md §7.2, plus ``--history``
#: (task get), ``--text``/``--file``/``--data``/``--media-type`` (send, §10.2).
SPEC_VALUE_FLAGS: frozenset[str] = frozenset({
    "--a2a-version", "-a", "--agent-card", "--bearer", "--api-key", "--config", "--context-id",
    "--metadata", "-o", "--output", "--poll-interval", "--timeout", "--svc-param", "--task-id",
    "--transport", "--history", "--text", "--file", "--data", "--media-type",
})

#: Spec flags that take no value (§7.2, §10.1), including the OPTIONAL aliases, which are
#: distinct spellings (a check of an alias tests that alias).
SPEC_SWITCHES: frozenset[str] = frozenset({
    "--async", "--return-immediately", "--no-wait", "--debug", "-h", "--help", "--insecure",
    "--stream", "--verbose", "-v", "--version", "--wait", "--watch", "--validate", "--extended",
})

#: Short and long spellings of the same option (§7.2), both directions.
_SHORT = {"-a": "--agent-card", "-o": "--output", "-h": "--help", "-v": "--version"}
_ALIASES = {**_SHORT, **{long: short for short, long in _SHORT.items()}}

_KEYS = {"adapter", "tool", "notes", "commands", "flags", "values", "positional",
         "positional_as_flag", "credentials_env", "env_names", "unsupported", "env"}
_FLAG_RE = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SPEC_ENV_RE = re.compile(r"^A2ACLI_[A-Z0-9_]+$")

Path_ = tuple[str, ...]


class AdapterError(ValueError):
    """An adapter file is malformed; the message names the file and the key."""

    def __init__(self, source: str, key: str, message: str) -> None:
        super().__init__(f"adapter {source}: {key}: {message}")
        self.source = source
        self.key = key


class Unsupported(CheckFailed):  # noqa: N818 - the name the checks use
    """The check needs a flag, command or variable the tool lacks: unsupported is fail."""

    def __init__(self, what: str, tool: str = "", feature: str = "") -> None:
        by = f" {tool}" if tool else ""
        super().__init__(f"{what} is not supported by the tool under test{by} (its adapter marks it "
                         "unsupported); unsupported is fail")
        self.what = what
        #: The spec feature as the check used it (a command path, a long flag, a variable).
        self.feature = feature or what


def _takes_value(flag: str) -> bool:
    return flag in SPEC_VALUE_FLAGS


def _lookup_flag(mapping: Mapping[str, Any], flag: str) -> Any:
    """``mapping[flag]``, else the entry for the other spelling of the same option, else None."""
    if flag in mapping:
        return mapping[flag]
    alt = _ALIASES.get(flag)
    return mapping.get(alt) if alt is not None else None


def _lookup_command(mapping: Mapping[Path_, Any], path: Path_) -> tuple[Path_, Any] | None:
    """The entry whose key is the longest prefix of ``path``."""
    best: tuple[Path_, Any] | None = None
    for key, value in mapping.items():
        if path[: len(key)] == key and (best is None or len(key) > len(best[0])):
            best = (key, value)
    return best


@dataclass
class _Token:
    kind: str  # "cmd" | "opt" | "pos" | "raw" (the "--" separator and everything after it)
    text: str
    flag: str = ""
    value: str | None = None
    inline: bool = False


def _tokenize(args: Sequence[str], known: set[Path_]) -> tuple[list[_Token], Path_]:
    """Split spec-grammar args into tokens and find the command path among the positionals."""
    tokens: list[_Token] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            tokens.extend(_Token("raw", t) for t in args[i:])
            break
        if a.startswith("-") and a != "-":
            if a.startswith("--") and "=" in a:
                flag, value = a.split("=", 1)
                tokens.append(_Token("opt", a, flag, value, inline=True))
            elif _takes_value(a) and i + 1 < len(args):
                tokens.append(_Token("opt", a, a, args[i + 1]))
                i += 1
            else:
                tokens.append(_Token("opt", a, a))
        else:
            tokens.append(_Token("pos", a))
        i += 1
    words = tuple(t.text for t in tokens if t.kind == "pos")
    path: Path_ = ()
    for cand in known:
        if words[: len(cand)] == cand and len(cand) > len(path):
            path = cand
    marked = 0
    for t in tokens:
        if marked == len(path):
            break
        if t.kind == "pos":
            t.kind = "cmd"
            marked += 1
    return tokens, path


@dataclass
class Adapter:
    """A loaded adapter; :meth:`translate` rewrites spec-grammar args for the tool."""

    tool: str
    source: str = "<inline>"
    sha256: str = ""
    notes: str = ""
    commands: dict[Path_, list[str]] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    positional: dict[Path_, list[str]] = field(default_factory=dict)
    positional_as_flag: dict[Path_, list[str]] = field(default_factory=dict)
    credentials_env: dict[str, str] = field(default_factory=dict)
    env_names: dict[str, str] = field(default_factory=dict)
    unsupported_commands: list[Path_] = field(default_factory=list)
    unsupported_flags: set[str] = field(default_factory=set)
    unsupported_env: set[str] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)

    # ---- loading -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Adapter:
        """Read and validate an adapter file; raises :class:`AdapterError` naming file and key."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except OSError as exc:
            raise AdapterError(str(p), "(file)", f"cannot read: {exc.strerror or exc}") from exc
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise AdapterError(str(p), "(file)", f"not valid YAML: {exc}") from exc
        return cls.from_dict(data, source=str(p), sha256=hashlib.sha256(raw).hexdigest())

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<inline>", sha256: str = "") -> Adapter:
        """Validate an already-parsed adapter document (what :meth:`load` does after reading)."""

        def err(key: str, message: str) -> AdapterError:
            return AdapterError(source, key, message)

        if not isinstance(data, dict):
            raise err("(file)", f"must be a mapping, got {type(data).__name__}")
        unknown = sorted(str(k) for k in data if k not in _KEYS)
        if unknown:
            raise err(unknown[0], f"unknown key (allowed: {', '.join(sorted(_KEYS))})")
        version = data.get("adapter")
        if type(version) is not int or version != ADAPTER_VERSION:
            raise err("adapter", f"must be the integer {ADAPTER_VERSION}, got {version!r}")
        tool = data.get("tool")
        if not isinstance(tool, str) or not tool.strip():
            raise err("tool", "must be a non-empty string")
        notes = data.get("notes", "")
        if not isinstance(notes, str):
            raise err("notes", "must be a string")
        if not sha256:
            sha256 = hashlib.sha256(yaml.safe_dump(data, sort_keys=True).encode()).hexdigest()
        ad = cls(tool=tool, source=source, sha256=sha256, notes=notes)

        def mapping(key: str) -> dict[Any, Any]:
            value = data.get(key, {})
            if value is None:
                value = {}
            if not isinstance(value, dict):
                raise err(key, f"must be a mapping, got {type(value).__name__}")
            return value

        def command(key: str, name: Any) -> Path_:
            if not isinstance(name, str) or not name.split():
                raise err(key, f"command must be a non-empty string, got {name!r}")
            words = tuple(name.split())
            if not any(words[: len(c)] == c or c[: len(words)] == words for c in SPEC_COMMANDS):
                raise err(f"{key}.{name}", "not a spec command (SPEC.md §7.1), its group or a subcommand")
            return words

        def spec_flag(key: str, flag: Any, *, value_taking: bool = False) -> str:
            if not isinstance(flag, str) or not _FLAG_RE.match(flag):
                raise err(key, f"not a flag: {flag!r}")
            if value_taking and not _takes_value(flag):
                raise err(f"{key}.{flag}", "not a spec flag that takes a value")
            return flag

        def word_list(key: str, value: Any, *, allow_empty: bool) -> list[str]:
            if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
                raise err(key, f"must be a list of non-empty strings, got {value!r}")
            if not value and not allow_empty:
                raise err(key, "must not be empty")
            return list(value)

        for name, words in mapping("commands").items():
            ad.commands[command("commands", name)] = word_list(f"commands.{name}", words, allow_empty=True)
        for flag, new in mapping("flags").items():
            spec_flag("flags", flag)
            if not isinstance(new, str) or not new:
                raise err(f"flags.{flag}", f"rename must be a non-empty string, got {new!r}")
            if not _FLAG_RE.match(new):
                raise err(f"flags.{flag}", f"rename must be a flag (starting with '-'), got {new!r}")
            ad.flags[flag] = new
        for flag, table in mapping("values").items():
            spec_flag("values", flag, value_taking=True)
            if not isinstance(table, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v for k, v in table.items()
            ):
                raise err(f"values.{flag}", "must map spec values (strings) to non-empty strings")
            ad.values[flag] = dict(table)
        for name, flags in mapping("positional").items():
            path = command("positional", name)
            items = word_list(f"positional.{name}", flags, allow_empty=False)
            ad.positional[path] = [spec_flag(f"positional.{name}", f, value_taking=True) for f in items]
        for name, flags in mapping("positional_as_flag").items():
            path = command("positional_as_flag", name)
            items = word_list(f"positional_as_flag.{name}", flags, allow_empty=False)
            ad.positional_as_flag[path] = [spec_flag(f"positional_as_flag.{name}", f) for f in items]
        for flag, var in mapping("credentials_env").items():
            spec_flag("credentials_env", flag, value_taking=True)
            if not isinstance(var, str) or not _ENV_RE.match(var):
                raise err(f"credentials_env.{flag}", f"must be an environment variable name, got {var!r}")
            ad.credentials_env[flag] = var
        for spec_var, var in mapping("env_names").items():
            if not isinstance(spec_var, str) or not _SPEC_ENV_RE.match(spec_var):
                raise err("env_names", f"key must be a spec variable A2ACLI_*, got {spec_var!r}")
            if not isinstance(var, str) or not _ENV_RE.match(var):
                raise err(f"env_names.{spec_var}", f"must be an environment variable name, got {var!r}")
            ad.env_names[spec_var] = var
        unsupported = data.get("unsupported", []) or []
        if not isinstance(unsupported, list):
            raise err("unsupported", f"must be a list, got {type(unsupported).__name__}")
        for item in unsupported:
            if isinstance(item, str) and item.startswith("-"):
                ad.unsupported_flags.add(spec_flag("unsupported", item))
            elif isinstance(item, str) and _SPEC_ENV_RE.match(item):
                ad.unsupported_env.add(item)
            else:
                ad.unsupported_commands.append(command("unsupported", item))
        for key, value in mapping("env").items():
            if not isinstance(key, str) or not _ENV_RE.match(key):
                raise err("env", f"not an environment variable name: {key!r}")
            if not isinstance(value, str):
                raise err(f"env.{key}", f"value must be a string (quote it), got {value!r}")
            ad.env[key] = value
        for flag in ad.unsupported_flags:
            for key, table in (("flags", ad.flags), ("credentials_env", ad.credentials_env)):
                if _lookup_flag(table, flag) is not None:
                    raise err(f"{key}.{flag}", "also listed as unsupported")
        for path in ad.unsupported_commands:
            if path in ad.commands:
                raise err(f"commands.{' '.join(path)}", "also listed as unsupported")
        return ad

    # ---- use -----------------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        """What the report's identity block records about this adapter."""
        return {"adapter": self.source, "tool": self.tool, "sha256": self.sha256,
                "schema": ADAPTER_VERSION, "notes": self.notes}

    def _known_paths(self) -> set[Path_]:
        return (set(SPEC_COMMANDS) | set(self.commands) | set(self.positional)
                | set(self.positional_as_flag) | set(self.unsupported_commands))

    def translate(
        self, args: Sequence[str], env: Mapping[str, str | None] | None = None
    ) -> tuple[list[str], dict[str, str | None]]:
        """Spec-grammar ``args`` and env overrides -> the tool's argv args and env overrides.

        The returned env is the adapter's pinned ``env`` with the (renamed) caller env on top, plus
        any credential moved out of argv. Raises :class:`Unsupported` on anything unsupported.
        """
        tokens, path = _tokenize(args, self._known_paths())
        self._refuse_unsupported(tokens, path, env or {})

        out_env: dict[str, str | None] = dict(self.env)
        for k, v in (env or {}).items():
            out_env[self.env_names.get(k, k)] = v

        moved: list[str] = []
        hit = _lookup_command(self.positional, path)
        if hit is not None:
            for spec in hit[1]:
                for t in tokens:
                    if t.kind == "opt" and t.value is not None and spec in (t.flag, _ALIASES.get(t.flag)):
                        moved.append(t.value)
                        t.kind = "dropped"
        hit = _lookup_command(self.commands, path)
        words = list(path) if hit is None else [*hit[1], *path[len(hit[0]):]]
        hit = _lookup_command(self.positional_as_flag, path)
        as_flag = [] if hit is None else hit[1]

        out: list[str] = []
        command_done = False
        n_pos = 0
        for t in tokens:
            if t.kind == "cmd":
                if not command_done:
                    out += words + moved
                    command_done = True
            elif t.kind == "opt":
                var = _lookup_flag(self.credentials_env, t.flag)
                if var is not None and t.value is not None:
                    out_env[var] = t.value
                    continue
                new = _lookup_flag(self.flags, t.flag) or t.flag
                value = t.value
                table = _lookup_flag(self.values, t.flag)
                if value is not None and table is not None:
                    value = table.get(value, value)
                if t.inline:
                    out.append(f"{new}={value}")
                else:
                    out += [new] if value is None else [new, value]
            elif t.kind == "pos":
                if n_pos < len(as_flag):
                    out += [as_flag[n_pos], t.text]
                else:
                    out.append(t.text)
                n_pos += 1
            elif t.kind == "raw":
                out.append(t.text)
        return out, out_env

    def _refuse_unsupported(self, tokens: list[_Token], path: Path_, env: Mapping[str, str | None]) -> None:
        for u in self.unsupported_commands:
            if path[: len(u)] == u:
                raise Unsupported(f"command '{' '.join(u)}'", self.tool, " ".join(path))
        for t in tokens:
            if t.kind == "opt" and (t.flag in self.unsupported_flags
                                    or _ALIASES.get(t.flag) in self.unsupported_flags):
                long = t.flag if t.flag.startswith("--") else _ALIASES.get(t.flag, t.flag)
                raise Unsupported(f"flag {t.flag}", self.tool, long)
        for var, value in env.items():
            if var in self.unsupported_env and value is not None:
                raise Unsupported(f"environment variable {var}", self.tool, var)
