"""Observing an agentd instance from outside while a check acts on it.

* :class:`FeedReader` reads one ``agentd.events/SubscribeToEvents`` stream on a background thread,
  so a check can act (send, revoke, restart) while the stream is open and wait for frames with a
  deadline.
* :class:`Observer` takes the operator's view of the instance (its task list, its feed's newest seq,
  or with the feed off its configuration) to prove that a refused request ran nothing.
* :class:`WebhookReceiver` is a loopback HTTP server in the test process that keeps what a target
  pushes to it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from a2a.types.a2a_pb2 import Task

from conformance.agentd_page import (
    EVENTS,
    EVENTS_METHOD,
)
from conformance.outcome import fail
from conformance.suites.agent.agentd.support import (
    answer_message,
    answer_task,
    data_document,
    declared_uris,
    ext,
    ok_result,
    quote,
    rpc_client,
    send_command,
    send_params,
    served_card,
    strict,
    text_message,
    unique,
)
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient, RpcStreamReply
from conformance.wire.sse import SseEvent

Results = list[Any]


def results_of(payloads: Sequence[Any]) -> Results:
    """The ``result`` of every frame envelope, in order (an envelope without one is kept whole)."""
    return [p["result"] if isinstance(p, dict) and "result" in p else p for p in payloads]


def hello_of(results: Results) -> dict[str, Any] | None:
    first = results[0] if results else None
    if isinstance(first, dict) and isinstance(first.get("hello"), dict):
        hello: dict[str, Any] = first["hello"]
        return hello
    return None


def events_of(results: Results) -> list[dict[str, Any]]:
    return [r["event"] for r in results if isinstance(r, dict) and isinstance(r.get("event"), dict)]


def goodbye_of(results: Results) -> dict[str, Any] | None:
    for r in results:
        if isinstance(r, dict) and isinstance(r.get("goodbye"), dict):
            bye: dict[str, Any] = r["goodbye"]
            return bye
    return None


def frame_kind(result: Any) -> str:
    if isinstance(result, dict) and len(result) == 1:
        return next(iter(result))
    return "?"


def task_event_ids(results: Results) -> list[str]:
    """The task id of every ``task`` event, in order."""
    out = []
    for ev in events_of(results):
        task = (ev.get("data") or {}).get("task") if ev.get("kind") == "task" else None
        if isinstance(task, dict) and isinstance(task.get("id"), str):
            out.append(task["id"])
    return out


class FeedReader:
    """A SubscribeToEvents stream read on its own thread (and its own client).

    ``stop_when(results)`` ends the read from the harness side as soon as it holds; otherwise the
    stream runs until the server closes it or ``deadline`` seconds pass.
    """

    def __init__(
        self,
        client: JsonRpcClient,
        params: Mapping[str, Any] | None = None,
        *,
        uris: Sequence[str] = (EVENTS,),
        deadline: float = 10.0,
        stop_when: Callable[[Results], bool] | None = None,
    ) -> None:
        self.client = client
        self.params = dict(params) if params is not None else {}
        self.uris = tuple(uris)
        self.deadline = deadline
        self.stop_when = stop_when
        self._payloads: list[Any] = []
        self._cond = threading.Condition()
        self._done = False
        self._reply: RpcStreamReply | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="feed-reader", daemon=True)

    def __enter__(self) -> FeedReader:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join(timeout=self.deadline + 5)
        self.client.close()

    def _until(self, event: SseEvent) -> bool:
        try:
            payload = event.json()
        except ValueError:
            payload = {"unparsed": event.data}
        with self._cond:
            self._payloads.append(payload)
            self._cond.notify_all()
            return bool(self.stop_when and self.stop_when(results_of(self._payloads)))

    def _run(self) -> None:
        try:
            self._reply = self.client.stream(
                EVENTS_METHOD, self.params, headers=ext(*self.uris), deadline=self.deadline, until=self._until
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the check in finish()
            self._error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    @property
    def results(self) -> Results:
        with self._cond:
            return results_of(self._payloads)

    def wait_for(self, pred: Callable[[Results], bool], what: str, timeout: float = 5.0) -> Results:
        """Wait until ``pred(results)`` holds; fail quoting what came when the deadline passes."""
        end = time.monotonic() + timeout
        with self._cond:
            while not pred(results_of(self._payloads)):
                left = end - time.monotonic()
                if left <= 0 or self._done:
                    break
                self._cond.wait(left)
            got = results_of(self._payloads)
        if not pred(got):
            reply = self._reply
            extra = f"; stream ended ({reply.closed_by}, HTTP {reply.status})" if reply is not None else ""
            if reply is not None and not reply.events:
                extra += f" with body {quote(reply.json or reply.body)}"
            fail(f"{what}: not seen within {timeout:g}s{extra}; frames {quote(got, 900)}")
        return got

    def finish(self, timeout: float | None = None) -> RpcStreamReply:
        """Wait for the stream to end and return it (every frame it carried)."""
        self._thread.join(timeout=self.deadline + 5 if timeout is None else timeout)
        if self._thread.is_alive():
            fail(f"the events stream was still open after {timeout}s")
        if self._error is not None:
            raise self._error
        assert self._reply is not None
        return self._reply


def read_feed(client: JsonRpcClient, params: Mapping[str, Any] | None, *, uris: Sequence[str] = (EVENTS,),
              deadline: float = 10.0, until: Callable[[SseEvent], bool] | None = None) -> RpcStreamReply:
    """One SubscribeToEvents stream read on the calling thread."""
    return client.stream(EVENTS_METHOD, dict(params or {}), headers=ext(*uris), deadline=deadline, until=until)


def newest_seq(client: JsonRpcClient) -> int:
    """The feed's newest seq, from the hello of a subscription that reads nothing else."""
    reply = read_feed(client, {}, deadline=5.0, until=lambda e: True)
    hello = hello_of(results_of(reply.payloads))
    if hello is None or not isinstance(hello.get("seq"), int):
        fail(f"the feed did not open with a hello carrying seq: {quote(reply.payloads[:2] or reply.json)}")
    return int(hello["seq"])


def read_replay(client: JsonRpcClient, from_seq: int | None, *, uris: Sequence[str] = (EVENTS,),
                deadline: float = 5.0) -> RpcStreamReply:
    """Subscribe (from ``from_seq``) and read the hello and the replay: until an event reaches the
    hello's seq (an operator's feed carries every event), or at once when there is nothing past the
    cursor; the deadline ends a replay that never gets there."""
    state: dict[str, int] = {}

    def until(ev: SseEvent) -> bool:
        try:
            result = ev.json().get("result")
        except (ValueError, AttributeError):
            return False
        if not isinstance(result, dict):
            return False
        if isinstance(result.get("hello"), dict):
            seq = result["hello"].get("seq")
            state["seq"] = seq if isinstance(seq, int) else -1
            return from_seq is None or state["seq"] <= from_seq
        if isinstance(result.get("event"), dict) and "seq" in state:
            seq = result["event"].get("seq")
            return isinstance(seq, int) and seq >= state["seq"]
        return False

    params = {} if from_seq is None else {"fromSeq": from_seq}
    return read_feed(client, params, uris=uris, deadline=deadline, until=until)


# ---- the operator's view -------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    tasks: frozenset[str]
    feed_seq: int | None
    settings: Any


class Observer:
    """The operator's view of an instance: what exists, and what the feed has said."""

    def __init__(self, instance: Any, recorder: Recorder) -> None:
        self.client = rpc_client(instance, "operator", recorder=recorder)
        self.feed = EVENTS in declared_uris(served_card(instance, recorder))
        self._read: set[str] = set()  # tasks already read strictly

    def close(self) -> None:
        self.client.close()

    def task_ids(self) -> frozenset[str]:
        """Every task id ListTasks shows the operator (all pages; each task read strictly)."""
        ids: set[str] = set()
        token: str | None = None
        for _ in range(1000):
            params: dict[str, Any] = {"pageSize": 100, "historyLength": 0, "includeArtifacts": False}
            if token:
                params["pageToken"] = token
            res = ok_result(self.client.call("ListTasks", params), "ListTasks as the operator")
            if not isinstance(res, dict):
                fail(f"ListTasks answered a result that is not an object: {quote(res)}")
            tasks = res.get("tasks") or []
            for i, t in enumerate(tasks):
                if not (isinstance(t, dict) and t.get("id") in self._read):
                    strict(t, Task, f"$.result.tasks[{i}]", "a task ListTasks listed")
                    self._read.add(t["id"])
                ids.add(t["id"])
            token = res.get("nextPageToken")
            if not token:
                break
        return frozenset(ids)

    def feed_seq(self) -> int:
        return newest_seq(self.client)

    def feed_since(self, seq: int) -> list[dict[str, Any]]:
        """The events past ``seq`` as the operator's feed replays them."""
        return events_of(results_of(read_replay(self.client, seq, deadline=3.0).payloads))

    def settings(self) -> Any:
        return data_document(answer_message(send_command(self.client, "config"), "config as the operator"),
                             "config as the operator")

    def snapshot(self) -> Snapshot:
        if self.feed:
            return Snapshot(self.task_ids(), self.feed_seq(), None)
        return Snapshot(self.task_ids(), None, self.settings())

    def changes(self, before: Snapshot, *, tasks: bool = True, effects: bool = True) -> list[str]:
        """What differs from ``before`` (empty: nothing): new tasks when ``tasks``; feed events and
        configuration changes when ``effects``."""
        after = Snapshot(
            self.task_ids() if tasks else before.tasks,
            self.feed_seq() if effects and before.feed_seq is not None else before.feed_seq,
            self.settings() if effects and before.feed_seq is None else before.settings,
        )
        out: list[str] = []
        new = sorted(after.tasks - before.tasks)
        if new:
            out.append(f"ListTasks shows {len(new)} new task(s) {new[:5]}")
        if before.feed_seq is not None and after.feed_seq is not None and after.feed_seq != before.feed_seq:
            evs = self.feed_since(before.feed_seq)
            shown = [{"seq": e.get("seq"), "kind": e.get("kind"), "data": e.get("data")} for e in evs[:5]]
            out.append(f"the operator's feed moved from seq {before.feed_seq} to {after.feed_seq}: {quote(shown)}")
        if before.settings != after.settings:
            out.append(f"the configuration changed from {quote(before.settings)} to {quote(after.settings)}")
        return out


# ---- webhooks ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Delivery:
    path: str
    headers: dict[str, str]
    body: Any


class WebhookReceiver:
    """``with WebhookReceiver() as hook:`` a loopback webhook target; ``hook.url`` to register."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []
        self._cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                size = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(size) if size else b""
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", errors="replace")
                with receiver._cond:
                    receiver.deliveries.append(Delivery(self.path, dict(self.headers.items()), body))
                    receiver._cond.notify_all()
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="webhook-receiver", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/hook"

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def wait_for(self, pred: Callable[[list[Delivery]], bool], timeout: float) -> list[Delivery]:
        """Every delivery so far, once ``pred`` holds or ``timeout`` passes (the caller judges)."""
        end = time.monotonic() + timeout
        with self._cond:
            while not pred(self.deliveries):
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return list(self.deliveries)


class Sentinel:
    """A task the subscriber starts itself once its stream is open (in a context of its own); its
    first task event on the feed shows that everything published before it has been delivered."""

    def __init__(self) -> None:
        self.context_id = unique("ctx")
        self.task_id: str | None = None

    def events(self, results: Results) -> list[dict[str, Any]]:
        out = []
        for ev in events_of(results):
            task = (ev.get("data") or {}).get("task") if ev.get("kind") == "task" else None
            if isinstance(task, dict) and (task.get("contextId") == self.context_id or
                                           (self.task_id is not None and task.get("id") == self.task_id)):
                out.append(ev)
        return out

    def seen(self, results: Results) -> bool:
        return bool(self.events(results))

    def send(self, client: JsonRpcClient, what: str = "the sentinel message") -> dict[str, Any]:
        msg = text_message("sentinel")
        msg["contextId"] = self.context_id
        task = answer_task(client.call("SendMessage", send_params(msg)), what)
        self.task_id = str(task.get("id"))
        return task
