"""The compliance report as one typed model: what ``compliance-report.yaml`` holds.

Every reader and writer of a report goes through :class:`Report`: the pipeline builds one
(``conformance.report.build``), the renderers read one (YAML, summary.md, COMPLIANCE.md, the HTML
page), and every file a user hands the harness (``--rerun-failed``, ``report render``, a matrix
shard) is loaded by :func:`load_report`, which checks the file against the template's shape — the
top-level sections, each identity field of the family, each row's fields and their types, the closed
status vocabulary, ids and groups of the registry — and raises :class:`ReportError` (one line naming
the file and the field) for anything else. :meth:`Report.to_dict` gives the fields in the template's
order, so a report read back and written again is the same text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.outcome import STATUSES
from conformance.registry import Registry
from conformance.verdict import COUNTED, GroupSummary
from conformance.yamldoc import safe_load

#: The report's file name inside a report folder.
REPORT_FILE = "compliance-report.yaml"
#: The top-level sections, in the template's order (``report``, ``summary``, ``requirements`` and
#: ``attestation`` always; the two tables only for a family whose registry defines them).
SECTIONS = ("report", "summary", "requirements", "default_001_breakdown", "error_codes", "attestation")
CLI_FAMILY = "a2acli"


class ReportError(ValueError):
    """A file is not a valid compliance report; the message (one line) names the file and the field."""


# ── reading a YAML mapping with named errors ──────────────────────────────────────────────────────


class _Reader:
    """Type checks that name the field they read (``requirements.A2ACLI_SEND_001.status``)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, why: str) -> ReportError:
        return ReportError(f"{self.source}: {where}: {why}" if where else f"{self.source}: {why}")

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise self.fail(where, f"expected a mapping, got {_kind(value)}")
        return value

    def record(self, value: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
               ) -> dict[str, Any]:
        """``value`` as a mapping holding the ``required`` keys and no others but the ``optional`` ones."""
        d = self.mapping(value, where)
        self.keys(d, where, required, optional)
        return d

    def keys(self, value: dict[str, Any], where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
             ) -> None:
        missing = [k for k in required if k not in value]
        if missing:
            raise self.fail(where, f"missing {', '.join(missing)}")
        unknown = [k for k in value if k not in required and k not in optional]
        if unknown:
            raise self.fail(where, f"unknown field(s) {', '.join(unknown)}")

    def _checked(self, value: Any, where: str, null: bool, ok: bool, expected: str) -> Any:
        """``value`` when ``ok`` holds of it, or null where ``null`` allows it; else the error naming ``expected``."""
        if value is None and null:
            return None
        if not ok:
            raise self.fail(where, f"expected {expected}{' or null' if null else ''}, got {_kind(value)}")
        return value

    def text(self, value: Any, where: str, *, null: bool = False) -> Any:
        return self._checked(value, where, null, isinstance(value, str), "a string")

    def flag(self, value: Any, where: str, *, null: bool = False) -> Any:
        return self._checked(value, where, null, isinstance(value, bool), "true or false")

    def count(self, value: Any, where: str) -> int:
        if type(value) is not int or value < 0:
            raise self.fail(where, f"expected a count, got {_kind(value)}")
        return value

    def texts(self, value: Any, where: str, *, null: bool = False) -> Any:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        got = self._checked(value, where, null, ok, "a list of strings")
        return None if got is None else list(got)

    def text_map(self, value: Any, where: str) -> dict[str, str]:
        m = self.mapping(value, where)
        for k, v in m.items():
            self.text(v, f"{where}.{k}")
        return dict(m)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"{value[:40]!r}"
    if isinstance(value, bool | int | float):
        return repr(value)
    return type(value).__name__


def _put(d: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        d[key] = value


# ── the identity block ────────────────────────────────────────────────────────────────────────────


@dataclass
class Harness:
    """The harness that wrote the report: its version, and the git commit it was built from (or a
    sentence saying the commit is unknown)."""

    name: str
    version: str
    commit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "version": self.version}
        _put(d, "commit", self.commit)
        return d

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> Harness:
        d = r.record(value, where, ("name", "version"), ("commit",))
        return cls(r.text(d["name"], f"{where}.name"), r.text(d["version"], f"{where}.version"),
                   r.text(d.get("commit"), f"{where}.commit", null=True))


@dataclass
class AdapterInfo:
    """The adapter a CLI run went through, named by its file name and content hash (never by a path of
    the machine that ran it), with the tool it names and how it rewrote the version check."""

    file: str
    sha256: str
    schema: int | None = None
    tool: str | None = None
    notes: str | None = None
    #: Spec spelling -> the tool's argv, for each version flag the adapter rewrites.
    version_check: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"file": self.file, "sha256": self.sha256, "schema": self.schema, "tool": self.tool}
        _put(d, "notes", self.notes or None)
        if self.version_check:
            d["version_check"] = dict(self.version_check)
        return d

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> AdapterInfo:
        d = dict(r.mapping(value, where))
        if "file" not in d and isinstance(d.get("adapter"), str):  # a report written before the file was named
            d["file"] = Path(d.pop("adapter")).name
        r.keys(d, where, ("file", "sha256"), ("schema", "tool", "notes", "version_check"))
        schema = d.get("schema")
        if schema is not None and type(schema) is not int:
            raise r.fail(f"{where}.schema", f"expected a schema number, got {_kind(schema)}")
        info = cls(r.text(d["file"], f"{where}.file"), r.text(d["sha256"], f"{where}.sha256"), schema,
                   r.text(d.get("tool"), f"{where}.tool", null=True),
                   r.text(d.get("notes"), f"{where}.notes", null=True))
        if "version_check" in d:
            info.version_check = r.text_map(d["version_check"], f"{where}.version_check")
        return info


@dataclass
class BundledTarget:
    """A target the harness brings itself (the reference CLI, a launched agent or its image): which one,
    and the named defects switched on in it — what made the target the verdicts describe."""

    name: str
    defects: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "defects": list(self.defects)}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> BundledTarget:
        d = r.record(value, where, ("name", "defects"))
        return cls(r.text(d["name"], f"{where}.name"), r.texts(d["defects"], f"{where}.defects"))


@dataclass
class RunTimes:
    """When the run started and finished, the command line that made it, and how many test processes it used
    and why (each only when known)."""

    started: str | None = None
    finished: str | None = None
    command: str | None = None
    scope: str | None = None
    jobs: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in (("started", self.started), ("finished", self.finished),
                                  ("command", self.command), ("scope", self.scope), ("jobs", self.jobs)) if v}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> RunTimes:
        d = r.mapping(value, where)
        names = ("started", "finished", "command", "scope", "jobs")
        r.keys(d, where, (), names)
        return cls(**{k: r.text(d.get(k), f"{where}.{k}", null=True) for k in names})


@dataclass
class Merged:
    """A ``--rerun-failed`` merge: the earlier report it was merged into, and the rows that were rerun."""

    source: str
    rerun: list[str]
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.source, "rerun": list(self.rerun), "note": self.note}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> Merged:
        d = r.record(value, where, ("from", "rerun", "note"))
        return cls(r.text(d["from"], f"{where}.from"), r.texts(d["rerun"], f"{where}.rerun"),
                   r.text(d["note"], f"{where}.note"))


#: The identity fields of an a2a-cli report (COMPLIANCE.md §1), in the template's order.
CLI_IDENTITY = ("tool", "tool_version", "language", "repository", "maintainer", "report_date", "spec_version",
                "spec_revision", "a2a_versions", "agent_tested", "agent_tck_conformant", "transports_covered",
                "tier_claimed")
#: The identity fields of an agent family's report, in order.
AGENT_IDENTITY = ("family", "specification", "source", "agent_tested", "report_date", "a2a_versions",
                  "transports_covered", "levels_satisfied")
#: What a run's report adds after them (the blank template has none of these).
RUN_IDENTITY = ("interrupted", "harness", "judged_against", "target", "bundled_target", "env_given", "environment",
                "caveats", "adapter_used", "adapter", "run", "merged")


@dataclass
class Identity:
    """The ``report:`` block: what was judged, against what, by what.

    A blank template has no ``harness`` (and so none of the run's fields); ``extra`` holds what a
    run adds about its kind of target (a skill, a container image), written after the known fields.
    """

    family: str
    report_date: str
    agent_tested: str
    a2a_versions: list[str]
    transports_covered: list[str]
    # an a2a-cli report (COMPLIANCE.md §1)
    tool: str | None = None
    tool_version: str | None = None
    language: str | None = None
    repository: str | None = None
    maintainer: str | None = None
    spec_version: str | None = None
    spec_revision: str | None = None
    agent_tck_conformant: str | None = None
    #: The highest tier satisfied; the blank template holds a placeholder string.
    tier_claimed: int | str | None = None
    # an agent family's report
    specification: str | None = None
    source: str | None = None
    levels_satisfied: list[str] = field(default_factory=list)
    # what a run adds
    #: What stopped the run before it finished: the signal (``SIGINT``, ``SIGTERM``, ``SIGHUP``) or the
    #: run's ``--timeout``; None when it finished. A stopped run's unfinished rows are not_measured
    #: "interrupted" and it claims nothing.
    interrupted: str | None = None
    harness: Harness | None = None
    #: The revisions of the texts the verdicts are judged against (the registry family's ``judged_against``).
    judged_against: list[str] = field(default_factory=list)
    target: str | None = None
    #: The bundled target and its switched-on defects, when the harness brought the target itself.
    bundled_target: BundledTarget | None = None
    #: The names of the environment variables the user set for the target (--env, --container-env);
    #: their values are never written.
    env_given: list[str] = field(default_factory=list)
    environment: str | None = None
    #: What this machine lacked that limits what the run could claim (a shell a check needs, ...).
    caveats: list[str] = field(default_factory=list)
    adapter_used: bool = False
    adapter: AdapterInfo | None = None
    run: RunTimes | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    merged: Merged | None = None

    @property
    def blank(self) -> bool:
        return self.harness is None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any]
        if self.family == CLI_FAMILY:
            d = {k: getattr(self, k) for k in CLI_IDENTITY}
        else:
            d = {k: getattr(self, k) for k in AGENT_IDENTITY}
        for k in ("a2a_versions", "transports_covered", "levels_satisfied"):
            if k in d:
                d[k] = list(d[k])
        if self.harness is None:
            return d
        _put(d, "interrupted", self.interrupted)
        d["harness"] = self.harness.to_dict()
        if self.judged_against:
            d["judged_against"] = list(self.judged_against)
        d["target"] = self.target
        if self.bundled_target is not None:
            d["bundled_target"] = self.bundled_target.to_dict()
        if self.env_given:
            d["env_given"] = list(self.env_given)
        _put(d, "environment", self.environment or None)
        if self.caveats:
            d["caveats"] = list(self.caveats)
        d["adapter_used"] = self.adapter_used
        if self.adapter is not None:
            d["adapter"] = self.adapter.to_dict()
        run = self.run.to_dict() if self.run is not None else {}
        if run:
            d["run"] = run
        d.update(self.extra)
        if self.merged is not None:
            d["merged"] = self.merged.to_dict()
        return d

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str = "report") -> Identity:
        d = r.mapping(value, where)
        family = d.get("family", CLI_FAMILY)
        r.text(family, f"{where}.family")
        own = CLI_IDENTITY if family == CLI_FAMILY else AGENT_IDENTITY
        missing = [k for k in own if k not in d]
        if missing:
            raise r.fail(where, f"missing {', '.join(missing)}")
        blank = "harness" not in d
        if blank:
            stray = [k for k in d if k not in own and k != "family"]
            if stray:
                raise r.fail(where, f"{', '.join(stray)} without harness (only a run's report has them)")
        elif "adapter_used" not in d or "target" not in d:
            raise r.fail(where, "a run's report names its target and says whether an adapter was used")

        def txt(k: str, null: bool = False) -> Any:
            return r.text(d.get(k), f"{where}.{k}", null=null)

        ident = cls(family=family, report_date=txt("report_date"), agent_tested=txt("agent_tested"),
                    a2a_versions=r.texts(d["a2a_versions"], f"{where}.a2a_versions"),
                    transports_covered=r.texts(d["transports_covered"], f"{where}.transports_covered"))
        if family == CLI_FAMILY:
            for k in ("tool", "tool_version", "language", "repository", "maintainer", "spec_version",
                      "spec_revision", "agent_tck_conformant"):
                setattr(ident, k, txt(k))
            tier = d["tier_claimed"]
            if not (tier is None or (type(tier) is int and tier > 0) or (blank and isinstance(tier, str))):
                raise r.fail(f"{where}.tier_claimed", f"expected a tier number or null, got {_kind(tier)}")
            ident.tier_claimed = tier
        else:
            ident.specification, ident.source = txt("specification"), txt("source")
            ident.levels_satisfied = r.texts(d["levels_satisfied"], f"{where}.levels_satisfied")
        if blank:
            return ident
        ident.interrupted = txt("interrupted", null=True)
        ident.harness = Harness.from_dict(d["harness"], r, f"{where}.harness")
        ident.judged_against = r.texts(d.get("judged_against", []), f"{where}.judged_against")
        ident.target = txt("target", null=True)
        if "bundled_target" in d:
            ident.bundled_target = BundledTarget.from_dict(d["bundled_target"], r, f"{where}.bundled_target")
        ident.env_given = r.texts(d.get("env_given", []), f"{where}.env_given")
        ident.environment = txt("environment", null=True)
        ident.caveats = r.texts(d.get("caveats", []), f"{where}.caveats")
        ident.adapter_used = r.flag(d["adapter_used"], f"{where}.adapter_used")
        if "adapter" in d:
            ident.adapter = AdapterInfo.from_dict(d["adapter"], r, f"{where}.adapter")
        if "run" in d:
            ident.run = RunTimes.from_dict(d["run"], r, f"{where}.run")
        if "merged" in d:
            ident.merged = Merged.from_dict(d["merged"], r, f"{where}.merged")
        known = set(own) | set(RUN_IDENTITY) | {"family"}
        ident.extra = {k: v for k, v in d.items() if k not in known}
        return ident


# ── rows ──────────────────────────────────────────────────────────────────────────────────────────


@dataclass
class RequirementResult:
    """One requirement's row: the registry's words about it, and the run's verdict."""

    area: str
    spec: str
    requirement: str
    status: str
    note: str | None
    evidence: list[str] | None
    tier: int | None = None
    level: str | None = None
    condition: str | None = None
    #: Per transport status, when the checks ran on several bindings.
    transports: dict[str, str] = field(default_factory=dict)
    #: Per separable part status (a requirement the registry splits into parts).
    parts: dict[str, str] = field(default_factory=dict)

    @property
    def group(self) -> str:
        """The summary group: ``tier_1`` or ``level_must``."""
        return f"tier_{self.tier}" if self.tier is not None else f"level_{self.level}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tier": self.tier} if self.tier is not None else {"level": self.level}
        d["area"], d["spec"], d["requirement"] = self.area, self.spec, self.requirement
        _put(d, "condition", self.condition)
        d["status"], d["note"] = self.status, self.note
        d["evidence"] = list(self.evidence) if self.evidence is not None else None
        if self.transports:
            d["transports"] = dict(self.transports)
        if self.parts:
            d["parts"] = dict(self.parts)
        return d

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> RequirementResult:
        d = r.mapping(value, where)
        group = ("tier",) if "tier" in d else ("level",)
        r.keys(d, where, (*group, "area", "spec", "requirement", "status", "note", "evidence"),
               ("condition", "transports", "parts"))
        status = d["status"]
        if status not in STATUSES:
            raise r.fail(f"{where}.status", f"must be one of {' | '.join(STATUSES)}, got {_kind(status)}")
        row = cls(area=r.text(d["area"], f"{where}.area"), spec=r.text(d["spec"], f"{where}.spec"),
                  requirement=r.text(d["requirement"], f"{where}.requirement"), status=status,
                  note=r.text(d["note"], f"{where}.note", null=True),
                  evidence=r.texts(d["evidence"], f"{where}.evidence", null=True),
                  condition=r.text(d.get("condition"), f"{where}.condition", null=True))
        if "tier" in d:
            if type(d["tier"]) is not int:
                raise r.fail(f"{where}.tier", f"expected a tier number, got {_kind(d['tier'])}")
            row.tier = d["tier"]
        else:
            row.level = r.text(d["level"], f"{where}.level")
        if "transports" in d:
            row.transports = r.text_map(d["transports"], f"{where}.transports")
        if "parts" in d:
            row.parts = r.text_map(d["parts"], f"{where}.parts")
        return row


@dataclass
class BreakdownRow:
    """One DEFAULT_001 row (COMPLIANCE.md §4a): null is "not measured", never "no"."""

    shipped: bool | None
    overridable: bool | None
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"shipped": self.shipped, "overridable": self.overridable, "note": self.note}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> BreakdownRow:
        d = r.record(value, where, ("shipped", "overridable", "note"))
        return cls(r.flag(d["shipped"], f"{where}.shipped", null=True),
                   r.flag(d["overridable"], f"{where}.overridable", null=True),
                   r.text(d["note"], f"{where}.note", null=True))


@dataclass
class ErrorCodeRow:
    """One ``A2ACLI_ERR_*`` code: whether the run saw the tool emit it, and where."""

    emitted: bool
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"emitted": self.emitted, "note": self.note}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> ErrorCodeRow:
        d = r.record(value, where, ("emitted", "note"))
        return cls(r.flag(d["emitted"], f"{where}.emitted"), r.text(d["note"], f"{where}.note", null=True))


@dataclass
class Attestation:
    reported_by: str
    date: str
    statement: str

    def to_dict(self) -> dict[str, Any]:
        return {"reported_by": self.reported_by, "date": self.date, "statement": self.statement}

    @classmethod
    def from_dict(cls, value: Any, r: _Reader, where: str) -> Attestation:
        d = r.record(value, where, ("reported_by", "date", "statement"))
        return cls(*(r.text(d[k], f"{where}.{k}") for k in ("reported_by", "date", "statement")))


def group_to_dict(s: GroupSummary) -> dict[str, Any]:
    """One ``summary:`` row."""
    return s.to_dict()


def _group_from_dict(value: Any, r: _Reader, where: str) -> GroupSummary:
    d = r.record(value, where, ("total", *COUNTED, "satisfied"), ("unrecognized", "missing"))
    counts = {s: r.count(d[s], f"{where}.{s}") for s in COUNTED}
    return GroupSummary(r.count(d["total"], f"{where}.total"), counts,
                        r.count(d.get("unrecognized", 0), f"{where}.unrecognized"),
                        r.count(d.get("missing", 0), f"{where}.missing"),
                        r.flag(d["satisfied"], f"{where}.satisfied"))


# ── the report ────────────────────────────────────────────────────────────────────────────────────


@dataclass
class Report:
    """A whole compliance report."""

    identity: Identity
    summary: dict[str, GroupSummary]
    requirements: dict[str, RequirementResult]
    attestation: Attestation
    default_001_breakdown: dict[str, BreakdownRow] | None = None
    error_codes: dict[str, ErrorCodeRow] | None = None

    @property
    def family(self) -> str:
        return self.identity.family

    @property
    def blank(self) -> bool:
        return self.identity.blank

    def statuses(self) -> dict[str, str]:
        """Requirement id -> status word, in the report's order."""
        return {rid: row.status for rid, row in self.requirements.items()}

    def rows(self, *statuses: str) -> Iterator[tuple[str, RequirementResult]]:
        """The rows whose status is one of ``statuses`` (every row when none is given)."""
        return ((rid, e) for rid, e in self.requirements.items() if not statuses or e.status in statuses)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data, in the template's order (what the YAML holds)."""
        d: dict[str, Any] = {"report": self.identity.to_dict(),
                             "summary": {g: group_to_dict(s) for g, s in self.summary.items()},
                             "requirements": {rid: e.to_dict() for rid, e in self.requirements.items()}}
        if self.default_001_breakdown is not None:
            d["default_001_breakdown"] = {k: row.to_dict() for k, row in self.default_001_breakdown.items()}
        if self.error_codes is not None:
            d["error_codes"] = {k: row.to_dict() for k, row in self.error_codes.items()}
        d["attestation"] = self.attestation.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: Any, registry: Registry, source: str = "the report") -> Report:
        """Read and validate ``data`` (a loaded YAML document); raises :class:`ReportError`."""
        r = _Reader(source)
        if not isinstance(data, dict):
            raise r.fail("", f"not a compliance report (expected a mapping with {', '.join(SECTIONS[:3])}), "
                             f"got {_kind(data)}")
        missing = [k for k in ("report", "summary", "requirements", "attestation") if k not in data]
        if missing:
            raise r.fail("", f"not a compliance report (it lacks {', '.join(missing)})")
        r.keys(data, "", ("report", "summary", "requirements", "attestation"), SECTIONS)
        family = r.mapping(data["report"], "report").get("family", CLI_FAMILY)
        if family not in registry.families:
            raise r.fail("report.family", f"unknown family {_kind(family)}")
        identity = Identity.from_dict(data["report"], r)
        groups = registry.groups(family)
        summary = {g: _group_from_dict(v, r, f"summary.{g}")
                   for g, v in r.mapping(data["summary"], "summary").items()}
        if list(summary) != list(groups):
            raise r.fail("summary", f"expected the groups {', '.join(groups)}, got {', '.join(summary) or 'none'}")
        reqs: dict[str, RequirementResult] = {}
        for rid, v in r.mapping(data["requirements"], "requirements").items():
            if rid not in registry or registry[rid].family != family:
                raise r.fail(f"requirements.{rid}", f"not a {family} requirement id")
            reqs[rid] = RequirementResult.from_dict(v, r, f"requirements.{rid}")
        info = registry.families[family]
        tables: dict[str, Any] = {}
        for key, rows, parse in (("default_001_breakdown", list(info.breakdowns.get("default_001") or {}),
                                  BreakdownRow.from_dict),
                                 ("error_codes", list(info.breakdowns.get("error_codes") or []),
                                  ErrorCodeRow.from_dict)):
            if key not in data:
                continue
            if not rows:
                raise r.fail(key, f"the {family} family has no such table")
            table = r.mapping(data[key], key)
            unknown = [k for k in table if k not in rows]
            if unknown:
                raise r.fail(key, f"unknown row(s) {', '.join(unknown)}")
            tables[key] = {k: parse(v, r, f"{key}.{k}") for k, v in table.items()}
        return cls(identity, summary, reqs, Attestation.from_dict(data["attestation"], r, "attestation"),
                   tables.get("default_001_breakdown"), tables.get("error_codes"))

    def validate(self, registry: Registry) -> None:
        """Check the report against the template's shape (what :meth:`from_dict` checks on load)."""
        clash = set(self.identity.extra) & (set(CLI_IDENTITY) | set(AGENT_IDENTITY) | set(RUN_IDENTITY))
        if clash:
            raise ReportError(f"the report: report: extra field(s) {', '.join(sorted(clash))} shadow known ones")
        Report.from_dict(self.to_dict(), registry)

    def map_text(self, fn: Callable[[str], str]) -> Report:
        """A copy with ``fn`` applied to every string value (never to a key): the redaction of a report.

        The copy is not validated here: writing it (:func:`~conformance.report.build.render_report`) does."""
        result: Report = map_strings(self, fn)
        return result


def map_strings(obj: Any, fn: Callable[[str], str]) -> Any:
    """``obj`` with ``fn`` applied to every string value in it (dicts, lists, dataclasses; keys kept)."""
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: map_strings(v, fn) for k, v in obj.items()}
    if isinstance(obj, list):
        return [map_strings(v, fn) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: map_strings(getattr(obj, f.name), fn)
                                           for f in dataclasses.fields(obj) if f.init})
    return obj


def report_path(path: Path) -> Path:
    """The report file of ``path`` (the YAML itself, or the report folder holding it)."""
    return path / REPORT_FILE if path.is_dir() else path


def load_report(path: Path, registry: Registry) -> Report:
    """The report at ``path`` (a ``compliance-report.yaml`` or the folder holding one), validated.

    Raises :class:`ReportError` naming the file when it cannot be read or is not a valid report."""
    path = report_path(path)
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ReportError(f"cannot read the report {path}: {' '.join(str(exc).split())}") from exc
    return Report.from_dict(data, registry, str(path))


__all__ = ["REPORT_FILE", "AdapterInfo", "Attestation", "BreakdownRow", "BundledTarget", "ErrorCodeRow", "Harness",
           "Identity", "Merged", "Report", "ReportError", "RequirementResult", "RunTimes", "load_report", "report_path"]
