"""Container contract v2 on a real engine: a foreign image (an a2a-sdk server with its own configuration file,
TLS only, bearer users and an advertised-URL variable) is checked over https with labels only.

Skipped only where no engine answers (``.ci/run`` requires one); the image is built once by content hash on
the reference's base root filesystem (``tests/foreign_image.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.foreign_image import PUSH_LABELS, build
from tests.test_container import _command, _env, _left, _report

ROWS = ("A2A_CARD_001", "A2A_SEND_001", "A2A_CARD_006", "A2A_CARD_005", "A2A_PUSH_005")


@pytest.fixture(scope="module")
def foreign(engine: Any) -> str:
    from conformance.targets.image import build_reference

    build_reference()  # the base and the dependency set the foreign image shares (a look-up in CI)
    return build(PUSH_LABELS).tag


@pytest.mark.timeout(900)
def test_a_foreign_tls_image_is_checked_over_https_with_labels_only(engine: Any, foreign: str,
                                                                  tmp_path: Path) -> None:
    """The card, a send and the extended card (read with the operator's bearer, a principal the image's own
    configuration file declares) pass; every call went to the URL the card advertises, https://127.0.0.1 with
    the harness's CA; the report names contract 2; nothing is left on the engine.

    The image refuses a plain-http webhook URL, as agentd does off loopback, and says so
    (``callbacks=schemes=https``, ``tls ... ca=ECHO_PUSH_CA``): the harness's webhook serves https on its address
    on the container's network under the CA the image is given, so creating a config is accepted (A2A_CARD_005,
    both sides of the capability) and a task's update is delivered there with its credentials (A2A_PUSH_005).
    One run for all five rows: a container run is the expensive part of CI."""
    run_id = f"foreign-{os.getpid()}"
    out = tmp_path / "foreign"
    proc = _command(["agent", "--family", "a2a", "--container", foreign, "--only", *ROWS, "--report-dir", str(out)],
                    _env(run_id), timeout=800)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    report = _report(out)
    statuses = {rid: (row["status"], (row.get("note") or "")[:200]) for rid, row in report["requirements"].items()
                if rid in ROWS}
    assert set(statuses) == set(ROWS) and all(s == "pass" for s, _ in statuses.values()), statuses
    assert report["report"].get("container_contract") == "2", report["report"]
    evidence = json.loads(next((out / "evidence" / "A2A_SEND_001").glob("*.json")).read_text("utf-8"))
    urls = [ex["url"] for a in evidence["attachments"] if a["name"] == "wire exchanges" for ex in a["data"]]
    # The card's interface (the image's own /rpc under the advertised URL) is what every call went to.
    assert urls and all(u.startswith("https://127.0.0.1:") and u.endswith("/rpc") for u in urls), urls
    evidence = json.loads(next((out / "evidence" / "A2A_PUSH_005").glob("*.json")).read_text("utf-8"))
    hooks = [json.dumps(ex["request"]) for a in evidence["attachments"] if a["name"] == "wire exchanges"
             for ex in a["data"]]
    assert any('"url": "https://' in h for h in hooks), hooks
    assert _left(engine, run_id) == []


@pytest.mark.timeout(600)
def test_an_image_refusing_plain_http_is_not_ready_without_its_tls_label(engine: Any, foreign: str,
                                                                       tmp_path: Path) -> None:
    """The same image described without ``tls`` gets no certificate, refuses to start, and the run ends in
    the pre-flight (exit 3) quoting its refusal — never a pass."""
    from tests.foreign_image import LABELS

    labels = {k: v for k, v in LABELS.items() if not k.endswith(".tls")}
    labels["dev.agentd-conformance.config-template"] = json.dumps(
        {"server": {"port": {"$eval": "port"}}, "access": []})
    bare = build(labels).tag
    proc = _command(["agent", "--family", "a2a", "--container", bare, "--only", "A2A_CARD_001", "--report-dir",
                     str(tmp_path / "r")], _env(f"foreign-bare-{os.getpid()}"), timeout=500)
    assert proc.returncode == 3, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert "plain http is not served" in proc.stderr, proc.stderr[-1500:]


@pytest.mark.timeout(600)
def test_an_image_on_the_hosts_network_binds_and_advertises_the_loopback_origin_it_is_given(
        engine: Any, foreign: str, tmp_path: Path) -> None:
    """``network: host`` (an image whose card names its bind address, as agentd's does): the harness picks a
    free loopback port, gives the image the origin ``https://127.0.0.1:<port>`` (no path: a bind address
    may not have one), and the card's interface is that origin; the card and a send pass over https."""
    from tests.foreign_image import LABELS

    hosted = build({**LABELS, "dev.agentd-conformance.network": "host"}).tag
    out = tmp_path / "host"
    proc = _command(["agent", "--family", "a2a", "--container", hosted, "--only", "A2A_CARD_001", "A2A_SEND_001",
                     "--report-dir", str(out)], _env(f"foreign-host-{os.getpid()}"), timeout=500)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    report = _report(out)
    statuses = {rid: (row["status"], (row.get("note") or "")[:200]) for rid, row in report["requirements"].items()
                if rid in ("A2A_CARD_001", "A2A_SEND_001")}
    assert all(s == "pass" for s, _ in statuses.values()), statuses
    evidence = json.loads(next((out / "evidence" / "A2A_SEND_001").glob("*.json")).read_text("utf-8"))
    urls = [ex["url"] for a in evidence["attachments"] if a["name"] == "wire exchanges" for ex in a["data"]]
    assert urls and all(u.startswith("https://127.0.0.1:") and u.endswith("/rpc") for u in urls), urls



@pytest.mark.timeout(600)
def test_a_row_an_undeclared_extension_gates_is_blocked_by_it_before_a_configuration_need(
        engine: Any, foreign: str, tmp_path: Path) -> None:
    """An image whose card declares none of the extensions page's URIs and whose configuration document takes no
    workflows: a command row that needs workflows is blocked by AGENTD_DECL_001 (the declaration it depends on),
    not "needs workflows" — giving workflows would not make it measurable. Seen on agentd 2.5.1's release image:
    29 rows named the workflows need while DECL_001 failed."""
    run_id = f"foreign-gate-{os.getpid()}"
    out = tmp_path / "gate"
    proc = _command(["agent", "--family", "agentd", "--container", foreign, "--only", "AGENTD_CMD_007",
                     "--report-dir", str(out)], _env(run_id), timeout=500)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    row = _report(out)["requirements"]["AGENTD_CMD_007"]
    assert row["status"] == "not_measured" and row["note"].startswith("blocked by AGENTD_DECL_001:"), row
    assert _left(engine, run_id) == []
