"""``agentd-conformance matrix``: many (suite, target) runs, one requirement × target table.

A targets file (YAML) lists the runs::

    targets:
      - name: reference-cli          # unique; the report folder's name
        kind: cli                    # cli | agent
        exe: "mycli --flag"          # cli: the command line (omit for the bundled reference CLI)
        adapter: mycli.adapter.yaml  # cli: optional, relative to the targets file
        skill: SKILL.md              # cli: optional
        env: {NO_COLOR: "1"}         # cli: optional
        tier: 1                      # cli: optional
      - name: reference-agentd
        kind: agent
        family: agentd               # agent: agentd | a2a
        launch: reference            # agent: one of launch / url / unix
        tokens_env: {operator: AGENTD_OPERATOR_TOKEN}   # agent: role -> environment variable
        facts: {events: "on"}
      - name: agentd-image
        kind: agent
        container:                   # agent: a local image, one container per configuration
          image: agentd:ci           #   required; never pulled
          port: 8420                 #   optional, else the image's label (see conformance/targets/container.py)
          env: {AGENTD_LOG: debug}   #   optional, for every container
          socket_dir: /run/agentd    #   optional: the folder its unix socket appears in (bind-mounted)
          tokens_env: {operator: AGENTD_OPERATOR_TOKEN}  # role -> variable the harness puts a token in
          switches: {events: AGENTD_EVENTS}              # fact -> variable that switches it (on/off)
          ready_path: /.well-known/agent-card.json
          ready_timeout: 60
          command: [agentd, serve]   #   optional: argv replacing the image's entry point and command
          network: internal          #   internal (default: no route out; a loopback port per container) | bridge

The table flags requirements that some target measured but no target passes (a hint that the
wording may be unsatisfiable) and regressions against a previous matrix (pass before, not now).

``--shard I/N`` runs the targets whose position in the file is I-1 modulo N (a deterministic slice;
the CI system's job matrix spreads the shards over machines); ``matrix merge DIR...`` rebuilds the
one table from the shards' folders, the same as one unsharded run would have written.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

_KEYS = {
    "cli": {"name", "kind", "exe", "adapter", "skill", "env", "tier", "only"},
    "agent": {"name", "kind", "family", "launch", "url", "unix", "container", "tokens_env", "facts", "only"},
}
CONTAINER_KEYS = {"image", "port", "env", "socket_dir", "tokens_env", "switches", "ready_path", "ready_timeout",
                  "network", "command"}


class TargetFileError(ValueError):
    """The targets file is malformed; the message names the file and the key."""


def _err(path: Path, where: str, msg: str) -> TargetFileError:
    return TargetFileError(f"targets file {path}: {where}: {msg}")


def load_targets(path: Path) -> list[dict[str, Any]]:
    """Read and validate a targets file; relative paths are resolved against its folder."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TargetFileError(f"targets file {path}: cannot read: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"targets"} or not isinstance(data["targets"], list):
        raise _err(path, "top level", "expected a mapping with exactly one key, 'targets', holding a list")
    if not data["targets"]:
        raise _err(path, "targets", "the list is empty")
    out: list[dict[str, Any]] = []
    names: set[str] = set()
    for i, raw in enumerate(data["targets"]):
        where = f"targets[{i}]"
        if not isinstance(raw, dict):
            raise _err(path, where, "expected a mapping")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise _err(path, f"{where}.name", "a non-empty name without '/' is required")
        where = f"targets[{i}] ({name})"
        if name in names:
            raise _err(path, where, "duplicate name")
        names.add(name)
        kind = raw.get("kind")
        if kind not in _KEYS:
            raise _err(path, f"{where}.kind", f"must be 'cli' or 'agent', got {kind!r}")
        unknown = set(raw) - _KEYS[kind]
        if unknown:
            raise _err(path, where, f"unknown key(s) {sorted(unknown)}")
        t = dict(raw)
        for key in ("exe", "url", "unix", "launch", "family"):
            if key in t and t[key] is not None and not isinstance(t[key], str):
                raise _err(path, f"{where}.{key}", "must be a string")
        for key in ("adapter", "skill", "unix"):
            if t.get(key):
                t[key] = str((path.parent / t[key]).resolve()) if not os.path.isabs(t[key]) else t[key]
        for key in ("env", "facts", "tokens_env"):
            v = t.get(key)
            if v is not None and not (isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                                   for k, x in v.items())):
                raise _err(path, f"{where}.{key}", "must be a mapping of strings to strings (quote on/off)")
        if "only" in t and not (isinstance(t["only"], list) and all(isinstance(x, str) for x in t["only"])):
            raise _err(path, f"{where}.only", "must be a list of requirement ids")
        if kind == "cli" and "tier" in t and t["tier"] not in (1, 2, 3):
            raise _err(path, f"{where}.tier", "must be 1, 2 or 3")
        if kind == "agent":
            given = [k for k in ("launch", "url", "unix", "container") if t.get(k)]
            if len(given) > 1:
                raise _err(path, where, f"give one of launch, url, unix, container (got {given})")
            if "container" in t:
                _check_container(path, f"{where}.container", t["container"])
            if t.get("family", "agentd") not in ("agentd", "a2a"):
                raise _err(path, f"{where}.family", "must be agentd or a2a")
            for role, var in (t.get("tokens_env") or {}).items():
                if var not in os.environ:
                    raise _err(path, f"{where}.tokens_env.{role}", f"environment variable {var} is not set")
        out.append(t)
    return out


def _check_container(path: Path, where: str, c: Any) -> None:
    if not isinstance(c, dict) or not isinstance(c.get("image"), str) or not c["image"]:
        raise _err(path, where, "must be a mapping with an image (a local image name)")
    unknown = set(c) - CONTAINER_KEYS
    if unknown:
        raise _err(path, where, f"unknown key(s) {sorted(unknown)}")
    for key in ("env", "tokens_env", "switches"):
        v = c.get(key)
        if v is not None and not (isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                               for k, x in v.items())):
            raise _err(path, f"{where}.{key}", "must be a mapping of strings to strings")
    if "port" in c and not (isinstance(c["port"], int) and 0 < c["port"] < 65536):
        raise _err(path, f"{where}.port", "must be a port number")
    if "ready_timeout" in c and not (isinstance(c["ready_timeout"], int | float) and c["ready_timeout"] > 0):
        raise _err(path, f"{where}.ready_timeout", "must be a positive number of seconds")
    if "command" in c and not (isinstance(c["command"], list) and c["command"]
                               and all(isinstance(a, str) for a in c["command"])):
        raise _err(path, f"{where}.command", "must be a non-empty list of strings (argv)")
    if "network" in c and c["network"] not in ("internal", "bridge"):
        raise _err(path, f"{where}.network", "must be internal (default) or bridge")


def shard(targets: list[dict[str, Any]], index: int, count: int) -> list[dict[str, Any]]:
    """Shard ``index`` of ``count`` (1-based): the targets at positions index-1, index-1+count, ..."""
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"--shard: expected I/N with 1 <= I <= N, got {index}/{count}")
    return [t for i, t in enumerate(targets) if i % count == index - 1]


def namespace_for(t: dict[str, Any], report_dir: Path, jobs: int, timeout: float | None) -> argparse.Namespace:
    """The argument namespace the cli/agent command would have parsed for this target."""
    common = {"only": t.get("only"), "jobs": jobs, "report_dir": str(report_dir), "timeout": timeout,
              "name": t["name"], "allure_dir": None}
    if t["kind"] == "cli":
        return argparse.Namespace(exe=t.get("exe"), adapter=t.get("adapter"), skill=t.get("skill"),
                                  tier=t.get("tier", 3), require_tier=None, cli_timeout=None,
                                  env=[f"{k}={v}" for k, v in (t.get("env") or {}).items()], **common)
    tokens = [f"{role}={os.environ[var]}" for role, var in (t.get("tokens_env") or {}).items()]
    return argparse.Namespace(url=t.get("url"), unix=t.get("unix"), launch=t.get("launch"),
                              container=(t.get("container") or {}).get("image"), container_entry=t.get("container"),
                              container_env=[], token=tokens,
                              fact=[f"{k}={v}" for k, v in (t.get("facts") or {}).items()],
                              family=t.get("family", "agentd"), require_level=None, defect=[],
                              schema_source="ours", agentd_binary=None, **common)


MARK = {"pass": "pass", "partial": "PART", "fail": "FAIL", "not_measured": "n/m", "na": "n/a"}


def build_matrix(results: dict[str, dict[str, Any] | str], previous: dict[str, Any] | None) -> dict[str, Any]:
    """From per-target reports (or an error string) to the matrix document."""
    ids: dict[str, None] = {}
    for rep in results.values():
        if isinstance(rep, dict):
            for rid in rep.get("requirements", {}):
                ids.setdefault(rid, None)
    cells: dict[str, dict[str, str]] = {}
    for rid in ids:
        cells[rid] = {}
        for name, rep in results.items():
            if isinstance(rep, dict) and rid in rep.get("requirements", {}):
                cells[rid][name] = str(rep["requirements"][rid].get("status"))
    no_target_passes = sorted(rid for rid, row in cells.items()
                              if row and "pass" not in row.values()
                              and any(s in ("fail", "partial") for s in row.values()))
    regressions: list[dict[str, str]] = []
    if previous:
        for rid, row in cells.items():
            for name, status in row.items():
                before = previous.get("cells", {}).get(rid, {}).get(name)
                if before == "pass" and status != "pass":
                    regressions.append({"requirement": rid, "target": name, "before": before, "now": status})
    return {"targets": {n: _result_word(r) for n, r in results.items()},
            "cells": cells, "no_target_passes": no_target_passes, "regressions": regressions}


def _result_word(rep: dict[str, Any] | str) -> str:
    if not isinstance(rep, dict):
        return f"error: {rep}"
    ident = rep.get("report", {})
    if "tier_claimed" in ident:
        return f"tier {ident['tier_claimed']} satisfied" if ident["tier_claimed"] else "no tier satisfied"
    levels = ident.get("levels_satisfied") or []
    return f"levels satisfied: {', '.join(levels)}" if levels else "no level satisfied"


def render_matrix(doc: dict[str, Any]) -> str:
    names = list(doc["targets"])
    lines = ["# Conformance matrix", "", "| Target | Result |", "| --- | --- |"]
    lines += [f"| {n} | {doc['targets'][n]} |" for n in names]
    lines += ["", "| Requirement | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for rid, row in doc["cells"].items():
        flag = " ⚑" if rid in doc["no_target_passes"] else ""
        lines.append(f"| `{rid}`{flag} | " + " | ".join(MARK.get(row.get(n, ""), row.get(n, "—")) for n in names)
                     + " |")
    lines += ["", f"⚑ measured but passed by no target ({len(doc['no_target_passes'])}): "
              + (", ".join(doc["no_target_passes"]) or "none")]
    regs = doc["regressions"]
    lines += ["", f"Regressions against the previous matrix ({len(regs)}):"]
    lines += [f"- `{r['requirement']}` on {r['target']}: {r['before']} → {r['now']}" for r in regs] or ["- none"]
    return "\n".join(lines) + "\n"


def load_previous(previous: Path | None) -> dict[str, Any] | None:
    """An earlier matrix (its matrix.yaml, or the folder holding it), to judge regressions against."""
    if previous is None:
        return None
    if previous.is_dir():
        previous = previous / "matrix.yaml"
    try:
        doc = yaml.safe_load(previous.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TargetFileError(f"--previous {previous}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), dict):
        raise TargetFileError(f"--previous {previous}: not a matrix.yaml (no cells)")
    return doc


def write_matrix(out: Path, doc: dict[str, Any], extra: dict[str, Any] | None,
                 results: dict[str, dict[str, Any] | str]) -> None:
    """matrix.yaml (with ``extra``: a shard's marks), matrix.md and the implementation report page."""
    from conformance.registry import default_registry
    from conformance.report.html import render_implementation_html

    out.mkdir(parents=True, exist_ok=True)
    (out / "matrix.yaml").write_text(yaml.safe_dump({**doc, **(extra or {})}, sort_keys=False, width=120),
                                     encoding="utf-8")
    (out / "matrix.md").write_text(render_matrix(doc), encoding="utf-8")
    page = render_implementation_html(results, default_registry(), links={n: n for n in results})
    (out / "implementation-report.html").write_text(page, encoding="utf-8")


def run_matrix(targets: list[dict[str, Any]], out: Path, jobs: int, timeout: float | None,
               previous: Path | None, runner: Callable[[dict[str, Any], argparse.Namespace], dict[str, Any]],
               shard_of: tuple[int, int, list[str]] | None = None) -> dict[str, Any]:
    """Run every target (errors are recorded per target; the matrix goes on) and write the table.

    ``shard_of`` (index, count, every target name of the file in order) marks the folder as one
    shard, for ``matrix merge``.
    """
    prev_doc = load_previous(previous)
    results: dict[str, dict[str, Any] | str] = {}
    for t in targets:
        ns = namespace_for(t, out / t["name"], jobs, timeout)
        try:
            results[t["name"]] = runner(t, ns)
        except Exception as exc:  # noqa: BLE001 - one target's failure is recorded, the matrix goes on
            results[t["name"]] = f"{type(exc).__name__}: {exc}"
    doc = build_matrix(results, prev_doc)
    extra = None
    if shard_of is not None:
        extra = {"shard": {"index": shard_of[0], "count": shard_of[1], "order": shard_of[2],
                           "errors": {n: r for n, r in results.items() if isinstance(r, str)}}}
    write_matrix(out, doc, extra, results)
    return doc
