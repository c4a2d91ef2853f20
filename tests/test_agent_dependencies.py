"""Every agent check declares what it stands on (DESIGN.md §2.8), and the helpers that say "this must
be declared" block on the right row.

The agentd checks stand on the public card and its JSON-RPC listener (AGENTD_DECL_001 / 013) and on
the declaration of each extension they exercise (AGENTD_DECL_001 command, 002 task-annotations, 003
events); the core checks on the card (A2A_CARD_001) and their interface answering A2A (A2A_CARD_007).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from conformance.agentd.footing import DECLARED_BY, card_of, declaring, require_declared
from conformance.agentd_page import ANNOTATIONS, COMMAND, EVENTS
from conformance.coverage import collect_checks
from conformance.judge import Blocked, judged_here
from conformance.outcome import CheckFailed, NotMeasured
from conformance.targets import AgentLocation
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Exchange
from conformance.wire.sse import SseEvent

#: agentd checks that stand on nothing but themselves: the card declarations the others stand on, and
#: runs of the target's own executable.
SELF_STANDING = {"test_card_always_declares_the_command_extension", "test_card_always_declares_task_annotations",
                 "test_extensions_output_lists_the_registry", "test_extension_schema_prints_a_valid_bundle"}


@pytest.fixture(scope="module")
def checks() -> dict[str, dict[str, list[str]]]:
    return collect_checks()


def test_every_agentd_check_declares_the_rows_it_stands_on(checks: dict[str, dict[str, list[str]]]) -> None:
    agentd = {name: info for name, info in checks.items() if "/agentd/" in name}
    assert len(agentd) > 90, f"only {len(agentd)} agentd checks collected"
    bare = [name for name, info in agentd.items()
            if not info["depends_on"] and name.rsplit("::", 1)[-1] not in SELF_STANDING]
    assert not bare, f"agentd checks declaring no dependency: {bare}"


def test_every_core_check_stands_on_the_card_and_its_interface(checks: dict[str, dict[str, list[str]]]) -> None:
    core = {name: info for name, info in checks.items() if "/core/" in name}
    assert len(core) > 50, f"only {len(core)} core checks collected"
    for name, info in core.items():
        for row in ("A2A_CARD_001", "A2A_CARD_007"):
            assert row in info["ids"] or row in info["depends_on"], f"{name} does not declare {row}"


# ---- the one helper that says "must be declared" ----------------------------------------------

class _Instance:
    def __init__(self, card: dict[str, Any] | None, error: str = "") -> None:
        self.location = AgentLocation("http://127.0.0.1:9", None, None if card is None else "http://127.0.0.1:9/c",
                                      card, None if card is not None else (error or "no card"))
        self.tokens: dict[str, str] = {}
        self.launched = None


class _Targets:
    """A running target (not launchable) whose card is ``card``; its facts are empty."""

    launchable = False

    def __init__(self, card: dict[str, Any] | None, tokens: dict[str, str] | None = None) -> None:
        self.card = card
        self.target = {"kind": "url", "tokens": tokens or {}}
        self.asked: list[dict[str, Any]] = []

    def agentd(self, **needs: Any) -> _Instance:
        self.asked.append(needs)
        return _Instance(self.card, "GET http://127.0.0.1:9/.well-known/agent-card.json answered HTTP 404")


def _stand_in(instance: _Instance) -> Instance:
    """The stand-in where the helpers take an instance (it has what they read of one)."""
    return cast(Instance, instance)


def _targets(targets: _Targets) -> AgentTargets:
    """The stand-in where the helpers take the agent targets (it has what they use of them)."""
    return cast(AgentTargets, targets)


def _card(*uris: str, schemes: bool = False) -> dict[str, Any]:
    card: dict[str, Any] = {"capabilities": {"extensions": [{"uri": u} for u in uris]}}
    if schemes:
        card["securitySchemes"] = {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}
    return card


@pytest.mark.parametrize("uri", [COMMAND, ANNOTATIONS, EVENTS])
def test_an_undeclared_extension_blocks_on_its_declaration_row(uri: str) -> None:
    with pytest.raises(Blocked) as got:
        require_declared(_card(), uri)
    assert got.value.by == DECLARED_BY[uri] and uri in got.value.missing
    assert require_declared(_card(uri), uri) == {"uri": uri}


def test_an_unreadable_card_blocks_on_the_card_row_and_is_a_fail_where_owned() -> None:
    with pytest.raises(Blocked) as got:
        card_of(_stand_in(_Instance(None, "HTTP 404")))
    assert got.value.by == "AGENTD_DECL_001"
    with pytest.raises(CheckFailed, match="HTTP 404"), judged_here("AGENTD_DECL_001"):
        card_of(_stand_in(_Instance(None, "HTTP 404")))


def test_declarations_are_judged_before_any_fact_a_running_target_cannot_have() -> None:
    """A card without the command extension blocks on AGENTD_DECL_001 before the configuration is
    asked for (the fact gate would have advised --fact auth=on)."""
    targets = _Targets(_card())
    with pytest.raises(Blocked) as got:
        declaring(_targets(targets), COMMAND, auth=True)
    assert got.value.by == "AGENTD_DECL_001"
    assert targets.asked == [{}], "the configuration must not be asked for before the declaration"


@pytest.mark.parametrize(("schemes", "says"), [(False, "declares no security scheme"), (True, "--token")])
def test_a_role_need_says_what_is_missing_never_a_fact(schemes: bool, says: str) -> None:
    with pytest.raises(NotMeasured) as got:
        declaring(_targets(_Targets(_card(COMMAND, schemes=schemes))), COMMAND, auth=True)
    assert says in got.value.reason and "--fact" not in got.value.reason, got.value.reason


# ---- transports_covered: only bindings that answered -------------------------------------------

def _ex(binding: Any, **kw: Any) -> Exchange:
    return Exchange(binding=binding, method=kw.pop("method", "POST"), target=kw.pop("target", "/rpc"),
                    url="http://127.0.0.1:9/rpc", **kw)


@pytest.mark.parametrize(("exchange", "answered"), [
    (_ex("JSONRPC", status=200, response_body={"jsonrpc": "2.0", "id": 1, "result": {}}), True),
    (_ex("JSONRPC", status=200, response_body={"jsonrpc": "2.0", "id": 1, "error": {"code": -32601}}), True),
    (_ex("JSONRPC", status=404, response_body="<html>Not Found</html>"), False),
    (_ex("JSONRPC", error="ConnectError: refused"), False),
    (_ex("JSONRPC", status=200, frames=[SseEvent(data='{"jsonrpc": "2.0", "id": 1, "result": {}}')]), True),
    (_ex("HTTP+JSON", status=404, response_body={"error": {"code": 404, "status": "NOT_FOUND"}}), True),
    (_ex("HTTP+JSON", status=404, response_body="<!doctype html><h1>Not Found</h1>"), False),
    (_ex("HTTP+JSON", status=401, response_body={"error": "unauthorized"}), False),
    (_ex("HTTP+JSON", method="GET", target="/.well-known/agent-card.json", status=200, response_body={"name": "x"}),
     False),
    (_ex("GRPC", status="NOT_FOUND"), True),
    (_ex("GRPC", status="UNAVAILABLE", error="failed to connect"), False),
    (_ex("GRPC", status="UNIMPLEMENTED"), False),
], ids=["jsonrpc-result", "jsonrpc-error", "jsonrpc-html-404", "jsonrpc-refused", "jsonrpc-stream",
        "rest-a2a-error", "rest-html-404", "rest-foreign-401", "card-fetch", "grpc-a2a-error", "grpc-unavailable",
        "grpc-unimplemented"])
def test_a_binding_counts_as_covered_only_when_it_answered_its_protocol(exchange: Exchange, answered: bool) -> None:
    assert exchange.protocol_answer is answered


# ---- a need the run provides is one the check uses -----------------------------------------------

def test_a_binary_given_with_agentd_binary_is_the_one_the_registry_checks_run(tmp_path: Path) -> None:
    """``--agentd-binary`` provides the ``executable`` need; the --extensions / --extension-schema
    checks then run that binary (the reference's here) instead of ending not_measured for want of one."""
    from tests.killmatrix import run_command
    from tests.null_agents import serve_a2a_nothing

    binary = shlex.join([sys.executable, "-m", "conformance.fixtures.reference_agentd"])
    with serve_a2a_nothing() as url:
        reqs = run_command(["agent", "--url", url, "--agentd-binary", binary, "--only", "AGENTD_DECL_011",
                            "AGENTD_DECL_012"], tmp_path / "r").requirements
    for rid in ("AGENTD_DECL_011", "AGENTD_DECL_012"):
        assert reqs[rid].status == "pass", (rid, reqs[rid])
