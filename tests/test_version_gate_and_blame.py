"""Version gate on the wire, and blame on a daemon that predates the extensions page (issue 22 §4).

* A JSON-RPC interface whose card says 0.3.0 but which answers only the 1.0 method names (agentd 2.5.1
  did so): the harness asks the wire, A2A_CARD_003 fails for the card, and the 1.0 rows are judged on
  what the wire does (before: every row on that interface was not_measured, "declares 0.3").
* A daemon whose card declares none of the extensions page's URIs, and is not strictly valid besides:
  AGENTD_DECL_001 says "declares none of the extension URIs", and so do the rows it blocks (before: they
  all quoted the card's unrelated strictness problem, A2A_CARD_002's business).
* A daemon on a socket that does not serve the command extension (not declared, commands taken as
  chat): the socket rows made of command ops (UDS_005, UDS_007) are blocked by AGENTD_DECL_001 (before:
  UDS_007 failed for the command extension's mismatch).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.killmatrix import run_command

VERSION_ROWS = ("A2A_CARD_003", "A2A_SEND_001")
DECL_ROWS = ("AGENTD_DECL_001", "AGENTD_DECL_003")
UDS_ROWS = ("AGENTD_UDS_005", "AGENTD_UDS_007")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("version-gate")
    plans = {
        "version": ["agent", "--family", "a2a", "--launch", "scripted", "--defect", "card-declares-0.3",
                    "--defect", "accepts-newer-major", "--only", *VERSION_ROWS, "A2A_VER_002"],
        "decl": ["agent", "--family", "agentd", "--launch", "scripted", "--defect", "card-unknown-member",
                 "--only", *DECL_ROWS],
        "uds": ["agent", "--family", "agentd", "--launch", "reference", "--defect", "no-command-declaration",
                "--defect", "command-runs-as-chat", "--only", *UDS_ROWS],
    }
    with ThreadPoolExecutor(len(plans)) as pool:
        futures = {name: pool.submit(run_command, args, tmp / name) for name, args in plans.items()}
        out = {name: f.result().to_dict()["requirements"] for name, f in futures.items()}
    out["version"]["_dir"] = tmp / "version"
    return out


def test_a_card_saying_0_3_on_an_interface_speaking_1_0_fails_the_card_row(runs: dict[str, dict[str, Any]]) -> None:
    reqs = runs["version"]
    row = reqs["A2A_CARD_003"]
    assert row["status"] == "fail", row
    assert "'0.3.0'" in row["note"] and "speaks 1.0 only" in row["note"], row["note"]
    send = reqs["A2A_SEND_001"]
    assert send["transports"]["JSONRPC"] == "pass", send  # judged on what the wire does


def test_a_version_row_judged_on_the_wire_does_not_say_the_card_declares_what_the_wire_speaks(
        runs: dict[str, dict[str, Any]]) -> None:
    """The 1.0 rows on an interface whose card says 0.3.0 are judged as 1.0 (the wire's), and their notes say
    so: against agentd 2.5.1 A2A_VER_002's note read "the JSONRPC interface declares ['1.0']", which its card
    does not (it declares 0.3.0)."""
    messages = [json.loads(f.read_text("utf-8"))["message"]
                for f in (runs["version"]["_dir"] / "evidence" / "A2A_VER_002").glob("*JSONRPC-major.json")]
    assert messages, runs["version"]["_dir"]
    for message in messages:
        assert "declares ['1.0']" not in message, message
        assert "its card declares ['0.3']" in message and "1.0 method names" in message, message


def test_a_daemon_declaring_no_extension_uri_is_told_so(runs: dict[str, dict[str, Any]]) -> None:
    reqs = runs["decl"]
    row = reqs["AGENTD_DECL_001"]
    assert row["status"] == "fail", row
    assert "declares none of the extension URIs" in row["note"] and "strictly" not in row["note"], row["note"]
    blocked = reqs["AGENTD_DECL_003"]
    assert blocked["status"] == "not_measured", blocked
    assert blocked["note"].startswith("blocked by AGENTD_DECL_001:"), blocked["note"]
    assert "declares none of the extension URIs" in blocked["note"], blocked["note"]


def test_socket_rows_made_of_command_ops_are_blocked_where_the_command_extension_is_not_declared(
        runs: dict[str, dict[str, Any]]) -> None:
    reqs = runs["uds"]
    for rid in UDS_ROWS:
        assert reqs[rid]["status"] == "not_measured", (rid, reqs[rid])
        assert reqs[rid]["note"].startswith("blocked by AGENTD_DECL_001:"), (rid, reqs[rid]["note"])
