"""The unix socket binding (AGENTD_UDS_*): the card names the binding URI, the JSON-RPC binding runs
unchanged over the socket, the socket is 0600, the kernel is the authenticator (only the daemon's uid
or root is served, and every connection is the operator), no extended card, no session ops.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Final

import pytest

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.cards import declared_uris, has_scheme
from conformance.agentd.clients import card_reply, ext, public_card, rpc_client
from conformance.agentd.commands import command_message
from conformance.agentd.echo import echo_of, render_echo
from conformance.agentd.feed import STREAM_ROW, unstreamed
from conformance.agentd.footing import DECLARED_BY, core_answers, declaring, deps, lacking
from conformance.agentd_page import (
    ANNOTATIONS,
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
    SESSION_OPS,
    UNIX_BINDING,
)
from conformance.evidence import Evidence
from conformance.judge import Blocked, blocked_by, quote, unique
from conformance.outcome import fail, not_measured
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.errors import current, from_jsonrpc
from conformance.wire.protojson import boolean

#: A uid that is neither root nor (normally) a daemon's: nobody.
OTHER_UID: Final = 65534
#: A Python that any uid can execute (the harness's own may live under a private home).
SYSTEM_PYTHON: Final = ("/usr/bin/python3", "/usr/local/bin/python3")
#: What the client running under another uid does: connect, ask for the card, report what came back.
PROBE: Final = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connected": False, "error": type(e).__name__ + ": " + str(e), "reply": ""}))
    sys.exit(0)
data, err = b"", None
try:
    s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n")
    while len(data) < 65536:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except OSError as e:
    err = type(e).__name__ + ": " + str(e)
print(json.dumps({"connected": True, "error": err, "reply": data[:300].decode("latin-1")}))
"""


#: The socket's card and listener (AGENTD_DECL_001, AGENTD_DECL_013) are what every check here stands on;
#: a command is sent over it (the command extension, AGENTD_DECL_001).
pytestmark = pytest.mark.depends_on(*deps(COMMAND))


@pytest.fixture
def unix(agent_targets: AgentTargets) -> Instance:
    """An instance listening on a unix socket."""
    return agent_targets.agentd(listen="unix")


def _socket_path(inst: Instance) -> str:
    """The socket an instance listening on a unix socket listens on (such an instance always names one)."""
    if inst.uds_path is None:
        raise RuntimeError(f"harness: the instance at {inst.url} listens on a unix socket but names no path")
    return inst.uds_path


@pytest.mark.requirement("AGENTD_UDS_001")
def test_card_interface_names_the_unix_binding(unix: Instance, recorder: Recorder) -> None:
    """The socket's card has an interface with protocolBinding
    https://agentd.dev/a2a/binding/jsonrpc-unix and url unix://<the socket's path>, and no
    interface offers a unix:// URL as plain JSONRPC. Catches unix-card-says-jsonrpc."""
    card = public_card(unix, recorder)
    interfaces = [i for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)]
    want_url = f"unix://{unix.uds_path}"
    if not any(i.get("protocolBinding") == UNIX_BINDING and i.get("url") == want_url for i in interfaces):
        fail(f"no interface with protocolBinding {UNIX_BINDING!r} and url {want_url!r}: {quote(interfaces)}")
    wrong = [i for i in interfaces
             if str(i.get("url", "")).startswith("unix:") and i.get("protocolBinding") != UNIX_BINDING]
    if wrong:
        fail(f"a unix:// interface declares another binding: {quote(wrong)}")


@pytest.mark.requirement("AGENTD_UDS_002")
@pytest.mark.depends_on(DECLARED_BY[ANNOTATIONS], "AGENTD_ANN_001", STREAM_ROW)
def test_jsonrpc_binding_runs_unchanged_over_the_socket(unix: Instance, recorder: Recorder) -> None:
    """Over the socket, as HTTP/1.1: a message makes a task, GetTask echoes the activated
    task-annotations and carries them, a missing task is -32001 with its ErrorInfo, a streamed send
    and the feed answer as SSE. The socket must carry the echo header with the activated extension in it;
    whether the echo is exactly the activated set is AGENTD_NEG_006's and _008's (judged on TCP, as the
    socket carries the binding unchanged). Catches unix-drops-echo.

    The echo and the annotations are asked of a socket whose card declares task-annotations
    (AGENTD_DECL_002's); on a card that does not, the rest is still judged, and when the rest holds the
    row is ``not_measured``, blocked by AGENTD_DECL_002 (an undeclared extension is not echoed, and that
    is the declaration's fail, not the binding's). Likewise a GetTask that echoes task-annotations but
    carries no annotations object is AGENTD_ANN_001's fail: with the rest holding, the row is blocked by it.
    A feed that answers its result as one plain JSON body is AGENTD_EVT_001's (wherever it listens): with the
    rest holding, the row is blocked by it."""
    core_answers(unix)  # core requests naming no extension
    card = public_card(unix, recorder)
    annotations = ANNOTATIONS in declared_uris(card)
    problems: list[str] = []
    unannotated = ""
    unstreamed_feed: Blocked | None = None
    with rpc_client(unix, recorder=recorder) as client:
        sent = client.call("SendMessage", send_params(text_message("over the socket")))
        if sent.error is not None or not isinstance(sent.result, dict) or "task" not in sent.result:
            fail(f"SendMessage over the socket: {quote(sent.json or sent.body)}")
        tid = sent.result["task"]["id"]
        if annotations:
            got = client.call("GetTask", {"id": tid}, headers=ext(ANNOTATIONS))
            if ANNOTATIONS not in (echo_of(got.headers) or []):
                problems.append(f"GetTask naming task-annotations echoed {render_echo(echo_of(got.headers))}, "
                                f"without {ANNOTATIONS!r}")
            if ANNOTATIONS not in ((got.result or {}).get("metadata") or {}):
                unannotated = f"GetTask with task-annotations activated carries none: {quote(got.json, 300)}"
        missing = client.call("GetTask", {"id": unique("no-such-task")})
        err = (missing.json or {}).get("error") if isinstance(missing.json, dict) else None
        mism = from_jsonrpc(err).mismatches(current().by_name["TaskNotFoundError"]) if err is not None else ["no error"]
        if mism:
            problems.append(f"a missing task: {'; '.join(mism)} ({quote(missing.json or missing.body)})")
        stream = client.stream("SendStreamingMessage", send_params(text_message("streamed over the socket")),
                               deadline=5.0, until=lambda _e: True)
        if not stream.is_sse or not stream.results:
            problems.append(f"SendStreamingMessage: HTTP {stream.status} {stream.content_type!r}, "
                            f"{quote(stream.payloads or stream.json)}")
        if EVENTS in declared_uris(card):
            feed = client.stream(EVENTS_METHOD, {}, headers=ext(EVENTS), deadline=5.0, until=lambda _e: True)
            hello = feed.results[0] if feed.results else None
            try:
                unstreamed(feed, "the feed over the socket")
            except Blocked as exc:
                unstreamed_feed = exc
            if unstreamed_feed is None and not (feed.is_sse and isinstance(hello, dict) and "hello" in hello):
                problems.append(f"the feed over the socket: {quote(feed.payloads or feed.json)}")
            if EVENTS not in (echo_of(feed.headers) or []):
                problems.append(f"the feed echoed {render_echo(echo_of(feed.headers))}, without {EVENTS!r}")
    if problems:
        fail("; ".join(problems))
    if not annotations:
        blocked_by(DECLARED_BY[ANNOTATIONS], f"the socket's card declares no {ANNOTATIONS}, so the echo and the "
                                             f"annotations over the socket cannot be asked for (declared: "
                                             f"{declared_uris(card) or 'none'})")
    if unannotated:
        blocked_by("AGENTD_ANN_001", unannotated)
    if unstreamed_feed is not None:
        raise unstreamed_feed


@pytest.mark.requirement("AGENTD_UDS_003")
def test_socket_file_is_mode_0600(unix: Instance) -> None:
    """The socket file is a socket with permission bits exactly 0600. Catches socket-mode-0666."""
    path = Path(_socket_path(unix))
    try:
        st = path.stat()
    except OSError as exc:
        not_measured(f"the socket {path} is not visible on this host ({exc})")
    if not stat.S_ISSOCK(st.st_mode):
        fail(f"{path} is not a socket (mode {stat.filemode(st.st_mode)})")
    if stat.S_IMODE(st.st_mode) != 0o600:
        fail(f"{path} has mode {oct(stat.S_IMODE(st.st_mode))} ({stat.filemode(st.st_mode)}), expected 0o600")


def _system_python() -> str | None:
    return next((p for p in SYSTEM_PYTHON if os.access(p, os.X_OK)), None)


def _probe_as(uid: int, path: str, python: str) -> dict[str, Any]:
    """Run PROBE as ``uid`` (its own group, no supplementary groups), bounded; its verdict as a dict."""
    proc = subprocess.Popen([python, "-I", "-S", "-c", PROBE, path], user=uid, group=uid, extra_groups=[],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd="/",
                            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        fail(f"the client running as uid {uid} did not finish within 20 s")
    try:
        got: dict[str, Any] = json.loads(out.decode() or "null") or {}
    except ValueError:
        got = {}
    if "connected" not in got:
        not_measured(f"the client could not run as uid {uid} (exit {proc.returncode}): {err.decode()[-300:]!r}")
    got["uid"] = uid
    return got


@pytest.mark.requirement("AGENTD_UDS_004")
def test_other_uids_are_not_served(agent_targets: AgentTargets, recorder: Recorder, evidence: Evidence) -> None:
    """A client running under a uid that is neither the daemon's nor root is not served: it gets no
    HTTP answer, while root on the same socket is. On a launched target the harness opens the
    socket file's mode so the connection reaches the daemon's peer-credential check instead of
    stopping at the file permission. Catches peercred-any-uid."""
    if os.geteuid() != 0:
        lacking("root")
    python = _system_python()
    if python is None:
        not_measured(f"needs a Python any uid can run at one of {SYSTEM_PYTHON}")
    made: str | None = None
    try:
        if agent_targets.launchable:
            made = tempfile.mkdtemp(prefix="agentd-conformance-uds-")
            os.chmod(made, 0o711)
            inst = agent_targets.agentd(listen="unix", uds_path=str(Path(made) / "agentd.sock"), fresh=True)
            os.chmod(_socket_path(inst), 0o666)  # let the kernel pass the connect; the daemon must refuse it
        else:
            inst = agent_targets.agentd(listen="unix")
        daemon_uid = Path(_socket_path(inst)).stat().st_uid
        if daemon_uid == OTHER_UID:
            not_measured(f"the daemon runs as uid {OTHER_UID}, the only other uid the harness uses")
        control = card_reply(inst, recorder)
        if control.status != 200:
            fail(f"root's own request on the socket was not served: HTTP {control.status} {control.body[:200]!r}")
        got = _probe_as(OTHER_UID, str(inst.uds_path), python)
        mode = oct(stat.S_IMODE(Path(_socket_path(inst)).stat().st_mode))
        evidence.add("client under another uid", {**got, "socket_mode": mode, "daemon_uid": daemon_uid})
        if str(got.get("reply", "")).startswith("HTTP/"):
            fail(f"uid {OTHER_UID} (neither the daemon's uid {daemon_uid} nor root) was served: "
                 f"{got['reply'][:200]!r}")
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


@pytest.mark.requirement("AGENTD_UDS_005")
def test_every_socket_connection_is_the_operator(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """With no credential at all, a socket connection runs the operator-only op config: it is the
    operator. An op is a command: where the command extension is not declared, blocked by the row that
    declares it. Catches unix-caller-not-operator."""
    unix = declaring(agent_targets, COMMAND, listen="unix")
    with rpc_client(unix, recorder=recorder) as client:
        reply = client.call("SendMessage", send_params(command_message("config")), headers=ext(COMMAND))
    msg = (reply.result or {}).get("message") if isinstance(reply.result, dict) else None
    if reply.error is not None or not isinstance(msg, dict):
        fail(f"the operator-only op config over the socket, with no credential: HTTP {reply.status}, "
             f"{quote(reply.json or reply.body)}")


@pytest.mark.requirement("AGENTD_UDS_006")
def test_socket_has_no_scheme_and_no_extended_card(unix: Instance, recorder: Recorder) -> None:
    """The socket's card declares no security scheme and sets extendedAgentCard false (or leaves it
    out, which proto3 JSON reads as false), and
    GetExtendedAgentCard answers -32004. Catches unix-declares-bearer, extended-card-without-scheme."""
    core_answers(unix)  # GetExtendedAgentCard naming no extension
    card = public_card(unix, recorder)
    problems = []
    if has_scheme(card) or card.get("securityRequirements"):
        problems.append(f"the card declares schemes {quote(card.get('securitySchemes'))} / requirements "
                        f"{quote(card.get('securityRequirements'))}")
    flag = boolean(card, "capabilities", "extendedAgentCard")  # absent means false (proto3 JSON)
    if flag is not False:
        problems.append(f"extendedAgentCard is {flag!r}")
    with rpc_client(unix, recorder=recorder) as client:
        reply = client.call("GetExtendedAgentCard", {})
    if reply.error is None or reply.error.code != -32004:
        problems.append(f"GetExtendedAgentCard answered {quote(reply.json or reply.body)}, expected -32004")
    if problems:
        fail("; ".join(problems))


@pytest.mark.requirement("AGENTD_UDS_007")
def test_socket_serves_no_session_ops(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Over the socket, the session ops are refused as not served here: ErrorInfo reason UNKNOWN_OP (an op
    that is served would be run, or refused for its arguments). The code that refusal carries is
    AGENTD_REFUSE_007's, not judged here. The refusal is the command extension's: where it is not declared,
    blocked by the row that declares it (a daemon without it serves no op, and says so in its own way).
    Catches session-ops-on-unix."""
    unix = declaring(agent_targets, COMMAND, listen="unix")
    problems = []
    with rpc_client(unix, recorder=recorder) as client:
        for op in SESSION_OPS:
            reply = client.call("SendMessage", send_params(command_message(op)), headers=ext(COMMAND))
            err = (reply.json or {}).get("error") if isinstance(reply.json, dict) else None
            view = from_jsonrpc(err) if err is not None else None
            if view is None or view.reason != "UNKNOWN_OP":
                problems.append(f"{op}: {quote(reply.json or reply.body, 240)}, expected a refusal for UNKNOWN_OP")
    if problems:
        fail("; ".join(problems))
