"""Only the target is judged (issue 22 §3).

An agent whose card names an interface on another host (127.0.0.2, a loopback address that is not the
one given): the card row that demands each interface be the agent's (A2A_CARD_007 in the core family,
AGENTD_DECL_013's listener in agentd's) fails quoting the URL, the harness sends nothing there, and the
rows that need the interface are not_measured, blocked by that row. An interface on another port of the
host given, where a second agent listens, may be the agent's own (its gRPC port) or another process's:
it is not called and nothing is failed for it (not measured, naming ``--allow-origin``). Before, the
other agent's answers were credited (every row passed). ``--allow-origin`` names the other listener as
the agent's own (a reverse proxy): then it is judged as the target.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.fixtures.plain_sdk_agent import PlainSdkAgent
from conformance.fixtures.plain_sdk_agent.server import JSONRPC_PATH
from conformance.fixtures.reference_agentd import Config, ReferenceAgentd
from conformance.registry import default_registry
from conformance.report import load_report
from conformance.targets.kinds import build_target, kind_of
from conformance.targets.model import AgentTarget, TargetError
from conformance.targets.origins import another_port, listener, outside
from tests.test_command import _env

#: Per run: the report's rows, and every URL its evidence records a request to.
Runs = dict[str, tuple[dict[str, Any], list[str]]]
CORE_ROWS = ("A2A_CARD_007", "A2A_SEND_001", "A2A_TASK_001")
AGENTD_ROWS = ("AGENTD_DECL_013", "AGENTD_DECL_005")
#: Another host than the one given (nothing listens there: the harness must never call it).
FOREIGN = "http://127.0.0.2:9"


def _urls(doc: dict[str, Any]) -> list[str]:
    """Where every request an evidence document records went (its wire exchanges)."""
    return [str(ex.get("url")) for att in doc.get("attachments") or [] if att.get("name") == "wire exchanges"
            for ex in att.get("data") or [] if isinstance(ex, dict)]


def _run(args: list[str], out: Path) -> tuple[dict[str, Any], list[str]]:
    """The report's rows of ``agent ARGS`` and every URL its evidence records a request to."""
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", *args, "--report-dir", str(out)],
                          capture_output=True, text=True, timeout=300, env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"the run failed (exit {proc.returncode}): {proc.stderr[-1500:]}"
    urls = [u for p in sorted((out / "evidence").rglob("*.json")) for u in _urls(json.loads(p.read_text("utf-8")))]
    return load_report(out, default_registry()).to_dict()["requirements"], urls


@pytest.fixture(scope="module")
def agents() -> Iterator[dict[str, str]]:
    """The other agent (its origin) and, in front of each family, an agent whose card names it."""
    with (PlainSdkAgent(bindings=("JSONRPC",)) as other,
          PlainSdkAgent(bindings=("JSONRPC",), advertise=other.base_url) as core,
          PlainSdkAgent(bindings=("JSONRPC",), advertise=FOREIGN) as foreign,
          ReferenceAgentd(Config()) as other_agentd,
          ReferenceAgentd(Config(), public_url=other_agentd.url) as agentd,
          ReferenceAgentd(Config(), public_url=FOREIGN + "/") as agentd_foreign):
        yield {"other": other.base_url, "core": core.url, "foreign": foreign.url,
               "other_agentd": other_agentd.url.rstrip("/"), "agentd": f"http://127.0.0.1:{agentd.port}/",
               "agentd_foreign": f"http://127.0.0.1:{agentd_foreign.port}/"}


@pytest.fixture(scope="module")
def runs(agents: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Runs:
    tmp = tmp_path_factory.mktemp("only-the-target")
    plans = {
        "core": ["--family", "a2a", "--url", agents["core"], "--only", *CORE_ROWS],
        "foreign": ["--family", "a2a", "--url", agents["foreign"], "--only", *CORE_ROWS],
        "agentd_foreign": ["--family", "agentd", "--url", agents["agentd_foreign"], "--only", *AGENTD_ROWS],
        "allowed": ["--family", "a2a", "--url", agents["core"], "--only", *CORE_ROWS,
                    "--allow-origin", agents["other"]],
        "agentd": ["--family", "agentd", "--url", agents["agentd"], "--only", *AGENTD_ROWS],
    }
    with ThreadPoolExecutor(len(plans)) as pool:
        futures = {name: pool.submit(_run, args, tmp / name) for name, args in plans.items()}
        return {name: f.result() for name, f in futures.items()}


def test_an_interface_on_another_host_fails_the_card_row_and_is_never_called(runs: Runs) -> None:
    reqs, urls = runs["foreign"]
    row = reqs["A2A_CARD_007"]
    assert row["status"] == "fail", row
    assert f"{FOREIGN + JSONRPC_PATH!r} is outside the target" in row["note"] and "--allow-origin" in row["note"], row
    for rid in ("A2A_SEND_001", "A2A_TASK_001"):
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert reqs[rid]["note"].startswith("blocked by A2A_CARD_007:"), (rid, reqs[rid]["note"])
    assert not [u for u in urls if u.startswith(FOREIGN)], urls


def test_an_interface_on_another_port_is_not_called_and_fails_nothing(agents: dict[str, str], runs: Runs) -> None:
    """An honest agent serving gRPC on a port of its own must not fail for it; another process there must not
    be credited: neither is called, and the rows needing it say how to judge it."""
    reqs, urls = runs["core"]
    url = agents["other"] + JSONRPC_PATH
    for rid in CORE_ROWS:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert f"{url!r} is on another port of the host given" in reqs[rid]["note"], (rid, reqs[rid])
        assert "--allow-origin" in reqs[rid]["note"], (rid, reqs[rid])
    assert not [u for u in urls if u.startswith(agents["other"])], urls


def test_an_allowed_origin_is_judged_as_the_target(agents: dict[str, str], runs: Runs) -> None:
    reqs, urls = runs["allowed"]
    assert [u for u in urls if u.startswith(agents["other"])], urls
    assert {rid: reqs[rid]["status"] for rid in CORE_ROWS} == dict.fromkeys(CORE_ROWS, "pass"), reqs


def test_the_agentd_listener_on_another_host_fails_its_own_row(runs: Runs) -> None:
    reqs, urls = runs["agentd_foreign"]
    row = reqs["AGENTD_DECL_013"]
    assert row["status"] == "fail", row
    assert FOREIGN in row["note"] and "outside the target" in row["note"], row
    assert reqs["AGENTD_DECL_005"]["status"] == "not_measured", reqs["AGENTD_DECL_005"]
    assert reqs["AGENTD_DECL_005"]["note"].startswith("blocked by AGENTD_DECL_013:"), reqs["AGENTD_DECL_005"]
    assert not [u for u in urls if u.startswith(FOREIGN)], urls


def test_the_agentd_listener_on_another_port_is_not_called_and_fails_nothing(agents: dict[str, str],
                                                                            runs: Runs) -> None:
    reqs, urls = runs["agentd"]
    for rid in AGENTD_ROWS:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert "on another port of the host given" in reqs[rid]["note"], (rid, reqs[rid])
    assert not [u for u in urls if u.startswith(agents["other_agentd"])], urls


def test_one_listener_is_one_origin_whatever_its_spelling() -> None:
    assert listener("http://localhost:8420/a2a") == listener("grpc://127.0.0.1:8420") == listener("[::1]:8420")
    assert listener("https://agent.test/") == listener("https://AGENT.test:443")
    assert outside("http://127.0.0.1:9001/rpc", ("http://127.0.0.1:9000",))
    assert not outside("127.0.0.1:9001", ("http://127.0.0.1:9000", "127.0.0.1:9001"))
    assert not outside("http://anything:1/", None)  # a launched agent: every interface it declares is its own
    assert another_port("http://localhost:9001/rpc", ("http://127.0.0.1:9000",))
    assert not another_port("http://127.0.0.2:9000/rpc", ("http://127.0.0.1:9000",))


def test_an_allowed_origin_must_be_an_origin_given_with_url_or_unix() -> None:
    for bad in ("not a url", "http://proxy.test:8443/path", "http://proxy.test:port"):
        with pytest.raises(TargetError, match="--allow-origin"):
            build_target(url="http://127.0.0.1:9/", allow_origins=[bad])
    with pytest.raises(TargetError, match="--allow-origin"):
        build_target(launch="sdk", allow_origins=["http://127.0.0.1:1"])
    target = build_target(url="http://127.0.0.1:9/agent", allow_origins=["https://proxy.test:8443"])
    assert kind_of(target).origins() == ("http://127.0.0.1:9", "https://proxy.test:8443")
    assert kind_of(AgentTarget.from_dict(json.loads(json.dumps(target.to_dict())))).origins() == (
        kind_of(target).origins())
