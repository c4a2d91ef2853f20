"""The implementation report: one static HTML page, requirement × target, readable offline.

Each cell is coloured by status, carries the row's note on hover and links to the evidence behind
its verdict (the file the note names, else the verdict's first). Each row shows the requirement's text.
Groups run tier 1, 2, 3 or must, should, may. The header names the specification revision each target
was judged against. Per requirement: how many implementations pass, are partial, fail and were not
measured, and the flags a spec author acts on — no implementation passes (the wording may be
unsatisfiable), measured by none (it may be untestable), exactly one passes (a second independent
implementation is missing). Filters by group (tier or level) and by status run in the page itself (no
external assets); the URL fragment (``#group=tier_1&status=fail&flag=no-pass``) selects the same filters,
so a link can share a view.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
from collections.abc import Mapping
from typing import Any

from conformance.registry import Registry
from conformance.report.model import CLI_FAMILY, Report, RequirementResult

STATUSES = ("pass", "partial", "fail", "not_measured", "na")
#: Marks that every font draws (the emoji forms of the CLI report need an emoji font).
MARK = {"pass": "✓", "partial": "◐", "fail": "✗", "not_measured": "⊘", "na": "—", "withdrawn": "⊗"}
FLAGS = {"no-pass": "no implementation passes", "unmeasured": "measured by none",
         "one-pass": "exactly one implementation passes"}

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}
#filters{margin:1em 0;display:flex;gap:1.5em;flex-wrap:wrap}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
thead th{background:#f4f4f4;position:sticky;top:0}
tr.group th{background:#e8eef7;text-align:left}
td.cell{text-align:center;min-width:3.5em}
td.cell a{text-decoration:none;color:inherit;display:block}
.st-pass{background:#d7f5dd}.st-partial{background:#fff1c2}.st-fail{background:#ffd6d6}
.st-not_measured{background:#e6e6e6}.st-na{background:#f7f7f7;color:#888}.st-none{color:#bbb}
.flag{display:inline-block;margin:1px 2px;padding:0 4px;border-radius:3px;font-size:.85em;background:#eee}
.flag-no-pass{background:#ffd6d6}.flag-unmeasured{background:#e6e6e6}.flag-one-pass{background:#fff1c2}
small{color:#666}
td.n{text-align:right}
th.req{text-align:left;font-weight:normal;max-width:34em}
th.req .text{display:block;color:#333;font-size:.9em}
thead .rev{display:block;font-weight:normal;color:#555;font-size:.8em}
tr[hidden]{display:none}
"""

_JS = """
(function(){
  var g=document.getElementById('f-group'),s=document.getElementById('f-status'),f=document.getElementById('f-flag');
  function apply(){
    var rows=document.querySelectorAll('tr.req'),shown={};
    rows.forEach(function(r){
      var ok=(!g.value||r.dataset.group===g.value)&&(!s.value||(' '+r.dataset.statuses+' ').indexOf(' '+s.value+' ')>=0)
        &&(!f.value||(' '+r.dataset.flags+' ').indexOf(' '+f.value+' ')>=0);
      r.hidden=!ok; if(ok){shown[r.dataset.group]=true;}
    });
    document.querySelectorAll('tr.group').forEach(function(h){h.hidden=!shown[h.dataset.group];});
    document.getElementById('count').textContent=document.querySelectorAll('tr.req:not([hidden])').length;
    var parts=[];if(g.value)parts.push('group='+g.value);if(s.value)parts.push('status='+s.value);
    if(f.value)parts.push('flag='+f.value);history.replaceState(null,'',parts.length?'#'+parts.join('&'):'#');
  }
  (location.hash||'').replace(/^#/,'').split('&').forEach(function(kv){
    var p=kv.split('='),el={group:g,status:s,flag:f}[p[0]];if(el&&p[1])el.value=decodeURIComponent(p[1]);
  });
  [g,s,f].forEach(function(el){el.addEventListener('change',apply);});
  apply();
})();
"""


def _e(text: Any) -> str:
    return html.escape(str(text if text is not None else ""), quote=True)


def _marked(text: str) -> str:
    """A registry summary as HTML: escaped, its `code spans` as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def requirement_flags(statuses: list[str]) -> list[str]:
    """The flags of one requirement from its statuses across targets (absent targets excluded)."""
    passes = statuses.count("pass")
    measured = [s for s in statuses if s in ("pass", "partial", "fail")]
    flags = []
    if measured and passes == 0:
        flags.append("no-pass")
    if statuses and not measured and all(s == "not_measured" for s in statuses):
        flags.append("unmeasured")
    if passes == 1:
        flags.append("one-pass")
    return flags


#: Where a verdict's note names its evidence (``...; evidence: evidence/ID/check.json``).
_NOTE_EVIDENCE = re.compile(r"evidence: (\S+)")


def verdict_evidence(entry: RequirementResult) -> str | None:
    """The evidence file behind a row's verdict: the one its note names (the first failing check's), else the
    first of the row's files (a run lists the deciding checks' files first); None without any."""
    files = list(entry.evidence or [])
    for found in _NOTE_EVIDENCE.findall(entry.note or ""):
        named = str(found).rstrip(".,;)")
        if named in files:
            return named
    return files[0] if files else None


def revision_judged(rep: Report, registry: Registry) -> str:
    """The specification revision a report was judged against, from what the report records: an a2a-cli
    report's spec_version and spec_revision, an agent report's judged_against; else the spec version the
    registry was transcribed from, said to be the registry's."""
    ident = rep.identity
    info = registry.families.get(rep.family)
    if rep.family == CLI_FAMILY and ident.spec_version and ident.spec_revision:
        title = info.title if info is not None else "a2a-cli specification"
        return f"{title} v{ident.spec_version} of {ident.spec_revision}"
    if ident.judged_against:
        return "; ".join(ident.judged_against)
    if info is not None and info.spec_version:
        return f"{info.title}, spec version {info.spec_version} (the registry's; the report names no revision)"
    return "unknown (the report names no revision)"


def _group_title(registry: Registry, rid: str) -> tuple[str, str]:
    r = registry[rid]
    key = f"{r.family}:{r.group}"
    return key, f"{registry.families[r.family].title} — {r.group.replace('_', ' ')}"


def render_implementation_html(reports: Mapping[str, Report | str], registry: Registry,
                               links: Mapping[str, str] | None = None, title: str = "Implementation report") -> str:
    """The page for ``reports`` (target name -> loaded compliance report, or an error text).

    ``links`` maps a target to the folder (relative to the page) holding its report, for evidence links.
    """
    links = links or {}
    names = list(reports)
    ids: dict[str, None] = {}
    for rep in reports.values():
        if isinstance(rep, Report):
            for rid in rep.requirements:
                if rid in registry:
                    ids.setdefault(rid, None)
    order = {r.id: i for i, r in enumerate(registry)}
    # Families by name; within one, its groups in the registry's order (tier 1, 2, 3; must, should, may).
    group_rank = {(f, g): i for f in registry.families for i, g in enumerate(registry.groups(f))}
    rows = sorted(ids, key=lambda rid: (registry[rid].family, group_rank[(registry[rid].family, registry[rid].group)],
                                        order[rid]))
    groups: dict[str, str] = {}
    for rid in rows:
        key, label = _group_title(registry, rid)
        groups.setdefault(key, label)

    head = ["<tr><th>Requirement</th>"]
    revisions: dict[str, list[str]] = {}
    for n in names:
        rep = reports[n]
        result = _result(rep)
        against = f"judged against {'; '.join(rep.identity.judged_against)}" if (
            isinstance(rep, Report) and rep.identity.judged_against) else ""
        revision = revision_judged(rep, registry) if isinstance(rep, Report) else ""
        if revision:
            revisions.setdefault(revision, []).append(n)
        head.append(f'<th data-target="{_e(n)}" title="{_e(against)}">{_e(n)}<br><small>{_e(result)}</small>'
                    + (f'<span class="rev">{_e(revision)}</span>' if revision else "") + "</th>")
    head.append("<th>pass</th><th>partial</th><th>fail</th><th>not measured</th><th>flags</th></tr>")

    body: list[str] = []
    current = None
    counts = {k: 0 for k in FLAGS}
    for rid in rows:
        key, label = _group_title(registry, rid)
        if key != current:
            body.append(f'<tr class="group" data-group="{_e(key)}">'
                        f'<th colspan="{len(names) + 6}">{_e(label)}</th></tr>')
            current = key
        req = registry[rid]
        cells, statuses = [], []
        for n in names:
            rep = reports[n]
            entry = rep.requirements.get(rid) if isinstance(rep, Report) else None
            if entry is None:
                cells.append('<td class="cell st-none" title="not run for this target">·</td>')
                continue
            st = entry.status
            statuses.append(st)
            note = entry.note or st
            ev = verdict_evidence(entry)
            href = f"{links[n]}/{ev}" if n in links and ev else (f"{links[n]}/summary.md" if n in links else "")
            mark = f'<a href="{_e(href)}">{MARK.get(st, "?")}</a>' if href else MARK.get(st, "?")
            cells.append(f'<td class="cell st-{_e(st)}" data-target="{_e(n)}" title="{_e(st)}: {_e(note)}">'
                         f"{mark}</td>")
        flags = requirement_flags(statuses)
        for fl in flags:
            counts[fl] += 1
        flag_html = "".join(f'<span class="flag flag-{fl}" title="{_e(FLAGS[fl])}">{_e(FLAGS[fl])}</span>'
                            for fl in flags)
        body.append(f'<tr class="req" id="{_e(rid)}" data-group="{_e(key)}" '
                    f'data-statuses="{_e(" ".join(sorted(set(statuses))))}" data-flags="{_e(" ".join(flags))}">'
                    f'<th class="req"><code>{_e(rid)}</code> <small>{_e(req.spec)}</small>'
                    f'<span class="text">{_marked(req.summary)}</span></th>'
                    + "".join(cells)
                    + "".join(f'<td class="n">{statuses.count(st)}</td>'
                              for st in ("pass", "partial", "fail", "not_measured"))
                    + f"<td>{flag_html}</td></tr>")

    group_opts = "".join(f'<option value="{_e(k)}">{_e(v)}</option>' for k, v in groups.items())
    status_opts = "".join(f'<option value="{s}">{MARK[s]} {s.replace("_", " ")}</option>' for s in STATUSES)
    flag_opts = "".join(f'<option value="{k}">{_e(v)}</option>' for k, v in FLAGS.items())
    stamp = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    summary = ", ".join(f"{counts[k]} {v}" for k, v in FLAGS.items())
    judged: dict[str, None] = {}
    for rep in reports.values():
        if isinstance(rep, Report):
            judged.update(dict.fromkeys(rep.identity.judged_against or registry.families[rep.family].judged_against))
    data = json.dumps({"targets": names, "requirements": len(rows)})
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        '<p id="revision">Specification revision judged: '
        + (_e("; ".join(f"{rev} ({', '.join(ns)})" for rev, ns in revisions.items())) or "unknown") + ".</p>",
        f'<p id="judged-against">Judged against: {_e("; ".join(judged) or "unknown")}.</p>',
        f"<p>{len(names)} target(s), {len(rows)} requirement(s); {_e(summary)}. Generated {stamp} by "
        "agentd-conformance. Hover a cell for its note; click it for the evidence behind its verdict.</p>",
        '<div id="filters">',
        f'<label>Group <select id="f-group"><option value="">all</option>{group_opts}</select></label>',
        f'<label>Status (any target) <select id="f-status"><option value="">any</option>{status_opts}</select></label>',
        f'<label>Flag <select id="f-flag"><option value="">any</option>{flag_opts}</select></label>',
        '<span>Showing <b id="count"></b> requirement(s)</span></div>',
        f'<table id="matrix" data-summary="{_e(data)}"><thead>{"".join(head)}</thead><tbody>',
        *body, "</tbody></table>", f"<script>{_JS}</script>", "</body></html>", ""])


def _result(rep: Report | str) -> str:
    if not isinstance(rep, Report):
        return f"error: {rep}"[:120]
    return claim_words(rep, levels="levels")


def claim_words(rep: Report, levels: str = "levels satisfied") -> str:
    """What a report claims, in words: ``tier 2 satisfied`` or ``levels satisfied: must``."""
    ident = rep.identity
    if ident.interrupted:
        return f"interrupted ({ident.interrupted}): incomplete, nothing claimed"
    if rep.family == CLI_FAMILY:
        return f"tier {ident.tier_claimed} satisfied" if ident.tier_claimed else "no tier satisfied"
    return f"{levels}: {', '.join(ident.levels_satisfied)}" if ident.levels_satisfied else "no level satisfied"
