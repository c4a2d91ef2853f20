"""Reports: the committed blank template, the YAML round trip, summary.md, junit.xml, write failures, secrets.

The committed ``compliance-report.template.yaml`` must be exactly what the registry generates (the
issue's "a test keeps them equal"). A built report must come back from YAML unchanged, the summary
must list every failing and not-measured row with its note, junit.xml must parse whatever a check's
message held, a report that cannot be written must raise, and no registered secret may appear in any
file of a written report folder — raw, or in the escaped form a YAML or XML reader would decode.
"""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conformance.evidence import MARK, EvidenceStore, SecretSet
from conformance.outcome import FAIL, NA, NOT_MEASURED, PASS, Outcome
from conformance.paths import PACKAGE_DIR
from conformance.pipeline import conclude, summarise
from conformance.registry import default_registry
from conformance.report import (
    REPORT_FILE,
    Report,
    ReportError,
    ReportWriteError,
    RunInfo,
    blank_template,
    build_report,
    load_report,
    render_report,
    write_report,
)
from conformance.report.write import render_junit, render_summary
from conformance.verdict import Verdict, verdicts_for

REG = default_registry()
FAMILY = "a2acli"
TEMPLATE = PACKAGE_DIR.parent / "compliance-report.template.yaml"
REFERENCE_TEMPLATE = Path("/work/shared/reference/a2a-cli/compliance-report.template.yaml")
IDS = [r.id for r in REG.select(family=FAMILY)]
SENTINEL = "\x00"


def test_committed_template_equals_the_generated_one() -> None:
    generated = blank_template(REG, FAMILY)
    committed = TEMPLATE.read_text(encoding="utf-8") if TEMPLATE.is_file() else "<missing>"
    assert committed == generated, (
        f"{TEMPLATE.name} is out of date with the registry; regenerate it with "
        "`agentd-conformance template > compliance-report.template.yaml`")


def test_blank_template_parses_with_every_id_and_the_reference_shape() -> None:
    data = yaml.safe_load(blank_template(REG, FAMILY))
    assert list(data) == ["report", "summary", "requirements", "default_001_breakdown", "error_codes",
                          "attestation"]
    assert sorted(data["requirements"]) == sorted(IDS) and len(IDS) == 66
    assert {g: row["total"] for g, row in data["summary"].items()} == {"tier_1": 39, "tier_2": 15, "tier_3": 12}
    assert not any(row["satisfied"] for row in data["summary"].values())
    for rid, entry in data["requirements"].items():
        assert entry["status"] == NOT_MEASURED and entry["note"], rid
    assert data["report"]["spec_version"] == "0.2"
    assert len(data["default_001_breakdown"]) == 6 and len(data["error_codes"]) == 8


@pytest.mark.skipif(not REFERENCE_TEMPLATE.is_file(), reason="reference material not on this machine")
def test_blank_template_has_the_reference_templates_keys() -> None:
    ref = yaml.safe_load(REFERENCE_TEMPLATE.read_text(encoding="utf-8"))
    ours = yaml.safe_load(blank_template(REG, FAMILY))
    assert list(ours) == list(ref)
    assert list(ours["report"]) == list(ref["report"])
    assert sorted(ours["requirements"]) == sorted(ref["requirements"])
    assert list(ours["default_001_breakdown"]) == list(ref["default_001_breakdown"])
    assert list(ours["error_codes"]) == list(ref["error_codes"])
    for rid, entry in ref["requirements"].items():
        assert (ours["requirements"][rid]["tier"], ours["requirements"][rid]["area"]) == (entry["tier"],
                                                                                          entry["area"]), rid


# ── a filled report ──────────────────────────────────────────────────────────────────────────

def _outcomes() -> list[Outcome]:
    return [
        Outcome("A2ACLI_VER_001", PASS, "suites/cli/test_ver.py::test_v[JSON-RPC]", transport="JSON-RPC",
                evidence=("evidence/A2ACLI_VER_001/a.json",)),
        Outcome("A2ACLI_VER_001", FAIL, "suites/cli/test_ver.py::test_v[GRPC]", transport="GRPC",
                message="A2A-Version header missing: {'content-type': 'application/grpc'}",
                evidence=("evidence/A2ACLI_VER_001/b.json",)),
        Outcome("A2ACLI_SEND_001", PASS, "suites/cli/test_send.py::test_send"),
        Outcome("A2ACLI_SKILL_001", NA, "suites/cli/test_skill.py::test_one", message="the tool ships no skill"),
        Outcome("A2ACLI_TASK_POLL_003", NOT_MEASURED, "suites/cli/test_poll.py::test_p",
                message="the agent never reached INPUT_REQUIRED"),
        Outcome("A2ACLI_OUT_004", FAIL, "suites/cli/test_out.py::test_codes", message="\x1b[31mboom\x1b[0m\x00",
                harness_error=True),
    ]


def _run() -> RunInfo:
    return RunInfo(target="reftool", tool="reftool", tool_version="reftool 1.2.3", transports_covered=["JSON-RPC"],
                   agent_tested="scripted agent", adapter={"file": "adapter.yaml", "sha256": "0" * 64},
                   command="agentd-conformance cli")


def _report() -> Report:
    verdicts = verdicts_for(REG, FAMILY, _outcomes())
    return build_report(REG, FAMILY, verdicts, summarise(REG, FAMILY, verdicts), _run(),
                        error_codes={"A2ACLI_ERR_USAGE": "test_usage"})


def test_built_report_round_trips_through_yaml() -> None:
    report = _report()
    data = yaml.safe_load(render_report(report, REG))
    assert data == report.to_dict()
    reqs = data["requirements"]
    assert reqs["A2ACLI_VER_001"]["status"] == FAIL
    assert reqs["A2ACLI_VER_001"]["transports"] == {"GRPC": FAIL, "JSON-RPC": PASS}
    # The failing check's evidence first, then test-id order, whatever order the tests finished in.
    assert reqs["A2ACLI_VER_001"]["evidence"] == ["evidence/A2ACLI_VER_001/b.json", "evidence/A2ACLI_VER_001/a.json"]
    assert "A2A-Version header missing" in reqs["A2ACLI_VER_001"]["note"]
    assert (reqs["A2ACLI_SEND_001"]["status"], reqs["A2ACLI_SEND_001"]["note"]) == (PASS, None)
    assert (reqs["A2ACLI_SKILL_001"]["status"], reqs["A2ACLI_SKILL_001"]["note"]) == (NA, "the tool ships no skill")
    assert reqs["A2ACLI_CARD_GET_001"]["note"] == "no check implemented"
    assert data["report"]["tier_claimed"] is None and data["report"]["adapter_used"] is True
    assert data["report"]["tool_version"] == "reftool 1.2.3"
    assert data["error_codes"]["A2ACLI_ERR_USAGE"] == {"emitted": True, "note": "test_usage"}
    assert data["error_codes"]["A2ACLI_ERR_TIMEOUT"]["emitted"] is False
    for rid, entry in reqs.items():
        if entry["status"] != PASS:
            assert isinstance(entry["note"], str) and entry["note"], rid


NOTE_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=60)


@given(NOTE_TEXT, NOTE_TEXT, NOTE_TEXT)
def test_any_note_text_round_trips_through_yaml(note: str, row_note: str, code_note: str) -> None:
    verdicts = verdicts_for(REG, FAMILY, [])
    verdicts["A2ACLI_SEND_001"] = Verdict("A2ACLI_SEND_001", FAIL, note or "x", {"JSON-RPC": FAIL})
    report = build_report(REG, FAMILY, verdicts, summarise(REG, FAMILY, verdicts),
                          RunInfo(tool=note or None, command=note or None),
                          breakdown={"detail_level_concise": {"shipped": True, "overridable": True, "note": row_note}},
                          error_codes={"A2ACLI_ERR_USAGE": code_note})
    assert yaml.safe_load(render_report(report, REG)) == report.to_dict()


def test_summary_lists_failing_and_not_measured_rows_with_notes() -> None:
    report = _report()
    md = render_summary(report, REG)
    assert "| tier 1 | 39 |" in md
    fail_section = md.split("## Failing and partial", 1)[1].split("##", 1)[0]
    assert "`A2ACLI_VER_001`" in fail_section and "A2A-Version header missing" in fail_section
    assert "`A2ACLI_OUT_004`" in fail_section and "harness error" in fail_section
    nm_section = md.split("## Not measured", 1)[1].split("##", 1)[0]
    assert "`A2ACLI_TASK_POLL_003`" in nm_section and "never reached INPUT_REQUIRED" in nm_section
    assert "`A2ACLI_CARD_GET_001`" in nm_section and "no check implemented" in nm_section
    problems = md.split("## Every requirement", 1)[0]
    assert "`A2ACLI_SEND_001`" not in problems, "a pass is not listed among the problems"
    assert "## Not applicable (1)" in md and "ships no skill" in md


def test_summary_shows_every_requirement_with_its_section_and_text_beside_its_status() -> None:
    report = _report()
    md = render_summary(report, REG)
    every = md.split("## Every requirement", 1)[1]
    for rid, entry in report.requirements.items():
        row = next((ln for ln in every.splitlines() if ln.startswith(f"| `{rid}` |")), None)
        assert row is not None, f"{rid} is not in the table of every requirement"
        assert entry.spec in row and entry.requirement.replace("|", "\\|")[:40] in row, row
    bd = md.split("## DEFAULT_001 breakdown", 1)[1].split("##", 1)[0]
    assert "not measured" in bd and "| no |" not in bd, "a row no check measured must read 'not measured'"
    assert "`A2ACLI_ERR_USAGE`" in md


def test_junit_parses_and_counts_outcomes_whatever_the_messages_hold() -> None:
    xml = render_junit(_outcomes(), FAMILY)
    root = ET.fromstring(xml.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("6", "2", "2")
    cases = suite.findall("testcase")
    assert len(cases) == 6
    errors = [c for c in cases if c.find("error") is not None]
    assert len(errors) == 1 and "boom" in (errors[0].find("error").get("message") or "")  # type: ignore[union-attr]
    assert any(c.get("name", "").endswith("[GRPC]") for c in cases)


def test_write_report_lays_out_the_folder(tmp_path: Path) -> None:
    outs = _outcomes()
    report = conclude(tmp_path / "r", REG, FAMILY, outs, _run())
    names = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert names == ["COMPLIANCE.md", "compliance-report.yaml", "junit.xml", "outcomes.jsonl", "summary.md",
                     "verdict-inputs.json"]
    assert yaml.safe_load((tmp_path / "r" / "compliance-report.yaml").read_text(encoding="utf-8")) == report.to_dict()
    ET.parse(tmp_path / "r" / "junit.xml")


# ── the one report model ─────────────────────────────────────────────────────────────────────


def _rich_run() -> RunInfo:
    run = _run()
    run.adapter = {"file": "tool.adapter.yaml", "tool": "reftool", "sha256": "ab" * 32, "schema": 2,
                   "notes": None, "version_check": {"-v": "-V"}}
    run.extra = {"skill_given": True, "skill": "SKILL.md"}
    run.bundled_target, run.env_given = {"name": "reference-cli", "defects": ["no-message-id"]}, ["REFCLI_DEFECTS"]
    run.caveats = ["zsh not installed: A2ACLI_CLI_002 (Tier 2) cannot be measured in full"]
    run.started, run.finished, run.environment = "2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00", "Linux"
    return run


@pytest.mark.parametrize("family", ["a2acli", "agentd", "a2a"])
def test_a_written_report_reads_back_through_the_model_to_the_same_bytes(tmp_path: Path, family: str) -> None:
    """The model holds everything the YAML holds, in the template's order: load, render, same text."""
    outs = _outcomes() if family == FAMILY else []
    bd = {"detail_level_concise": {"shipped": True, "overridable": None, "note": "seen"}} if family == FAMILY else None
    codes = {"A2ACLI_ERR_USAGE": "test_usage"} if family == FAMILY else None
    conclude(tmp_path, REG, family, outs, _rich_run(), breakdown=bd, error_codes=codes)
    text = (tmp_path / REPORT_FILE).read_text(encoding="utf-8")
    loaded = load_report(tmp_path, REG)
    assert loaded.family == family
    assert render_report(loaded, REG) == text


def test_the_committed_template_reads_back_through_the_model_to_the_same_bytes() -> None:
    template = load_report(TEMPLATE, REG)
    assert template.blank and template.identity.tier_claimed == "<1 | 2 | 3>"
    assert render_report(template, REG) == TEMPLATE.read_text(encoding="utf-8")


def test_a_report_that_does_not_fit_the_template_is_refused_on_write(tmp_path: Path) -> None:
    """Validation on write: a row with a status outside the closed vocabulary is never rendered."""
    report = _report()
    report.requirements["A2ACLI_SEND_001"].status = "passed"
    with pytest.raises(ReportError, match="A2ACLI_SEND_001.status: must be one of"):
        render_report(report, REG)
    with pytest.raises(ReportWriteError, match="A2ACLI_SEND_001.status"):
        write_report(tmp_path / "r", report, REG)
    assert not (tmp_path / "r" / REPORT_FILE).exists()


def test_an_extra_identity_field_may_not_shadow_a_known_one() -> None:
    report = _report()
    report.identity.extra["tier_claimed"] = 3
    with pytest.raises(ReportError, match="shadow"):
        render_report(report, REG)


def test_write_report_into_an_unwritable_place_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(ReportWriteError, match="cannot write the report"):
        conclude(blocker / "report", REG, FAMILY, [], _run())


# ── secrets ──────────────────────────────────────────────────────────────────────────────────

# Characters that markup escapes (XML, YAML, Markdown, JSON, URLs) drawn often, beside any other code point.
SECRETS = st.text(st.one_of(st.sampled_from("<>&\"'\\|:/+=%#\n\t\r \x1b"),
                            st.characters(blacklist_categories=["Cs"], blacklist_characters=SENTINEL)),
                  min_size=4, max_size=16)


def _strings(obj: Any) -> list[str]:
    """Every string (keys too) in parsed YAML; other scalars are not text a secret could hide in."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(obj, list):
        return [t for v in obj for t in _strings(v)]
    return []


def _decoded_texts(folder: Path) -> list[tuple[str, str]]:
    """(file, text) for every file as written, plus what a YAML or XML reader decodes from it."""
    out: list[tuple[str, str]] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        out.append((str(path), text))
        if path.suffix == ".yaml":
            # Redaction may break the YAML when a secret spells a word of the layout; the text is checked above.
            with contextlib.suppress(yaml.YAMLError):
                out.extend((f"{path} (parsed)", t) for t in _strings(yaml.safe_load(text)))
        if path.suffix == ".xml":
            try:
                root = ET.fromstring(text.split("\n", 1)[1])
            except ET.ParseError:
                continue
            for el in root.iter():
                out.append((f"{path} <{el.tag}>", " ".join([el.text or "", *el.attrib.values()])))
    return out


@given(SECRETS, st.sampled_from(["note", "message", "evidence", "run", "breakdown", "error_code", "stray"]))
def test_no_registered_secret_appears_in_any_written_file(tmp_path_factory: pytest.TempPathFactory, secret: str,
                                                          where: str) -> None:
    folder = tmp_path_factory.mktemp("report")
    secrets = SecretSet([secret])
    leak = f"got {secret} back"
    outs = [Outcome("A2ACLI_AUTH_004", FAIL, "suites/cli/test_auth.py::test_redacts",
                    message=leak if where == "message" else "plain failure")]
    verdicts = verdicts_for(REG, FAMILY, outs)
    if where == "note":
        verdicts["A2ACLI_AUTH_004"] = Verdict("A2ACLI_AUTH_004", FAIL, leak)
    if where == "evidence":
        rel = EvidenceStore(folder, secrets).write("A2ACLI_AUTH_004", "test_redacts", {"argv": ["--token", secret]})
        verdicts["A2ACLI_AUTH_004"] = Verdict("A2ACLI_AUTH_004", FAIL, "see evidence", evidence=(rel, leak))
    if where == "stray":
        (folder / "pytest.log").write_text(leak, encoding="utf-8")
    run = _run()
    if where == "run":
        run.command = f"agentd-conformance agent --token operator={secret}"
    row = {"shipped": True, "overridable": True, "note": leak}
    bd = {"detail_level_concise": row} if where == "breakdown" else None
    codes = {"A2ACLI_ERR_AUTH_FAILED": leak} if where == "error_code" else None
    report = build_report(REG, FAMILY, verdicts, summarise(REG, FAMILY, verdicts), run, bd, codes)
    write_report(folder, report, REG, outs, secrets)
    for name, text in _decoded_texts(folder):
        assert secret not in text.replace(MARK, SENTINEL), f"{secret!r} ({where}) survives in {name}"
