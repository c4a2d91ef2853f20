"""Tier 2/3 transport and version checks (SPEC.md §13.1, §13.3, A2A §4.6): two transports each
selectable (TX_004), gRPC (TX_005), capability checks before gated operations (VER_003) and
server-required extensions declared or refused (VER_002).

The scripted agent serves JSON-RPC, HTTP+JSON and (when started with ``grpc=True``) gRPC, and records
which binding every request came on and its headers / gRPC metadata, so each verdict is read off
what the agent received.
"""

from __future__ import annotations

import pytest

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.clicheck.transport_checks import SHORT_TASK as _SHORT_TASK
from conformance.clicheck.transport_checks import bindings
from conformance.clicheck.transport_checks import ops as _ops
from conformance.fixtures.scripted_agent import CardSpec, Extension, Interface, RecordedRequest, Script, ScriptedAgent
from conformance.fixtures.scripted_agent.card import Binding
from conformance.judge import blocked_by, shown, unique
from conformance.suites.cli.conftest import card_ref

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006")

_ALL: tuple[Binding, ...] = ("JSONRPC", "HTTP+JSON", "GRPC")


# ── A2ACLI_TX_004 ─────────────────────────────────────────────────────────────────────────

def _used_with_preference(cli: Cli, a: ScriptedAgent, wanted: Binding) -> tuple[CliResult, list[RecordedRequest]]:
    """``send --transport <wanted>`` against a card listing all three bindings with ``wanted`` LAST,
    so the card's own order never picks it: only the caller's preference can."""
    order = tuple(b for b in _ALL if b != wanted) + (wanted,)
    a.set_script(Script(card=CardSpec(interfaces=tuple(Interface(b) for b in order)), send=_SHORT_TASK))
    before = len(a.a2a_requests())
    r = cli.run("send", "--text", "which binding?", "--transport", wanted, *card_ref(a))
    return r, a.a2a_requests()[before:]


@pytest.mark.requirement("A2ACLI_TX_004")
def test_at_least_two_transports_are_each_selectable(cli: Cli, agent: AgentMaker) -> None:
    """For each of JSON-RPC, HTTP+JSON and gRPC, a card offering all three lists that binding last and
    ``send --transport <it>`` is run (until two have counted): the binding counts as supported and
    selectable only when the send exits 0 and every A2A request the agent received came on it. At least
    two must count. Catches a
    tool that speaks one binding only, or whose --transport cannot reach a second one."""
    a = agent(Script(), grpc=True)
    selectable: list[str] = []
    seen: dict[str, str] = {}
    for wanted in _ALL:
        r, reqs = _used_with_preference(cli, a, wanted)
        used = bindings(reqs)
        seen[wanted] = f"exit {r.exit_code}, requests {_ops(reqs)}"
        if r.exit_code == 0 and used == [wanted]:
            selectable.append(wanted)
        if len(selectable) == 2:
            break
    assert len(selectable) >= 2, (
        f"expected at least two bindings each selectable with --transport (card listing it last, the send "
        f"exiting 0 with every request on it); selectable: {selectable}; per binding: {seen}; last run: {shown(r)}")


# ── A2ACLI_VER_003 ────────────────────────────────────────────────────────────────────────

_STREAM_OPS = ("SendStreamingMessage", "SubscribeToTask")


@pytest.mark.requirement("A2ACLI_VER_003")
@pytest.mark.depends_on("A2ACLI_SEND_003")
def test_no_streaming_request_to_a_card_without_the_streaming_capability(cli: Cli, agent: AgentMaker) -> None:
    """Against a card declaring ``capabilities.streaming: false``, ``send --stream`` sends no streaming
    request at all — the tool read the card first — and either falls back (a request reached the agent)
    or fails with a non-zero exit. §13.3 asks for the check, not for words about it: a silent fallback
    (seen on a2a-handler 0.4.0) satisfies it, so the output is not searched for a notice. Then the control: with the
    card changed to ``streaming: true`` the same ``send --stream`` reaches the agent as
    SendStreamingMessage (else the tool never streams, and there was no gate to observe: blocked by
    SEND_003). Catches a tool that opens the stream regardless and only learns from the refusal."""
    a = agent(Script(card=CardSpec(streaming=False), send=_SHORT_TASK))
    r = cli.run("send", "--stream", "--text", "no stream here", *card_ref(a))
    reqs = a.a2a_requests()
    gated = [op for op in _ops(reqs) if op[1] in _STREAM_OPS]
    assert not gated, (f"the card declares streaming: false, yet the tool sent {gated} "
                       f"(all requests: {_ops(reqs)}); {shown(r)}")
    assert r.exit_code != 0 or reqs, (
        f"the tool neither fell back (no request reached the agent) nor failed clearly (exit 0); {shown(r)}")
    before = len(reqs)
    a.set_script(Script(card=CardSpec(streaming=True), send=_SHORT_TASK))
    control = cli.run("send", "--stream", "--text", "stream me", *card_ref(a))
    streamed = [q for q in a.a2a_requests()[before:] if q.operation == "SendStreamingMessage"]
    if not streamed:
        blocked_by("A2ACLI_SEND_003", f"`send --stream` sent no SendStreamingMessage to a streaming card "
                                      f"(requests {_ops(a.a2a_requests()[before:])}; exit {control.exit_code})")


# ── A2ACLI_VER_002 ────────────────────────────────────────────────────────────────────────

def _declares(q: RecordedRequest, uri: str) -> bool:
    """Whether the request names ``uri`` in its A2A-Extensions header / gRPC metadata (a list)."""
    return uri in [u.strip() for u in q.headers.get("a2a-extensions", "").split(",")]


@pytest.mark.requirement("A2ACLI_VER_002")
def test_a_required_extension_is_declared_or_clearly_refused(cli: Cli, agent: AgentMaker) -> None:
    """Against a card whose ``capabilities.extensions`` marks a (unique) extension ``required: true``,
    ``send`` either names it in ``A2A-Extensions`` on every request it makes (and completes), or sends
    nothing and fails with a non-zero exit whose message names the extension. A refusal is then held to
    a control: the same extension marked optional must not stop the send (so the refusal was about the
    requirement). Catches a tool that proceeds without declaring the extension and leaves the agent to
    refuse it."""
    uri = f"https://example.org/extensions/{unique('required')}/v1"
    a = agent(Script(card=CardSpec(extensions=(Extension(uri, required=True, description="must be named"),)),
                     send=_SHORT_TASK))
    r = cli.run("send", "--text", "with a required extension", *card_ref(a))
    reqs = a.a2a_requests()
    undeclared = [op for q, op in zip(reqs, _ops(reqs), strict=True) if not _declares(q, uri)]
    assert not undeclared, (f"the card requires extension {uri}, but these requests did not declare it in "
                            f"A2A-Extensions: {undeclared}; {shown(r)}")
    if reqs:
        assert r.exit_code == 0, f"every request declared {uri}, but the send did not complete; {shown(r)}"
        return
    said = r.stdout_text + r.stderr_text
    assert r.exit_code != 0 and uri in said, (
        f"the tool sent nothing to an agent requiring extension {uri}: a refusal must exit non-zero and name "
        f"the extension; {shown(r)}")
    a.set_script(Script(card=CardSpec(extensions=(Extension(uri, required=False),)), send=_SHORT_TASK))
    optional = cli.run("send", "--text", "with an optional extension", *card_ref(a))
    assert optional.exit_code == 0 and a.a2a_requests(), (
        f"the tool also refuses when {uri} is optional, so its refusal is not about the required extension; "
        f"{shown(optional)}")


# ── A2ACLI_TX_005 ─────────────────────────────────────────────────────────────────────────

@pytest.mark.requirement("A2ACLI_TX_005")
@pytest.mark.depends_on("A2ACLI_TASK_GET_001")
def test_a_grpc_only_card_is_used_over_grpc(cli: Cli, agent: AgentMaker) -> None:
    """Against a card whose only interface is gRPC, a waiting ``send`` and a ``task get`` of the task it
    made both reach the agent over gRPC — every A2A request arrives on the gRPC server, the send creates
    the task and completes, and ``task get`` reports the task's id and COMPLETED. Catches a tool without
    a gRPC client, or one that guesses an HTTP endpoint instead."""
    a = agent(Script(card=CardSpec(interfaces=(Interface("GRPC"),)), send=_SHORT_TASK), grpc=True)
    r = cli.run("send", "--text", "over grpc", *card_ref(a))
    reqs = a.a2a_requests()
    assert r.exit_code == 0 and reqs and a.tasks, (
        f"expected the send to reach the gRPC-only agent and exit 0; requests {_ops(reqs)}; {shown(r)}")
    task_id = a.tasks[-1].id
    got = cli.run("task", "get", task_id, *card_ref(a))
    reqs = a.a2a_requests()
    off_grpc = [op for op in _ops(reqs) if op[0] != "GRPC"]
    assert not off_grpc, f"the card offers only gRPC, but requests came on {off_grpc}; {shown(got)}"
    assert [q for q in reqs if q.operation == "GetTask"], (
        f"`task get` sent no GetTask over gRPC (requests {_ops(reqs)}); {shown(got)}")
    assert got.exit_code == 0 and task_id in got.stdout_text and "COMPLETED" in got.stdout_text.upper(), (
        f"`task get {task_id}` over gRPC did not report the task and its COMPLETED state; {shown(got)}")
