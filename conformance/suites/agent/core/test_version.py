"""Protocol version negotiation: A2A-Version on every binding (§3.6).

An agent is judged against the versions its card declares for the interface called (every
supportedInterfaces entry of that binding, url and tenant) — or, where its JSON-RPC interface
declares another version but answers only the 1.0 method names, against 1.0 (what the wire speaks;
the card is A2A_CARD_003's fail): a version declared there is never probed as unsupported; one
not declared must get VersionNotSupportedError (§3.6.2), recognised by the one error table every
binding shares (``conformance/wire/errors.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from conformance.a2a.messages import send_params, send_params_0_3
from conformance.a2a.steps import new_task, send
from conformance.a2a.tasks import task_of
from conformance.judge import blocked_by, error_problem, in_time, succeeded
from conformance.outcome import fail, not_measured
from conformance.targets.core import CoreAgent
from conformance.wire.caller import Answer, Caller
from conformance.wire.versions import UNDECLARED, declared_versions, undeclared

NOT_SUPPORTED = "VersionNotSupportedError"


def judged_as(core_agent: CoreAgent, caller: Caller, versions: frozenset[str]) -> str:
    """What the interface is judged as, in a note: the versions its card declares, or, where the harness judges
    it on the wire's 1.0 instead, both (the card's version is A2A_CARD_003's fail, not this row's)."""
    card = declared_versions(core_agent.card, caller.interface)
    if card == versions:
        return f"the {caller.binding} interface declares {sorted(versions)}"
    return (f"the {caller.binding} interface is judged as {sorted(versions)} (its card declares {sorted(card)}, "
            "but it answers only the 1.0 method names)")


def refusals(probes: Iterable[tuple[str, Answer]]) -> list[str]:
    """Every probe (what it was, its answer) that did not come back VersionNotSupportedError."""
    return [p for what, ans in probes if (p := error_problem(ans, NOT_SUPPORTED, what)) is not None]


@pytest.mark.requirement("A2A_VER_001")
def test_version_1_0_is_processed(caller: Caller) -> None:
    """SendMessage and GetTask carrying A2A-Version: 1.0 are answered with results. Defect: version-1-0-refused."""
    v10 = {"A2A-Version": "1.0"}
    result = succeeded(send(caller, "version 1.0", service=v10), "SendMessage with A2A-Version 1.0")
    task = task_of(result, "SendMessage result")
    if task is not None:
        succeeded(caller.call("GetTask", {"id": task["id"]}, service=v10), "GetTask with A2A-Version 1.0")


@pytest.mark.parametrize("part", [pytest.param(p, marks=pytest.mark.requirement("A2A_VER_002", part=p))
                                  for p in UNDECLARED])
def test_undeclared_version_is_answered_with_version_not_supported(core_agent: CoreAgent, caller: Caller,
                                                                   part: str) -> None:
    """A version the called interface does not declare gets VersionNotSupportedError on SendMessage
    and on GetTask of a real task — not a result, not another error (§3.6.2: "If the version is not
    supported by the interface, agents MUST return a VersionNotSupportedError"). Versions are
    matched on Major.Minor (§3.6.2), so an interface declaring 1.0 supports neither 1.1 nor 1.9
    (part ``minor``), nor 2.0 or 99.0 (``major``).

    Part ``bare_major`` sends ``1``. §3.6 identifies a version by its "Major.Minor elements" and
    §14.2.1 says the value "MUST be in the format Major.Minor"; the only reading the text gives a
    value that is not one is for the empty value (0.3, §3.6.2). ``1`` names no Major.Minor the
    interface declares, so it is not a supported version. That an agent might read it as 1.0 is
    the one point the text leaves to inference, so it is a part of its own: an agent that serves
    it fails only that part (the requirement comes out partial).

    Defects: accepts-minor-versions, accepts-newer-major, accepts-bare-major,
    unsupported-version-wrong-error."""
    declared = core_agent.versions(caller.interface)
    versions = undeclared(part, declared)
    if not versions:
        not_measured(f"the {caller.binding} interface declares every version of part {part} "
                     f"({', '.join(UNDECLARED[part])}): {judged_as(core_agent, caller, declared)}")
    task = new_task(caller)
    probes: list[tuple[str, Answer]] = []
    for v in versions:
        asked = {"A2A-Version": v}
        probes.append((f"SendMessage with A2A-Version {v}", send(caller, f"version {v}", service=asked)))
        probes.append((f"GetTask with A2A-Version {v}", caller.call("GetTask", {"id": task["id"]}, service=asked)))
    problems = refusals(probes)
    if problems:
        fail(f"{judged_as(core_agent, caller, declared)}; " + "; ".join(problems))


@pytest.mark.requirement("A2A_VER_003")
def test_0_3_requests_are_answered_with_version_not_supported(core_agent: CoreAgent, caller: Caller) -> None:
    """A request without A2A-Version, with it empty, or with 0.3 is a 0.3 request (§3.6.1, §3.6.2:
    "Agents MUST interpret empty value as 0.3 version"): an interface that does not declare 0.3
    answers VersionNotSupportedError. On JSON-RPC, where 0.3 and 1.0 share the endpoint, the same
    holds for the 0.3 method ``message/send`` (params shaped by the SDK's own 0.3 types) with no
    version or with 0.3: the version is what is unsupported, so the answer is
    VersionNotSupportedError, not a result and not MethodNotFound. Defects: missing-version-accepted,
    version-0-3-accepted, 0.3-method-accepted."""
    declared = core_agent.versions(caller.interface)
    if "0.3" in declared:
        not_measured(f"the card declares A2A 0.3 on this {caller.binding} interface ({caller.url}); the harness "
                     "cannot judge 0.3 semantics")
    probes = [
        ("SendMessage without A2A-Version (read as 0.3)", send(caller, "no version", service={"A2A-Version": None})),
        ("SendMessage with an empty A2A-Version (read as 0.3)", send(caller, "empty version",
                                                                     service={"A2A-Version": ""})),
        ("SendMessage with A2A-Version 0.3", send(caller, "version 0.3", service={"A2A-Version": "0.3"})),
    ]
    if caller.binding == "JSONRPC":
        for shown, value in (("without A2A-Version", None), ("with A2A-Version 0.3", "0.3")):
            ans = caller.call("message/send", send_params_0_3(f"0.3 method {shown}"), service={"A2A-Version": value})
            probes.append((f"the 0.3 method message/send {shown}", ans))
    problems = refusals(probes)
    if problems:
        fail(f"{judged_as(core_agent, caller, declared)}; " + "; ".join(problems))


@pytest.mark.requirement("A2A_VER_004")
def test_patch_number_plays_no_part(caller: Caller) -> None:
    """A2A-Version 1.0.9 is processed as 1.0 (§3.6: patch numbers "MUST not be considered" in
    negotiation). Defect: patch-version-refused."""
    result = succeeded(send(caller, "patch version", service={"A2A-Version": "1.0.9"}),
                       "SendMessage with A2A-Version 1.0.9")
    task_of(result, "SendMessage result")


def _by_query(caller: Caller, method: str, params: dict[str, Any], version: str) -> Answer:
    """``method`` carrying the version only as the ``A2A-Version`` request parameter (no header)."""
    return caller.call(method, params, service={"A2A-Version": None}, query={"A2A-Version": version})


def _query_honoured(caller: Caller) -> str | None:
    """Why ``?A2A-Version=1.0`` with no header is not processed as 1.0 (None when it is): SendMessage,
    and GetTask of the task it made."""
    baseline = send(caller, "version 1.0 by header", service={"A2A-Version": "1.0"})
    if not baseline.ok:
        not_measured(f"blocked by A2A_VER_001: SendMessage with the A2A-Version 1.0 header is not served, so a "
                     f"version by query parameter cannot be told apart; {baseline.quote(300)}")
    ans = _by_query(caller, "SendMessage", send_params("version 1.0 by query"), "1.0")
    in_time(ans, "SendMessage with ?A2A-Version=1.0 and no header")
    if not ans.ok:
        return f"SendMessage with ?A2A-Version=1.0 and no header was not processed: {ans.quote(300)}"
    task = task_of(ans.result, "SendMessage result")
    if task is not None:
        got = _by_query(caller, "GetTask", {"id": task["id"]}, "1.0")
        in_time(got, "GetTask with ?A2A-Version=1.0 and no header")
        if not got.ok:
            return f"GetTask with ?A2A-Version=1.0 and no header was not processed: {got.quote(300)}"
    return None


@pytest.mark.parametrize("part", [pytest.param(p, marks=pytest.mark.requirement("A2A_VER_005", part=p))
                                  for p in ("honoured", "judged")])
@pytest.mark.core_bindings("JSONRPC", "HTTP+JSON")
@pytest.mark.depends_on("A2A_VER_002")
def test_version_given_as_query_parameter_is_honoured(core_agent: CoreAgent, caller: Caller, part: str) -> None:
    """§3.6.1: "Clients MAY provide the A2A-Version as a request parameter instead of a header";
    §9.2 and §11.2 carry service parameters in HTTP headers, and nothing obliges a server to read the
    parameter: the row is a MAY. Part ``honoured``: with no header, ``?A2A-Version=1.0`` makes
    SendMessage and GetTask answer results (an agent that does not read the parameter sees no
    version, reads 0.3, and refuses). Part ``judged``: on an agent that reads it, an undeclared
    version given so gets VersionNotSupportedError (§3.6.2), not a result; where the parameter is not
    read at all there is nothing to judge (not_measured). gRPC has no request parameters.
    Defects: ignores-version-query-param, query-version-unchecked."""
    why = _query_honoured(caller)
    if part == "honoured":
        if why is not None:
            fail(f"{why} (reading the parameter is optional: this row is a MAY)")
        return
    if why is not None:
        not_measured(f"this agent does not read A2A-Version from a request parameter ({why}), so how it judges a "
                     "version given there cannot be told")
    bad = undeclared("major", core_agent.versions(caller.interface))[-1]
    ans = _by_query(caller, "SendMessage", send_params(f"version {bad} by query"), bad)
    problem = error_problem(ans, NOT_SUPPORTED, f"SendMessage with ?A2A-Version={bad} and no header")
    if problem is not None:
        # The paired control: the same version in the header must be refused, or the agent refuses no
        # undeclared version at all — A2A_VER_002's fail, which says nothing of the parameter.
        header = send(caller, f"version {bad} by header", service={"A2A-Version": bad})
        if error_problem(header, NOT_SUPPORTED, "") is not None:
            blocked_by("A2A_VER_002", f"A2A-Version {bad} in the header is not refused either, so how the "
                                      f"parameter is judged cannot be told apart: {header.quote(300)}")
        fail(problem)
