"""What the CLI transport checks (``suites/cli/test_transport*.py``) share: a task that makes a
waiting send issue several requests, the script serving it from a card with given interfaces, and
the ways those checks read the requests the scripted agent received."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.fixtures.scripted_agent import CardSpec, Interface, RecordedRequest, Script, TaskFlow

#: A task that is WORKING first and COMPLETED shortly after, so a waiting send makes several requests
#: (a stream, or polls) — every one of them is checked, not only the first.
SHORT_TASK = TaskFlow(states=(("TASK_STATE_WORKING", 0.0), ("TASK_STATE_COMPLETED", 0.3)))


def short_task_script(*interfaces: Interface, versions: Sequence[str] = ("1.0",)) -> Script:
    """A card listing ``interfaces`` in this order, answering a send with :data:`SHORT_TASK`."""
    return Script(card=CardSpec(interfaces=interfaces), send=SHORT_TASK, versions=versions)


def ops(reqs: list[RecordedRequest]) -> list[tuple[str, str | None]]:
    """(binding, operation) of each request, in order."""
    return [(q.binding, q.operation) for q in reqs]


def bindings(reqs: list[RecordedRequest]) -> list[str]:
    """The bindings the requests came on, each once, sorted."""
    return sorted({q.binding for q in reqs})
