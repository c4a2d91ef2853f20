"""The requirement registry: the bundled a2acli family matches COMPLIANCE.md, and bad data fails loudly.

The first half pins the bundled data against a table transcribed by hand from COMPLIANCE.md §4–§6, so
a silent edit of ``conformance/registry/data/a2acli.yaml`` (a tier moved, a spec reference changed,
a row dropped) fails here. The second half writes malformed family files into ``tmp_path`` and
proves each one is refused with a :class:`RegistryError` that names the file and the entry.
No hypothesis, no network, no subprocess: the whole module runs well under two seconds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.paths import REGISTRY_DATA_DIR
from conformance.registry import Registry, RegistryError, Requirement, load_file, load_registry

# COMPLIANCE.md §4 (Tier 1), §5 (Tier 2), §6 (Tier 3), in the document's row order:
# id → (tier, area, the "Spec §" cell verbatim).
COMPLIANCE_TABLE: dict[str, tuple[int, str, str]] = {
    "A2ACLI_CARD_GET_001": (1, "CARD_GET", "§10.1, §13"),
    "A2ACLI_SEND_001": (1, "SEND", "§10.2"),
    "A2ACLI_SEND_002": (1, "SEND", "§10.2, §6.5"),
    "A2ACLI_SEND_003": (1, "SEND", "§10.2, §9.2"),
    "A2ACLI_SEND_004": (1, "SEND", "§10.2"),
    "A2ACLI_SEND_005": (1, "SEND", "§10.2"),
    "A2ACLI_SEND_006": (1, "SEND", "§10.2"),
    "A2ACLI_TASK_GET_001": (1, "TASK_GET", "§10.3"),
    "A2ACLI_TASK_CANCEL_001": (1, "TASK_CANCEL", "§10.4"),
    "A2ACLI_INTERACT_001": (1, "INTERACT", "§8.1"),
    "A2ACLI_INTERACT_002": (1, "INTERACT", "§8.1"),
    "A2ACLI_INTERACT_003": (1, "INTERACT", "§4.1, §4"),
    "A2ACLI_INTERACT_004": (1, "INTERACT", "§8.2"),
    "A2ACLI_INTERACT_005": (1, "INTERACT", "§6.3, §4.1, §8.3"),
    "A2ACLI_TASK_POLL_001": (1, "TASK_POLL", "§9.3"),
    "A2ACLI_TASK_POLL_002": (1, "TASK_POLL", "§9.3"),
    "A2ACLI_TASK_POLL_003": (1, "TASK_POLL", "§9.1, §9.3"),
    "A2ACLI_TASK_POLL_004": (1, "TASK_POLL", "§9.3"),
    "A2ACLI_OUT_001": (1, "OUT", "§11.1, §11.5, §8.2"),
    "A2ACLI_OUT_002": (1, "OUT", "§11.3, App. B"),
    "A2ACLI_OUT_003": (1, "OUT", "§11.3, §11.4, App. B"),
    "A2ACLI_OUT_004": (1, "OUT", "§11.4, App. B, App. D"),
    "A2ACLI_OUT_005": (1, "OUT", "§11.2, §6.1"),
    "A2ACLI_OUT_006": (1, "OUT", "§11.5"),
    "A2ACLI_EXIT_001": (1, "EXIT", "§11.6, App. D"),
    "A2ACLI_EXIT_002": (1, "EXIT", "§6.6, §11.6"),
    "A2ACLI_AUTH_001": (1, "AUTH", "§12.1"),
    "A2ACLI_AUTH_002": (1, "AUTH", "§12.1, §6.5"),
    "A2ACLI_AUTH_003": (1, "AUTH", "§12.1, §6.5"),
    "A2ACLI_AUTH_004": (1, "AUTH", "§12.1, §7.2"),
    "A2ACLI_TX_001": (1, "TX", "§13.1"),
    "A2ACLI_TX_002": (1, "TX", "§13.1, §6.5"),
    "A2ACLI_TX_003": (1, "TX", "§13.1"),
    "A2ACLI_VER_001": (1, "VER", "§13.2"),
    "A2ACLI_DEFAULT_001": (1, "DEFAULT", "§6.5"),
    "A2ACLI_CONFIG_001": (1, "CONFIG", "§8.3"),
    "A2ACLI_CLI_001": (1, "CLI", "§7.1, §7.2, §6.5"),
    "A2ACLI_SKILL_001": (1, "SKILL", "§14.1, §14.2"),
    "A2ACLI_SKILL_002": (1, "SKILL", "§14.3"),
    "A2ACLI_CARD_GET_002": (2, "CARD_GET", "§10.1"),
    "A2ACLI_TASK_LIST_001": (2, "TASK_LIST", "§7.1, App. A"),
    "A2ACLI_TASK_SUBSCRIBE_001": (2, "TASK_SUBSCRIBE", "§7.1, §9.2"),
    "A2ACLI_TASK_SUBSCRIBE_002": (2, "TASK_SUBSCRIBE", "§9.4, §9.2"),
    "A2ACLI_AUTH_005": (2, "AUTH", "§12.2"),
    "A2ACLI_AUTH_006": (2, "AUTH", "§12.2"),
    "A2ACLI_AUTH_007": (2, "AUTH", "§12.2"),
    "A2ACLI_TX_004": (2, "TX", "§13.1"),
    "A2ACLI_VER_003": (2, "VER", "§13.3"),
    "A2ACLI_CONFIG_002": (2, "CONFIG", "§8.3"),
    "A2ACLI_DOWNLOAD_001": (2, "DOWNLOAD", "§7.1"),
    "A2ACLI_OUT_007": (2, "OUT", "§7.2"),
    "A2ACLI_CONFORM_001": (2, "CONFORM", "§7.1"),
    "A2ACLI_CLI_002": (2, "CLI", "§7.1"),
    "A2ACLI_PUSH_001": (2, "PUSH", "§7.1, App. A"),
    "A2ACLI_CARD_GET_003": (3, "CARD_GET", "§10.1, §12.4"),
    "A2ACLI_AUTH_008": (3, "AUTH", "§12.4"),
    "A2ACLI_CARD_GET_004": (3, "CARD_GET", "§10.1"),
    "A2ACLI_CARD_GET_005": (3, "CARD_GET", "§10.1"),
    "A2ACLI_PUSH_002": (3, "PUSH", "§9.2"),
    "A2ACLI_CHAT_001": (3, "CHAT", "§8.1, §7.1"),
    "A2ACLI_TX_005": (3, "TX", "§13.1"),
    "A2ACLI_AUTH_009": (3, "AUTH", "§12.3"),
    "A2ACLI_AUTH_010": (3, "AUTH", "§12.3"),
    "A2ACLI_AUTH_011": (3, "AUTH", "§12.3"),
    "A2ACLI_DEMO_SERVER_001": (3, "DEMO_SERVER", "§7.1, §3"),
    "A2ACLI_VER_002": (3, "VER", "§13.3, A2A §4.6"),
}

# COMPLIANCE.md "Requirement identifiers": the 22 defined areas. ERR is reserved, never an area.
COMPLIANCE_AREAS = frozenset({
    "DEFAULT", "CARD_GET", "SEND", "TASK_GET", "TASK_CANCEL", "TASK_LIST", "TASK_SUBSCRIBE", "INTERACT",
    "TASK_POLL", "PUSH", "DEMO_SERVER", "OUT", "EXIT", "AUTH", "TX", "VER", "SKILL", "CHAT", "CONFIG",
    "DOWNLOAD", "CONFORM", "CLI",
})

# COMPLIANCE.md marks exactly these "Conditional"; CONFIG_001 says "(if any)" but is not a conditional row.
CONDITIONAL_IDS = frozenset({"A2ACLI_SKILL_001", "A2ACLI_SKILL_002", "A2ACLI_TX_003"})

# compliance-report.template.yaml, in its order.
DEFAULT_001_ROWS = (
    "transport_server_preference_order",
    "task_completion_wait_by_default",
    "output_human_readable_text",
    "detail_level_concise",
    "protocol_version_highest_mutual",
    "transport_security_tls_on",
)
ERROR_CODES = (
    "A2ACLI_ERR_USAGE",
    "A2ACLI_ERR_CARD_NOT_FOUND",
    "A2ACLI_ERR_CARD_INVALID",
    "A2ACLI_ERR_UNREACHABLE",
    "A2ACLI_ERR_CREDENTIALS_MISSING",
    "A2ACLI_ERR_AUTH_FAILED",
    "A2ACLI_ERR_TIMEOUT",
    "A2ACLI_ERR_INTERNAL",
)

_SLUG = re.compile(r"[a-z][a-z0-9_]*")


# ───────────────────────── the bundled a2acli family ─────────────────────────


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load_registry()


@pytest.fixture(scope="module")
def a2acli(registry: Registry) -> list[Requirement]:
    return registry.select(family="a2acli")


def test_bundled_registry_loads_from_the_package_data_dir(registry: Registry) -> None:
    info = registry.families["a2acli"]
    assert info.path == REGISTRY_DATA_DIR / "a2acli.yaml", info.path


def test_a2acli_has_exactly_the_66_compliance_ids_in_document_order(a2acli: list[Requirement]) -> None:
    ids = [r.id for r in a2acli]
    assert len(ids) == 66, f"expected 66 a2acli requirements, got {len(ids)}"
    missing = sorted(set(COMPLIANCE_TABLE) - set(ids))
    extra = sorted(set(ids) - set(COMPLIANCE_TABLE))
    assert not missing and not extra, f"missing {missing}; not in COMPLIANCE.md {extra}"
    assert ids == list(COMPLIANCE_TABLE), "requirements are not in COMPLIANCE.md's row order"


def test_tiers_hold_39_15_and_12_requirements(registry: Registry, a2acli: list[Requirement]) -> None:
    counts = {t: sum(1 for r in a2acli if r.tier == t) for t in (1, 2, 3)}
    assert counts == {1: 39, 2: 15, 3: 12}, counts
    assert all(r.level is None for r in a2acli), "a2acli is a tiered family; no row may carry a level"
    assert registry.groups("a2acli") == ["tier_1", "tier_2", "tier_3"]
    cumulative = [len(registry.select(family="a2acli", tier=t)) for t in (1, 2, 3)]
    assert cumulative == [39, 54, 66], cumulative


def test_every_id_has_the_tier_area_and_spec_of_compliance_md(registry: Registry) -> None:
    wrong = []
    for rid, expected in COMPLIANCE_TABLE.items():
        r = registry[rid]
        got = (r.tier, r.area, r.spec)
        if got != expected or r.family != "a2acli":
            wrong.append(f"{rid}: expected {expected}, got {got} (family {r.family!r})")
    assert not wrong, "\n".join(wrong)


def test_conditional_rows_are_exactly_skill_and_tx_003(a2acli: list[Requirement]) -> None:
    conditional = {r.id for r in a2acli if r.conditional}
    assert conditional == CONDITIONAL_IDS, f"conditional rows: {sorted(conditional)}"
    for r in a2acli:
        if r.conditional:
            assert r.condition and r.condition.strip() and "na" in r.condition.lower(), (
                f"{r.id}: condition must say when the row is na, got {r.condition!r}")
        else:
            assert r.kind == "gating" and r.condition is None, (
                f"{r.id}: kind {r.kind!r}, condition {r.condition!r}")


def test_areas_are_the_22_of_compliance_md_and_err_is_not_one(registry: Registry,
                                                              a2acli: list[Requirement]) -> None:
    areas = registry.families["a2acli"].areas
    assert set(areas) == COMPLIANCE_AREAS, (
        f"missing {sorted(COMPLIANCE_AREAS - set(areas))}; extra {sorted(set(areas) - COMPLIANCE_AREAS)}")
    assert "ERR" not in areas
    err_rows = [r.id for r in a2acli if r.id.startswith("A2ACLI_ERR_")]
    assert not err_rows, f"A2ACLI_ERR_* codes listed as requirements: {err_rows}"
    for name, description in areas.items():
        assert isinstance(description, str) and "§" in description, f"area {name}: {description!r}"
    unused = COMPLIANCE_AREAS - {r.area for r in a2acli}
    assert not unused, f"areas with no requirement: {sorted(unused)}"


def test_summaries_are_single_non_empty_lines(a2acli: list[Requirement]) -> None:
    bad = [r.id for r in a2acli if not r.summary or "\n" in r.summary or len(r.summary) > 240]
    assert not bad, f"summaries not one line (or empty, or over 240 chars): {bad}"


def test_parts_are_unique_slugs_on_the_separable_requirements(registry: Registry,
                                                              a2acli: list[Requirement]) -> None:
    with_parts = [r for r in a2acli if r.parts]
    assert 0 < len(with_parts) <= 16, f"{len(with_parts)} requirements have parts; keep to the obvious ones"
    for r in with_parts:
        assert len(r.parts) >= 2, f"{r.id}: a single part is no split: {r.parts}"
        assert all(_SLUG.fullmatch(p) for p in r.parts), f"{r.id}: parts must be snake_case slugs: {r.parts}"
    assert registry["A2ACLI_SEND_002"].parts == ("blocking_default", "async")
    assert registry["A2ACLI_CLI_001"].parts == ("help", "command_help", "version", "defaults_shown")
    assert registry["A2ACLI_DEFAULT_001"].parts == DEFAULT_001_ROWS, "DEFAULT_001 parts must be its §4a rows"


def test_family_pins_spec_version_0_2_revision_2026_08_17(registry: Registry) -> None:
    info = registry.families["a2acli"]
    assert (info.name, info.spec_version, info.spec_revision) == ("a2acli", "0.2", "2026-08-17"), info
    assert isinstance(info.spec_revision, str), f"spec_revision read as {type(info.spec_revision).__name__}"
    assert info.title and info.source


def test_breakdowns_carry_the_default_001_rows_and_the_eight_error_codes(registry: Registry) -> None:
    breakdowns = registry.families["a2acli"].breakdowns
    rows = breakdowns["default_001"]
    assert tuple(rows) == DEFAULT_001_ROWS, list(rows)
    assert all(isinstance(v, str) and v.strip() for v in rows.values()), rows
    assert breakdowns["default_001_notes"] == {"transport_security_tls_on": "MUST warn on --insecure"}
    assert tuple(breakdowns["error_codes"]) == ERROR_CODES, breakdowns["error_codes"]
    assert not set(ERROR_CODES) & set(registry.requirements), "an error code is also a requirement id"


# ───────────────────────── loud failures on bad data ─────────────────────────

_DROP = object()


def _entry(rid: str = "A2ACLI_SEND_001", **fields: Any) -> dict[str, Any]:
    """A valid a2acli entry; keyword fields override it, ``_DROP`` removes a field."""
    entry: dict[str, Any] = {"id": rid, "tier": 1, "area": "SEND", "spec": "§10.2", "summary": "sends"}
    entry.update(fields)
    return {k: v for k, v in entry.items() if v is not _DROP}


def _family(*entries: Any, **top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"family": "a2acli", "title": "test family", "areas": {"SEND": "s", "OUT": "o"},
                           "requirements": list(entries)}
    doc.update(top)
    return {k: v for k, v in doc.items() if v is not _DROP}


def _write(directory: Path, content: dict[str, Any] | str | bytes, name: str = "a2acli.yaml") -> Path:
    path = directory / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        text = content if isinstance(content, str) else yaml.safe_dump(content, allow_unicode=True,
                                                                       sort_keys=False)
        path.write_text(text, encoding="utf-8")
    return path


def _refused(path: Path, *fragments: str) -> str:
    """Assert ``load_file`` refuses ``path`` with a RegistryError naming the file and each fragment."""
    with pytest.raises(RegistryError) as caught:
        load_file(path)
    message = str(caught.value)
    assert str(path) in message, f"error does not name the file: {message!r}"
    rest = message.replace(str(path), "")  # the tmp path holds the test's name; look past it
    for fragment in fragments:
        assert fragment in rest, f"error does not mention {fragment!r}: {message!r}"
    return message


def test_the_minimal_family_used_below_is_valid(tmp_path: Path) -> None:
    """Guards the negative tests: each of them breaks exactly one thing in this valid file."""
    info, reqs = load_file(_write(tmp_path, _family(_entry(), _entry("A2ACLI_OUT_001", area="OUT"))))
    assert info.name == "a2acli"
    assert [r.id for r in reqs] == ["A2ACLI_SEND_001", "A2ACLI_OUT_001"]


def test_duplicate_id_in_one_file_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _family(_entry(), _entry("A2ACLI_OUT_001", area="OUT"), _entry()))
    _refused(path, "requirements[2] (A2ACLI_SEND_001)", "duplicate id")


def test_unknown_entry_field_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _family(_entry(), _entry("A2ACLI_SEND_002", priority="high")))
    _refused(path, "requirements[1] (A2ACLI_SEND_002)", "unknown field", "priority")


@pytest.mark.parametrize("bad_id", [
    "A2ACLI_SEND_1",
    "A2ACLI_SEND_0001",
    "A2ACLI_send_001",
    "A2ACLI_SEND",
    "A2ACLI_SEND_001 ",
    "AGENTD_SEND_001",
    "A2ACLI_ERR_USAGE",
    "SEND_001",
])
def test_id_breaking_the_pattern_is_refused(tmp_path: Path, bad_id: str) -> None:
    path = _write(tmp_path, _family(_entry(bad_id)))
    _refused(path, f"requirements[0] ({bad_id})", "does not match")


@pytest.mark.parametrize(("rid", "area"), [
    ("A2ACLI_SEND_001", "OUT"),
    ("A2ACLI_TASK_GET_001", "TASK"),
    ("A2ACLI_TASK_001", "TASK_GET"),
])
def test_id_outside_its_declared_area_is_refused(tmp_path: Path, rid: str, area: str) -> None:
    doc = _family(_entry(rid, area=area), areas={"SEND": "s", "OUT": "o", "TASK": "t", "TASK_GET": "g"})
    _refused(_write(tmp_path, doc), f"requirements[0] ({rid})", "is not in its area")


def test_undefined_area_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _family(_entry("A2ACLI_NOPE_001", area="NOPE")))
    _refused(path, "requirements[0] (A2ACLI_NOPE_001)", "'NOPE' is not defined")


@pytest.mark.parametrize("fields", [{"level": "must"}, {"tier": _DROP}], ids=["both", "neither"])
def test_tier_and_level_must_be_exactly_one(tmp_path: Path, fields: dict[str, Any]) -> None:
    _refused(_write(tmp_path, _family(_entry(**fields))), "requirements[0] (A2ACLI_SEND_001)",
             "exactly one of 'tier' and 'level'")


@pytest.mark.parametrize("tier", [0, -1, True, "1", 1.0])
def test_tier_must_be_a_positive_integer(tmp_path: Path, tier: Any) -> None:
    path = _write(tmp_path, _family(_entry(tier=tier)))
    _refused(path, "requirements[0] (A2ACLI_SEND_001)", "tier must be")


@pytest.mark.parametrize("kind", ["optional", "Gating", None])
def test_unknown_kind_is_refused(tmp_path: Path, kind: Any) -> None:
    path = _write(tmp_path, _family(_entry(kind=kind)))
    _refused(path, "requirements[0] (A2ACLI_SEND_001)", "kind must be")


@pytest.mark.parametrize("condition", [_DROP, "   ", ""], ids=["absent", "blank", "empty"])
def test_conditional_without_its_condition_is_refused(tmp_path: Path, condition: Any) -> None:
    path = _write(tmp_path, _family(_entry(kind="conditional", condition=condition)))
    _refused(path, "requirements[0] (A2ACLI_SEND_001)", "needs its 'condition'")


def test_gating_row_with_a_condition_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _family(_entry(condition="na when never")))
    _refused(path, "requirements[0] (A2ACLI_SEND_001)", "only for conditional")


@pytest.mark.parametrize("field", ["id", "area", "spec", "summary"])
def test_missing_required_field_is_refused(tmp_path: Path, field: str) -> None:
    dropped: dict[str, Any] = {field: _DROP}
    path = _write(tmp_path, _family(_entry(**dropped)))
    _refused(path, "requirements[0]", f"field {field!r} is required")


@pytest.mark.parametrize(("parts", "says"), [("a, b", "must be a list"), (["a", "a"], "duplicates"),
                                             (["a", ""], "must be a list")])
def test_malformed_parts_are_refused(tmp_path: Path, parts: Any, says: str) -> None:
    _refused(_write(tmp_path, _family(_entry(parts=parts))), "requirements[0] (A2ACLI_SEND_001)", says)


def test_the_retired_observable_field_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _family(_entry(observable=False)))
    _refused(path, "requirements[0] (A2ACLI_SEND_001)", "unknown field")


@pytest.mark.parametrize(("needs", "says"), [(["launched"], "unknown need"), ("root", "must be a list"),
                                             (["root", "root"], "duplicates")])
def test_malformed_needs_are_refused(tmp_path: Path, needs: Any, says: str) -> None:
    _refused(_write(tmp_path, _family(_entry(needs=needs))), "requirements[0] (A2ACLI_SEND_001)", says)


def test_withdrawn_must_be_a_boolean(tmp_path: Path) -> None:
    _refused(_write(tmp_path, _family(_entry(withdrawn="yes"))), "requirements[0] (A2ACLI_SEND_001)",
             "'withdrawn' must be true or false")


@pytest.mark.parametrize("entry", ["A2ACLI_SEND_001", ["A2ACLI_SEND_001"], None, 7])
def test_non_mapping_entry_is_refused(tmp_path: Path, entry: Any) -> None:
    path = _write(tmp_path, _family(_entry(), entry))
    _refused(path, "requirements[1]", "expected a mapping")


@pytest.mark.parametrize(("doc", "where"), [
    (["family", "a2acli"], "top level"),
    (_family(_entry(), owner="me"), "unknown field"),
    (_family(_entry(), family="a2a-cli"), "family"),
    (_family(_entry(), areas={}), "areas"),
    (_family(_entry(), areas=_DROP), "areas"),
    (_family(requirements={"A2ACLI_SEND_001": _entry()}), "requirements"),
], ids=["not-a-mapping", "unknown-key", "bad-family", "empty-areas", "no-areas", "requirements-not-a-list"])
def test_malformed_top_level_is_refused(tmp_path: Path, doc: Any, where: str) -> None:
    _refused(_write(tmp_path, doc), where)


def test_unparseable_yaml_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "family: a2acli\nrequirements: [\n  - id: A2ACLI_SEND_001\n")
    _refused(path, "cannot read registry data")


def test_missing_file_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path / "a2acli.yaml", "cannot read registry data")


def test_id_in_two_files_is_refused_naming_both_files(tmp_path: Path) -> None:
    """Ids carry their family's prefix and a family lives in one file, so a second file repeating an
    id can only be a second file of the same family: the loader must refuse it, naming both files."""
    first = _write(tmp_path, _family(_entry()), name="a2acli.yaml")
    second = _write(tmp_path, _family(_entry("A2ACLI_OUT_001", area="OUT"), _entry()),
                    name="a2acli-extra.yaml")
    with pytest.raises(RegistryError) as caught:
        load_registry(tmp_path)
    message = str(caught.value)
    assert str(first) in message and str(second) in message, message


def test_a_good_data_dir_loads_every_family(tmp_path: Path) -> None:
    _write(tmp_path, _family(_entry()), name="a2acli.yaml")
    agentd = {"family": "agentd", "areas": {"NEG": "negotiation"},
              "requirements": [{"id": "AGENTD_NEG_001", "level": "must", "area": "NEG", "spec": "Activation",
                                "summary": "echoes", "heading": "Activation and the echo"}]}
    _write(tmp_path, agentd, name="agentd.yaml")
    reg = load_registry(tmp_path)
    assert set(reg.families) == {"a2acli", "agentd"}
    assert reg["AGENTD_NEG_001"].group == "level_must" and reg["A2ACLI_SEND_001"].group == "tier_1"


# ─────── loader defects: these fail until conformance/registry/__init__.py is fixed (see report) ───────


def test_undecodable_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 must give a RegistryError, not a bare UnicodeDecodeError without the path."""
    path = _write(tmp_path, b"family: a2acli\ntitle: \xff\xfe\x00bad\n")
    _refused(path, "cannot read registry data")


@pytest.mark.parametrize("breakdowns", [["default_001", "error_codes"], "rows", 5])
def test_breakdowns_that_are_not_a_mapping_are_refused(tmp_path: Path, breakdowns: Any) -> None:
    _refused(_write(tmp_path, _family(_entry(), breakdowns=breakdowns)), "breakdowns")


def test_duplicate_key_inside_an_entry_is_refused(tmp_path: Path) -> None:
    """YAML keeps the last of two equal keys; a second ``tier:`` would silently move a requirement."""
    text = ("family: a2acli\nareas: {SEND: s}\nrequirements:\n"
            "  - id: A2ACLI_SEND_001\n    tier: 1\n    area: SEND\n"
            "    spec: x\n    summary: y\n    tier: 3\n")
    _refused(_write(tmp_path, text), "tier")


@pytest.mark.parametrize("field", ["spec_version: 0.2", "spec_revision: 2026-08-17"])
def test_unquoted_spec_version_or_revision_is_refused(tmp_path: Path, field: str) -> None:
    """Unquoted, YAML reads these as a float and a date; FamilyInfo promises strings."""
    text = f"family: a2acli\n{field}\nareas: {{SEND: s}}\nrequirements: []\n"
    _refused(_write(tmp_path, text), field.split(":")[0])


def test_missing_data_dir_is_refused(tmp_path: Path) -> None:
    """Fail closed: a registry directory that is absent (e.g. left out of a wheel) must not load as empty."""
    with pytest.raises(RegistryError) as caught:
        load_registry(tmp_path / "no-such-dir")
    assert "no-such-dir" in str(caught.value)


def test_a_need_a_container_can_supply_names_the_label_that_supplies_it() -> None:
    """A --container run short of a need is told which label gives it: against agentd 2.5.1's release image the
    eight unix-socket rows said only '(--unix PATH)', a --url/--unix user's remedy, and the configuration need
    named only contract v1's config switch, not contract v2's config label."""
    from conformance.registry import needs_note

    assert "dev.agentd-conformance.socket-dir" in needs_note(["unix_socket"])
    assert "dev.agentd-conformance.config" in needs_note(["launch_config"]).replace(".switches", "")
