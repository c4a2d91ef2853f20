"""A2ACLI_DEMO_SERVER_001 (SPEC.md §7.1, §3): `demo-server` runs a local demo agent to practise against.

The tool is started with `demo-server` and left running (``conformance.clicheck.background``); it must say
where it listens — a loopback URL on its output — and serve an Agent Card there. The harness then runs
its own core A2A checks against that agent, as one child run of ``agentd-conformance agent --family
a2a`` limited to :data:`CORE_IDS` (the card, a message, a task read back, the version header: what any
demo agent meets). The row passes only when the card is served and every one of those checks passes.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.clicheck.background import Background
from conformance.clicheck.invocations import Cli
from conformance.evidence import Evidence
from conformance.judge import shown
from conformance.paths import python_module

DEMO = "A2ACLI_DEMO_SERVER_001"
#: The core checks a demo agent must pass: card served and well-formed, its interfaces usable, a
#: message answered, the task read back, the version signalled.
CORE_IDS = ("A2A_CARD_001", "A2A_CARD_002", "A2A_CARD_003", "A2A_SEND_001", "A2A_TASK_001", "A2A_VER_001")
LOOPBACK_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost|\[::1\]):\d{1,5}")
#: A loopback origin as a card's interface names it (a gRPC interface as ``host:port``, without a scheme).
LOOPBACK_ORIGIN = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:127\.0\.0\.1|localhost|\[::1\]):\d{1,5}")
START_WAIT = 15.0
CHECKS_TIMEOUT = 120.0


def own_origins(card: dict[str, Any]) -> list[str]:
    """The loopback origins the demo agent's card names for its interfaces (a gRPC port of its own, say):
    the harness started the demo server through the CLI, so, as for an agent it launches itself, every
    loopback interface the card declares is that agent's (``--allow-origin``)."""
    out: list[str] = []
    for itf in card.get("supportedInterfaces") or []:
        m = LOOPBACK_ORIGIN.match(str(itf.get("url") or "")) if isinstance(itf, dict) else None
        if m and m.group(0) not in out:
            out.append(m.group(0))
    return out


def core_checks(url: str, report_dir: Path, allow: list[str]) -> tuple[dict[str, Any], str]:
    """Run the chosen core checks against ``url`` in one child run, the ``allow`` origins being the agent's
    too; (rows by id, child's stderr tail)."""
    cmd = [*python_module("conformance.command"), "agent", "--family", "a2a", "--url", url, "--jobs", "1",
           "--only", *CORE_IDS, "--report-dir", str(report_dir), *(a for o in allow for a in ("--allow-origin", o))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHECKS_TIMEOUT, stdin=subprocess.DEVNULL)
    report = report_dir / "compliance-report.yaml"
    if not report.exists():
        raise RuntimeError(f"harness: the core checks wrote no report (exit {proc.returncode}): {proc.stderr[-800:]}")
    data = yaml.safe_load(report.read_text(encoding="utf-8"))
    return {rid: data["requirements"][rid] for rid in CORE_IDS}, proc.stderr[-800:]


@pytest.mark.requirement(DEMO)
def test_demo_server_serves_an_agent_that_passes_core_checks(cli: Cli, evidence: Evidence) -> None:
    """`demo-server` prints a loopback URL within the start bound, serves a card there, and the agent
    passes the core checks :data:`CORE_IDS`.

    Catches defects `demo-server-silent` and `demo-server-no-card`.
    """
    bg = Background(cli, ["demo-server"])
    try:
        m = bg.wait_for(LOOPBACK_URL, START_WAIT)
        if m is None:
            r = bg.stop()
            cli.require(r, "demo-server")
            raise AssertionError(f"expected `demo-server` to print the loopback URL it serves on within "
                                 f"{START_WAIT:g}s; {'it exited' if r.exit_code is not None else 'none came'}; "
                                 f"{shown(r)}")
        origin = m.group(0)
        card_url = origin + "/.well-known/agent-card.json"
        try:
            resp = httpx.get(card_url, headers={"A2A-Version": "1.0"}, timeout=10.0)
            card = resp.json() if resp.status_code == 200 else None
        except (httpx.HTTPError, ValueError) as exc:
            resp, card = None, None
            evidence.add("card fetch error", f"{type(exc).__name__}: {exc}")
        evidence.add("card", {"url": card_url, "status": resp.status_code if resp is not None else None,
                              "card": card})
        assert isinstance(card, dict) and card.get("supportedInterfaces"), (
            f"expected an Agent Card at {card_url} (status "
            f"{resp.status_code if resp is not None else 'no answer'}); {shown(bg.stop())}")
        with tempfile.TemporaryDirectory(prefix="a2acli-demo-") as d:
            rows, tail = core_checks(origin, Path(d), own_origins(card))
        evidence.add("core checks against the demo agent", {rid: {"status": row.get("status"),
                                                                   "note": row.get("note")}
                                                             for rid, row in rows.items()})
        failing = {rid: f"{row.get('status')}: {str(row.get('note'))[:120]}" for rid, row in rows.items()
                   if row.get("status") != "pass"}
        assert not failing, (f"expected the demo agent at {origin} to pass the core checks; not passing: "
                             f"{failing}; {shown(bg.stop())}")
    finally:
        bg.stop()
