"""The implementation report page, loaded from a file in headless Chromium (Debian's package, driven
by playwright; no browser download): every requirement row and target column is there, cells carry
their notes and link to the evidence behind their verdict, each row shows its requirement's text, the
partial and fail counts are apart, groups run must, should, may, the header names the revision judged,
the flags are right, and the filters hide rows. A screenshot is kept as a CI artifact
(``$CONFORMANCE_ARTIFACTS`` or the test's temporary folder)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from conformance.registry import default_registry
from conformance.report import Report
from conformance.report.html import render_implementation_html, requirement_flags, verdict_evidence
from tests.reports import report_of

REG = default_registry()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
T1 = [r.id for r in REG.select(family="a2acli", tier=1)]


#: One row of each level of the a2a family, listed may first: the page must still group must, should, may.
A2A_ROWS = {"A2A_VER_005": "pass", "A2A_CARD_008": "pass", "A2A_CARD_001": "pass"}


def _report(statuses: dict[str, str]) -> Report:
    """Each row has two evidence files: a passing check's first, then the one its note names as behind the verdict."""
    every = {r.id: statuses.get(r.id, "not_measured") for r in REG.select(family="a2acli")}
    return report_of(every, note=lambda rid: f"note of {rid}; evidence: evidence/{rid}/deciding.json",
                     evidence=lambda rid: (f"evidence/{rid}/a_passing.json", f"evidence/{rid}/deciding.json"))


def _reports() -> dict[str, Report | str]:
    everyone = {rid: "pass" for rid in T1}
    return {
        "reference": _report({**everyone, "A2ACLI_SEND_003": "fail"}),
        "vendor-a": _report({**everyone, "A2ACLI_SEND_002": "fail", "A2ACLI_SEND_003": "fail"}),
        "vendor-b": _report({"A2ACLI_SEND_001": "pass", "A2ACLI_SEND_002": "partial"}),
        "agent": report_of(A2A_ROWS, family="a2a"),
        "broken": "HarnessFailure: nothing listening at http://127.0.0.1:1",
    }


def _row(page: str, rid: str) -> str:
    return page[page.index(f'id="{rid}"'):].split("</tr>", 1)[0]


def test_partials_are_counted_apart_from_fails() -> None:
    page = render_implementation_html(_reports(), REG)
    # A2ACLI_SEND_002: reference passes, vendor-a fails, vendor-b is partial, agent does not run it.
    assert re.findall(r'<td class="n">(\d+)</td>', _row(page, "A2ACLI_SEND_002")) == ["1", "1", "1", "0"]
    assert "<th>pass</th><th>partial</th><th>fail</th><th>not measured</th>" in page


def test_a_cell_links_the_evidence_behind_its_verdict() -> None:
    rep = _reports()["vendor-a"]
    assert isinstance(rep, Report)
    entry = rep.requirements["A2ACLI_SEND_003"]
    assert entry.evidence == ["evidence/A2ACLI_SEND_003/a_passing.json", "evidence/A2ACLI_SEND_003/deciding.json"]
    assert verdict_evidence(entry) == "evidence/A2ACLI_SEND_003/deciding.json"
    page = render_implementation_html({"vendor-a": rep}, REG, links={"vendor-a": "va"})
    assert 'href="va/evidence/A2ACLI_SEND_003/deciding.json"' in _row(page, "A2ACLI_SEND_003")
    # A note naming no file (or one the row does not list): the row's first file, which a run makes the verdict's.
    entry.note = "fails; evidence: evidence/elsewhere.json"
    assert verdict_evidence(entry) == "evidence/A2ACLI_SEND_003/a_passing.json"
    entry.evidence = []
    assert verdict_evidence(entry) is None


def test_groups_run_must_should_may_and_the_header_names_the_revision() -> None:
    page = render_implementation_html(_reports(), REG)
    groups = re.findall(r'<tr class="group" data-group="([^"]+)"', page)
    assert groups == ["a2a:level_must", "a2a:level_should", "a2a:level_may",
                      "a2acli:tier_1", "a2acli:tier_2", "a2acli:tier_3"]
    head = page[page.index('<p id="revision">'):].split("</p>", 1)[0]
    assert "a2a-cli specification v0.2 of 2026-08-17 (reference, vendor-a, vendor-b)" in head
    assert "A2A v1.0.1 (agent)" in head
    # A report recording no revision is shown the registry's spec version, said to be the registry's.
    bare = report_of(A2A_ROWS, family="a2a")
    bare.identity.judged_against = []
    head = render_implementation_html({"old": bare}, REG)
    assert "spec version 1.0.1 (the registry&#x27;s; the report names no revision) (old)" in head


def test_flags_follow_the_three_rules() -> None:
    assert requirement_flags(["fail", "partial", "not_measured"]) == ["no-pass"]
    assert requirement_flags(["not_measured", "not_measured"]) == ["unmeasured"]
    assert requirement_flags(["pass", "fail"]) == ["one-pass"]
    assert requirement_flags(["pass", "pass"]) == []


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "implementation-report.html"
    out.write_text(render_implementation_html(_reports(), REG, links={n: n for n in _reports()}), encoding="utf-8")
    return out


def test_the_page_has_no_external_assets(page_file: Path) -> None:
    text = page_file.read_text(encoding="utf-8")
    for needle in ("http://", "https://", "<link", "src="):
        assert needle not in text.replace("http://127.0.0.1:1", ""), needle


@pytest.mark.skipif(CHROMIUM is None, reason="the harness's own test environment lacks Debian's chromium "
                                             "(.ci/run installs it)")
def test_the_page_renders_and_filters_in_headless_chromium(page_file: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    artifacts = Path(os.environ.get("CONFORMANCE_ARTIFACTS") or tmp_path)
    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_file.as_uri())
            rows = page.eval_on_selector_all("tr.req", "rs => rs.map(r => r.id)")
            assert rows == ["A2A_CARD_001", "A2A_CARD_008", "A2A_VER_005", *(r.id for r in REG.select(family="a2acli"))]
            targets = page.eval_on_selector_all("thead th[data-target]", "hs => hs.map(h => h.dataset.target)")
            assert targets == ["reference", "vendor-a", "vendor-b", "agent", "broken"]
            cell = page.locator('#A2ACLI_SEND_003 td[data-target="vendor-a"]')
            assert cell.get_attribute("title") == ("fail: note of A2ACLI_SEND_003; "
                                                   "evidence: evidence/A2ACLI_SEND_003/deciding.json")
            assert cell.locator("a").get_attribute("href") == "vendor-a/evidence/A2ACLI_SEND_003/deciding.json"
            # What is on the screen, not in a tooltip: the requirement's text, the revision, the counts.
            assert REG["A2ACLI_SEND_003"].summary.replace("`", "") in page.inner_text("#A2ACLI_SEND_003 th")
            assert "v0.2 of 2026-08-17" in page.inner_text('thead th[data-target="vendor-a"]')
            assert "Specification revision judged: a2a-cli specification v0.2 of 2026-08-17" in page.inner_text(
                "#revision")
            counts = page.eval_on_selector_all("#A2ACLI_SEND_002 td.n", "ts => ts.map(t => t.innerText)")
            assert counts == ["1", "1", "1", "0"], counts
            assert "no implementation passes" in page.inner_text("#A2ACLI_SEND_003")
            assert "exactly one implementation passes" in page.inner_text("#A2ACLI_SEND_002")
            assert "measured by none" in page.inner_text("#A2ACLI_TASK_LIST_001")
            page.screenshot(path=str(artifacts / "implementation-report.png"), full_page=False)

            page.select_option("#f-status", "fail")
            visible = page.eval_on_selector_all("tr.req:not([hidden])", "rs => rs.map(r => r.id)")
            assert visible == ["A2ACLI_SEND_002", "A2ACLI_SEND_003"], visible
            assert page.inner_text("#count") == "2"
            assert "#status=fail" in page.url

            page.select_option("#f-status", "")
            page.select_option("#f-group", "a2acli:tier_3")
            visible = page.eval_on_selector_all("tr.req:not([hidden])", "rs => rs.map(r => r.id)")
            assert visible == [r.id for r in REG.select(family="a2acli") if r.tier == 3]
            hidden_groups = page.eval_on_selector_all("tr.group[hidden]", "gs => gs.map(g => g.dataset.group)")
            assert hidden_groups == ["a2a:level_must", "a2a:level_should", "a2a:level_may", "a2acli:tier_1",
                                     "a2acli:tier_2"]

            page.goto(page_file.as_uri() + "#flag=no-pass")
            page.reload()
            visible = page.eval_on_selector_all("tr.req:not([hidden])", "rs => rs.map(r => r.id)")
            assert visible == ["A2ACLI_SEND_003"], "the URL fragment selects the same filters"
        finally:
            browser.close()
    assert (artifacts / "implementation-report.png").stat().st_size > 10_000
