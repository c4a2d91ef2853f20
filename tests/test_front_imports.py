"""The command's own process (the front) imports only what it uses (issue 20: the fixed cost of a run).

The checks run in pytest's process (and its xdist workers), which import the wire clients, the A2A SDK and
what they pull in (httpx imports click, rich and pygments for its own command line; the SDK imports
protobuf). The front describes the target, starts pytest, waits, and reads the report back: none of that
needs them, and each was start-up paid on every run (about 0.2 s of the front's 0.4 s of imports, measured
with ``python -X importtime``; figures in /work/helpers/notes/jobs.md, never asserted here). The front's
``sys.modules`` is read at its exit, after ``--help`` and after real runs of a CLI and of a launched agent
(the probe of a running agent, ``targets.preflight``, does need the HTTP client, and imports it then).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_command import _env

#: Modules only the suite's processes need.
CHILD_ONLY = ("httpx", "a2a", "google.protobuf", "grpc", "starlette", "rich", "click", "pygments", "docker")
#: The front as ``agentd-conformance`` runs it, writing the names of its modules to argv[1] as it exits (not
#: the names marked absent: conformance/__init__.py marks httpx's CLI so).
FRONT = ("import atexit, json, sys\n"
         "def _dump():\n"
         "    with open(sys.argv[1], 'w') as fh:\n"
         "        json.dump(sorted(k for k, v in sys.modules.items() if v is not None), fh)\n"
         "atexit.register(_dump)\n"
         "from conformance.command import main\n"
         "sys.exit(main(sys.argv[2:]))\n")


def _front_modules(tmp_path: Path, *args: str) -> tuple[int, list[str], str]:
    dump = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", FRONT, str(dump), *args], capture_output=True, text=True,
                          env=_env(), cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)
    modules: list[str] = json.loads(dump.read_text(encoding="utf-8"))
    return proc.returncode, modules, proc.stderr


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == c or m.startswith(f"{c}.") for c in CHILD_ONLY)]


@pytest.mark.parametrize("args", [["--help"], ["cli", "--help"], ["agent", "--help"], ["matrix", "--help"]],
                         ids=["help", "cli-help", "agent-help", "matrix-help"])
def test_help_imports_none_of_the_suites_modules(tmp_path: Path, args: list[str]) -> None:
    code, modules, err = _front_modules(tmp_path, *args)
    assert code == 0, err
    assert _heavy(modules) == [], _heavy(modules)


@pytest.mark.parametrize("args", [
    ["cli", "--exe", "/bin/true", "--only", "A2ACLI_SEND_001"],
    ["agent", "--launch", "scripted", "--family", "a2a", "--only", "A2A_CARD_001"],
], ids=["cli", "agent-launched"])
def test_a_run_imports_none_of_the_suites_modules_in_the_front(tmp_path: Path, args: list[str]) -> None:
    """A whole run (the suite ran: the report is there) whose front never imported the clients. Before:
    httpx, the A2A SDK, protobuf, rich, click and pygments, through the target model's import of the wire
    package and the targets package's of the card resolver."""
    code, modules, err = _front_modules(tmp_path, *args, "--report-dir", str(tmp_path / "report"))
    assert code == 0, err
    assert (tmp_path / "report" / "compliance-report.yaml").is_file()
    assert _heavy(modules) == [], _heavy(modules)


#: Python that prints the names of the modules loaded (not those marked absent) as JSON.
PRINT_LOADED = "print(json.dumps(sorted(k for k, v in sys.modules.items() if v is not None)))\n"

#: What the modules every run of the agent families imports in the suite's process must not pull in: the
#: SDK's server (starlette's routes, pydantic) for a table of method names, the SDK's 0.3 types (pydantic)
#: for the checks that send 0.3, joserfc and cryptography for signed cards, httpx's own command line.
SUITE_UNUSED = ("a2a.server", "a2a.compat", "pydantic", "joserfc", "rich", "click", "pygments")
#: The harness modules the agent suites' conftests and the core checks import at collection.
SUITE_SIDE = ("conformance.wire.methods", "conformance.wire.caller", "conformance.a2a.messages",
              "conformance.a2a.card_signatures", "conformance.a2a.steps", "conformance.a2a.datamodel",
              "conformance.judge", "conformance.targets.core", "conformance.targets.resolve")


def test_the_suites_modules_import_only_what_a_run_uses() -> None:
    """Importing what every agent run imports in pytest's process leaves out what few checks use (each
    imported by the function that needs it); before: 0.6 s of the SDK's server, 0.25 s of its 0.3 types."""
    code = f"import json, sys\nimport {', '.join(SUITE_SIDE)}\n{PRINT_LOADED}"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout)
    found = [m for m in modules if any(m == c or m.startswith(f"{c}.") for c in SUITE_UNUSED)]
    assert found == [], found


def test_the_probe_of_a_running_agent_imports_no_sdk() -> None:
    """What the front imports to probe an agent given by ``--url`` (the card resolver, the pre-flight, the
    0.3 declaration test) needs httpx and nothing of the SDK; before: the A2A SDK's utils (protobuf,
    starlette) for a path constant, and the checks' caller, judge and gRPC for every card, 0.3 or not."""
    code = ("import json, sys\nimport conformance.command.agent, conformance.targets.preflight, "
            f"conformance.wire.versions\n{PRINT_LOADED}")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    heavy = [m for m in _heavy(json.loads(proc.stdout)) if m != "httpx" and not m.startswith("httpx.")]
    assert heavy == [], heavy


def test_a_run_against_a_running_agent_imports_no_sdk_in_the_front(tmp_path: Path) -> None:
    """A whole ``--url`` run (pre-flight, the card's bindings counted for the number of processes, the suite,
    the report) whose front imported httpx for its probe and nothing else of the suite's. Before: counting the
    card's bindings imported the checks' caller, and with it the A2A SDK, protobuf, gRPC and starlette (about
    0.15 s of every such run's start-up, measured with py-spy)."""
    from tests.served import REFERENCE_AGENTD, served
    from tests.test_references_front_door import _own_ports

    with served(REFERENCE_AGENTD) as url:
        code, modules, err = _front_modules(tmp_path, "agent", "--url", url, "--family", "a2a", "--only",
                                            "A2A_CARD_001", *_own_ports(url), "--report-dir",
                                            str(tmp_path / "report"))
    assert code == 0, err
    report = (tmp_path / "report" / "compliance-report.yaml").read_text(encoding="utf-8")
    assert "an agent with one binding" in report, report  # the card was read and its bindings counted
    heavy = [m for m in _heavy(modules) if m != "httpx" and not m.startswith("httpx.")]
    assert heavy == [], heavy
