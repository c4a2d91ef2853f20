"""Smoke tests of the reference CLI against a real a2a-sdk agent on loopback.

The agent is the SDK's DefaultRequestHandler with a tiny executor, served over JSON-RPC and HTTP+JSON
by uvicorn in a thread on 127.0.0.1:0. The CLI runs as a real subprocess. These tests prove the
basic paths work; the deep, per-requirement checks live in the conformance suites.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "conformance.fixtures.reference_cli"]
RUN_TIMEOUT = 30.0


# ------------------------------------------------------------------ the agent


def _build_app(base: str, *, streaming: bool):  # type: ignore[no-untyped-def]
    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import a2a_pb2 as pb
    from google.protobuf.struct_pb2 import Value
    from starlette.applications import Starlette

    class Executor(AgentExecutor):
        """Completes with a text artifact echoing the input; 'slow' works a while first,
        'fail' fails, 'input' asks for input, 'data' adds a data artifact."""

        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            text = context.get_user_input() if context.message else ""
            task = context.current_task
            if task is None:
                if context.message is None:
                    raise ValueError("no task and no message to start one from")
                task = new_task_from_user_message(context.message)
                await event_queue.enqueue_event(task)
            up = TaskUpdater(event_queue, task.id, task.context_id)
            await up.start_work()
            if "slow" in text:
                await asyncio.sleep(1.0)
            if "fail" in text:
                await up.failed()
                return
            if "input" in text and not context.current_task:
                await up.requires_input()
                return
            await up.add_artifact([pb.Part(text=f"echo: {text}")], name="echo")
            if "data" in text:
                await up.add_artifact([pb.Part(data=Value(string_value="d"))], name="data")
            await up.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            up = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
            await up.cancel()

    card = pb.AgentCard(
        name="smoke agent",
        description="test agent",
        version="1.0.0",
        supported_interfaces=[
            pb.AgentInterface(url=f"{base}/rpc", protocol_binding="JSONRPC", protocol_version="1.0"),
            pb.AgentInterface(url=f"{base}/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
        ],
        capabilities=pb.AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="Echo", description="echoes", tags=["echo"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/rpc"),
        *create_rest_routes(handler, path_prefix="/rest"),
    ]
    return Starlette(routes=routes)


@dataclass
class Agent:
    base: str


def _serve(streaming: bool) -> Iterator[Agent]:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(_build_app(base, streaming=streaming), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "agent did not start within 10 s"
        time.sleep(0.02)
    try:
        yield Agent(base)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    """An agent that does not advertise streaming: blocking sends poll."""
    yield from _serve(streaming=False)


@pytest.fixture(scope="module")
def streaming_agent() -> Iterator[Agent]:
    yield from _serve(streaming=True)


# ------------------------------------------------------------------ running the CLI


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(self.out)
        return doc

    def fields(self) -> dict[str, str]:
        """Field lines `Label: value` before the first block (later duplicates ignored)."""
        out: dict[str, str] = {}
        for line in self.out.splitlines():
            label, sep, value = line.partition(": ")
            if sep and label and " " not in label:
                out.setdefault(label, value)
        return out


def cli_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The reference CLI's environment: this process's without the tool's own variables (``A2ACLI_*``,
    ``REFCLI_*``), the checkout importable, and ``env`` on top."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("A2ACLI_", "REFCLI_"))}
    environ["PYTHONPATH"] = str(REPO)
    return {**environ, **(env or {})}


def run_cli(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Result:
    proc = subprocess.run(
        [*CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(env),
        timeout=RUN_TIMEOUT,
        cwd=REPO,
        start_new_session=True,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def closed_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def start_cli(*args: str, cli: list[str] = CLI) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*cli, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=REPO,
        start_new_session=True,
    )


def read_until(stream, needle: str, deadline_s: float) -> str:  # type: ignore[no-untyped-def]
    """Read lines from a pipe in a helper thread until one contains `needle` or the deadline passes."""
    seen: list[str] = []
    found = threading.Event()

    def pump() -> None:
        for line in stream:
            seen.append(line)
            if needle in line:
                found.set()
                return

    threading.Thread(target=pump, daemon=True).start()
    assert found.wait(deadline_s), f"{needle!r} not seen within {deadline_s}s; got {''.join(seen)!r}"
    return "".join(seen)


TIER1 = [
    "CARD_GET_001",
    "SEND_001",
    "SEND_002",
    "SEND_003",
    "SEND_004",
    "SEND_005",
    "SEND_006",
    "TASK_GET_001",
    "TASK_CANCEL_001",
    "INTERACT_001",
    "INTERACT_002",
    "INTERACT_003",
    "INTERACT_004",
    "INTERACT_005",
    "TASK_POLL_001",
    "TASK_POLL_002",
    "TASK_POLL_003",
    "TASK_POLL_004",
    "OUT_001",
    "OUT_002",
    "OUT_003",
    "OUT_004",
    "OUT_005",
    "OUT_006",
    "EXIT_001",
    "EXIT_002",
    "AUTH_001",
    "AUTH_002",
    "AUTH_003",
    "AUTH_004",
    "TX_001",
    "TX_002",
    "TX_003",
    "VER_001",
    "DEFAULT_001",
    "CONFIG_001",
    "CLI_001",
    "SKILL_001",
    "SKILL_002",
]


# ------------------------------------------------------------------ surface


def test_version_prints_a_version_and_exits_zero() -> None:
    r = run_cli("--version")
    assert r.code == 0, r.err
    assert "0.1.0" in r.out
    assert run_cli("-v").out == r.out


def test_help_shows_effective_defaults_and_their_source() -> None:
    r = run_cli("send", "--help", env={"A2ACLI_OUTPUT": "json"})
    assert r.code == 0, r.err
    assert "Effective defaults" in r.out
    assert "output         json  [env A2ACLI_OUTPUT]" in r.out, r.out
    assert "tls-verify     on" in r.out
    top = run_cli("help")
    assert top.code == 0 and "card get" in top.out and "task cancel" in top.out


def test_usage_error_exits_2_with_the_error_envelope() -> None:
    r = run_cli("send", "--media-type", "text/plain", "--text", "x", "-a", "127.0.0.1:9", "-o", "json")
    assert r.code == 2, r
    assert r.json()["error"]["code"] == "A2ACLI_ERR_USAGE"
    assert set(r.json()["error"]) == {"code", "message", "hint", "a2aCode"}
    r = run_cli("frobnicate")
    assert r.code == 2 and "Error-Code: A2ACLI_ERR_USAGE" in r.err and r.out == ""


def test_unreachable_agent_exits_3() -> None:
    r = run_cli("send", "hi", "-a", f"http://127.0.0.1:{closed_port()}", "-o", "json")
    assert r.code == 3, r
    assert r.json()["error"]["code"] == "A2ACLI_ERR_UNREACHABLE"


def test_missing_card_file_exits_3_with_card_not_found(tmp_path: Path) -> None:
    r = run_cli("card", "get", "-a", str(tmp_path / "absent.json"), "-o", "json")
    assert r.code == 3, r
    assert r.json()["error"]["code"] == "A2ACLI_ERR_CARD_NOT_FOUND"


# ------------------------------------------------------------------ card get


def test_card_get_from_origin_reports_identity_and_selected_transport(agent: Agent) -> None:
    r = run_cli("card", "get", "-a", agent.base)
    assert r.code == 0, r.err
    f = r.fields()
    assert f["Name"] == "smoke agent"
    assert f["Selected-Transport"] == "JSONRPC"
    assert f["Selected-Url"] == f"{agent.base}/rpc"


def test_card_get_from_explicit_url_and_file_give_the_same_card(agent: Agent, tmp_path: Path) -> None:
    by_url = run_cli("card", "get", "-a", f"{agent.base}/.well-known/agent-card.json", "-o", "json")
    assert by_url.code == 0, by_url.err
    path = tmp_path / "card.json"
    path.write_text(by_url.out)
    by_file = run_cli("card", "get", "-a", f"file://{path}", "-o", "json")
    assert by_file.code == 0, by_file.err
    assert by_file.json() == by_url.json()
    assert by_url.json()["name"] == "smoke agent"


def test_transport_flag_overrides_card_order(agent: Agent) -> None:
    r = run_cli("card", "get", "-a", agent.base, "--transport", "GRPC", "--transport", "HTTP+JSON")
    assert r.fields()["Selected-Transport"] == "HTTP+JSON", r.out


# ------------------------------------------------------------------ send


def test_send_blocks_until_completed_and_renders_the_artifact(agent: Agent) -> None:
    r = run_cli("send", "slow hello", "-a", agent.base, "--poll-interval", "0.1")
    assert r.code == 0, r.err
    f = r.fields()
    assert f["State"] == "TASK_STATE_COMPLETED"
    assert f["Task-Id"] and f["Context-Id"]
    assert "Artifact-Text:\necho: slow hello\n\n" in r.out
    assert "\x1b" not in r.out


@pytest.mark.parametrize("transport", ["JSONRPC", "HTTP+JSON"])
def test_send_json_is_one_terminal_document(agent: Agent, transport: str) -> None:
    r = run_cli(
        "send", "slow", "-a", agent.base, "-o", "json", "--poll-interval", "0.1", "--transport", transport
    )
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert doc["task"]["artifacts"][0]["parts"][0]["text"] == "echo: slow"


def test_send_waits_through_the_stream_when_the_agent_streams(streaming_agent: Agent) -> None:
    r = run_cli("send", "slow data", "-a", streaming_agent.base, "-o", "json")
    assert r.code == 0, r.err
    task = r.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [a["name"] for a in task["artifacts"]] == ["echo", "data"]


def test_send_stream_emits_jsonl_ending_with_the_terminal_event(streaming_agent: Agent) -> None:
    r = run_cli("send", "hi", "-a", streaming_agent.base, "-o", "json", "--stream")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    objs = [json.loads(line) for line in lines]
    assert "task" in objs[0]
    assert objs[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_send_stream_without_streaming_capability_falls_back_and_ends(agent: Agent) -> None:
    r = run_cli("send", "hi", "-a", agent.base, "-o", "json", "--stream", "--poll-interval", "0.1")
    assert r.code == 0, r.err
    last = json.loads(r.out.splitlines()[-1])
    assert last["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_send_async_returns_identifiers_without_waiting(agent: Agent) -> None:
    r = run_cli("send", "slow", "-a", agent.base, "--async", "-o", "json")
    assert r.code == 0, r.err
    task = r.json()["task"]
    assert task["id"] and task["contextId"]
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")


def test_failed_task_exits_0_with_a_stderr_warning(agent: Agent) -> None:
    r = run_cli("send", "fail", "-a", agent.base, "--poll-interval", "0.1")
    assert r.code == 0, r.err
    assert r.fields()["State"] == "TASK_STATE_FAILED"
    assert "TASK_STATE_FAILED" in r.err


def test_input_required_stops_and_prints_the_resume_command(agent: Agent) -> None:
    r = run_cli("send", "input", "-a", agent.base, "--poll-interval", "0.1")
    assert r.code == 0, r.err
    f = r.fields()
    assert f["State"] == "TASK_STATE_INPUT_REQUIRED"
    assert f"--task-id {f['Task-Id']}" in f["Resume"]
    again = run_cli(
        "send",
        "--task-id",
        f["Task-Id"],
        "--text",
        "go on",
        "-a",
        agent.base,
        "-o",
        "json",
        "--poll-interval",
        "0.1",
    )
    assert again.code == 0, again.err
    assert again.json()["task"]["id"] == f["Task-Id"]
    assert again.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_rejected_task_id_fails_with_the_protocol_error_name(agent: Agent) -> None:
    r = run_cli("send", "--task-id", "no-such-task", "--text", "x", "-a", agent.base, "-o", "json")
    assert r.code == 1, r
    err = r.json()["error"]
    assert err["code"] == "TaskNotFoundError"
    assert "--debug" in err["hint"]


def test_timeout_expiry_exits_5(agent: Agent) -> None:
    r = run_cli("send", "slow", "-a", agent.base, "-o", "json", "--timeout", "0.3", "--poll-interval", "0.1")
    assert r.code == 5, r
    assert r.json()["error"]["code"] == "A2ACLI_ERR_TIMEOUT"


# ------------------------------------------------------------------ task get / cancel


@pytest.mark.parametrize("transport", ["JSONRPC", "HTTP+JSON"])
def test_task_get_wait_polls_to_completion(agent: Agent, transport: str) -> None:
    sent = run_cli("send", "slow", "-a", agent.base, "--async", "-o", "json")
    tid = sent.json()["task"]["id"]
    r = run_cli(
        "task", "get", tid, "--wait", "-a", agent.base, "--poll-interval", "0.1", "--transport", transport
    )
    assert r.code == 0, r.err
    assert r.fields()["Task-Id"] == tid
    assert r.fields()["State"] == "TASK_STATE_COMPLETED"
    one = run_cli("task", "get", tid, "-a", agent.base, "-o", "json", "--history", "1")
    assert one.json()["id"] == tid and one.json()["artifacts"]


def test_task_cancel_reports_the_resulting_state(agent: Agent) -> None:
    sent = run_cli("send", "slow", "-a", agent.base, "--async", "-o", "json")
    tid = sent.json()["task"]["id"]
    r = run_cli("task", "cancel", tid, "-a", agent.base, "-o", "json")
    assert r.code in (0, 1), r
    if r.code == 0:
        assert r.json()["status"]["state"] == "TASK_STATE_CANCELED"
    else:  # the task finished first: the agent's refusal is surfaced by name
        assert r.json()["error"]["code"] == "TaskNotCancelableError"


# ------------------------------------------------------------------ interrupt, debug, defects


def interrupt_a_wait(agent: Agent, cli: list[str] = CLI) -> tuple[str, str, str]:
    """Start ``cli`` sending a message whose task stays working, SIGINT it once it says it is waiting; the taskId
    it printed, its stdout, and its stderr. Its exit status must be 130."""
    proc = start_cli("send", "slow", "-a", agent.base, "--poll-interval", "30", cli=cli)
    try:
        err = read_until(proc.stderr, "waiting", 15)
        os.killpg(proc.pid, signal.SIGINT)
        out, rest = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    assert proc.returncode == 130, (out, err + rest)
    return err.split("task ", 1)[1].split(" ", 1)[0], out, err + rest


def test_interrupt_while_waiting_keeps_the_task_id(agent: Agent) -> None:
    tid, out, err = interrupt_a_wait(agent)
    assert f"Task-Id: {tid}" in out
    assert f"task get --wait {tid}" in err


#: The reference CLI with its wire's clean-up stuck, as when an interrupt lands inside the HTTP library between
#: its taking a lock and the block that gives it back: the next wait on that lock never ends.
STUCK_CLEANUP = """
import threading
from conformance.fixtures.reference_cli import main, wire
taken = threading.Lock()
taken.acquire()
wire.Wire.close = lambda self: taken.acquire()
main.run_module()
"""


def test_an_interrupt_whose_clean_up_hangs_still_ends_the_cli(agent: Agent) -> None:
    """The way out after Ctrl-C is bounded (``INTERRUPT_GRACE_S``): what was printed is handed on, the process
    ends with 130 and says the clean-up did not finish."""
    tid, out, err = interrupt_a_wait(agent, [sys.executable, "-c", STUCK_CLEANUP])
    assert f"Task-Id: {tid}" in out
    assert "clean-up did not finish" in err


def test_debug_logs_the_wire_with_credentials_redacted(agent: Agent) -> None:
    r = run_cli(
        "task",
        "get",
        "x",
        "-a",
        agent.base,
        "--debug",
        "--bearer",
        "TOPSECRET-1",
        "--svc-param",
        "x-key:HUSH-2",
    )
    assert "a2a-version: 1.0" in r.err.lower()
    assert "TOPSECRET-1" not in r.err and "HUSH-2" not in r.err
    assert "Bearer [REDACTED]" in r.err


def test_unknown_defect_name_is_refused() -> None:
    r = run_cli("--version", env={"REFCLI_DEFECTS": "no-such-defect"})
    assert r.code == 1 and "no-such-defect" in r.err


def test_a_defect_changes_behaviour(agent: Agent) -> None:
    r = run_cli(
        "send",
        "fail",
        "-a",
        agent.base,
        "--poll-interval",
        "0.1",
        env={"REFCLI_DEFECTS": "exit-1-on-failed-task"},
    )
    assert r.code == 1, r


def test_every_tier1_requirement_has_a_defect() -> None:
    from conformance.fixtures.reference_cli.defects import DEFECTS

    covered = {req for d in DEFECTS.values() for req in d.ids}
    missing = [f"A2ACLI_{t}" for t in TIER1 if f"A2ACLI_{t}" not in covered]
    assert not missing, missing
    assert len(TIER1) == 39
    assert all(d.name == name and d.ids for name, d in DEFECTS.items())


def test_every_defect_of_behaviour_lives_in_a_seam_the_main_logic_offers() -> None:
    """Each defect of the table (but the skill's file defects) is registered in the seam of its layer at
    a point the main logic passes through, and the main logic names no defect: its deviations live
    only in ``seams/``. A step point's defects take the clean step first; a value point's do not."""
    import importlib
    import inspect
    import re

    from conformance.fixtures.reference_cli import seams
    from conformance.fixtures.reference_cli.defects import DEFECTS, FILE_DEFECTS

    root = Path(seams.__file__).parent.parent
    main_logic = {f.stem: f.read_text(encoding="utf-8") for f in root.glob("*.py") if not f.stem.startswith("__")}
    for module in main_logic:  # the step points are marked at import
        importlib.import_module(f"conformance.fixtures.reference_cli.{module}")
    where = seams.registered()
    assert set(where) == set(DEFECTS) - FILE_DEFECTS, set(DEFECTS) ^ set(where)
    offered: dict[str, set[str]] = {}
    for text in main_logic.values():
        for layer, point in re.findall(r'\b(PARSER|WIRE|RENDER)(?:\.hook)?\(\s*"([^"]+)"', text):
            offered.setdefault(layer.lower(), set()).add(point)
    for seam in seams.SEAMS:
        assert set(seam.registered) == offered.get(seam.layer, set()), seam.layer
        for point, entries in seam.registered.items():
            for name, fn in entries:
                takes_clean = next(iter(inspect.signature(fn).parameters)) == "clean"
                assert takes_clean == (point in seam.steps), (seam.layer, point, name)
    named = {name for name in DEFECTS for module, text in main_logic.items()
             if module != "defects" and f'"{name}"' in text}
    assert not named, f"the main logic names defects: {sorted(named)}"


def test_skill_layouts(tmp_path: Path) -> None:
    from conformance.fixtures.reference_cli.defects import materialize_skill

    clean = materialize_skill(tmp_path / "clean", set())
    assert [p.name for p in clean] == ["SKILL.md"]
    assert "help" in clean[0].read_text()
    assert len(materialize_skill(tmp_path / "two", {"two-skills"})) == 2
    restated = materialize_skill(tmp_path / "re", {"skill-restates-spec"})[0].read_text()
    assert "MUST" in restated and "--poll-interval" not in restated  # one behaviour: not the surface too
    assert "--poll-interval" in materialize_skill(tmp_path / "ls", {"skill-lists-surface"})[0].read_text()
    assert "MUST" not in clean[0].read_text()
