"""The blame rule, CLI side: which requirement governs each feature an invocation uses, and how a run
shows that a feature is missing.

A check of requirement X drives the tool through spec features — commands (``task get``), flags
(``--poll-interval``) and environment variables (``A2ACLI_BEARER``). Each feature is *named* by the
requirements listed for it in :data:`OWNERS` (COMPLIANCE.md's row text, or the SPEC.md section the row
cites); the first is the one blamed when the feature is missing. When a run shows a feature is
missing, :func:`judge_missing` decides (DESIGN.md §2.2, §2.8):

* the feature is named by X itself: X fails ("unsupported is fail"), the message saying which feature;
* otherwise X is not measured: :func:`conformance.judge.blocked_by` the feature's first owner.

A run may show several features missing (an adapter marking two flags unsupported, a parser listing
every unrecognised argument): each is named, and X's own come first whatever the argument order, so
X fails for its own missing feature rather than being blocked by another's.

A run shows a feature is missing in two ways only, both positive evidence:

* the adapter marks it unsupported (:class:`~conformance.cli.adapter.Unsupported`, raised before
  the tool runs), "unsupported by the tool (adapter)";
* the tool ends with the usage status 2 and a line of its output rejects that very feature — a
  rejection phrase ("unknown option", "no such command", "unrecognized arguments", ...) together with
  the feature's spelling (:func:`rejected_feature`). A usage error that names no feature blames none:
  the check then judges the run as it is.

The CLI fixture (``conformance.clicheck.invocations.Cli``) applies this to every invocation; a check that expects a
usage error turns the detection off for that run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from conformance.judge import blocked_by
from conformance.outcome import fail

if TYPE_CHECKING:
    from conformance.cli.adapter import Adapter
    from conformance.cli.runner import CliResult

_P = "A2ACLI_"

#: Spec feature -> the requirements whose text names it, the one blamed first. Short flags are folded
#: into their long spelling (:data:`LONG`). Every feature a check uses must be listed here.
OWNERS: dict[str, tuple[str, ...]] = {
    # commands (SPEC.md §7.1)
    "send": (f"{_P}SEND_001",),
    "card get": (f"{_P}CARD_GET_001",),
    "task get": (f"{_P}TASK_GET_001", f"{_P}TASK_POLL_001"),
    "task cancel": (f"{_P}TASK_CANCEL_001",),
    "config show": (f"{_P}CONFIG_001", f"{_P}CONFIG_002"),
    "help": (f"{_P}CLI_001",),
    # Tier 2/3: tasks, push, download (SPEC.md §7.1, App. A)
    "task list": (f"{_P}TASK_LIST_001",),
    # AUTH_011 (§12.3 "handle the in-task AUTH_REQUIRED state"): A2A §7.6.2 names subscribing to the task
    # as how a client follows an authorization resolved out of band
    "task subscribe": (f"{_P}TASK_SUBSCRIBE_001", f"{_P}TASK_SUBSCRIBE_002", f"{_P}AUTH_011"),
    "task download": (f"{_P}DOWNLOAD_001",),
    "task push-config": (f"{_P}PUSH_001", f"{_P}PUSH_002"),
    "auth login": (f"{_P}AUTH_005", f"{_P}AUTH_006", f"{_P}AUTH_007", f"{_P}AUTH_010"),
    # flags (SPEC.md §7.2, §10)
    "--agent-card": (f"{_P}CARD_GET_001",),
    "--text": (f"{_P}SEND_006",),
    "--file": (f"{_P}SEND_006",),
    "--data": (f"{_P}SEND_006",),
    "--media-type": (f"{_P}SEND_005",),
    "--async": (f"{_P}SEND_002", f"{_P}OUT_006", f"{_P}DEFAULT_001"),
    "--stream": (f"{_P}SEND_003", f"{_P}OUT_003"),
    "--output": (f"{_P}OUT_002", f"{_P}OUT_003", f"{_P}DEFAULT_001"),
    "--wait": (f"{_P}TASK_POLL_001",),
    "--poll-interval": (f"{_P}TASK_POLL_002",),
    "--timeout": (f"{_P}TASK_POLL_002",),
    "--history": (f"{_P}TASK_GET_001",),
    "--validate": (f"{_P}CARD_GET_002",),
    "--context-id": (f"{_P}INTERACT_001", f"{_P}INTERACT_002", f"{_P}TASK_LIST_001"),
    "--task-id": (f"{_P}INTERACT_002",),
    "--transport": (f"{_P}TX_002", f"{_P}DEFAULT_001", f"{_P}TX_004"),
    "--a2a-version": (f"{_P}DEFAULT_001", f"{_P}VER_001"),
    "--bearer": (f"{_P}AUTH_001",),
    "--api-key": (f"{_P}AUTH_001",),
    "--svc-param": (f"{_P}AUTH_001",),
    "--insecure": (f"{_P}AUTH_003", f"{_P}DEFAULT_001"),
    "--debug": (f"{_P}AUTH_004", f"{_P}OUT_007"),
    "--verbose": (f"{_P}DEFAULT_001", f"{_P}AUTH_004"),
    "--config": (f"{_P}CONFIG_002",),
    "--help": (f"{_P}CLI_001",),
    # Tier 2/3: the harness's spellings of the task commands' own options (ListTasks and
    # TaskPushNotificationConfig fields)
    "--page-size": (f"{_P}TASK_LIST_001",),
    "--page-token": (f"{_P}TASK_LIST_001",),
    "--status": (f"{_P}TASK_LIST_001",),
    "--url": (f"{_P}PUSH_001",),
    "--token": (f"{_P}PUSH_001",),
    "--auth-scheme": (f"{_P}PUSH_001",),
    "--auth-credentials": (f"{_P}PUSH_001",),
    "--version": (f"{_P}CLI_001",),
    # auth (SPEC.md §12.2-§12.4): `auth login`'s client and mutual TLS name no flags in the spec; these are
    # the harness's spellings (an adapter maps them), each owned by the rows whose flows need it
    "--client-id": (f"{_P}AUTH_005", f"{_P}AUTH_006", f"{_P}AUTH_007", f"{_P}AUTH_010"),
    "--client-secret": (f"{_P}AUTH_006", f"{_P}AUTH_007"),
    "--client-cert": (f"{_P}AUTH_009",),
    "--client-key": (f"{_P}AUTH_009",),
    "--extended": (f"{_P}CARD_GET_003", f"{_P}AUTH_008"),  # §12.4, which both rows cite
    # environment variables (SPEC.md §7.2, §12.1)
    "A2ACLI_BEARER": (f"{_P}AUTH_002", f"{_P}AUTH_001"),
    "A2ACLI_API_KEY": (f"{_P}AUTH_002", f"{_P}AUTH_001"),
    # --- Tier 2/3: config, output, conformance, completion, chat, demo-server ---
    "A2ACLI_AGENT_CARD": (f"{_P}CONFIG_002",),
    "completion": (f"{_P}CLI_002",),
    "chat": (f"{_P}CHAT_001",),
    "conformance": (f"{_P}CONFORM_001",),
    "demo-server": (f"{_P}DEMO_SERVER_001",),
}

#: Short spellings folded into the long one (SPEC.md §7.2).
LONG = {"-a": "--agent-card", "-o": "--output", "-h": "--help", "-v": "--version"}

#: A line that rejects something: what a parser says about an option, command or argument it lacks.
_REJECTS = re.compile(
    r"unknown|unrecogni[sz]ed|no such|not (?:defined|supported|recogni[sz]ed|implemented|a valid)|unsupported"
    r"|unexpected (?:argument|option|flag)|invalid (?:choice|option|flag|argument|command)|illegal option", re.I)
#: How parsers reject a command word ``{w}``: "unknown command 'config'", "No such command 'send'.",
#: "invalid choice: 'send'", "unrecognized subcommand 'show'", "'show' is not a command".
_COMMAND_REJECTS = (
    r"(?:unknown|unrecogni[sz]ed|invalid|no such|unsupported)\s+(?:sub)?command[\s:'\"`]*{w}(?![\w-])",
    r"invalid choice:?\s*['\"`]?{w}(?![\w-])",
    r"['\"`]{w}['\"`]\s+is not an?\s+(?:valid\s+|known\s+)?(?:sub)?command",
)

#: Where a parser's suggestions begin ("No such option '--timeout'. Did you mean '--text'?"): what follows
#: names features the tool *has*, so it is cut off before a line is searched for the rejected one.
_SUGGESTS = re.compile(
    r"did you mean|maybe you meant|perhaps you meant|you may have meant|similar (?:options?|commands?|flags?)"
    r"|possible (?:options|commands|choices)|the most similar|\(choose from|choose from", re.I)

ADAPTER_UNSUPPORTED = "unsupported by the tool (adapter)"


@dataclass(frozen=True)
class Missing:
    """A feature a run showed missing, and how it showed it (quoted, short)."""

    feature: str
    how: str


def canonical(flag: str) -> str:
    return LONG.get(flag, flag)


def used_features(args: Sequence[str], env: Mapping[str, str | None] | None = None) -> list[str]:
    """The spec features an invocation in spec grammar uses, in order: its command, flags, variables."""
    from conformance.cli.adapter import SPEC_COMMANDS, _tokenize

    tokens, path = _tokenize(list(args), set(SPEC_COMMANDS))
    out: list[str] = []
    if path:
        out.append(" ".join(path))
    for t in tokens:
        if t.kind == "opt":
            f = canonical(t.flag)
            if f in OWNERS and f not in out:
                out.append(f)
    for var, value in (env or {}).items():
        if value is not None and var in OWNERS and var not in out:
            out.append(var)
    return out


def owners(feature: str) -> tuple[str, ...]:
    return OWNERS.get(canonical(feature), ())


def undeclared(features: Iterable[str], own: Sequence[str], declared: Sequence[str]) -> list[str]:
    """Features neither named by the check's own requirements nor governed by one it declared (the
    check's ``depends_on`` list is incomplete), or listed nowhere in :data:`OWNERS`."""
    bad = []
    for f in features:
        who = owners(f)
        if not who:
            bad.append(f"{f} (in no requirement's feature list)")
        elif not set(who) & set(own) and who[0] not in declared:
            bad.append(f"{f} (governed by {who[0]})")
    return bad


def _spellings(feature: str, adapter: Adapter | None) -> list[tuple[str, bool]]:
    """How the tool under test spells ``feature``, as (spelling, is a command) pairs: the spec's
    spelling(s), and what the adapter turns it into (renames, rewrites, the command a flag selects)."""
    command = not feature.startswith("-")
    spell = [(s, command) for s in [feature] + [s for s, long in LONG.items() if long == feature]]
    if adapter is not None:
        spell += adapter.spellings(feature)
    return spell


def _names(line: str, spelling: str, command: bool) -> bool:
    if command:
        # a command is named by a word of its path (the last alone for a missing subcommand: "show")
        # in one of the parsers' phrases for an unknown command
        words = spelling.split()
        return any(re.search(pat.format(w=re.escape(w)), line, re.I)
                   for w in {words[0], words[-1]} for pat in _COMMAND_REJECTS)
    return re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", line) is not None


def _blame_order(features: Sequence[str], own: Sequence[str]) -> list[str]:
    """The check's own features first, then flags (named precisely) before commands; stable otherwise."""
    return sorted(features, key=lambda f: (not set(owners(f)) & set(own), not f.startswith("-")))


def rejected_features(result: CliResult, features: Sequence[str], own: Sequence[str] = (),
                      adapter: Adapter | None = None) -> list[Missing]:
    """Every feature among ``features`` the run rejected as a usage error (exit 2 and a line rejecting
    it by name), the check's own features first; empty when the run shows no such thing."""
    if result.exit_code != 2:
        return []
    lines = [_SUGGESTS.split(ln, maxsplit=1)[0].strip()
             for ln in (result.stderr_text + "\n" + result.stdout_text).splitlines() if _REJECTS.search(ln)]
    lines = [ln for ln in lines if _REJECTS.search(ln)]
    if not lines:
        return []
    out: list[Missing] = []
    # variables are never "rejected" by a parser
    for f in _blame_order([f for f in features if not f.startswith("A2ACLI_")], own):
        for line in lines:
            if any(_names(line, s, command) for s, command in _spellings(f, adapter)):
                m = _REJECTS.search(line)
                said = line[m.start() if m else 0:][:90]
                out.append(Missing(f, f"rejected as a usage error: {said!r}"))
                break
    return out


def rejected_feature(result: CliResult, features: Sequence[str], own: Sequence[str] = (),
                     adapter: Adapter | None = None) -> Missing | None:
    """The first of :func:`rejected_features` (the check's own features first), or None."""
    found = rejected_features(result, features, own, adapter)
    return found[0] if found else None


def judge_missing(missing: Missing | Sequence[Missing], own: Sequence[str]) -> NoReturn:
    """End the check on the features a run showed missing (every one is named): the check's own
    requirement's missing feature is its fail; when none is its own, it is blocked by the owner of the
    first."""
    found = [missing] if isinstance(missing, Missing) else _ordered(list(missing), own)
    first, rest = found[0], found[1:]
    also = f"; also missing: {', '.join(f'{m.feature} ({m.how})' for m in rest)}" if rest else ""
    who = owners(first.feature)
    mine = [r for r in who if r in own]
    if mine or not who:
        named = ", ".join(r.removeprefix(_P) for r in mine) or "the requirement under test"
        fail(f"expected {first.feature}, which {named} names; missing: {first.how}{also}")
    blocked_by(who[0], f"no {first.feature} ({first.how}){also}")


def _ordered(found: list[Missing], own: Sequence[str]) -> list[Missing]:
    by = {m.feature: m for m in found}
    return [by[f] for f in _blame_order(list(by), own)]


def require_features(result: CliResult, features: Sequence[str], own: Sequence[str],
                     adapter: Adapter | None = None) -> None:
    """The one helper for "this invocation shows a feature is missing": ends the check (fail or
    blocked, naming every missing feature) when ``result`` rejected some of ``features`` as a usage
    error; returns otherwise."""
    missing = rejected_features(result, features, own, adapter)
    if missing:
        judge_missing(missing, own)
