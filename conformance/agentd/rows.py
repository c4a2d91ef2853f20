"""The rows every agentd check stands on (the blame rule, DESIGN.md §2.8), and the card as those rows govern it.

Below :mod:`conformance.agentd.footing` (which judges a target against these rows) and the clients that talk to
an instance, both of which name them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from conformance.agentd_page import ANNOTATIONS, COMMAND, EVENTS
from conformance.judge import blocked_by

if TYPE_CHECKING:
    from conformance.targets.instances import Instance

#: The row that fails when an extension is not declared; a check about how a *declared* extension
#: behaves is ``not_measured``, blocked by it (DESIGN.md §2.8). The events extension is declared
#: exactly while the feed is on (AGENTD_DECL_003): a card without it is a daemon with the feed off, or
#: not agentd, and the events rows cannot be measured on it.
DECLARED_BY: Final[Mapping[str, str]] = {
    COMMAND: "AGENTD_DECL_001", ANNOTATIONS: "AGENTD_DECL_002", EVENTS: "AGENTD_DECL_003",
}
#: The row whose own text demands a readable public card ("the public card always declares ...").
CARD_ROW: Final = "AGENTD_DECL_001"
#: The row whose own text demands a JSON-RPC listener answering the core method names.
LISTENER_ROW: Final = "AGENTD_DECL_013"
#: What every check that talks to the target stands on: the card and the listener.
BASE_ROWS: Final = (CARD_ROW, LISTENER_ROW)
#: The row whose own text says a client naming no extension gets the whole core protocol: a check that
#: sends core requests without A2A-Extensions (to make a task, to look at the operator's view) stands
#: on it (``footing.core_answers``).
CORE_ROW: Final = "AGENTD_DECL_005"
#: The row whose own text says a command is run (not answered as a conversation turn): a check that sends
#: commands stands on it (``footing.commands_run``).
COMMAND_ROW: Final = "AGENTD_CMD_001"
#: The row whose own text says the events extension is declared exactly while the feed is on: a check that
#: takes the card's word for whether the feed is on stands on it (``footing.feed_contradiction``).
FEED_ROW: Final = "AGENTD_DECL_003"
#: The row whose own text says every URI of a comma-separated A2A-Extensions line is activated: a check
#: that names several extensions on one line stands on it (``footing.lists_read``).
LIST_ROW: Final = "AGENTD_NEG_001"


def card_of(instance: Instance) -> dict[str, Any]:
    """The card the resolver found for ``instance``; blocked by :data:`CARD_ROW` when there is none."""
    loc = instance.location
    if loc.card is None:
        blocked_by(CARD_ROW, f"the agent card could not be read: {loc.error}")
    card: dict[str, Any] = loc.card
    return card
