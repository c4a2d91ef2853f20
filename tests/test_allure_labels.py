"""``--allure-dir``: results a team can navigate (epic = family, feature = area, story = requirement id,
severity from the level or tier, a link to the spec section) with the redacted evidence attached."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from conformance.allure_labels import SEVERITY, labels_for, spec_link
from conformance.registry import default_registry

IDS = ("AGENTD_DECL_001", "AGENTD_CARD_007")


def _results(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8")) for p in folder.glob("*-result.json")]


def test_allure_results_carry_the_registry_labels_and_redacted_evidence(tmp_path: Path) -> None:
    allure = tmp_path / "allure"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run([sys.executable, "-m", "conformance.command", "agent", "--only", *IDS,
                           "--allure-dir", str(allure), "--report-dir", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-1000:]
    results = _results(allure)
    reg = default_registry()
    seen = set()
    for res in results:
        labels = {(lab["name"], lab["value"]) for lab in res.get("labels", [])}
        stories = [v for k, v in labels if k == "story"]
        assert len(stories) == 1 and stories[0] in IDS, (res["name"], sorted(labels))
        req = reg[stories[0]]
        seen.add(req.id)
        assert ("epic", "agentd extensions") in labels and ("feature", req.area) in labels, sorted(labels)
        assert ("severity", SEVERITY[req.level]) in labels, sorted(labels)
        links = [lk["url"] for lk in res.get("links", [])]
        assert spec_link(req.family, req.spec, req.heading) in links, links
        attached = [a["source"] for a in res.get("attachments", []) if a["name"].startswith("evidence/")]
        assert attached, f"{res['name']}: no evidence attached ({res.get('attachments')})"
        for source in attached:
            body = (allure / source).read_text("utf-8")
            assert json.loads(body)["requirements"] == [req.id]
    assert seen == set(IDS), seen
    everything = "".join(p.read_text("utf-8", errors="replace") for p in allure.iterdir())
    assert '"Authorization",' in everything, "the credentialed checks sent no Authorization header"
    # The harness's generated tokens are ROLE-<24 url-safe characters>: none may reach allure's files.
    leaked = re.findall(r"\b(?:operator|user|agent)-[A-Za-z0-9_-]{24}\b", everything)
    assert not leaked, f"tokens in allure results: {leaked[:3]}"


def test_labels_come_from_the_registry_row() -> None:
    reg = default_registry()
    cli = labels_for(reg["A2ACLI_SEND_002"]) if "A2ACLI_SEND_002" in reg else []
    if cli:
        assert ("epic", "a2a-cli") in cli and ("severity", SEVERITY[reg["A2ACLI_SEND_002"].tier]) in cli
    core = dict(labels_for(reg["A2A_CARD_001"]))
    assert core["epic"] == "A2A 1.0 core" and core["feature"] == "CARD" and core["story"] == "A2A_CARD_001"
    assert spec_link("a2a", "§8.1, §8.2", None) == "https://a2a-protocol.org/v1.0.0/specification/#8-1"
