"""The A2A-Extensions service parameter: an extension the agent does not know is no reason to refuse, and one
the card marks required must be named (§3.3.4)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.a2a.messages import UNKNOWN_EXTENSION
from conformance.a2a.tasks import task_of
from conformance.judge import blocked_by, expect_error, succeeded
from conformance.outcome import na
from conformance.targets.core import CARD_ROW, CoreAgent
from conformance.wire import Recorder
from conformance.wire.caller import Caller


@pytest.mark.requirement("A2A_EXT_001")
def test_unknown_extension_uri_is_ignored(caller: Caller) -> None:
    """SendMessage and GetTask naming an undeclared extension URI are answered as without it.
    Defect: unknown-extension-refused."""
    ext = {"A2A-Extensions": UNKNOWN_EXTENSION}
    result = succeeded(caller.call("SendMessage", {"message": _msg()}, service=ext),
                       f"SendMessage naming the unknown extension {UNKNOWN_EXTENSION}")
    task = task_of(result, "SendMessage result")
    if task is not None:
        succeeded(caller.call("GetTask", {"id": task["id"]}, service=ext),
                  f"GetTask naming the unknown extension {UNKNOWN_EXTENSION}")


def _msg() -> dict[str, object]:
    from conformance.a2a.messages import text_message

    return text_message("unknown extension")


def _required(agent: CoreAgent) -> list[str]:
    """The URIs of the extensions the agent's card marks ``required: true``."""
    exts: Any = ((agent.card or {}).get("capabilities") or {}).get("extensions") or []
    return [str(e.get("uri")) for e in exts if isinstance(e, dict) and e.get("required") is True and e.get("uri")]


@pytest.mark.requirement("A2A_EXT_002")
def test_a_request_not_naming_a_required_extension_is_refused(core_agent: CoreAgent, binding: str,
                                                             recorder: Recorder) -> None:
    """On an agent whose card marks an extension required (the agent as given, or a launched target started
    so), SendMessage with no A2A-Extensions answers ExtensionSupportRequiredError. A card marking none makes
    the row na. Defect: required-extension-unchecked."""
    if core_agent.card is None:  # no card read: what it marks is unknown, never an na
        blocked_by(CARD_ROW, "no agent card was read, so whether it marks an extension required is unknown")
    agent = core_agent if _required(core_agent) else core_agent.variant(required_extension=True)
    if agent is None or agent.card is None or not _required(agent):
        na("the card marks no extension required: true, so no request can lack one")
    uris = _required(agent)
    with agent.caller(binding, recorder) as c:
        ans = c.call("SendMessage", {"message": _msg()})
    expect_error(ans, "ExtensionSupportRequiredError",
                 f"SendMessage naming no extension in A2A-Extensions, the card marking {uris} required")
