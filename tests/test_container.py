"""The container path on a real engine: the reference image, both agent families through it, and the
ways a container can go wrong (no engine, no image, never ready, floods its logs, exits mid-run,
Ctrl-C, a crashed run) — each a bounded, readable failure that leaves no container behind.

Where no engine answers these tests are skipped with a reason naming it (the only skip the harness's
own tests allow: it is about this test environment, not a target); ``.ci/run`` requires the engine.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.evidence import SecretSet
from conformance.registry import default_registry
from conformance.targets.container import PREFIX
from conformance.targets.engine import LABEL, reap
from conformance.targets.model import AgentTarget

#: Rows a container cannot measure, with the words of the reason each must give (the rest must pass, as
#: they do against --launch reference). None since the reference image takes a configuration document,
#: serves the harness's control socket and reaches back over the harness's network; kept so a future
#: limit is stated here, with its reason, rather than loosened in the comparison.
AGENTD_NOT_MEASURED: dict[str, str] = {}
A2A_NOT_MEASURED: dict[str, str] = {}
#: Conditional rows that do not apply to the reference (its card declares only JSON-RPC and no required
#: extension, and is not signed), on either path.
A2A_NA = {"A2A_ERR_002", "A2A_ERR_005", "A2A_DATA_005", "A2A_EXT_002", "A2A_CARD_011", "A2A_CARD_012"}
RUN_ID = f"{PREFIX}.run-id"


@pytest.fixture(scope="module")
def image(engine: Any) -> str:
    from conformance.targets.image import build_reference

    return build_reference().tag  # cached by content hash: .ci/run built it before the tests


def _env(run_id: str | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    if run_id:
        env["AGENTD_CONFORMANCE_RUN_ID"] = run_id
    env.update(extra)
    return env


def _command(args: list[str], env: dict[str, str], timeout: float = 1100) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.command", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def _left(engine: Any, run_id: str) -> list[str]:
    """Containers and networks of this run still on the engine."""
    flt = {"label": f"{RUN_ID}={run_id}"}
    return ([c.name for c in engine.containers.list(all=True, filters=flt)]
            + [n.name for n in engine.networks.list(filters=flt)])


def _targets(tmp_path: Path, name: str, container: dict[str, Any], **more: Any) -> Path:
    path = tmp_path / "targets.yaml"
    path.write_text(yaml.safe_dump({"targets": [{"name": name, "kind": "agent", "container": container, **more}]}),
                    encoding="utf-8")
    return path


def _report(folder: Path) -> dict[str, Any]:
    data = yaml.safe_load((folder / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _same_as_launch(report: dict[str, Any], unmeasurable: dict[str, str], na: set[str] | None = None) -> list[str]:
    problems = []
    rows = {r.id: r for r in default_registry()}
    for rid, row in report["requirements"].items():
        if rid in rows and row.get("requirement") != rows[rid].summary:
            # A token spelled with a readable role ("operator-…") once redacted the word from every text.
            problems.append(f"{rid}: the requirement text is not the registry's: {row.get('requirement')!r}")
        want = "not_measured" if rid in unmeasurable else "na" if rid in (na or set()) else "pass"
        if row["status"] != want or (rid in unmeasurable and unmeasurable[rid] not in (row.get("note") or "")):
            problems.append(f"{rid}: {row['status']} ({(row.get('note') or '')[:200]})")
    return problems


# ---- no engine, no image ----------------------------------------------------------------------------

def test_no_engine_is_exit_3_in_one_line_naming_docker_host(tmp_path: Path) -> None:
    """Nothing measured, never a pass: an unreachable engine ends the run before any check."""
    proc = _command(["agent", "--container", "any:image", "--report-dir", str(tmp_path / "r")],
                    _env(DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock"), timeout=120)
    assert proc.returncode == 3, f"expected exit 3, got {proc.returncode}; stderr {proc.stderr!r}"
    lines = proc.stderr.strip().splitlines()
    assert "DOCKER_HOST" in lines[-1] and "nothing was measured" in lines[-1], proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "r" / "compliance-report.yaml").exists(), "a report was written without an engine"


def test_an_absent_image_is_a_usage_error_and_nothing_is_pulled(engine: Any, tmp_path: Path) -> None:
    proc = _command(["agent", "--container", "agentd-conformance/absent:never", "--report-dir", str(tmp_path)],
                    _env(), timeout=120)
    assert proc.returncode == 2, f"expected exit 2, got {proc.returncode}; stderr {proc.stderr!r}"
    assert "never pulled" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


# ---- the families, as with --launch reference ----------------------------------------------------------

#: What CI runs of the agentd family in containers: the first three rows of every area, and every row a
#: container cannot measure (each must say why). The whole family takes minutes of a 2-core CI: run it with
#: ``agentd-conformance agent --container IMAGE`` (timed by ``python -m benchmarks.agentd_family --container``).
AGENTD_SAMPLE = sorted({r.id for r in default_registry().select(family="agentd")
                        if int(r.id.rsplit("_", 1)[1]) <= 3} | set(AGENTD_NOT_MEASURED))

@pytest.mark.slow
@pytest.mark.timeout(1200)  # a whole family, one container per configuration, on a shared 2-core machine
def test_agentd_family_in_containers_gives_the_launch_verdicts(engine: Any, image: str, tmp_path: Path) -> None:
    """Every row passes as against --launch reference, but those a container cannot measure, which are
    not_measured naming why; the identity names the image; each check's evidence holds its container's
    state and logs; nothing of the run is left on the engine."""
    run_id = f"family-agentd-{os.getpid()}"
    out = tmp_path / "agentd"
    proc = _command(["agent", "--container", image, "--jobs", "2", "--only", *AGENTD_SAMPLE, "--report-dir", str(out)],
                    _env(run_id))
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    report = _report(out)
    report["requirements"] = {rid: row for rid, row in report["requirements"].items() if rid in AGENTD_SAMPLE}
    assert not _same_as_launch(report, AGENTD_NOT_MEASURED), _same_as_launch(report, AGENTD_NOT_MEASURED)
    ident = report["report"]
    assert ident["container_image_id"] == engine.images.get(image).id, ident
    evidence = json.loads(next((out / "evidence" / "AGENTD_DECL_001").glob("*.json")).read_text("utf-8"))
    logs = [a["data"] for a in evidence["attachments"] if a["name"].startswith("container ")]
    assert logs and "reference agentd serving" in logs[0]["logs_tail"], evidence["attachments"]
    assert list((out / "containers").glob("*.log")), "no container logs in the report folder"
    assert _left(engine, run_id) == []


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_core_family_in_containers_gives_the_launch_verdicts(engine: Any, image: str, tmp_path: Path) -> None:
    run_id = f"family-a2a-{os.getpid()}"
    out = tmp_path / "a2a"
    proc = _command(["agent", "--family", "a2a", "--container", image, "--report-dir", str(out)], _env(run_id))
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    report = _report(out)
    problems = _same_as_launch(report, A2A_NOT_MEASURED, A2A_NA)
    assert not problems, problems
    assert _left(engine, run_id) == []


@pytest.mark.parametrize(("defect", "rid"), [("no-command-declaration", "AGENTD_DECL_001"),
                                             ("extensions-output-missing-events", "AGENTD_DECL_011"),
                                             ("resync-never", "AGENTD_EVT_008")])
def test_a_defect_of_the_reference_is_caught_through_its_container(engine: Any, image: str, tmp_path: Path,
                                                                   defect: str, rid: str) -> None:
    """The checks can fail through a container: the defect reaches the daemon (its environment), the
    image's own binary (its arguments) and a restarted daemon alike."""
    proc = _command(["agent", "--container", image, "--defect", defect, "--only", rid, "--report-dir",
                     str(tmp_path)], _env(f"defect-{defect}-{os.getpid()}"), timeout=300)
    assert proc.returncode == 0, proc.stderr[-1000:]
    row = _report(tmp_path)["requirements"][rid]
    assert row["status"] == "fail", f"{defect} through a container: {rid} is {row['status']} ({row.get('note')})"


def test_the_ways_back_from_a_container_can_fail(engine: Any, image: str, tmp_path: Path) -> None:
    """The checks that reach a container through its configuration document, its control socket and
    the harness's network each fail on the reference's defect of that behaviour: a shadowing workflow
    accepted, the outbound command unmarked, a unix peer ignored, annotations in a webhook body, no
    goodbye on revocation."""
    kills = {"workflow-shadows-builtin": "AGENTD_CMD_018", "outbound-command-header-only": "AGENTD_CMD_019",
             "outbound-ignores-unix-peer": "AGENTD_UDS_008", "webhook-carries-annotations": "AGENTD_ANN_012",
             "no-goodbye-on-revoke": "AGENTD_EVT_014"}
    args = ["agent", "--container", image, "--report-dir", str(tmp_path), "--only", *kills.values()]
    for defect in kills:
        args += ["--defect", defect]
    run_id = f"ways-back-{os.getpid()}"
    proc = _command(args, _env(run_id), timeout=600)
    assert proc.returncode == 0, proc.stderr[-1000:]
    rows = _report(tmp_path)["requirements"]
    wrong = {rid: f"{rows[rid]['status']} ({(rows[rid].get('note') or '')[:200]})" for rid in kills.values()
             if rows[rid]["status"] != "fail"}
    assert not wrong, f"defects not caught through the container: {wrong}"
    assert _left(engine, run_id) == []


# ---- failure shapes ------------------------------------------------------------------------------------

def test_a_container_that_never_becomes_ready_is_a_bounded_readable_failure(engine: Any, image: str,
                                                                             tmp_path: Path) -> None:
    run_id = f"never-ready-{os.getpid()}"
    code = "import time\nprint('booting, never serving', flush=True)\ntime.sleep(600)"
    targets = _targets(tmp_path, "never", {"image": image, "command": ["python3", "-c", code], "ready_timeout": 3})
    proc = _command(["matrix", "--targets", str(targets), "--report-dir", str(tmp_path / "m")], _env(run_id),
                    timeout=180)
    assert proc.returncode == 3, f"expected exit 3, got {proc.returncode}; {proc.stderr[-1000:]}"
    doc = yaml.safe_load((tmp_path / "m" / "matrix.yaml").read_text(encoding="utf-8"))
    word = doc["targets"]["never"]
    assert "was not ready within 3s" in word and "booting, never serving" in word, word
    assert (tmp_path / "m" / "never" / "containers" / "preflight.log").is_file()
    assert _left(engine, run_id) == []


def test_a_container_flooding_its_logs_is_bounded(engine: Any, image: str, tmp_path: Path) -> None:
    run_id = f"flood-{os.getpid()}"
    code = "import sys\nline = 'flood ' * 40 + '\\n'\nwhile True: sys.stdout.write(line)"
    targets = _targets(tmp_path, "flood", {"image": image, "command": ["python3", "-c", code], "ready_timeout": 3})
    proc = _command(["matrix", "--targets", str(targets), "--report-dir", str(tmp_path / "m")], _env(run_id),
                    timeout=180)
    assert proc.returncode == 3, proc.stderr[-1000:]
    doc = yaml.safe_load((tmp_path / "m" / "matrix.yaml").read_text(encoding="utf-8"))
    assert "was not ready within 3s" in doc["targets"]["flood"] and len(doc["targets"]["flood"]) < 2000
    log = tmp_path / "m" / "flood" / "containers" / "preflight.log"
    assert 0 < log.stat().st_size <= 1_100_000, log.stat().st_size
    assert _left(engine, run_id) == []


EXIT_AFTER_CARDS = textwrap.dedent("""\
    import os, sys
    from conformance.fixtures.reference_agentd import app
    from conformance.targets import serve
    served = app.AgentdApp.agent_card
    count = [0]
    async def card(self, request):
        count[0] += 1
        if count[0] > 3:
            print('exiting mid-run on purpose', flush=True)
            os._exit(3)
        return await served(self, request)
    app.AgentdApp.agent_card = card
    sys.exit(serve.main([]))
""")


def test_a_container_exiting_mid_run_fails_its_checks_readably(engine: Any, image: str, tmp_path: Path) -> None:
    """The daemon dies after its fourth card request: later checks on it fail naming the exit and its
    logs, the run still completes (never a hang), and the dead container is removed."""
    run_id = f"mid-run-{os.getpid()}"
    targets = _targets(tmp_path, "dies", {"image": image, "command": ["python3", "-c", EXIT_AFTER_CARDS]},
                       only=["AGENTD_DECL_001", "AGENTD_DECL_002", "AGENTD_DECL_003", "AGENTD_DECL_004"])
    proc = _command(["matrix", "--targets", str(targets), "--report-dir", str(tmp_path / "m")], _env(run_id),
                    timeout=300)
    assert proc.returncode == 0, proc.stderr[-1000:]
    report = _report(tmp_path / "m" / "dies")
    rows = {rid: report["requirements"][rid] for rid in ("AGENTD_DECL_001", "AGENTD_DECL_002", "AGENTD_DECL_003",
                                                           "AGENTD_DECL_004")}
    assert all(r["status"] != "pass" for r in rows.values()) or any(r["status"] == "fail" for r in rows.values())
    outs = [json.loads(line) for line in (tmp_path / "m" / "dies" / "outcomes.jsonl").read_text().splitlines()]
    said = [o["message"] for o in outs if "exited mid-run" in (o.get("message") or "")]
    assert said and "exit code 3" in said[0] and "exiting mid-run on purpose" in said[0], [o["message"] for o in outs]
    assert _left(engine, run_id) == []


def _wait_for_suite_container(engine: Any, run_id: str, proc: subprocess.Popen[str], deadline: float) -> Any:
    while time.monotonic() < deadline and proc.poll() is None:
        for c in engine.containers.list(filters={"label": f"{RUN_ID}={run_id}", "status": "running"}):
            if c.labels.get(f"{PREFIX}.config") != "preflight":
                return c
        time.sleep(0.2)
    pytest.fail(f"no container of the suite appeared (the run exited {proc.poll()})")


@pytest.mark.parametrize(("how", "jobs"), [("ctrl-c", 1), ("sigterm", 1), ("suite-crash", 1), ("suite-crash", 2)],
                         ids=["ctrl-c", "sigterm", "suite-crash", "suite-crash-jobs2"])
def test_an_interrupted_or_crashed_run_leaves_no_container(engine: Any, image: str, tmp_path: Path,
                                                           how: str, jobs: int) -> None:
    """Ctrl-C or SIGTERM (``kill``, ``timeout``, a cancelled CI job) on the command, or the suite's process
    that started the container killed outright (pytest itself, or with ``--jobs 2`` an xdist worker): the run
    ends (exit 3, one line) and every container and network it started is gone. A stopped run's report says
    so: its unfinished rows are "interrupted" (never "no check implemented"), and it claims no level.
    (Before, SIGTERM ended only the command while the suite went on starting containers; with ``--jobs 2``
    xdist replaced the killed worker and the run went on.)"""
    from conformance.command.run import STOP_GRACE
    from conformance.interrupts import CRASHED

    run_id = f"{how}-{jobs}-{os.getpid()}"
    proc = subprocess.Popen([sys.executable, "-m", "conformance.command", "agent", "--container", image,
                             "--jobs", str(jobs), "--report-dir", str(tmp_path / "r")], env=_env(run_id),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        victim = _wait_for_suite_container(engine, run_id, proc, time.monotonic() + 120)
        t0 = time.monotonic()
        if how == "suite-crash":
            owner_pid = int(victim.labels[LABEL].split(":")[1])
            os.kill(owner_pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGINT if how == "ctrl-c" else signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, f"expected exit 3, got {proc.returncode}: {err[-1000:]!r}"
    assert _left(engine, run_id) == []
    assert seconds < STOP_GRACE + 15, f"the run took {seconds:.1f}s to stop"
    last = err.strip().splitlines()[-1]
    assert ("the suite process crashed" if how == "suite-crash" else "interrupted (") in last, err[-1000:]
    report = _report(tmp_path / "r")
    assert report["report"]["interrupted"] == {"ctrl-c": "SIGINT", "sigterm": "SIGTERM"}.get(how, CRASHED), \
        report["report"]
    assert report["report"]["levels_satisfied"] == []
    notes = [row.get("note") or "" for row in report["requirements"].values()]
    assert not [n for n in notes if n.startswith("no check implemented")], "rows said to have no check"
    assert any(n.startswith("interrupted: ") for n in notes), notes[:5]
    assert not [rid for rid, row in report["requirements"].items() if row["status"] == "fail"], "a fail of the image"


# ---- the pieces ----------------------------------------------------------------------------------------

def test_stale_labelled_containers_are_reaped_and_live_ones_kept(engine: Any, image: str) -> None:
    from conformance.targets.engine import owner_label

    stale = engine.containers.create(image, labels={LABEL: f"{os.uname().nodename}:999999999:1"})
    live = engine.containers.create(image, labels={LABEL: owner_label()})
    try:
        removed = reap(engine)
        names = [c.name for c in engine.containers.list(all=True, filters={"label": LABEL})]
        assert stale.name in removed and stale.name not in names, (removed, names)
        assert live.name in names, "a container of a live run was reaped"
    finally:
        for c in (stale, live):
            with contextlib.suppress(Exception):  # already gone
                c.remove(force=True)


def test_container_logs_in_the_report_are_redacted(engine: Any, image: str, tmp_path: Path) -> None:
    """A container that prints its token: the log written into the report folder carries no secret."""
    from conformance.targets.pool import ContainerPool

    secrets = SecretSet()
    pool = ContainerPool(AgentTarget("container", container={
        "image": image, "command": ["sh", "-c", "echo token=$AGENTD_OPERATOR_TOKEN; "
                                                "exec python3 -m conformance.targets.serve"]}), secrets, tmp_path)
    try:
        agent, tokens, facts = pool.get({"auth": True}, fresh=False)
        assert facts["auth"] == "on" and tokens["operator"] in secrets
        assert tokens["operator"] in agent.logs(), "the probe did not print its token"
    finally:
        pool.close()
    text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "containers").glob("*.log"))
    assert "token=[REDACTED]" in text and tokens["operator"] not in text, text[:500]



def test_a_secret_container_variable_never_reaches_a_report_file(engine: Any, image: str, tmp_path: Path) -> None:
    """Secrets handed to a container (``--container-env``, a targets file's ``secret_env_from``) reach no file
    of the run, not even a 6-character piece, though the container prints them: not the command line the
    report quotes, not the container's log, not the error a matrix records for a target that died. A
    ``--container-env-plain`` value is shown as given (it was said not to be secret)."""
    from tests.test_secret_leaks import leaks

    given, from_env, plain = f"cenv-{os.urandom(6).hex()}", f"fenv-{os.urandom(6).hex()}", "plain-shown-value"
    echo = "echo probe=$PROBE_SECRET plain=$PROBE_PLAIN; "
    serve = {"image": image, "command": ["sh", "-c", echo + "exec python3 -m conformance.targets.serve"]}
    single = tmp_path / "single"
    proc = _command(["agent", "--container", image, "--container-env", f"PROBE_SECRET={given}",
                     "--container-env-plain", f"PROBE_PLAIN={plain}", "--only", "A2A_CARD_001", "--family", "a2a",
                     "--report-dir", str(single)], _env(f"secret-{os.getpid()}"), timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    path = _targets(tmp_path, "serves", {**serve, "secret_env_from": {"PROBE_SECRET": "CONFORMANCE_TEST_SECRET"},
                                         "env": {"PROBE_PLAIN": plain}}, only=["A2A_CARD_001"], family="a2a")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["targets"].append({"name": "dies", "kind": "agent", "family": "a2a", "only": ["A2A_CARD_001"],
                           "container": {"image": image, "command": ["sh", "-c", echo + "exit 7"],
                                         "secret_env_from": {"PROBE_SECRET": "CONFORMANCE_TEST_SECRET"},
                                         "ready_timeout": 30}})
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    matrix = tmp_path / "matrix"
    proc = _command(["matrix", "--targets", str(path), "--report-dir", str(matrix)],
                    _env(f"secret-m-{os.getpid()}", CONFORMANCE_TEST_SECRET=from_env), timeout=900)
    assert proc.returncode == 3 and "could not run: dies" in proc.stderr, proc.stderr[-2000:]
    table = (matrix / "matrix.md").read_text(encoding="utf-8")
    assert "dies" in table and "[REDACTED]" in table, table[-1500:]  # its error quoted the container's log
    assert leaks([single, matrix], [given, from_env]) == {}
    command = yaml.safe_load((single / "compliance-report.yaml").read_text(encoding="utf-8"))
    assert plain in json.dumps(command), "the --container-env-plain value should be shown as given"
