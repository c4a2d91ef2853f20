"""Run an a2a-cli under test as a subprocess: isolated, bounded, and fully captured.

What a run guarantees:

* **Isolation.** Each run gets a fresh :class:`~conformance.cli.home.IsolatedHome` (HOME, the XDG
  directories and TMPDIR under a private temp dir) and a minimal environment built from scratch —
  ``PATH``, ``LANG=C.UTF-8``, ``TERM`` (``dumb``, or ``xterm`` on a pty) and the home's variables —
  then the runner's ``base_env``, the adapter's pinned ``env``, and the run's own ``env`` (a value of
  ``None`` removes a key). Nothing else of the harness's environment reaches the CLI, so it never
  reads the user's real configuration or credentials. The working directory defaults to a ``work/``
  directory inside the run's temp dir.
* **Bounds.** The child runs in its own session (so its own process group). When the timeout
  expires, or when it floods past the output cap, the whole group gets SIGTERM, then SIGKILL after
  a short grace. When the child exits, whatever it left in its group is killed too. stdin is
  ``/dev/null`` unless data is given (then it is written and closed), so a CLI waiting on stdin
  cannot hang the harness.
* **Capture.** stdout and stderr are read apart and concurrently with one selector loop (no pipe
  can fill and deadlock the child); each stream keeps at most ``output_cap`` bytes and marks the
  result ``truncated`` beyond it. With ``pty=True`` the child is started by pexpect on a
  pseudo-terminal, and stdout alone stays on it: stdin and stderr are put back on the runner's
  pipe (or ``/dev/null``) before the CLI starts, the terminal is not its controlling terminal (as
  with a plain subprocess: it cannot be read through ``/dev/tty``), and output post-processing is
  switched off, so ``\\n`` is not rewritten to ``\\r\\n``.
* **Interrupts.** ``interrupt_when(stdout_so_far, stderr_so_far)`` is evaluated as output arrives;
  the first time it is true the child's process group gets SIGINT once, and the run then waits,
  still bounded by the timeout, for the exit.
* **Watching.** ``watch(stdout_so_far, stderr_so_far)`` is called as output arrives, so the harness
  can act on what the CLI shows while it runs (approve the user code `auth login` prints); it must
  return quickly, and what it does is bounded by the run's timeout like everything else.

Exit detection does not reap the child until the final group kill is done (``waitid`` with
``WNOWAIT`` and a pidfd), so the process-group id can never be reused by an unrelated process
while the runner still signals it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pexpect
import ptyprocess

from conformance.cli.home import IsolatedHome

if TYPE_CHECKING:
    from conformance.cli.adapter import Adapter

    _Spawn = pexpect.spawn[bytes]  # generic in its stubs only
else:
    _Spawn = pexpect.spawn

DEFAULT_OUTPUT_CAP = 4 * 1024 * 1024
DEFAULT_TIMEOUT = 30.0
#: Time between SIGTERM and SIGKILL for a child being stopped.
DEFAULT_KILL_GRACE = 2.0
#: After the child exits: how long its leftovers may keep a pipe open before the group is killed,
#: and how long the runner then waits for end-of-file before it stops reading.
DRAIN_GRACE = 0.5
#: Give up waiting for a child that survives SIGKILL (uninterruptible sleep) after this long.
_UNKILLABLE_GRACE = 5.0
_CHUNK = 65536

InterruptCondition = Callable[[bytes, bytes], bool]
Watcher = Callable[[bytes, bytes], None]


class ExecutableNotFound(Exception):
    """The CLI's executable (``argv0``) does not exist or is not executable."""

    def __init__(self, argv0: str) -> None:
        super().__init__(f"executable not found or not executable: {argv0!r}")
        self.argv0 = argv0


def check_executable(prefix: Sequence[str], path: str | None = None) -> str:
    """Resolve ``prefix[0]`` to an executable file (searching ``path``, default ``$PATH``).

    Returns the path that will be executed; raises :class:`ExecutableNotFound` otherwise.
    """
    if not prefix or not prefix[0]:
        raise ExecutableNotFound("")
    argv0 = prefix[0]
    if os.sep in argv0:
        candidate = Path(argv0)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.absolute())
        raise ExecutableNotFound(argv0)
    found = shutil.which(argv0, path=path if path is not None else _harness_path())
    if found is None:
        raise ExecutableNotFound(argv0)
    return found


class NotRunnable(Exception):
    """The executable is there but the system cannot start it (no ``#!`` line, a missing interpreter, a
    binary for another machine); the message names it and the system's reason."""


def check_runnable(prefix: Sequence[str]) -> None:
    """Start ``prefix --version`` and stop it at once: the system's refusal to execute it (an exec format
    error, say) becomes :class:`NotRunnable`, a tool that starts is left alone (it is killed before it does
    anything worth waiting for)."""
    exe = check_executable(prefix)
    folder = Path(tempfile.mkdtemp(prefix="agentd-conformance-probe-"))
    try:
        proc = subprocess.Popen([exe, *prefix[1:], "--version"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder,
                                env={"PATH": _harness_path(), "HOME": str(folder), "TMPDIR": str(folder)},
                                start_new_session=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOEXEC:
            reason += " (a script needs a #! line naming its interpreter)"
        elif exc.errno == errno.ENOENT:
            reason += " (the interpreter its #! line names is not there)"
        raise NotRunnable(f"cannot execute {prefix[0]}: {reason}") from None
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _harness_path() -> str:
    return os.environ.get("PATH") or os.defpath


@dataclass
class CliResult:
    """Everything one run of the CLI did, as evidence for a verdict."""

    argv: list[str]
    """What was executed: the resolved executable, the prefix's arguments, the translated args."""
    env_shown: dict[str, str | None]
    """The environment overrides on top of the minimal base (``None``: removed)."""
    exit_code: int | None
    """The exit status; ``None`` when the child was ended by a signal (see :attr:`term_signal`)."""
    stdout: bytes
    stderr: bytes
    duration: float
    timed_out: bool = False
    interrupted: bool = False
    """SIGINT was delivered because ``interrupt_when`` became true."""
    truncated: bool = False
    """A stream passed the output cap; the excess was discarded and the child stopped."""
    home: Path | None = None
    """The isolated HOME, while it exists (``keep_home=True`` or a caller-supplied home)."""
    pty: bool = False
    term_signal: int | None = None
    """The signal that ended the child, when one did."""
    spec_args: list[str] = field(default_factory=list)
    """The arguments as the check wrote them, before any adapter translation."""
    stdin: bytes | None = None
    cwd: str = ""
    isolated: IsolatedHome | None = field(default=None, repr=False)
    """The whole isolated tree (home, XDG dirs, tmp, work) while it exists."""
    _owns_home: bool = field(default=False, repr=False)

    def __repr__(self) -> str:
        """A summary without argv, environment or output: those may hold secrets, and pytest prints the repr
        of a failing check's values (cut short, so a token would be cut too). The evidence has them all."""
        ended = f"exit_code={self.exit_code}" if self.term_signal is None else f"signal={self.term_signal}"
        flags = "".join(f", {name}=True" for name in ("timed_out", "interrupted", "truncated", "pty")
                        if getattr(self, name))
        return (f"CliResult({ended}, argv=<{len(self.argv)} items>, stdout=<{len(self.stdout)} bytes>, "
                f"stderr=<{len(self.stderr)} bytes>{flags})")

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    def cleanup(self) -> None:
        """Remove the isolated home if this run created it (a caller-supplied one is left alone)."""
        if self._owns_home and self.isolated is not None:
            self.isolated.cleanup()
            self.isolated = None
            self.home = None

    def to_evidence(self, redact: Callable[[str], str] = lambda s: s) -> dict[str, Any]:
        """A YAML-ready record of the run with every string passed through ``redact``."""
        return {
            "argv": [redact(a) for a in self.argv],
            "spec_args": [redact(a) for a in self.spec_args],
            "env": {k: (None if v is None else redact(v)) for k, v in sorted(self.env_shown.items())},
            "cwd": self.cwd,
            "pty": self.pty,
            "stdin": None if self.stdin is None else redact(self.stdin.decode("utf-8", errors="replace")),
            "exit_code": self.exit_code,
            "signal": self.term_signal,
            "timed_out": self.timed_out,
            "interrupted": self.interrupted,
            "truncated": self.truncated,
            "duration_s": round(self.duration, 3),
            "stdout": redact(self.stdout_text),
            "stderr": redact(self.stderr_text),
            "stdout_bytes": len(self.stdout),
            "stderr_bytes": len(self.stderr),
        }


class CliRunner:
    """Runs one CLI (``prefix``: its argv prefix) through an optional adapter, one isolated run each."""

    def __init__(
        self,
        prefix: Sequence[str],
        *,
        adapter: Adapter | None = None,
        base_env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        kill_grace: float = DEFAULT_KILL_GRACE,
    ) -> None:
        if not prefix:
            raise ValueError("CliRunner needs a non-empty argv prefix")
        if output_cap <= 0 or timeout <= 0 or kill_grace < 0:
            raise ValueError("output_cap and timeout must be positive, kill_grace non-negative")
        self.prefix = list(prefix)
        self.adapter = adapter
        self.base_env = dict(base_env or {})
        self.timeout = timeout
        self.output_cap = output_cap
        self.kill_grace = kill_grace

    def check_executable(self) -> str:
        """Resolve this runner's executable now (raises :class:`ExecutableNotFound`)."""
        return check_executable(self.prefix, self.base_env.get("PATH") or _harness_path())

    def new_home(self) -> IsolatedHome:
        """A home to share across several runs (pass it as ``home=``); the caller cleans it up."""
        return IsolatedHome()

    def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | str | None = None,
        env: Mapping[str, str | None] | None = None,
        timeout: float | None = None,
        cwd: str | os.PathLike[str] | None = None,
        pty: bool = False,
        interrupt_when: InterruptCondition | None = None,
        watch: Watcher | None = None,
        keep_home: bool = False,
        home: IsolatedHome | None = None,
    ) -> CliResult:
        """Run ``prefix + args`` (translated by the adapter, if any) and wait for it, bounded.

        Raises :class:`ExecutableNotFound` when the executable is missing, and
        :class:`~conformance.cli.adapter.Unsupported` when the adapter marks something in ``args``
        unsupported. With ``keep_home`` (or a caller-supplied ``home``) the isolated tree survives
        the run; otherwise it is removed before this returns.
        """
        spec_args = list(args)
        overrides: dict[str, str | None] = dict(env or {})
        run_args = spec_args
        if self.adapter is not None:
            run_args, overrides = self.adapter.translate(spec_args, overrides)
        shown = _merge(self.base_env, overrides)
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        owned = home is None
        box = IsolatedHome() if home is None else home
        try:
            base = {"PATH": _harness_path(), "LANG": "C.UTF-8", "TERM": "xterm" if pty else "dumb",
                    **box.env()}
            child_env = _override_env(base, shown)
            exe = check_executable(self.prefix, child_env.get("PATH", ""))
            argv = [exe, *self.prefix[1:], *run_args]
            workdir = str(cwd) if cwd is not None else str(box.work)
            proc = _Process(argv, child_env, workdir, data, pty, self.output_cap)
            result = proc.wait(timeout if timeout is not None else self.timeout, self.kill_grace,
                               interrupt_when, watch)
        except BaseException:
            if owned:
                box.cleanup()
            raise
        result.env_shown = shown
        result.spec_args = spec_args
        result.stdin = data
        result.cwd = workdir
        result.pty = pty
        result.isolated = box
        result.home = box.home
        result._owns_home = owned
        if owned and not keep_home:
            result.cleanup()
        return result


def _merge(*layers: Mapping[str, str | None]) -> dict[str, str | None]:
    merged: dict[str, str | None] = {}
    for layer in layers:
        for k, v in layer.items():
            if not isinstance(k, str) or not (v is None or isinstance(v, str)):
                raise TypeError(f"environment entries must be str -> str | None, got {k!r}: {v!r}")
            merged[k] = v
    return merged


def _override_env(base: Mapping[str, str], overrides: Mapping[str, str | None]) -> dict[str, str]:
    out = dict(base)
    for k, v in overrides.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def _due(now: float, at: float, wake: list[float]) -> bool:
    """Whether the moment ``at`` has come; if not, it is added to the times to ``wake`` at."""
    if now >= at:
        return True
    wake.append(at)
    return False


def let_children_take_sigint() -> None:
    """Make sure the CLIs this process starts can be interrupted.

    A process started with SIGINT ignored (``nohup``, a background job of a non-interactive shell,
    some CI runners) passes the ignore on through fork and exec, and an interpreter that finds SIGINT
    ignored at start-up never installs its handler: the CLI under test would sleep through the
    harness's Ctrl-C and fail the interrupt checks for the harness's sake. A handled signal, by
    contrast, is reset to its default on exec. Call from the main thread (pytest's configure hooks).
    """
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class _Piped:
    """A child on three pipes (or ``/dev/null`` for stdin), started by :mod:`subprocess`."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, feed: bool) -> None:
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
            )
        except (FileNotFoundError, PermissionError) as exc:  # e.g. a shebang naming no interpreter
            raise ExecutableNotFound(argv[0]) from exc
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.pid = self.proc.pid
        self.out_fd = self.proc.stdout.fileno()
        self.err_fd = self.proc.stderr.fileno()
        self.in_fd = None if self.proc.stdin is None else self.proc.stdin.fileno()

    def close_stdin(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def reap(self, grace: float) -> int | None:
        try:
            return self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return None


class _Terminal(_Spawn):
    """pexpect's spawn with stdout alone on the terminal: before the CLI starts, the child gives up the
    terminal as its controlling terminal, switches output post-processing off, and takes its stdin and
    stderr from the runner's descriptors (ptyprocess keeps them open across its clean-up of the
    child's descriptors because they are passed as ``pass_fds``)."""

    ptyproc: ptyprocess.PtyProcess  # pexpect's own, not in its stubs

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, stdin_fd: int | None,
                 stderr_fd: int) -> None:
        self._stdin_fd = stdin_fd
        self._stderr_fd = stderr_fd
        # 24x80: the size tools fall back to on a terminal that reports none (as the bare pty did before)
        super().__init__(argv[0], argv[1:], env=env, cwd=cwd, preexec_fn=self._in_child, dimensions=(24, 80))

    def _spawnpty(self, args: list[bytes | str], **kwargs: Any) -> ptyprocess.PtyProcess:
        passed = tuple(fd for fd in (self._stdin_fd, self._stderr_fd) if fd is not None)
        return ptyprocess.PtyProcess.spawn(args, pass_fds=passed, **kwargs)

    def _in_child(self) -> None:
        """Runs in the forked child just before exec (only what is imported already may be used)."""
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # giving up the terminal sends our own group SIGHUP
        fcntl.ioctl(1, termios.TIOCNOTTY)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # as subprocess does (restore_signals)
            signal.signal(sig, signal.SIG_DFL)
        attrs = termios.tcgetattr(1)
        attrs[1] &= ~termios.OPOST  # pass the child's bytes through unmodified
        termios.tcsetattr(1, termios.TCSANOW, attrs)
        os.dup2(os.open(os.devnull, os.O_RDONLY) if self._stdin_fd is None else self._stdin_fd, 0)
        os.dup2(self._stderr_fd, 2)


class _OnTerminal:
    """A child whose stdout is a pseudo-terminal (see :class:`_Terminal`), stdin and stderr pipes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, feed: bool) -> None:
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if feed else (None, None)
        try:
            self.terminal = _Terminal(argv, env, cwd, in_r, err_w)
        except BaseException as exc:
            for fd in (err_r, in_w):
                if fd is not None:
                    os.close(fd)
            if isinstance(exc, pexpect.ExceptionPexpect) or (
                    isinstance(exc, OSError) and exc.errno in (errno.ENOENT, errno.EACCES, errno.EPERM)):
                raise ExecutableNotFound(argv[0]) from exc
            raise
        finally:
            for fd in (err_w, in_r):
                if fd is not None:
                    os.close(fd)
        self.terminal.delayafterclose = 0.0  # the child is reaped before the terminal is closed
        self.terminal.ptyproc.delayafterclose = 0.0
        self.pid: int = cast(int, self.terminal.pid)  # set once the child is spawned
        self.out_fd: int = self.terminal.child_fd
        self.err_fd = err_r
        self.in_fd = in_w
        self._stderr_open = True

    def close_stdin(self) -> None:
        if self.in_fd is not None:
            os.close(self.in_fd)
            self.in_fd = None

    def close(self) -> None:
        self.close_stdin()
        if self._stderr_open:
            os.close(self.err_fd)
            self._stderr_open = False

    def reap(self, grace: float) -> int | None:
        """The exit status (negative: the signal), once the child is reaped; the terminal is closed."""
        end = time.monotonic() + grace
        pause = 0.0005
        try:
            while self.terminal.isalive():
                if time.monotonic() >= end:
                    return None
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        finally:
            with contextlib.suppress(pexpect.ExceptionPexpect, OSError):
                self.terminal.close(force=True)  # reaped: closes the terminal and signals nothing
        signalled = self.terminal.signalstatus
        return -int(signalled) if signalled is not None else int(cast(int, self.terminal.exitstatus))  # reaped


class _Process:
    """One child process and its capture loop (private to :class:`CliRunner`)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, stdin: bytes | None,
                 use_pty: bool, cap: int) -> None:
        if not os.path.isdir(cwd):
            raise NotADirectoryError(f"working directory for the CLI does not exist: {cwd}")
        self.cap = cap
        self.argv = argv
        self.stdin_data = stdin
        self.child: _Piped | _OnTerminal = (_OnTerminal if use_pty else _Piped)(argv, env, cwd, stdin is not None)
        self.started = time.monotonic()
        self.pid = self.child.pid

    def _exited(self) -> bool:
        """Has the child exited? Leaves it unreaped, so its pid (= group id) stays reserved."""
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # pragma: no cover - only if someone else reaped it
            return True

    def wait(self, timeout: float, kill_grace: float, interrupt_when: InterruptCondition | None,
             watch: Watcher | None = None) -> CliResult:
        sel = selectors.DefaultSelector()
        bufs: dict[str, bytearray] = {"out": bytearray(), "err": bytearray()}
        child = self.child
        fds = {"out": child.out_fd, "err": child.err_fd}
        sel.register(fds["out"], selectors.EVENT_READ, "out")
        sel.register(fds["err"], selectors.EVENT_READ, "err")
        open_streams = {"out", "err"}
        pending = memoryview(self.stdin_data or b"")
        if child.in_fd is not None:
            if pending:
                os.set_blocking(child.in_fd, False)
                sel.register(child.in_fd, selectors.EVENT_WRITE, "in")
            else:
                child.close_stdin()
        pidfd: int | None = None
        try:
            pidfd = os.pidfd_open(self.pid)
            sel.register(pidfd, selectors.EVENT_READ, "exit")
        except (AttributeError, OSError):
            pidfd = None

        deadline = self.started + timeout
        exited_at: float | None = None
        term_at: float | None = None
        kill_at: float | None = None
        timed_out = interrupted = truncated = False

        def close_stream(tag: str) -> None:
            sel.unregister(fds[tag])
            open_streams.discard(tag)

        try:
            while True:
                now = time.monotonic()
                if exited_at is None and self._exited():
                    exited_at = now
                wake: list[float] = []
                if exited_at is not None:
                    if not open_streams:
                        break
                    if kill_at is None and _due(now, exited_at + DRAIN_GRACE, wake):
                        _signal_group(self.pid, signal.SIGKILL)
                        kill_at = now
                    if kill_at is not None and _due(now, kill_at + DRAIN_GRACE, wake):
                        break
                else:
                    if term_at is None and _due(now, deadline, wake):
                        timed_out = True
                        _signal_group(self.pid, signal.SIGTERM)
                        term_at = now
                    if term_at is not None and kill_at is None and _due(now, term_at + kill_grace, wake):
                        _signal_group(self.pid, signal.SIGKILL)
                        kill_at = now
                    if kill_at is not None and _due(now, kill_at + _UNKILLABLE_GRACE, wake):
                        break
                delay = max(0.0, min(wake) - now) if wake else 0.05
                if pidfd is None and exited_at is None:
                    delay = min(delay, 0.05)
                for key, _ in sel.select(delay):
                    tag = key.data
                    if tag == "exit":
                        sel.unregister(key.fd)
                        continue
                    if tag == "in":
                        try:
                            n = os.write(key.fd, pending[:_CHUNK])
                            pending = pending[n:]
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, OSError):
                            pending = pending[:0]
                        if not pending:
                            sel.unregister(key.fd)
                            child.close_stdin()
                        continue
                    try:
                        chunk = os.read(key.fd, _CHUNK)
                    except OSError:  # EIO: the pty's last slave end is closed
                        chunk = b""
                    if not chunk:
                        close_stream(tag)
                        continue
                    buf = bufs[tag]
                    room = self.cap - len(buf)
                    if len(chunk) > room:
                        chunk = chunk[:max(room, 0)]
                        if not truncated and term_at is None and exited_at is None:
                            _signal_group(self.pid, signal.SIGTERM)
                            term_at = time.monotonic()
                        truncated = True
                    buf += chunk
                    if watch is not None and chunk:
                        watch(bytes(bufs["out"]), bytes(bufs["err"]))
                    if (interrupt_when is not None and not interrupted and chunk
                            and interrupt_when(bytes(bufs["out"]), bytes(bufs["err"]))):
                        _signal_group(self.pid, signal.SIGINT)
                        interrupted = True
        finally:
            _signal_group(self.pid, signal.SIGKILL)  # nothing of this run outlives it
            sel.close()
            if pidfd is not None:
                os.close(pidfd)
            child.close()
            rc = child.reap(_UNKILLABLE_GRACE)
        duration = time.monotonic() - self.started
        return CliResult(
            argv=list(self.argv),
            env_shown={},
            exit_code=rc if rc is not None and rc >= 0 else None,
            term_signal=-rc if rc is not None and rc < 0 else None,
            stdout=bytes(bufs["out"]),
            stderr=bytes(bufs["err"]),
            duration=duration,
            timed_out=timed_out,
            interrupted=interrupted,
            truncated=truncated,
        )
