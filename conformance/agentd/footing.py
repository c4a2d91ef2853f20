"""What an agentd check stands on, and the rows that govern it (the blame rule, DESIGN.md §2.8; the rows and
the card as they govern it are :mod:`conformance.agentd.rows`, named here too).

Every check that talks to the target stands on the card (:data:`CARD_ROW`) and on the JSON-RPC listener
(:data:`LISTENER_ROW`); a check about how a *declared* extension behaves stands on the row that declares
it (:data:`DECLARED_BY`). :func:`declaring` hands out an instance only after judging those: a target
that lacks one is ``not_measured``, blocked by the row that governs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn
from urllib.parse import urlsplit

from conformance.agentd.cards import declaration, declared_uris
from conformance.agentd.clients import ext, rpc_client
from conformance.agentd.commands import send_command
from conformance.agentd.echo import echo_of, render_echo
from conformance.agentd.rows import BASE_ROWS as BASE_ROWS
from conformance.agentd.rows import CARD_ROW as CARD_ROW
from conformance.agentd.rows import COMMAND_ROW as COMMAND_ROW
from conformance.agentd.rows import CORE_ROW as CORE_ROW
from conformance.agentd.rows import DECLARED_BY as DECLARED_BY
from conformance.agentd.rows import FEED_ROW as FEED_ROW
from conformance.agentd.rows import LIST_ROW as LIST_ROW
from conformance.agentd.rows import LISTENER_ROW as LISTENER_ROW
from conformance.agentd.rows import card_of as card_of
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
)
from conformance.judge import blocked_by, quote
from conformance.outcome import NotMeasured, not_measured
from conformance.wire import Recorder

if TYPE_CHECKING:
    from conformance.targets.instances import AgentTargets, Instance

def deps(*uris: str) -> tuple[str, ...]:
    """The ``depends_on`` ids of a check that talks to the target and needs ``uris`` declared (and, for the
    command extension, commands run: :data:`COMMAND_ROW`)."""
    run = (COMMAND_ROW,) if COMMAND in uris else ()
    return tuple(dict.fromkeys((*BASE_ROWS, CORE_ROW, *(DECLARED_BY[u] for u in uris), *run)))


#: Instances (by URL) whose operator's ListTasks with no A2A-Extensions was refused -32008 (the refusal).
_CORE_NEEDS: dict[str, str | None] = {}


def core_answers(instance: Instance) -> None:
    """Blocked by :data:`CORE_ROW` when the operator's ListTasks naming no extension is refused with
    -32008 (a required extension not activated): every core request such a check sends without the
    header would be. Asked once per instance."""
    if instance.url not in _CORE_NEEDS:
        with rpc_client(instance, "operator", recorder=Recorder()) as c:
            reply = c.call("ListTasks", {"pageSize": 1})
        _CORE_NEEDS[instance.url] = (
            f"ListTasks naming no extension was refused -32008: {quote(reply.json or reply.body, 300)}"
            if reply.error is not None and reply.error.code == -32008 else None)
    seen = _CORE_NEEDS[instance.url]
    if seen is not None:
        blocked_by(CORE_ROW, seen)


#: Instances (by URL) on which the status command was seen run, or what it answered instead.
_COMMANDS_RUN: dict[str, str | None] = {}


def commands_run(instance: Instance) -> None:
    """Blocked by :data:`COMMAND_ROW` when the operator's ``status`` command, activated by header and
    marker, is answered, but not as a command: with something other than a Message (a read's reply kind;
    its parts and document are other rows'), e.g. a conversation turn's Task. A refusal says nothing here
    (an instance whose caller has no credential, say): the check goes on. Asked once per instance."""
    if instance.url not in _COMMANDS_RUN:
        with rpc_client(instance, "operator", recorder=Recorder()) as c:
            reply = send_command(c, "status")
        result = reply.result if reply.error is None and isinstance(reply.result, dict) else None
        _COMMANDS_RUN[instance.url] = None if result is None or "message" in result else (
            f"the operator's status command, activated by header and message.extensions, was answered "
            f"{quote(reply.json or reply.body, 300)}")
    seen = _COMMANDS_RUN[instance.url]
    if seen is not None:
        blocked_by(COMMAND_ROW, seen)


def feed_contradiction(instance: Instance, card: Mapping[str, Any]) -> str | None:
    """How ``card`` contradicts the feed state ``instance`` is known to have (the harness launched it so, or
    the target's facts say so), in AGENTD_DECL_003's terms; None when they agree or the state is unknown.

    A check that reads from the card whether the feed is on (which methods are declared, whether the feed
    can be watched) cannot be judged on a card that says the opposite: that is :data:`FEED_ROW`'s fail."""
    known = instance.facts.get("events")
    if known not in ("on", "off"):
        return None
    declared = declared_uris(card)
    if (EVENTS in declared) == (known == "on"):
        return None
    return (f"the feed is {known} but the card {'declares' if EVENTS in declared else 'does not declare'} "
            f"{EVENTS} (declared: {declared or 'none'})")


#: Instances (by URL) on which a comma-separated A2A-Extensions line was seen read only in part.
_LISTS_READ: dict[str, str | None] = {}


def list_unread(instance: Instance) -> str | None:
    """What shows that ``instance`` reads a comma-separated A2A-Extensions line only in part, or None.

    The operator's ListTasks naming task-annotations alone, and then after the command URI on one line
    (``command, task-annotations``; the command does not apply to ListTasks): task-annotations activated
    alone (echoed, or annotating a listed task) but not on the list is a line not read past its first
    URI, :data:`LIST_ROW`'s statement. No activation even alone, or a refusal of the list, shows nothing
    of how the list is read. Asked once per instance."""
    if instance.url not in _LISTS_READ:
        def activated(reply: Any) -> bool:
            tasks = reply.result.get("tasks") if isinstance(reply.result, dict) else None
            return ANNOTATIONS in (echo_of(reply.headers) or []) or any(
                isinstance(t, dict) and ANNOTATIONS in (t.get("metadata") or {}) for t in tasks or [])

        with rpc_client(instance, "operator", recorder=Recorder()) as c:
            alone = c.call("ListTasks", {"pageSize": 1}, headers=ext(ANNOTATIONS))
            listed = c.call("ListTasks", {"pageSize": 1}, headers=ext(COMMAND, ANNOTATIONS))
        _LISTS_READ[instance.url] = (
            f"task-annotations named alone is activated on ListTasks, but not second on the line "
            f"'A2A-Extensions: {COMMAND}, {ANNOTATIONS}' (echo {render_echo(echo_of(listed.headers))}, "
            f"no annotations)"
            if activated(alone) and listed.error is None and not activated(listed) else None)
    return _LISTS_READ[instance.url]


def lists_read(instance: Instance) -> None:
    """Blocked by :data:`LIST_ROW` when ``instance`` reads a comma-separated A2A-Extensions line only in
    part (:func:`list_unread`): a request naming several extensions on one line activates only some."""
    seen = list_unread(instance)
    if seen is not None:
        blocked_by(LIST_ROW, seen)


def require_declared(card: Mapping[str, Any], uri: str, where: str = "the card") -> dict[str, Any]:
    """The declaration of extension ``uri`` on ``card`` (matched byte for byte).

    The one place that says "the extension must be declared": a check of how ``uri`` behaves ends
    ``not_measured``, blocked by the row that declares it (:data:`DECLARED_BY`), when it is not."""
    decl = declaration(card, uri)
    if decl is None:
        blocked_by(DECLARED_BY[uri], f"{where} declares no {uri} (declared: {declared_uris(card) or 'none'})")
    return decl


def lacking(need: str) -> NoReturn:
    """End the check ``not_measured`` for a registry need (``conformance.registry.NEEDS``) its target
    lacks, in the words the plugin's gate uses (for a run the gate did not stop, e.g. without the
    command around it)."""
    from conformance.registry import needs_note

    not_measured(needs_note([need]))


def agentd_identifiers(card: Mapping[str, Any]) -> list[str]:
    """Every extension URI and URI-shaped protocol binding the card declares on agentd's host
    (the page's identifiers, and near misses of them)."""
    bindings = [i.get("protocolBinding") for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)]
    uris = declared_uris(card) + [b for b in bindings if isinstance(b, str) and "://" in b]
    return [u for u in uris if (urlsplit(u).hostname or "").lower() in ("agentd.dev", "www.agentd.dev")]


def require_agentd(card: Mapping[str, Any]) -> list[str]:
    """The agentd identifiers the card declares; blocked by :data:`CARD_ROW` when there is none (a
    statement about what agentd declares is not passed by a card that declares nothing of agentd's)."""
    found = agentd_identifiers(card)
    if not found:
        blocked_by(CARD_ROW, f"the card declares none of the extension URIs, nor agentd's unix binding "
                             f"(declared extensions: {declared_uris(card) or 'none'})")
    return found


def declaring(agent_targets: AgentTargets, *uris: str, fresh: bool = False, **needs: Any) -> Instance:
    """An instance in the configuration ``needs`` whose card declares every extension of ``uris`` (and,
    with the command extension among them, runs commands: :func:`commands_run`).

    The card and the declarations are judged before the configuration: a running target whose card
    cannot be read, or lacks a declaration, is blocked by the row that governs it (and never told to
    declare a fact it cannot have); one whose card declares no security scheme is not asked for
    tokens it cannot have."""
    if not agent_targets.launchable:
        card = card_of(agent_targets.agentd())
        for uri in uris:
            require_declared(card, uri)
        _needs_it_can_have(agent_targets, card, needs)
    try:
        inst = agent_targets.agentd(fresh=fresh, **needs)
    except NotMeasured:
        if uris and needs:
            # A configuration the target cannot be given: when the extension the check is about is not declared
            # anyway, that is what blocks it (giving the configuration would not make it measurable).
            plain = card_of(agent_targets.agentd())
            for uri in uris:
                require_declared(plain, uri)
        raise
    card = card_of(inst)
    for uri in uris:
        require_declared(card, uri)
    if uris:
        core_answers(inst)
    if COMMAND in uris:
        commands_run(inst)
    return inst


#: Needs that ask for callers with roles (principals and their bearer tokens).
_ROLE_NEEDS: Final = ("auth", "principals", "grants")


def _needs_it_can_have(agent_targets: AgentTargets, card: Mapping[str, Any], needs: Mapping[str, Any]) -> None:
    """Say what is missing, for a need a running target could only meet with a credential."""
    if not any(needs.get(k) for k in _ROLE_NEEDS) or (agent_targets.target.get("tokens") or {}):
        return
    if not card.get("securitySchemes"):
        not_measured("needs callers with distinct roles (operator, user, agent); the card declares no security "
                     "scheme, so the target names no principals the harness could call as")
    not_measured("needs bearer tokens for the roles operator, user and agent that the card's security schemes "
                 "admit; give them with --token operator=TOKEN (and user=, agent=)")


def instance_for(agent_targets: AgentTargets, *uris: str, **needs: Any) -> Instance:
    """For a statement that holds whatever the configuration: the launched reference configured with
    ``needs``, or a running target as it is (its own configuration, whatever its declared facts);
    either way one whose card declares ``uris`` (blocked by the declaring row otherwise)."""
    return declaring(agent_targets, *uris, **needs) if agent_targets.launchable else declaring(agent_targets, *uris)
