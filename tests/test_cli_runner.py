"""The CLI runner against real child processes: isolation, bounds, capture, interrupts, pty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conformance.cli.adapter import Adapter, Unsupported
from conformance.cli.runner import CliRunner, ExecutableNotFound, check_executable

SH = ["/bin/sh", "-c"]


def script(tmp_path: Path, body: str, name: str = "child.py") -> list[str]:
    """Write a Python child program and return the argv prefix that runs it."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie awaiting its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, deadline_s: float = 5.0) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if gone(pid):
            return True
        time.sleep(0.02)
    return gone(pid)


def read_pid(path: Path, deadline_s: float = 5.0) -> int:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"child never wrote its pid to {path}")


# ---- exit codes, streams, stdin -------------------------------------------------------------------

def test_exit_code_and_streams_are_captured_apart() -> None:
    r = CliRunner(SH).run(["printf 'to-out\\n'; printf 'to-err\\n' >&2; exit 7"])
    assert r.exit_code == 7, r
    assert r.stdout == b"to-out\n"
    assert r.stderr == b"to-err\n"
    assert not (r.timed_out or r.interrupted or r.truncated)
    assert r.term_signal is None
    assert r.argv == ["/bin/sh", "-c", "printf 'to-out\\n'; printf 'to-err\\n' >&2; exit 7"]


def test_death_by_signal_reports_no_exit_code_but_the_signal() -> None:
    r = CliRunner(SH).run(["kill -TERM $$"])
    assert r.exit_code is None and r.term_signal == signal.SIGTERM, r
    assert not r.timed_out


def test_stdin_bytes_and_text_reach_the_child() -> None:
    runner = CliRunner(SH)
    assert runner.run(["cat"], stdin=b"\x00\x01bytes").stdout == b"\x00\x01bytes"
    assert runner.run(["cat"], stdin="h\u00e9llo").stdout == "h\u00e9llo".encode()


def test_without_stdin_a_reading_child_sees_end_of_file_instead_of_hanging() -> None:
    r = CliRunner(SH, timeout=20).run(["cat; echo eof-seen"])
    assert r.exit_code == 0 and not r.timed_out
    assert r.stdout == b"eof-seen\n"


def test_large_stdin_and_large_output_do_not_deadlock(tmp_path: Path) -> None:
    prefix = script(tmp_path, """
        import sys
        data = sys.stdin.buffer.read()
        sys.stdout.buffer.write(data)
        sys.stderr.buffer.write(data[::-1])
    """)
    payload = os.urandom(1024 * 1024)
    r = CliRunner(prefix, timeout=20).run([], stdin=payload)
    assert r.exit_code == 0 and not r.timed_out, r.stderr[-200:]
    assert r.stdout == payload
    assert r.stderr == payload[::-1]


def test_binary_output_survives_byte_for_byte(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 16
    prefix = script(tmp_path, "import sys; sys.stdout.buffer.write(bytes(range(256)) * 16)")
    r = CliRunner(prefix).run([])
    assert r.stdout == blob
    assert "\ufffd" in r.stdout_text  # undecodable bytes are replaced in the text view only


def test_cwd_is_private_by_default_and_can_be_set(tmp_path: Path) -> None:
    runner = CliRunner(SH)
    r = runner.run(["pwd"], keep_home=True)
    try:
        assert r.isolated is not None
        assert Path(r.stdout_text.strip()) == r.isolated.work
    finally:
        r.cleanup()
    assert runner.run(["pwd"], cwd=tmp_path).stdout_text.strip() == str(tmp_path)


# ---- isolation -------------------------------------------------------------------------------------

ENV_DUMP = """
    import json, os, sys
    json.dump(dict(os.environ), sys.stdout)
"""


def test_child_gets_an_isolated_home_and_none_of_the_harness_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_X", "harness-secret-value")
    runner = CliRunner(script(tmp_path, ENV_DUMP), base_env={"FROM_BASE": "b", "DROP_ME": "d"})
    r = runner.run([], env={"FROM_RUN": "r", "DROP_ME": None}, keep_home=True)
    try:
        seen = json.loads(r.stdout)
        assert "SECRET_X" not in seen and "harness-secret-value" not in r.stdout_text
        assert r.home is not None and r.isolated is not None
        assert seen["HOME"] == str(r.home) != os.environ.get("HOME")
        root = str(r.isolated.root)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TMPDIR"):
            assert seen[var].startswith(root + os.sep), (var, seen[var])
            assert Path(seen[var]).is_dir()
        assert seen["LANG"] == "C.UTF-8" and seen["TERM"] == "dumb"
        assert seen["FROM_BASE"] == "b" and seen["FROM_RUN"] == "r" and "DROP_ME" not in seen
        assert r.env_shown == {"FROM_BASE": "b", "DROP_ME": None, "FROM_RUN": "r"}
    finally:
        r.cleanup()
    assert r.home is None and not Path(root).exists()


def test_each_run_gets_a_fresh_home_removed_afterwards(tmp_path: Path) -> None:
    runner = CliRunner(script(tmp_path, ENV_DUMP))
    first, second = runner.run([]), runner.run([])
    home1, home2 = json.loads(first.stdout)["HOME"], json.loads(second.stdout)["HOME"]
    assert home1 != home2
    assert first.home is None and not Path(home1).exists() and not Path(home2).exists()


def test_kept_home_shows_what_the_cli_stored(tmp_path: Path) -> None:
    prefix = script(tmp_path, """
        import os, pathlib
        d = pathlib.Path(os.environ["XDG_STATE_HOME"]) / "mycli"
        d.mkdir(parents=True)
        (d / "last.json").write_text('{"taskId": "t-1"}')
    """)
    r = CliRunner(prefix).run([], keep_home=True)
    try:
        assert r.isolated is not None
        files = r.isolated.files()
        assert [f.name for f in files] == ["last.json"]
        assert "t-1" in files[0].read_text()
    finally:
        r.cleanup()


def test_a_shared_home_carries_state_between_runs() -> None:
    runner = CliRunner(SH)
    with runner.new_home() as home:
        runner.run(["echo token-1 > \"$XDG_CONFIG_HOME/tok\""], home=home)
        r = runner.run(["cat \"$XDG_CONFIG_HOME/tok\""], home=home)
        assert r.stdout == b"token-1\n"
        r.cleanup()  # a caller-supplied home belongs to the caller
        assert home.exists
    assert not home.exists


# ---- bounds ----------------------------------------------------------------------------------------

def test_timeout_kills_the_child_and_its_grandchild_even_when_they_ignore_sigterm(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    prefix = script(tmp_path, f"""
        import signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # inherited by the grandchild
        g = subprocess.Popen(["sleep", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open({str(pidfile)!r}, "w").write(str(g.pid))
        print("ready", flush=True)
        time.sleep(60)
    """)
    r = CliRunner(prefix, timeout=1.5, kill_grace=0.3).run([])
    assert r.timed_out
    assert r.exit_code is None and r.term_signal == signal.SIGKILL, r
    assert r.stdout == b"ready\n"
    assert r.duration < 15, "the run must end near its timeout"
    assert wait_gone(read_pid(pidfile)), "grandchild survived the timeout"


def test_child_that_exits_on_sigterm_at_timeout(tmp_path: Path) -> None:
    r = CliRunner(SH, timeout=0.5).run(["echo started; exec sleep 30"])
    assert r.timed_out and r.term_signal == signal.SIGTERM and r.stdout == b"started\n"


def test_a_background_process_holding_stdout_does_not_hold_the_run() -> None:
    r = CliRunner(SH, timeout=20).run(["sleep 30 & echo $!"])
    assert r.exit_code == 0 and not r.timed_out, r
    assert r.duration < 10, "the run waited for a leftover background process"
    assert wait_gone(int(r.stdout_text.strip())), "leftover background process survived the run"


def test_output_flood_is_capped_and_the_child_stopped(tmp_path: Path) -> None:
    prefix = script(tmp_path, """
        import sys
        chunk = b"x" * 65536
        while True:
            sys.stdout.buffer.write(chunk)
    """)
    cap = 256 * 1024
    r = CliRunner(prefix, timeout=20, output_cap=cap).run([])
    assert r.truncated and not r.timed_out
    assert len(r.stdout) == cap and set(r.stdout) == {ord("x")}
    assert r.exit_code is None and r.term_signal == signal.SIGTERM


def test_output_under_the_cap_is_not_truncated(tmp_path: Path) -> None:
    r = CliRunner(SH, output_cap=6).run(["printf 123456"])
    assert r.stdout == b"123456" and not r.truncated


# ---- interrupts ------------------------------------------------------------------------------------

SIGINT_CHILD = """
    import sys, time
    try:
        print("ready", flush=True)  # inside the try: SIGINT may land while print returns
        time.sleep(30)
    except KeyboardInterrupt:
        print("got SIGINT", flush=True)
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    print("slept through", flush=True)
"""


def test_sigint_is_delivered_once_the_condition_holds(tmp_path: Path) -> None:
    seen: list[bytes] = []

    def when(out: bytes, err: bytes) -> bool:
        seen.append(out)
        return b"ready" in out

    r = CliRunner(script(tmp_path, SIGINT_CHILD), timeout=20).run([], interrupt_when=when)
    assert r.interrupted and not r.timed_out
    assert r.exit_code == 130, r
    assert r.stdout == b"ready\ngot SIGINT\n" and r.stderr == b"interrupted\n"
    assert seen and b"ready" in seen[-1]


HARNESS_WITH_SIGINT_IGNORED = """
import json, signal, sys
from conformance.cli.runner import CliRunner, let_children_take_sigint
assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
if sys.argv[2] == "fixed":
    let_children_take_sigint()
r = CliRunner([sys.executable, sys.argv[1]], timeout=4).run([], interrupt_when=lambda o, e: b"ready" in o)
print(json.dumps({"exit": r.exit_code, "timed_out": r.timed_out}))
"""


@pytest.mark.parametrize("mode", ["as-started", "fixed"])
def test_a_harness_started_with_sigint_ignored_still_interrupts_its_cli(tmp_path: Path, mode: str) -> None:
    """A harness process that inherited SIGINT ignored (nohup, a background job) would hand the ignore
    to the CLI, which then sleeps through the interrupt: as started, the CLI is not interrupted (the
    hazard is real); after ``let_children_take_sigint`` (what the plugin does at configure) it is."""
    child = script(tmp_path, SIGINT_CHILD)[-1]
    harness = tmp_path / "harness.py"
    harness.write_text(HARNESS_WITH_SIGINT_IGNORED, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(harness), child, mode], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.splitlines()[-1])
    if mode == "fixed":
        assert seen == {"exit": 130, "timed_out": False}, seen
    else:
        assert seen["timed_out"] is True, seen


def test_no_sigint_while_the_condition_is_false(tmp_path: Path) -> None:
    r = CliRunner(SH).run(["echo one; echo two >&2"], interrupt_when=lambda o, e: b"never" in o)
    assert not r.interrupted and r.exit_code == 0


# ---- pty -------------------------------------------------------------------------------------------

TTY_PROBE = """
    import os, sys
    print(int(os.isatty(1)), int(os.isatty(2)), os.environ["TERM"])
    print("diag", file=sys.stderr)
"""


def test_pty_mode_gives_a_terminal_stdout_and_a_separate_stderr(tmp_path: Path) -> None:
    runner = CliRunner(script(tmp_path, TTY_PROBE))
    on = runner.run([], pty=True)
    assert on.pty and on.exit_code == 0
    assert on.stdout == b"1 0 xterm\n", on.stdout  # no \r\n rewriting
    assert on.stderr == b"diag\n"
    off = runner.run([])
    assert not off.pty and off.stdout == b"0 0 dumb\n"


def test_pty_mode_still_times_out(tmp_path: Path) -> None:
    r = CliRunner(SH, timeout=0.5).run(["echo hi; exec sleep 30"], pty=True)
    assert r.timed_out and r.stdout == b"hi\n"


TERMINAL_PROBE = """
    import os, sys
    try:
        os.close(os.open("/dev/tty", os.O_RDWR))
        tty = "reachable"
    except OSError:
        tty = "unreachable"
    print(int(os.isatty(0)), repr(sys.stdin.read()), tty, os.getpgrp() == os.getpid())
"""


def test_pty_mode_keeps_stdin_on_a_pipe_and_the_terminal_out_of_reach(tmp_path: Path) -> None:
    """On a pty only stdout is the terminal: given bytes arrive on stdin (a pipe; /dev/null without
    them), the terminal is not the CLI's controlling terminal (no /dev/tty to wait on for a password
    nobody types), and the CLI leads its own process group."""
    runner = CliRunner(script(tmp_path, TERMINAL_PROBE))
    fed = runner.run([], pty=True, stdin="fed")
    assert fed.stdout == b"0 'fed' unreachable True\n", fed.stdout
    empty = runner.run([], pty=True)
    assert empty.stdout == b"0 '' unreachable True\n", empty.stdout


def test_pty_mode_interrupts_once_the_condition_holds(tmp_path: Path) -> None:
    r = CliRunner(script(tmp_path, SIGINT_CHILD), timeout=20).run(
        [], pty=True, interrupt_when=lambda out, err: b"ready" in out)
    assert r.interrupted and not r.timed_out and r.exit_code == 130, r
    assert r.stdout == b"ready\ngot SIGINT\n" and r.stderr == b"interrupted\n"


def test_pty_mode_caps_a_flood_and_stops_the_child(tmp_path: Path) -> None:
    prefix = script(tmp_path, """
        import sys
        while True:
            sys.stdout.buffer.write(b"x" * 65536)
    """)
    r = CliRunner(prefix, timeout=20, output_cap=128 * 1024).run([], pty=True)
    assert r.truncated and not r.timed_out and r.term_signal == signal.SIGTERM, r
    assert len(r.stdout) == 128 * 1024 and set(r.stdout) == {ord("x")}


def test_pty_mode_leftovers_neither_hold_the_run_nor_survive_it() -> None:
    r = CliRunner(SH, timeout=20).run(["sleep 30 & echo $!"], pty=True)
    assert r.exit_code == 0 and not r.timed_out, r
    assert r.duration < 10, "the run waited for a leftover background process"
    assert wait_gone(int(r.stdout_text.strip())), "leftover background process survived the run"


def test_pty_mode_reports_a_missing_interpreter_as_a_missing_executable(tmp_path: Path) -> None:
    exe = tmp_path / "cli"
    exe.write_text("#!/no/such/interpreter\n")
    exe.chmod(0o755)
    with pytest.raises(ExecutableNotFound):
        CliRunner([str(exe)]).run([], pty=True)


# ---- executables -----------------------------------------------------------------------------------

def test_missing_executable_is_reported_by_name(tmp_path: Path) -> None:
    with pytest.raises(ExecutableNotFound) as info:
        CliRunner(["no-such-a2a-cli-here"]).run(["help"])
    assert info.value.argv0 == "no-such-a2a-cli-here"
    with pytest.raises(ExecutableNotFound):
        check_executable([str(tmp_path / "absent")])
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(ExecutableNotFound):
        check_executable([str(plain)])
    assert check_executable(["sh"]).endswith("/sh")


def test_missing_interpreter_counts_as_a_missing_executable(tmp_path: Path) -> None:
    exe = tmp_path / "cli"
    exe.write_text("#!/no/such/interpreter\n")
    exe.chmod(0o755)
    with pytest.raises(ExecutableNotFound):
        CliRunner([str(exe)]).run([])


# ---- adapter and evidence --------------------------------------------------------------------------

ARGV_DUMP = """
    import json, os, sys
    json.dump({"argv": sys.argv[1:], "token": os.environ.get("MYCLI_TOKEN"),
               "pinned": os.environ.get("NO_COLOR")}, sys.stdout)
"""


def test_runner_executes_the_adapters_translation(tmp_path: Path) -> None:
    adapter = Adapter.from_dict({
        "adapter": 1, "tool": "mycli",
        "commands": {"task get": ["tasks", "show"]},
        "positional": {"task get": ["--task-id"]},
        "credentials_env": {"--bearer": "MYCLI_TOKEN"},
        "unsupported": ["task cancel"],
        "env": {"NO_COLOR": "1"},
    })
    runner = CliRunner(script(tmp_path, ARGV_DUMP), adapter=adapter)
    r = runner.run(["task", "get", "--task-id", "T1", "--bearer", "tok", "-o", "json"])
    seen = json.loads(r.stdout)
    assert seen == {"argv": ["tasks", "show", "T1", "-o", "json"], "token": "tok", "pinned": "1"}
    assert r.spec_args == ["task", "get", "--task-id", "T1", "--bearer", "tok", "-o", "json"]
    assert r.env_shown == {"NO_COLOR": "1", "MYCLI_TOKEN": "tok"}
    with pytest.raises(Unsupported):
        runner.run(["task", "cancel", "T1"])


def test_evidence_is_redacted_everywhere() -> None:
    secret = "s3cr3t-token"
    r = CliRunner(SH).run([f"echo {secret}; echo {secret} >&2", "--bearer", secret],
                          env={"A2ACLI_BEARER": secret}, stdin=secret)
    ev = r.to_evidence(lambda s: s.replace(secret, "***"))
    assert secret not in json.dumps(ev)
    assert ev["stdout"] == "***\n" and ev["stderr"] == "***\n" and ev["stdin"] == "***"
    assert ev["env"] == {"A2ACLI_BEARER": "***"} and ev["exit_code"] == 0
    assert ev["argv"][-1] == "***" and ev["stdout_bytes"] == len(secret) + 1
