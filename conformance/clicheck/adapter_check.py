"""``agentd-conformance adapter check FILE --exe TOOL``: is an adapter file right for its tool?

Proven by running, not by reading the tool's help:

1. **Valid?** The file is loaded as a run would load it; a malformed one is refused by
   :class:`~conformance.cli.adapter.AdapterError` in one line naming the file, the line and the key
   path (``mycli.yaml:12: rewrites[1].when.-o: ...``).
2. **Does each translated command do what the spec's command says?** With an executable, the check
   starts a scripted agent (loopback, the same server the CLI checks use) and runs every probe of
   :data:`~conformance.cli.adapter_probes.PROBES` through the adapter, isolated and bounded as the
   checks' runs are (:class:`~conformance.cli.runner.CliRunner`). It judges what the tool answers:
   a usage error (named by the feature it rejects, with the adapter keys that spell that feature), any
   other failing exit status, the A2A operation the agent received and the fields and headers it
   carried (``--stream`` lost in a rewrite shows as SendMessage where SendStreamingMessage was due;
   ``--status TASK_STATE_WORKING`` the tool refuses shows as its error), and the output's shape
   (``-o json`` left unmapped prints text, not JSON). Each finding is a warning; a probe whose
   features the adapter marks unsupported is not run (those rows fail in a run, as the adapter says).
3. **What will run?** Each probe's translation (argv and environment) is printed, so a vendor sees the
   command each check's invocation becomes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import shlex
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from conformance.cli.adapter import Adapter, Unsupported
from conformance.cli.adapter_probes import PROBES, Probe
from conformance.cli.runner import CliResult, CliRunner
from conformance.clicheck.features import ADAPTER_UNSUPPORTED, canonical, rejected_feature, used_features
from conformance.clicheck.invocations import CLI_TIMEOUT
from conformance.fixtures.scripted_agent import (
    ApiKey,
    ArtifactSpec,
    Bearer,
    CardSpec,
    RecordedRequest,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
)

#: The placeholders a probe's arguments use, as the translations are shown (secrets never shown).
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
#: How long the agent is given to record a request after the tool exits.
_RECORD_GRACE = 2.0


@dataclass
class ProbeRun:
    """One probe: its spec args (placeholders kept), the tool's argv (secrets as placeholders), the
    environment the adapter added, what the run showed wrong (empty: right), or why it was not run."""

    probe: Probe
    spec_args: list[str]
    argv: list[str] | None = None
    env: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)
    unsupported: str = ""
    ran: bool = False


@dataclass
class CheckResult:
    adapter: Adapter
    tool: list[str]
    """How the tool is shown: its executable's name and the rest of its argv prefix."""
    probes: list[ProbeRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    version: str | None = None


# ---- what the adapter says about a feature (named in warnings) -----------------------------------------

def adapter_keys(adapter: Adapter, feature: str) -> list[str]:
    """The adapter's entries that spell ``feature`` (a spec flag, command or variable), as key paths."""
    same = {feature, canonical(feature)} | {s for s, long in (("-a", "--agent-card"), ("-o", "--output"),
                                                              ("-h", "--help"), ("-v", "--version"))
                                            if canonical(feature) == long}
    keys: list[str] = []
    if feature.startswith("-"):
        for name, table in (("flags", adapter.flags), ("values", adapter.values), ("placement", adapter.placement),
                            ("credentials_env", adapter.credentials_env),
                            ("credentials_by_name", adapter.credentials_by_name)):
            keys += [f"{name}.{k}" for k in table if k in same]
        for i, rule in enumerate(adapter.rewrites):
            if any(f in same for f, _ in rule.when):
                keys.append(f"rewrites[{i}]")
        for path, chosen in adapter.flag_commands.items():
            keys += [f"flag_commands.{' '.join(path)}.{f}" for f in chosen if f in same]
        for table_name, ptable in (("positional", adapter.positional), ("arguments", adapter.arguments)):
            keys += [f"{table_name}.{' '.join(p)}" for p, items in ptable.items() if same & set(items)]
    elif feature.startswith("A2ACLI_"):
        keys += [f"env_names.{feature}"] if feature in adapter.env_names else []
    else:
        words = tuple(feature.split())
        tables: list[tuple[str, Mapping[tuple[str, ...], object]]] = [
            ("commands", adapter.commands), ("flag_commands", adapter.flag_commands),
            ("arguments", adapter.arguments), ("positional", adapter.positional),
            ("positional_as_flag", adapter.positional_as_flag)]
        for name, ctable in tables:
            keys += [f"{name}.{' '.join(p)}" for p in ctable if words[: len(p)] == p or p[: len(words)] == words]
        for i, rule in enumerate(adapter.rewrites):
            if rule.words is not None and (rule.command is None or rule.command[: len(words)] == words):
                keys.append(f"rewrites[{i}]")
    return keys


def _hint(adapter: Adapter, features: Iterable[str]) -> str:
    """The adapter entries behind ``features``, for a warning: `` (adapter: flags.-o, rewrites[0])``, or
    `` (adapter: no entry for --status)`` when the adapter passes them through as the spec spells them."""
    features = list(features)
    keys = [k for f in features for k in adapter_keys(adapter, f)]
    if keys:
        return f" (adapter: {', '.join(dict.fromkeys(keys))})"
    return f" (adapter: no entry for {', '.join(features)})" if features else ""


# ---- the agent and the placeholders ---------------------------------------------------------------------

class _Bench:
    """The scripted agent the probes run against, and the values of their placeholders."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.bearer = "probe-" + secrets.token_hex(12)
        self.api_key = "probe-" + secrets.token_hex(12)
        plain = CardSpec(push_notifications=True, extended_agent_card=True)
        done = TaskFlow.single("COMPLETED", ArtifactSpec([Text("probe artifact")], name="probe.txt"))
        self.plain = Script(card=plain, send=done, resume=done)
        self.secured = self.plain.replace(card=plain.replace(
            require_auth=False, security=(Bearer(self.bearer), ApiKey(self.api_key))))
        self.agent = ScriptedAgent(self.plain)

    def __enter__(self) -> _Bench:
        # the agent's server logs the errors it answers with; they are the probes' business, not the user's
        self._quiet = [(lg, lg.level) for lg in map(logging.getLogger, ("a2a", "uvicorn", "uvicorn.error"))]
        for lg, _ in self._quiet:
            lg.setLevel(logging.CRITICAL)
        self.agent.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.agent.stop()
        for lg, level in self._quiet:
            lg.setLevel(level)

    @contextlib.contextmanager
    def completing(self, probe: Probe, task_id: str) -> Iterator[None]:
        """While the body runs: move ``task_id`` to COMPLETED once the agent receives ``probe.expect``."""
        done = threading.Event()

        def wait_then_complete() -> None:
            while not done.is_set():
                try:
                    self.agent.wait_for_requests(lambda r: _is_expected(probe, r), timeout=0.2)
                except TimeoutError:
                    continue
                with contextlib.suppress(KeyError):
                    self.agent.move_task(task_id, "COMPLETED")
                return

        t = threading.Thread(target=wait_then_complete, name="adapter-check-complete", daemon=True)
        t.start()
        try:
            yield
        finally:
            done.set()
            t.join()

    def values(self, probe: Probe) -> dict[str, str]:
        """Fresh values for the placeholders ``probe`` uses (tasks are made anew for each run)."""
        a = self.agent
        a.set_script(self.secured if probe.secured else self.plain)
        names = set(_PLACEHOLDER.findall(" ".join([*probe.args, *probe.env.values()])))
        names |= {n for v in [*probe.fields.values(), *probe.headers.values()] if isinstance(v, str)
                  for n in _PLACEHOLDER.findall(v)}
        host = a.base_url.split("://", 1)[1]
        out = {"agent": a.base_url, "host": host, "bearer": self.bearer, "api_key": self.api_key,
               "hook": "http://127.0.0.1:9/probe-hook", "push_token": "probe-" + secrets.token_hex(8),
               "push_credentials": "probe-" + secrets.token_hex(8)}
        if "card_file" in names:
            out["card_file"] = str(a.card_file(self.work / "agent-card.json"))
        if "config_file" in names:
            env_file = self.work / "probe.env"
            env_file.write_text(f"A2ACLI_AGENT_CARD={a.base_url}\n", encoding="utf-8")
            out["config_file"] = str(env_file)
        if "data_file" in names:
            data = self.work / "data.json"
            data.write_text('{"probe": "data"}\n', encoding="utf-8")
            out["data_file"] = str(data)
        if "part_file" in names:
            part = self.work / "part.txt"
            part.write_text("probe part\n", encoding="utf-8")
            out["part_file"] = str(part)
        if "task" in names:
            out["task"] = a.add_task(TaskFlow.single("COMPLETED", ArtifactSpec([Text("probe artifact")],
                                                                               name="probe.txt"))).id
        if "held" in names or "config" in names:
            out["held"] = a.hold_task("WORKING").id
        if "input" in names:
            out["input"] = a.hold_task("INPUT_REQUIRED").id
        if "config" in names:
            out["config"] = self._seed_push_config(out["held"])
        return out

    def _seed_push_config(self, task_id: str) -> str:
        resp = httpx.post(self.agent.jsonrpc_url, timeout=10.0, headers={"A2A-Version": "1.0"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig",
            "params": {"taskId": task_id, "url": "http://127.0.0.1:9/probe-seeded"}})
        config_id = str((resp.json().get("result") or {}).get("id") or "")
        if not config_id:
            raise RuntimeError(f"harness: the scripted agent did not create a push config: {resp.text[:300]}")
        return config_id


def _fill(text: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _mask(text: str, values: Mapping[str, str]) -> str:
    """``text`` with every placeholder value put back as its placeholder (no secret is shown)."""
    for name, value in sorted(values.items(), key=lambda kv: -len(kv[1])):
        if value:
            text = text.replace(value, "{" + name + "}")
    return text


# ---- judging one run ---------------------------------------------------------------------------------

def _dig(obj: Any, path: str) -> Any:
    for step in path.split("."):
        if isinstance(obj, list) and step.isdigit() and int(step) < len(obj):
            obj = obj[int(step)]
        elif isinstance(obj, dict) and step in obj:
            obj = obj[step]
        else:
            return _MISSING
    return obj


_MISSING = object()


def _carried(req: RecordedRequest, path: str, want: object) -> Any:
    """What ``req`` carried at ``path`` (JSON body, else the query string, else the URL path for an id)."""
    params = req.params if isinstance(req.params, dict) else {}
    got = _dig(params, path)
    if got is not _MISSING:
        return got
    leaf = path.rsplit(".", 1)[-1]
    query = req.query_params.get(leaf)
    if query:
        return type(want)(query[0]) if isinstance(want, int) and query[0].isdigit() else query[0]
    if isinstance(want, str) and want and f"/{want}" in req.path:
        return want
    return _MISSING


def _first_line(result: CliResult) -> str:
    """What the tool said about its failure: a JSON error document's message, else the first line with words
    (stderr first)."""
    said = re.search(r'"message"\s*:\s*"((?:[^"\\]|\\.)+)"', result.stdout_text + result.stderr_text)
    if said is not None:
        return said.group(1)[:160]
    lines = [ln.strip() for text in (result.stderr_text, result.stdout_text) for ln in text.splitlines()
             if re.search(r"[A-Za-z]{2}", ln)]
    for line in lines:
        if re.search(r"error|invalid|unknown|unrecogni[sz]ed|no such|not |unexpected", line, re.I):
            return line[:160]
    return lines[0][:160] if lines else "(nothing printed)"


def _named_in_output(result: CliResult, spec_args: Sequence[str], features: Sequence[str]) -> list[str]:
    """The probe's flags whose value the tool's output quotes (the one a failure is about), else all of them."""
    text = result.stdout_text + result.stderr_text
    hit = [canonical(flag) for flag, value in zip(spec_args, spec_args[1:], strict=False)
           if flag.startswith("-") and len(value) > 3 and not value.startswith("-") and value in text]
    hit = [f for f in hit if f in features]
    return hit or list(features)


def judge(probe: Probe, result: CliResult, requests: Sequence[RecordedRequest], values: Mapping[str, str],
          adapter: Adapter, spec_args: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """What ``result`` (and what the agent received) shows wrong with the translation of ``probe``."""
    features = used_features(spec_args, env)
    if result.timed_out:
        return [f"no answer within {result.duration:.0f} s (killed at the bound, --cli-timeout)"
                f"{_hint(adapter, features)}"]
    if result.exit_code == 2:
        missing = rejected_feature(result, features, adapter=adapter)
        if missing is not None:
            return [f"the tool {missing.how.replace('rejected as', 'rejected ' + missing.feature + ' as')}"
                    f"{_hint(adapter, [missing.feature])}"]
        return [f"usage error (exit 2): {_first_line(result)!r}"
                f"{_hint(adapter, _named_in_output(result, spec_args, features))}"]
    if result.exit_code != 0:
        return [f"exit {result.exit_code}: {_first_line(result)!r}"
                f"{_hint(adapter, _named_in_output(result, spec_args, features))}"]
    problems: list[str] = []
    if probe.expect:
        hits = [r for r in requests if _is_expected(probe, r)]
        if not hits:
            seen = sorted({r.operation or r.binding for r in requests if r.binding != "OTHER"}) or ["nothing"]
            # what was lost on the way: --stream when a stream was due, else any of the probe's flags
            lost = (["--stream"] if probe.expect == "SendStreamingMessage"
                    else [f for f in features if f.startswith("-")])
            problems.append(f"the agent received {', '.join(seen)}, not {probe.expect.replace('|', ' or ')}"
                            f"{_hint(adapter, lost)}")
        else:
            problems += _judge_request(probe, hits, values, adapter, features)
    problems += _judge_output(probe, result, adapter)
    return problems


def _is_expected(probe: Probe, req: RecordedRequest) -> bool:
    wanted = probe.expect.split("|")
    return (req.binding == "CARD" and "CARD" in wanted) or (req.operation is not None and req.operation in wanted)


def _judge_request(probe: Probe, hits: Sequence[RecordedRequest], values: Mapping[str, str], adapter: Adapter,
                   features: Sequence[str]) -> list[str]:
    problems: list[str] = []
    flag_of = {f: f for f in features}
    for path, want in probe.fields.items():
        want_v = _fill(want, values) if isinstance(want, str) else want
        got = [g for r in hits for p in path.split("|") if (g := _carried(r, p, want_v)) is not _MISSING]
        if want_v not in got:
            shown = _mask(repr(got[0]), values) if got else "nothing"
            problems.append(f"{hits[0].operation or probe.expect} carried {shown} at {path}, "
                            f"expected {_mask(repr(want_v), values)}"
                            f"{_hint(adapter, _features_for(path, flag_of))}")
    for name, want in probe.headers.items():
        want_v = _fill(want, values)
        if not any(r.headers.get(name) == want_v for r in hits):
            seen: str | None = next((r.headers[name] for r in hits if name in r.headers), None)
            problems.append(f"{hits[0].operation or probe.expect} carried header {name}: "
                            f"{_mask(seen, values) if seen is not None else '(none)'}, expected {_mask(want_v, values)}"
                            f"{_hint(adapter, features)}")
    if probe.binding and not any(r.binding == probe.binding for r in hits):
        problems.append(f"{hits[0].operation or probe.expect} came on {', '.join(sorted({r.binding for r in hits}))}, "
                        f"not {probe.binding}{_hint(adapter, ['--transport'])}")
    return problems


def _features_for(path: str, features: Mapping[str, str]) -> list[str]:
    """The probe's flags a request field shows (for the adapter keys a warning names)."""
    by_field = {"status": "--status", "contextId": "--context-id", "pageSize": "--page-size", "taskId": "--task-id",
                "historyLength": "--history", "returnImmediately": "--async", "mediaType": "--media-type",
                "url": "--url", "token": "--token", "metadata": "--metadata", "data": "--data", "text": "--text"}
    hit = [flag for name, flag in by_field.items() if name in path.split("|")[0].split(".") and flag in features]
    return hit or list(features)


def _judge_output(probe: Probe, result: CliResult, adapter: Adapter) -> list[str]:
    out = result.stdout_text
    if probe.output == "any" and not (out.strip() or result.stderr_text.strip()):
        return ["exit 0 and printed nothing"]
    if probe.output == "json":
        try:
            json.loads(out)
        except ValueError:
            return [f"asked for -o json, the output is not one JSON document: {out.strip()[:100]!r}"
                    f"{_hint(adapter, ['--output'])}"]
    if probe.output == "jsonl":
        lines = [ln for ln in out.splitlines() if ln.strip()]
        bad = []
        for ln in lines:
            try:
                if not isinstance(json.loads(ln), dict):
                    bad.append(ln)
            except ValueError:
                bad.append(ln)
        if not lines or bad:
            said = repr((bad or [out.strip()])[0][:100])
            return [f"asked for -o json --stream, the output is not JSON Lines (one object a line): {said}"
                    f"{_hint(adapter, ['--output', '--stream'])}"]
    return []


# ---- the check -------------------------------------------------------------------------------------------

def check_adapter(path: str | Path, prefix: Sequence[str] | None = None, *, timeout: float = CLI_TIMEOUT,
                  base_env: Mapping[str, str] | None = None, probes: Sequence[Probe] = PROBES) -> CheckResult:
    """Load ``path`` (raises :class:`~conformance.cli.adapter.AdapterError`); with a tool ``prefix``, run
    each probe through the adapter against a scripted agent and judge it (raises
    :class:`~conformance.cli.runner.ExecutableNotFound` for a missing tool); else translate only."""
    adapter = Adapter.load(path)
    tool = [Path(prefix[0]).name, *prefix[1:]] if prefix else [adapter.tool]
    result = CheckResult(adapter, tool)
    if not prefix:
        for probe in probes:
            result.probes.append(_translate_only(adapter, probe))
        return result
    runner = CliRunner(list(prefix), adapter=adapter, base_env=dict(base_env or {}), timeout=timeout)
    runner.check_executable()
    work = Path(tempfile.mkdtemp(prefix="adapter-check-"))
    try:
        with _Bench(work) as bench:
            for probe in probes:
                run = _run_probe(runner, bench, adapter, probe)
                result.probes.append(run)
                result.warnings += [f"`{shlex.join(run.spec_args)}` -> `{shlex.join([*tool, *(run.argv or [])])}`: "
                                    f"{p}" for p in run.problems]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    try:
        r = runner.run(["--version"])
        line = (r.stdout_text or r.stderr_text).strip().splitlines()
        if r.exit_code == 0 and line:
            result.version = f"{line[0][:120]} (asked as `{shlex.join(r.argv[len(prefix):])}`)"
        r.cleanup()
    except Unsupported:
        pass
    return result


#: Values of the shapes a run gives the placeholders, for translating without a run (a rule that routes
#: by a value's shape sees a URL, a host, a file where a run would).
SAMPLE_VALUES = {"agent": "http://127.0.0.1:8000", "host": "127.0.0.1:8000", "card_file": "/tmp/agent-card.json",
                 "config_file": "/tmp/probe.env", "part_file": "/tmp/part.txt", "data_file": "/tmp/data.json",
                 "hook": "http://127.0.0.1:9/probe-hook"}


def _translate_only(adapter: Adapter, probe: Probe) -> ProbeRun:
    run = ProbeRun(probe, list(probe.args))
    spec = [_fill(a, SAMPLE_VALUES) for a in probe.args]
    try:
        argv, env = adapter.translate(spec, {k: _fill(v, SAMPLE_VALUES) for k, v in probe.env.items()})
    except Unsupported as exc:
        run.unsupported = exc.what
        return run
    run.argv = [_mask(a, SAMPLE_VALUES) for a in argv]
    run.env = {k: _mask(v, SAMPLE_VALUES) for k, v in env.items() if v is not None and adapter.env.get(k) != v}
    return run


def _run_probe(runner: CliRunner, bench: _Bench, adapter: Adapter, probe: Probe) -> ProbeRun:
    run = _translate_only(adapter, probe)
    if run.unsupported:
        return run
    values = bench.values(probe)
    spec_args = [_fill(a, values) for a in probe.args]
    env = {k: _fill(v, values) for k, v in probe.env.items()}
    bench.agent.clear_requests()
    with bench.completing(probe, values["held"]) if probe.completes else contextlib.nullcontext():
        result = runner.run(spec_args, env=dict(env), cwd=bench.work)
    try:
        run.ran = True
        run.exit_code = result.exit_code
        run.argv = [_mask(a, values) for a in result.argv[len(runner.prefix):]]
        requests = _settled_requests(bench.agent, probe)
        run.problems = [_mask(p, values) for p in judge(probe, result, requests, values, adapter, spec_args, env)]
    finally:
        result.cleanup()
    return run


def _settled_requests(agent: ScriptedAgent, probe: Probe) -> list[RecordedRequest]:
    """What the agent received for this run: the expected request is waited for (bounded), since the tool may
    exit before the server has recorded a request it sent last."""
    if probe.expect:
        with contextlib.suppress(TimeoutError):
            agent.wait_for_requests(lambda r: _is_expected(probe, r), timeout=_RECORD_GRACE)
    return list(agent.requests)


def render(result: CheckResult) -> str:
    """What the command prints: validity, the warnings, each probe's translation and verdict."""
    ad = result.adapter
    lines = [f"adapter {ad.source}: valid (schema {ad.version}, tool {ad.tool})"]
    if result.version:
        lines.append(f"tool version: {result.version}")
    for flag, argv in ad.version_check().items():
        if argv == ADAPTER_UNSUPPORTED:
            lines.append(f"version check: the spec's `{flag}` is not asked: {ADAPTER_UNSUPPORTED} (an `unsupported` "
                         "entry covers both -v and --version; a tool whose -v means something else maps "
                         "`-v: --version` under flags instead)")
        else:
            lines.append(f"version check: the spec's `{flag}` is asked as `{argv}` (the report says so)")
    ran = [p for p in result.probes if p.ran]
    if ran:
        lines += ["", f"probes run against a scripted agent: {len(ran)} "
                      f"({sum(1 for p in ran if not p.problems)} right, {sum(1 for p in ran if p.problems)} not)",
                  f"warnings: {len(result.warnings) or 'none'}"]
        lines += [f"  warning: {w}" for w in result.warnings]
    else:
        lines += ["", "no --exe given: nothing was run, the translations are shown only"]
    lines += ["", "translations (spec grammar -> the tool's):"]
    if ad.env:
        lines.append(f"  (every run's environment pins {' '.join(f'{k}={shlex.quote(v)}' for k, v in ad.env.items())})")
    for p in result.probes:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in p.probe.env.items())
        lines.append(f"  {' '.join(filter(None, [env, shlex.join(p.spec_args)]))}")
        if p.argv is None:
            lines.append(f"    -> {ADAPTER_UNSUPPORTED}: the rows that name it fail")
            continue
        verdict = "" if not p.ran else ("  [ok]" if not p.problems else "  [WARNING]")
        lines.append(f"    -> {shlex.join([*result.tool, *p.argv])}{verdict}")
        if p.env:
            lines.append(f"       env: {' '.join(f'{k}={shlex.quote(v)}' for k, v in sorted(p.env.items()))}")
    return "\n".join(lines) + "\n"
