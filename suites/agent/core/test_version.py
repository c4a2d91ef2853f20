"""Protocol version negotiation: A2A-Version on every binding (§3.6)."""

from __future__ import annotations

import pytest
from a2a.types import a2a_pb2 as pb

from conformance.outcome import not_measured
from conformance.suites.agent.core.agent import CoreAgent
from conformance.suites.agent.core.caller import Caller
from conformance.suites.agent.core.expect import UNSUPPORTED_VERSION, expect_error, strict, succeeded, task_of
from conformance.suites.agent.core.steps import new_task, send


@pytest.mark.requirement("A2A_VER_001")
def test_version_1_0_is_processed(caller: Caller) -> None:
    """SendMessage and GetTask carrying A2A-Version: 1.0 are answered with results. Defect: version-1-0-refused."""
    v10 = {"A2A-Version": "1.0"}
    result = succeeded(send(caller, "version 1.0", service=v10), "SendMessage with A2A-Version 1.0")
    task = task_of(result, "SendMessage result")
    if task is not None:
        got = succeeded(caller.call("GetTask", {"id": task["id"]}, service=v10), "GetTask with A2A-Version 1.0")
        strict(got, pb.Task, "the GetTask result")


@pytest.mark.requirement("A2A_VER_002")
def test_unsupported_version_is_answered_with_version_not_supported(caller: Caller) -> None:
    """A2A-Version 99.0 gets VersionNotSupportedError on SendMessage and on GetTask of a real task,
    not a result and not another error. Defect: unsupported-version-wrong-error."""
    task = new_task(caller)
    bad = {"A2A-Version": UNSUPPORTED_VERSION}
    expect_error(send(caller, "unsupported version", service=bad), "VersionNotSupportedError",
                 f"SendMessage with A2A-Version {UNSUPPORTED_VERSION}")
    expect_error(caller.call("GetTask", {"id": task["id"]}, service=bad), "VersionNotSupportedError",
                 f"GetTask with A2A-Version {UNSUPPORTED_VERSION}")


@pytest.mark.requirement("A2A_VER_003")
def test_missing_or_empty_version_is_read_as_0_3(core_agent: CoreAgent, caller: Caller) -> None:
    """Without A2A-Version, or with it empty, the request is 0.3: an interface that does not declare
    0.3 answers VersionNotSupportedError. Defect: missing-version-accepted."""
    versions = {str(e.get("protocolVersion")) for e in (core_agent.card or {}).get("supportedInterfaces") or []
                if isinstance(e, dict) and e.get("protocolBinding") == caller.binding and e.get("url") == caller.url}
    if any(v.split(".")[:2] == ["0", "3"] for v in versions):
        not_measured(f"the card declares A2A 0.3 on this {caller.binding} interface ({caller.url}); the harness "
                     "cannot judge 0.3 semantics")
    expect_error(send(caller, "no version", service={"A2A-Version": None}), "VersionNotSupportedError",
                 "SendMessage without A2A-Version (read as 0.3)")
    expect_error(send(caller, "empty version", service={"A2A-Version": ""}), "VersionNotSupportedError",
                 "SendMessage with an empty A2A-Version (read as 0.3)")


@pytest.mark.requirement("A2A_VER_004")
def test_patch_number_plays_no_part(caller: Caller) -> None:
    """A2A-Version 1.0.9 is processed as 1.0. Defect: patch-version-refused."""
    result = succeeded(send(caller, "patch version", service={"A2A-Version": "1.0.9"}),
                       "SendMessage with A2A-Version 1.0.9")
    task_of(result, "SendMessage result")
