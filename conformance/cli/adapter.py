"""Adapters: map the a2a-cli specification's command grammar onto one tool's own spelling.

Checks are written in the grammar of SPEC.md §7 (``send --context-id C --text hi``). A tool that
spells things differently is measured through an adapter file; a report made through one records
its identity (:meth:`Adapter.identity`), because it measures a translation. Unsupported is fail:
translating arguments that use something the adapter marks unsupported raises
:class:`Unsupported`, an ``AssertionError`` that ends the check as ``fail``.

Schema (YAML; every key except ``adapter`` and ``tool`` optional; unknown keys are errors)::

    adapter: 1                      # schema version: 1, 2 or 3 for the keys of versions 2, 3 below
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

Version 2 (``adapter: 2``) keeps every key above and adds::

    placement:                      # spec flag -> where the tool accepts it: before | after its
      --agent-card: before          #   command words ("mycli --card U message send"); a flag with
      --text: after                 #   no entry stays where the check put it
    credentials_by_name:            # spec credential flag -> the tool's flag that takes the NAME of
      --bearer: --bearer-env        #   a variable: the harness puts the secret in a variable of its
                                    #   choosing (CREDENTIAL_VARS) and passes the name
    rewrites:                       # value-dependent and combined rewrites, tried in order; each
      - when: {-o: json, --stream: true}   # fires on every set of options that all match (a value,
        to: [--jsonl]               #   or true for a switch), replaces them with ``to``, placed as
      - when: {-o: json}            #   ``place`` says (before | after), else as the first ``when``
        to: [--json]                #   flag's placement; ``command`` limits a rule to one command
    flag_commands:                  # spec command -> {spec switch: the tool words it selects}
      send: {--stream: [stream]}    #   (the switch leaves argv; rewrites still see it)
      task get: {--wait: [task, watch]}

Version 3 (``adapter: 3``) keeps every key above and adds three shapes::

    arguments:                      # command -> the tool's positional arguments, in order: "$1",
      task push-config create: [$1, --url]   # "$2", ... are the spec's 1st, 2nd positional
                                    #   argument after the command words; a spec value flag stands
                                    #   for its value ("push-config create <task> <url>"); spec
                                    #   positionals not listed follow, in order
    help_topic: flag                # `help X` is spelled `X --help` (X in the tool's words), `help`
                                    #   alone `--help`; the default, command, keeps `help X`
    rewrites:                       # a rule may also match a value by its shape and route it:
      - when: {-a: {shape: path}}   #   {shape: url | path | host}, or {matches: REGEX} (whole
        words: [card, validate]     #   value); ``words`` replaces the command words; "{-a}" in
        to: [--file, "{-a}"]        #   ``to`` stands for the value the flag -a matched
        command: card get

The help and version checks go through the adapter too: they look for the tool's command words
(:meth:`Adapter.command_words`) and flag spellings (:meth:`Adapter.flag_spelling`), and the identity
records the rewrites that touched the version check (``version_check``).

Argument parsing knows which spec flags take a value (:data:`SPEC_VALUE_FLAGS`, built from SPEC.md
§7.2 and the per-command flags of §7.2/§10), so ``--task-id T`` moves as a pair, and
``--flag=value`` is understood. Any other flag is treated as a switch; a check that uses a
value-taking flag outside the spec's tables must add it to :data:`SPEC_VALUE_FLAGS`. After ``--``
every token is passed through unchanged.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.outcome import CheckFailed

#: The schema versions this harness reads.
ADAPTER_VERSIONS = (1, 2, 3)
ADAPTER_VERSION = ADAPTER_VERSIONS[-1]

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
    # `auth login` and mutual TLS (§12.2, §12.3 name no flags; the harness's spellings, mapped by adapters)
    "--client-id", "--client-secret", "--client-cert", "--client-key",
    # `task list` and `task push-config` (App. A's ListTasks and push-config fields; the harness's spellings)
    "--page-size", "--page-token", "--status", "--url", "--token", "--auth-scheme", "--auth-credentials",
})

#: Spec flags that take no value (§7.2, §10.1), including the OPTIONAL aliases, which are
#: distinct spellings (a check of an alias tests that alias).
SPEC_SWITCHES: frozenset[str] = frozenset({
    "--async", "--return-immediately", "--no-wait", "--debug", "-h", "--help", "--insecure",
    "--stream", "--verbose", "-v", "--version", "--wait", "--watch", "--validate", "--extended",
})

#: The spec's credential flags (§12.1): what ``credentials_env`` and ``credentials_by_name`` take.
CREDENTIAL_FLAGS = ("--bearer", "--api-key")
#: The variable the harness puts a ``credentials_by_name`` secret in (a second use of the same flag
#: in one invocation gets ``_2``, and so on).
CREDENTIAL_VARS = {"--bearer": "AGENTD_CONFORMANCE_BEARER", "--api-key": "AGENTD_CONFORMANCE_API_KEY"}

#: Short and long spellings of the same option (§7.2), both directions.
_SHORT = {"-a": "--agent-card", "-o": "--output", "-h": "--help", "-v": "--version"}
_ALIASES = {**_SHORT, **{long: short for short, long in _SHORT.items()}}

_KEYS_V1 = {"adapter", "tool", "notes", "commands", "flags", "values", "positional",
            "positional_as_flag", "credentials_env", "env_names", "unsupported", "env"}
_KEYS_V2 = {"placement", "credentials_by_name", "rewrites", "flag_commands"}
_KEYS_V3 = {"arguments", "help_topic"}
_RULE_KEYS = {"when", "to", "place", "command"}
_RULE_KEYS_V3 = {"words"}
_HELP_TOPICS = ("command", "flag")
#: A spec positional in ``arguments``: ``$1`` is the first positional argument after the command words.
_POS_RE = re.compile(r"^\$([1-9][0-9]*)$")
#: ``{-a}`` / ``{--agent-card}`` in a rule's ``to``: the value the rule's ``when`` matched for that flag.
_VALUE_REF_RE = re.compile(r"\{(--?[A-Za-z0-9][A-Za-z0-9_.-]*)\}")
#: What a value looks like, for rules that route by shape (the three forms of an agent-card reference,
#: SPEC.md §7.2): ``file`` — a ``file://`` URL, or a path (starts with ``/``, ``./``, ``../`` or ``~``,
#: holds a ``/``, or ends with ``.json``); ``url`` — any other ``scheme://``; ``host`` — anything else
#: (``localhost:8000``, ``example.com``). Decided from the text alone, never from the file system.
SHAPES = ("url", "file", "host")
_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def shape_of(value: str) -> str:
    """The shape of ``value``, one of :data:`SHAPES`."""
    if value.startswith("file://"):
        return "file"
    if _URL_RE.match(value):
        return "url"
    if value.startswith(("/", "./", "../", "~")) or "/" in value or value.endswith(".json"):
        return "file"
    return "host"
_PLACES = ("before", "after")
_FLAG_RE = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SPEC_ENV_RE = re.compile(r"^A2ACLI_[A-Z0-9_]+$")

Path_ = tuple[str, ...]


class AdapterError(ValueError):
    """An adapter file is malformed; the message (one line) names the file, the line when the file
    has one for the key, and the key path: ``adapter mycli.yaml:12: rewrites[1].when.-o: ...``."""

    def __init__(self, source: str, key: str, message: str, line: int | None = None) -> None:
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"adapter {where}: {key}: {' '.join(message.split())}")
        self.source = source
        self.key = key
        self.line = line


_KEY_STEP = re.compile(r"^\[(\d+)\]")


def _line_of(node: yaml.Node | None, key: str) -> int | None:
    """The 1-based line of the deepest entry of ``node`` along the key path ``key``
    (``rewrites[1].when.-o``, ``commands.card get``), or None when the path names nothing in the file."""
    line: int | None = None
    rest = key
    while node is not None and rest:
        step = _KEY_STEP.match(rest)
        if isinstance(node, yaml.SequenceNode) and step is not None:
            i = int(step.group(1))
            if i >= len(node.value):
                break
            node = node.value[i]
            line = node.start_mark.line + 1
            rest = rest[step.end():].removeprefix(".")
            continue
        if not isinstance(node, yaml.MappingNode):
            break
        best: tuple[str, yaml.Node, yaml.Node] | None = None
        for k, v in node.value:
            name = str(k.value)
            hit = rest == name or rest.startswith((name + ".", name + "["))
            if hit and (best is None or len(name) > len(best[0])):
                best = (name, k, v)
        if best is None:
            break
        name, k, node = best
        line = k.start_mark.line + 1
        rest = rest[len(name):].removeprefix(".")
    return line


class Unsupported(CheckFailed):  # noqa: N818 - the name the checks use
    """The check needs a flag, command or variable the tool lacks: unsupported is fail."""

    def __init__(self, what: str, tool: str = "", feature: str = "",
                 more: tuple[tuple[str, str], ...] = ()) -> None:
        by = f" {tool}" if tool else ""
        said = ", ".join([what, *(w for w, _ in more)])
        super().__init__(f"{said} {'are' if more else 'is'} not supported by the tool under test{by} (its adapter "
                         "marks it unsupported); unsupported is fail")
        self.what = said
        #: The spec feature as the check used it (a command path, a long flag, a variable): the first.
        self.feature = feature or what
        #: Every unsupported feature the invocation uses, in argv order (commands, flags, variables).
        self.features = (self.feature, *(f for _, f in more))


def _takes_value(flag: str) -> bool:
    return flag in SPEC_VALUE_FLAGS


def _same_option(a: str, b: str) -> bool:
    return a == b or _ALIASES.get(a) == b


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
    #: What the token becomes in the tool's argv, once decided (None: translate it as a flag).
    emit: list[str] | None = None
    #: Where it goes, once decided: "before" / "after" the command words (None: where it was).
    place: str | None = None
    #: Taken by a rewrite rule (no other rule may use it).
    rewritten: bool = False


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


@dataclass(frozen=True)
class ValueMatch:
    """A rule's test of a value (version 3): its shape (:data:`SHAPES`) or a regular expression that
    must match the whole value."""

    shape: str | None = None
    pattern: str | None = None

    def matches(self, value: str) -> bool:
        if self.shape is not None:
            return shape_of(value) == self.shape
        return self.pattern is not None and re.fullmatch(self.pattern, value) is not None

    def describe(self) -> str:
        return f"<a {self.shape}>" if self.shape is not None else f"<matching {self.pattern}>"


Want = str | bool | ValueMatch


def _wanted(want: Want, value: str | None) -> bool:
    if want is True:
        return value is None
    if value is None:
        return False
    return want.matches(value) if isinstance(want, ValueMatch) else value == want


@dataclass(frozen=True)
class Rewrite:
    """One ``rewrites`` rule: spec options (value, True for a switch, or a :class:`ValueMatch`) -> the
    tool's args (``{FLAG}`` in them: the value matched for FLAG), and, from version 3, the tool's command
    words (``words``)."""

    when: tuple[tuple[str, Want], ...]
    to: tuple[str, ...]
    place: str | None = None
    command: Path_ | None = None
    words: tuple[str, ...] | None = None

    def describe(self) -> str:
        got = " ".join(f if v is True else f"{f} {v.describe() if isinstance(v, ValueMatch) else v}"
                       for f, v in self.when)
        where = f" on {' '.join(self.command)}" if self.command else ""
        then = f" (command {shlex.join(self.words)})" if self.words is not None else ""
        return f"{got}{where} -> {shlex.join(self.to) or '(nothing)'}{then}"

    def render(self, matched: Mapping[str, str | None]) -> list[str]:
        """``to`` with each ``{FLAG}`` replaced by the value matched for FLAG (either spelling)."""
        def value(m: re.Match[str]) -> str:
            got = _lookup_flag(matched, m.group(1))
            return got if got is not None else m.group(0)
        return [_VALUE_REF_RE.sub(value, w) for w in self.to]


@dataclass
class Adapter:
    """A loaded adapter; :meth:`translate` rewrites spec-grammar args for the tool."""

    tool: str
    source: str = "<inline>"
    sha256: str = ""
    notes: str = ""
    version: int = 1
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
    # version 2
    placement: dict[str, str] = field(default_factory=dict)
    credentials_by_name: dict[str, str] = field(default_factory=dict)
    rewrites: list[Rewrite] = field(default_factory=list)
    flag_commands: dict[Path_, dict[str, list[str]]] = field(default_factory=dict)
    # version 3
    arguments: dict[Path_, list[str]] = field(default_factory=dict)
    help_topic: str = "command"

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
            node = yaml.compose(raw, Loader=yaml.SafeLoader)
            data = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            problem = getattr(exc, "problem", None) or str(exc)
            raise AdapterError(str(p), "(file)", f"not valid YAML: {problem}",
                               mark.line + 1 if mark is not None else None) from exc
        except UnicodeDecodeError as exc:
            raise AdapterError(str(p), "(file)", f"not UTF-8 text: {exc.reason}") from exc
        return _Loader(data, str(p), node).load(cls, hashlib.sha256(raw).hexdigest())

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<inline>", sha256: str = "") -> Adapter:
        """Validate an already-parsed adapter document (what :meth:`load` does after reading)."""
        return _Loader(data, source).load(cls, sha256)

    # ---- what the report and the surface checks read ---------------------------------------------

    def identity(self) -> dict[str, Any]:
        """What the report's identity block records about this adapter: the file, the tool, and
        (when the adapter rewrites them) how the version check's invocations reached the tool."""
        ident: dict[str, Any] = {"adapter": self.source, "tool": self.tool, "sha256": self.sha256,
                                 "schema": self.version, "notes": self.notes}
        touched = self.version_check()
        if touched:
            ident["version_check"] = touched
        return ident

    def version_check(self) -> dict[str, str]:
        """Spec spelling -> the tool's argv, for each version flag the adapter rewrites."""
        out: dict[str, str] = {}
        for flag in ("-v", "--version"):
            try:
                args, _ = self.translate([flag])
            except Unsupported:
                out[flag] = "unsupported by the tool (adapter)"
                continue
            if args != [flag]:
                out[flag] = shlex.join(args)
        return out

    def command_words(self, path: Sequence[str]) -> list[str]:
        """The tool's words for the spec command ``path`` (``send`` -> ``message send``)."""
        p = tuple(path)
        hit = _lookup_command(self.commands, p)
        return list(p) if hit is None else [*hit[1], *p[len(hit[0]):]]

    def flag_spelling(self, flag: str) -> str:
        """The tool's spelling of the spec flag ``flag`` (its rename, else the flag itself)."""
        return _lookup_flag(self.flags, flag) or flag

    def spellings(self, feature: str) -> list[tuple[str, bool]]:
        """How the tool spells a spec feature, beyond the spec's own spelling: (text, is_command) pairs
        from renames, credential flags, rewrites and the commands a flag selects."""
        out: list[tuple[str, bool]] = []
        if feature.startswith("-"):
            out += [(v, False) for k, v in self.flags.items() if _same_option(k, feature)]
            out += [(v, False) for k, v in self.credentials_by_name.items() if _same_option(k, feature)]
            for rule in self.rewrites:
                if any(_same_option(f, feature) for f, _ in rule.when):
                    out += [(w, False) for w in rule.to if w.startswith("-")]
            for table in self.flag_commands.values():
                out += [(" ".join(words), True) for f, words in table.items() if _same_option(f, feature) and words]
        else:
            words = tuple(feature.split())
            tool = self.command_words(words)
            if tool and tool != list(words):
                out.append((" ".join(tool), True))
            out += [(" ".join(w), True) for w in (self.flag_commands.get(words) or {}).values() if w]
            out += [(" ".join(r.words), True) for r in self.rewrites
                    if r.words is not None and r.command in (None, words)]
        return out

    # ---- translation ---------------------------------------------------------------------------

    def _known_paths(self) -> set[Path_]:
        return (set(SPEC_COMMANDS) | set(self.commands) | set(self.positional) | set(self.arguments)
                | set(self.positional_as_flag) | set(self.unsupported_commands) | set(self.flag_commands)
                | {r.command for r in self.rewrites if r.command is not None})

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

        opts = [t for t in tokens if t.kind == "opt"]
        moved = self._arrange_positionals(tokens, opts, path)
        words = self.command_words(path)
        for flag, chosen in (self.flag_commands.get(path) or {}).items():
            for t in opts:
                if t.value is None and _same_option(t.flag, flag) and t.emit is None:
                    words = list(chosen)
                    t.emit = []
        routed = self._apply_rewrites(opts, path)
        if routed is not None:
            words = routed
        if path == ("help",):
            if self.help_topic == "flag":
                return self._help_as_flag(tokens, out_env)
            self._translate_help_topic(tokens)
        hit = _lookup_command(self.positional_as_flag, path)
        as_flag = [] if hit is None else hit[1]

        pre: list[str] = []
        post: list[str] = []
        raw: list[str] = []
        seen_command = False
        n_pos = 0
        for t in tokens:
            if t.kind == "cmd":
                seen_command = True
                continue
            if t.kind == "raw":
                raw.append(t.text)
                continue
            side = "after" if seen_command else "before"
            if t.kind == "pos" and t.emit is not None:
                piece = t.emit
            elif t.kind == "pos":
                piece = [as_flag[n_pos], t.text] if n_pos < len(as_flag) else [t.text]
                n_pos += 1
            else:
                piece = self._render_opt(t, out_env)
                place = t.place or _lookup_flag(self.placement, t.flag)
                if place and path:
                    side = place
            (post if side == "after" else pre).extend(piece)
        command = [*words, *moved] if path else []
        return [*pre, *command, *post, *raw], out_env

    def _arrange_positionals(self, tokens: list[_Token], opts: list[_Token], path: Path_) -> list[str]:
        """The positional arguments that go right after the command words: the values of ``positional``
        flags (version 1), or the order ``arguments`` gives (version 3). What they take leaves its place."""
        moved: list[str] = []
        hit = _lookup_command(self.positional, path)
        if hit is not None:
            for spec in hit[1]:
                for t in opts:
                    if t.value is not None and _same_option(t.flag, spec) and t.emit is None:
                        moved.append(t.value)
                        t.emit = []
        hit = _lookup_command(self.arguments, path)
        if hit is not None:
            spec_pos = [t for t in tokens if t.kind == "pos"]
            for item in hit[1]:
                m = _POS_RE.match(item)
                if m is not None:
                    n = int(m.group(1))
                    if n <= len(spec_pos) and spec_pos[n - 1].emit is None:
                        moved.append(spec_pos[n - 1].text)
                        spec_pos[n - 1].emit = []
                    continue
                opt = next((t for t in opts if t.value is not None and _same_option(t.flag, item)
                            and t.emit is None), None)
                if opt is not None and opt.value is not None:
                    table = _lookup_flag(self.values, opt.flag) or {}
                    moved.append(table.get(opt.value, opt.value))
                    opt.emit = []
        return moved

    def _apply_rewrites(self, opts: list[_Token], path: Path_) -> list[str] | None:
        """Apply the rules in order; returns the command words the first firing rule with ``words``
        chose, if any."""
        routed: list[str] | None = None
        for rule in self.rewrites:
            if rule.command is not None and rule.command != path:
                continue
            while True:
                picks: list[_Token] = []
                for flag, want in rule.when:
                    pick = next((t for t in opts if not t.rewritten and t not in picks
                                 and _same_option(t.flag, flag) and _wanted(want, t.value)), None)
                    if pick is None:
                        break
                    picks.append(pick)
                else:
                    first = min(picks, key=opts.index)
                    matched = {flag: t.value for (flag, _), t in zip(rule.when, picks, strict=True)}
                    for t in picks:
                        t.rewritten = True
                        t.emit = []
                    first.emit = rule.render(matched)
                    first.place = rule.place or _lookup_flag(self.placement, rule.when[0][0])
                    if rule.words is not None and routed is None:
                        routed = list(rule.words)
                    continue
                break
        return routed

    def _help_as_flag(self, tokens: list[_Token],
                      out_env: dict[str, str | None]) -> tuple[list[str], dict[str, str | None]]:
        """``help send`` -> ``message send --help``; ``help`` -> ``--help`` (``help_topic: flag``).

        The topic is the spec command named after ``help`` (in the tool's words); other options keep
        their order before the help flag."""
        topic = [t.text for t in tokens if t.kind == "pos"]
        best: Path_ = ()
        for cand in SPEC_COMMANDS | set(self.commands):
            if tuple(topic[: len(cand)]) == cand and len(cand) > len(best):
                best = cand
        words = [*self.command_words(best), *topic[len(best):]] if best else topic
        rest: list[str] = []
        for t in tokens:
            if t.kind == "opt":
                rest.extend(self._render_opt(t, out_env))
            elif t.kind == "raw":
                rest.append(t.text)
        return [*words, *rest, self.flag_spelling("--help")], out_env

    def _translate_help_topic(self, tokens: list[_Token]) -> None:
        """``help send`` -> ``help message send``: the topic of ``help`` is a command, in the tool's words."""
        topic = [t for t in tokens if t.kind == "pos"]
        words = tuple(t.text for t in topic)
        best: Path_ = ()
        for cand in SPEC_COMMANDS | set(self.commands):
            if words[: len(cand)] == cand and len(cand) > len(best):
                best = cand
        if not best:
            return
        for t in topic[1:len(best)]:
            t.emit = []
        topic[0].emit = self.command_words(best)

    def _render_opt(self, t: _Token, out_env: dict[str, str | None]) -> list[str]:
        if t.emit is not None:
            return t.emit
        var = _lookup_flag(self.credentials_env, t.flag)
        if var is not None and t.value is not None:
            out_env[var] = t.value
            return []
        by_name = _lookup_flag(self.credentials_by_name, t.flag)
        if by_name is not None and t.value is not None:
            base = CREDENTIAL_VARS[_lookup_flag({f: f for f in CREDENTIAL_FLAGS}, t.flag)]
            name, n = base, 1
            while name in out_env:
                n += 1
                name = f"{base}_{n}"
            out_env[name] = t.value
            return [f"{by_name}={name}"] if t.inline else [by_name, name]
        new = self.flag_spelling(t.flag)
        value = t.value
        table = _lookup_flag(self.values, t.flag)
        if value is not None and table is not None:
            value = table.get(value, value)
        if t.inline:
            return [f"{new}={value}"]
        return [new] if value is None else [new, value]

    def _refuse_unsupported(self, tokens: list[_Token], path: Path_, env: Mapping[str, str | None]) -> None:
        """Raise :class:`Unsupported` naming every unsupported command, flag and variable of the invocation."""
        found: list[tuple[str, str]] = []
        for u in self.unsupported_commands:
            if path[: len(u)] == u:
                found.append((f"command '{' '.join(u)}'", " ".join(path)))
                break
        for t in tokens:
            if t.kind == "opt" and (t.flag in self.unsupported_flags
                                    or _ALIASES.get(t.flag) in self.unsupported_flags):
                long = t.flag if t.flag.startswith("--") else _ALIASES.get(t.flag, t.flag)
                if long not in [f for _, f in found]:
                    found.append((f"flag {t.flag}", long))
        for var, value in env.items():
            if var in self.unsupported_env and value is not None:
                found.append((f"environment variable {var}", var))
        if found:
            (what, feature), *more = found
            raise Unsupported(what, self.tool, feature, tuple(more))


class _Loader:
    """Validation of one adapter document: every error names the file and the key path."""

    def __init__(self, data: Any, source: str, node: yaml.Node | None = None) -> None:
        self.data = data
        self.source = source
        self.node = node
        self.version = 1

    def err(self, key: str, message: str) -> AdapterError:
        return AdapterError(self.source, key, message, _line_of(self.node, key))

    def load(self, cls: type[Adapter], sha256: str) -> Adapter:
        data = self.data
        if not isinstance(data, dict):
            raise self.err("(file)", f"must be a mapping, got {type(data).__name__}")
        version = data.get("adapter")
        if type(version) is not int or version not in ADAPTER_VERSIONS:
            allowed = " or ".join(map(str, ADAPTER_VERSIONS))
            raise self.err("adapter", f"must be the integer {allowed}, got {version!r}")
        allowed_keys = _KEYS_V1 | (_KEYS_V2 if version >= 2 else set()) | (_KEYS_V3 if version >= 3 else set())
        self.version = version
        unknown = sorted(str(k) for k in data if k not in allowed_keys)
        if unknown:
            if unknown[0] in _KEYS_V2:
                raise self.err(unknown[0], "a version 2 key: the file must say `adapter: 2` (or 3)")
            if unknown[0] in _KEYS_V3:
                raise self.err(unknown[0], "a version 3 key: the file must say `adapter: 3`")
            raise self.err(unknown[0], f"unknown key (allowed: {', '.join(sorted(allowed_keys))})")
        tool = data.get("tool")
        if not isinstance(tool, str) or not tool.strip():
            raise self.err("tool", "must be a non-empty string")
        notes = data.get("notes", "")
        if not isinstance(notes, str):
            raise self.err("notes", "must be a string")
        if not sha256:
            sha256 = hashlib.sha256(yaml.safe_dump(data, sort_keys=True).encode()).hexdigest()
        ad = cls(tool=tool, source=self.source, sha256=sha256, notes=notes, version=version)
        self._v1(ad)
        if version >= 2:
            self._v2(ad)
        if version >= 3:
            self._v3(ad)
        self._conflicts(ad)
        return ad

    # ---- shapes ----

    def mapping(self, key: str, value: Any = None, *, top: bool = True) -> dict[Any, Any]:
        if top:
            value = self.data.get(key, {})
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise self.err(key, f"must be a mapping, got {type(value).__name__}")
        return value

    def command(self, key: str, name: Any) -> Path_:
        if not isinstance(name, str) or not name.split():
            raise self.err(key, f"command must be a non-empty string, got {name!r}")
        words = tuple(name.split())
        if not any(words[: len(c)] == c or c[: len(words)] == words for c in SPEC_COMMANDS):
            raise self.err(f"{key}.{name}", "not a spec command (SPEC.md §7.1), its group or a subcommand")
        return words

    def spec_flag(self, key: str, flag: Any, *, value_taking: bool = False) -> str:
        if not isinstance(flag, str) or not _FLAG_RE.match(flag):
            raise self.err(key, f"not a flag: {flag!r}")
        if value_taking and not _takes_value(flag):
            raise self.err(f"{key}.{flag}", "not a spec flag that takes a value")
        return flag

    def word_list(self, key: str, value: Any, *, allow_empty: bool) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
            raise self.err(key, f"must be a list of non-empty strings, got {value!r}")
        if not value and not allow_empty:
            raise self.err(key, "must not be empty")
        return list(value)

    def tool_flag(self, key: str, new: Any, what: str = "rename") -> str:
        if not isinstance(new, str) or not new:
            raise self.err(key, f"{what} must be a non-empty string, got {new!r}")
        if not _FLAG_RE.match(new):
            raise self.err(key, f"{what} must be a flag (starting with '-'), got {new!r}")
        return new

    def credential(self, key: str, flag: Any) -> str:
        self.spec_flag(key, flag)
        if _lookup_flag({f: f for f in CREDENTIAL_FLAGS}, flag) is None:
            raise self.err(f"{key}.{flag}", f"not a spec credential flag ({', '.join(CREDENTIAL_FLAGS)})")
        return str(flag)

    # ---- version 1 ----

    def _v1(self, ad: Adapter) -> None:
        data = self.data
        for name, words in self.mapping("commands").items():
            ad.commands[self.command("commands", name)] = self.word_list(f"commands.{name}", words, allow_empty=True)
        for flag, new in self.mapping("flags").items():
            self.spec_flag("flags", flag)
            ad.flags[flag] = self.tool_flag(f"flags.{flag}", new)
        for flag, table in self.mapping("values").items():
            self.spec_flag("values", flag, value_taking=True)
            if not isinstance(table, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v for k, v in table.items()
            ):
                raise self.err(f"values.{flag}", "must map spec values (strings) to non-empty strings")
            ad.values[flag] = dict(table)
        for name, flags in self.mapping("positional").items():
            path = self.command("positional", name)
            items = self.word_list(f"positional.{name}", flags, allow_empty=False)
            ad.positional[path] = [self.spec_flag(f"positional.{name}", f, value_taking=True) for f in items]
        for name, flags in self.mapping("positional_as_flag").items():
            path = self.command("positional_as_flag", name)
            items = self.word_list(f"positional_as_flag.{name}", flags, allow_empty=False)
            ad.positional_as_flag[path] = [self.spec_flag(f"positional_as_flag.{name}", f) for f in items]
        for flag, var in self.mapping("credentials_env").items():
            self.spec_flag("credentials_env", flag, value_taking=True)
            if not isinstance(var, str) or not _ENV_RE.match(var):
                raise self.err(f"credentials_env.{flag}", f"must be an environment variable name, got {var!r}")
            ad.credentials_env[flag] = var
        for spec_var, var in self.mapping("env_names").items():
            if not isinstance(spec_var, str) or not _SPEC_ENV_RE.match(spec_var):
                raise self.err("env_names", f"key must be a spec variable A2ACLI_*, got {spec_var!r}")
            if not isinstance(var, str) or not _ENV_RE.match(var):
                raise self.err(f"env_names.{spec_var}", f"must be an environment variable name, got {var!r}")
            ad.env_names[spec_var] = var
        unsupported = data.get("unsupported", []) or []
        if not isinstance(unsupported, list):
            raise self.err("unsupported", f"must be a list, got {type(unsupported).__name__}")
        for item in unsupported:
            if isinstance(item, str) and item.startswith("-"):
                ad.unsupported_flags.add(self.spec_flag("unsupported", item))
            elif isinstance(item, str) and _SPEC_ENV_RE.match(item):
                ad.unsupported_env.add(item)
            else:
                ad.unsupported_commands.append(self.command("unsupported", item))
        for key, value in self.mapping("env").items():
            if not isinstance(key, str) or not _ENV_RE.match(key):
                raise self.err("env", f"not an environment variable name: {key!r}")
            if not isinstance(value, str):
                raise self.err(f"env.{key}", f"value must be a string (quote it), got {value!r}")
            ad.env[key] = value

    # ---- version 2 ----

    def _v2(self, ad: Adapter) -> None:
        for flag, place in self.mapping("placement").items():
            self.spec_flag("placement", flag)
            if place not in _PLACES:
                raise self.err(f"placement.{flag}", f"must be before or after, got {place!r}")
            ad.placement[flag] = place
        for flag, new in self.mapping("credentials_by_name").items():
            self.credential("credentials_by_name", flag)
            ad.credentials_by_name[flag] = self.tool_flag(f"credentials_by_name.{flag}", new, "the tool's flag")
        rules = self.data.get("rewrites", []) or []
        if not isinstance(rules, list):
            raise self.err("rewrites", f"must be a list of rules, got {type(rules).__name__}")
        for i, rule in enumerate(rules):
            ad.rewrites.append(self._rule(f"rewrites[{i}]", rule))
        for name, table in self.mapping("flag_commands").items():
            path = self.command("flag_commands", name)
            key = f"flag_commands.{name}"
            if path not in SPEC_COMMANDS:
                raise self.err(key, "must be a whole spec command (e.g. `task get`), not a group")
            chosen: dict[str, list[str]] = {}
            for flag, words in self.mapping(key, table, top=False).items():
                self.spec_flag(key, flag)
                if flag not in SPEC_SWITCHES:
                    raise self.err(f"{key}.{flag}", "must be a spec switch (a flag that takes no value)")
                chosen[flag] = self.word_list(f"{key}.{flag}", words, allow_empty=False)
            ad.flag_commands[path] = chosen

    def _rule(self, key: str, rule: Any) -> Rewrite:
        if not isinstance(rule, dict):
            raise self.err(key, f"must be a mapping with when and to, got {type(rule).__name__}")
        allowed = _RULE_KEYS | (_RULE_KEYS_V3 if self.version >= 3 else set())
        unknown = sorted(str(k) for k in rule if k not in allowed)
        if unknown:
            if unknown[0] in _RULE_KEYS_V3:
                raise self.err(f"{key}.{unknown[0]}", "a version 3 key: the file must say `adapter: 3`")
            raise self.err(f"{key}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        when = rule.get("when")
        if not isinstance(when, dict) or not when:
            raise self.err(f"{key}.when", "must be a non-empty mapping of spec flags to a value (or true)")
        conds: list[tuple[str, Want]] = []
        for flag, want in when.items():
            self.spec_flag(f"{key}.when", flag)
            if _takes_value(flag) and isinstance(want, dict):
                want = self.value_match(f"{key}.when.{flag}", want)
            elif _takes_value(flag):
                if not isinstance(want, str) or not want:
                    hint = ", {shape: url|file|host} or {matches: REGEX}" if self.version >= 3 else ""
                    raise self.err(f"{key}.when.{flag}", f"takes a value: give the spec value{hint}, got {want!r}")
            elif flag in SPEC_SWITCHES:
                if want is not True:
                    raise self.err(f"{key}.when.{flag}", f"is a switch: write true, got {want!r}")
            else:
                raise self.err(f"{key}.when.{flag}", "not a spec flag (SPEC.md §7.2)")
            if any(_same_option(flag, f) for f, _ in conds):
                raise self.err(f"{key}.when.{flag}", "the same option twice")
            conds.append((flag, want))
        if "to" not in rule:
            raise self.err(f"{key}.to", "missing: the tool's args that replace the matched options (may be [])")
        to = self.word_list(f"{key}.to", rule.get("to"), allow_empty=True)
        for word in to:
            for ref in _VALUE_REF_RE.findall(word):
                if self.version < 3:
                    raise self.err(f"{key}.to", f"{{{ref}}} stands for a matched value from version 3 on: "
                                                "the file must say `adapter: 3`")
                if not any(_same_option(ref, f) and _takes_value(f) for f, _ in conds):
                    raise self.err(f"{key}.to", f"{{{ref}}} names no value flag of this rule's when")
        place = rule.get("place")
        if place is not None and place not in _PLACES:
            raise self.err(f"{key}.place", f"must be before or after, got {place!r}")
        command = None
        if rule.get("command") is not None:
            command = self.command(f"{key}.command", rule["command"])
        words = None
        if "words" in rule:
            words = tuple(self.word_list(f"{key}.words", rule["words"], allow_empty=False))
        return Rewrite(tuple(conds), tuple(to), place, command, words)

    def value_match(self, key: str, want: dict[Any, Any]) -> ValueMatch:
        if self.version < 3:
            raise self.err(key, "matching a value by shape or pattern needs `adapter: 3`")
        if len(want) != 1 or next(iter(want)) not in ("shape", "matches"):
            raise self.err(key, f"must be {{shape: url|file|host}} or {{matches: REGEX}}, got {want!r}")
        if "shape" in want:
            if want["shape"] not in SHAPES:
                raise self.err(f"{key}.shape", f"must be one of {', '.join(SHAPES)}, got {want['shape']!r}")
            return ValueMatch(shape=want["shape"])
        pattern = want["matches"]
        if not isinstance(pattern, str) or not pattern:
            raise self.err(f"{key}.matches", f"must be a regular expression, got {pattern!r}")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise self.err(f"{key}.matches", f"not a regular expression: {exc}") from None
        return ValueMatch(pattern=pattern)

    # ---- version 3 ----

    def _v3(self, ad: Adapter) -> None:
        for name, items in self.mapping("arguments").items():
            path = self.command("arguments", name)
            key = f"arguments.{name}"
            got = self.word_list(key, items, allow_empty=False)
            seen: set[str] = set()
            for item in got:
                if not _POS_RE.match(item):
                    self.spec_flag(key, item, value_taking=True)
                norm = _ALIASES.get(item, item) if not _POS_RE.match(item) else item
                if item in seen or norm in seen:
                    raise self.err(key, f"{item} twice")
                seen |= {item, norm}
            ad.arguments[path] = got
        topic = self.data.get("help_topic", "command")
        if topic not in _HELP_TOPICS:
            raise self.err("help_topic", f"must be command (`help X`) or flag (`X --help`), got {topic!r}")
        ad.help_topic = topic

    def _conflicts(self, ad: Adapter) -> None:
        for flag in ad.unsupported_flags:
            for key, table in (("flags", ad.flags), ("credentials_env", ad.credentials_env),
                               ("credentials_by_name", ad.credentials_by_name), ("placement", ad.placement)):
                if _lookup_flag(table, flag) is not None:
                    raise self.err(f"{key}.{flag}", "also listed as unsupported")
            for i, rule in enumerate(ad.rewrites):
                for f, _ in rule.when:
                    if _same_option(flag, f):
                        raise self.err(f"rewrites[{i}].when.{f}", f"also listed as unsupported ({flag})")
        for path in ad.unsupported_commands:
            if path in ad.commands:
                raise self.err(f"commands.{' '.join(path)}", "also listed as unsupported")
            for chosen in ad.flag_commands:
                if chosen[: len(path)] == path:
                    raise self.err(f"flag_commands.{' '.join(chosen)}", "also listed as unsupported")
        for flag in ad.credentials_by_name:
            if _lookup_flag(ad.credentials_env, flag) is not None:
                raise self.err(f"credentials_by_name.{flag}", "also in credentials_env: pick one")
        for path, items in ad.arguments.items():
            name = " ".join(path)
            if path in ad.positional:
                raise self.err(f"arguments.{name}", "also in positional: pick one (arguments orders both kinds)")
            if path in ad.positional_as_flag and any(_POS_RE.match(i) for i in items):
                raise self.err(f"arguments.{name}", "places the spec's positionals that positional_as_flag "
                                                    "turns into flags: pick one")
