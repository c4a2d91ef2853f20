"""Reading agentd's event feed (``agentd.events/SubscribeToEvents``) while a check acts on the instance.

* :class:`FeedReader` reads one stream on a background thread, so a check can act (send, revoke,
  restart) while the stream is open and wait for frames with a deadline;
* :func:`read_feed`, :func:`newest_seq` and :func:`read_replay` read one on the calling thread;
* :class:`Sentinel` is a task whose first event shows that everything published before it was delivered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from conformance.a2a.messages import send_params, text_message
from conformance.agentd.answers import answer_task
from conformance.agentd.clients import ext
from conformance.agentd_page import EVENTS, EVENTS_METHOD
from conformance.judge import blocked_by, quote, unique
from conformance.outcome import fail
from conformance.wire.jsonrpc import JsonRpcClient, RpcStreamReply
from conformance.wire.sse import SseEvent

Results = list[Any]

#: The row whose own text demands that SubscribeToEvents, declared and activated, answers with a server-sent
#: event stream. A check reading frames (hello, events, goodbye) from a feed that answered its result as one
#: plain JSON body instead is blocked by it (:func:`unstreamed`): it has no frames to judge.
STREAM_ROW: Final = "AGENTD_EVT_001"


def unstreamed(reply: RpcStreamReply, what: str = "SubscribeToEvents") -> None:
    """Blocked by :data:`STREAM_ROW` when ``reply`` answered a result, not as an event stream but as one plain
    JSON body. A refusal (an error body) is not blocked: whether it was due is the refusal rows' to judge."""
    if reply.is_sse or reply.events or reply.status != 200 or not isinstance(reply.json, dict):
        return
    if "result" in reply.json:
        blocked_by(STREAM_ROW, f"{what} answered its result as one plain JSON body "
                               f"({reply.content_type or 'no content type'}), not an event stream, so it carries no "
                               f"frames: {quote(reply.json, 300)}")


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
        return str(next(iter(result)))
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
            if reply is not None:
                unstreamed(reply)
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
    """One SubscribeToEvents stream read on the calling thread (blocked by :data:`STREAM_ROW` when its result
    came as a plain JSON body: :func:`unstreamed`)."""
    reply = client.stream(EVENTS_METHOD, dict(params or {}), headers=ext(*uris), deadline=deadline, until=until)
    unstreamed(reply)
    return reply


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
