"""The A2A-Extensions service parameter: an extension the agent does not know is no reason to refuse."""

from __future__ import annotations

import pytest

from conformance.a2a.messages import UNKNOWN_EXTENSION
from conformance.a2a.tasks import task_of
from conformance.judge import succeeded
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
