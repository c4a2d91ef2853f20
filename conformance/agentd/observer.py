"""The operator's view of an instance, to prove that a refused request ran nothing: its task list, its
feed's newest seq, or with the feed off (or answering no event stream) its configuration.

Reading the configuration stands on the config read answering its document in a DataPart
(:data:`~conformance.agentd.answers.READ_REPLY_ROW`), so a check observing with it declares that row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance.agentd.answers import ok_result, read_document
from conformance.agentd.cards import declared_uris
from conformance.agentd.clients import rpc_client, served_card
from conformance.agentd.commands import send_command
from conformance.agentd.feed import STREAM_ROW, events_of, newest_seq, read_replay, results_of
from conformance.agentd.footing import feed_contradiction
from conformance.agentd_page import EVENTS
from conformance.judge import Blocked, quote
from conformance.outcome import fail
from conformance.wire import Recorder

if TYPE_CHECKING:
    from conformance.targets.instances import Instance


@dataclass(frozen=True)
class Snapshot:
    tasks: frozenset[str]
    feed_seq: int | None
    settings: Any


class Observer:
    """The operator's view of an instance: what exists, and what the feed has said."""

    def __init__(self, instance: Instance, recorder: Recorder) -> None:
        self.client = rpc_client(instance, "operator", recorder=recorder)
        card = served_card(instance, recorder)
        # The feed is watched where the card declares it, unless the card contradicts the feed state the
        # instance is known to have (AGENTD_DECL_003's fail): then the configuration shows what ran.
        self.feed = EVENTS in declared_uris(card) and feed_contradiction(instance, card) is None

    def close(self) -> None:
        self.client.close()

    def task_ids(self) -> frozenset[str]:
        """Every task id ListTasks shows the operator (all pages)."""
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
            for t in tasks:
                if not (isinstance(t, dict) and isinstance(t.get("id"), str)):
                    fail(f"ListTasks listed a task without an id: {quote(t)}")
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
        return read_document(send_command(self.client, "config"), "config as the operator")

    def snapshot(self) -> Snapshot:
        if self.feed:
            try:
                return Snapshot(self.task_ids(), self.feed_seq(), None)
            except Blocked as exc:
                if exc.by != STREAM_ROW:
                    raise
                # The feed answers no event stream (AGENTD_EVT_001's to judge): the configuration shows effects.
                self.feed = False
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
            # An audit event records a request (the observer's own subscriptions among them), not an effect
            # of running one; when it is pushed is AGENTD_EVT_012's to judge.
            evs = [e for e in self.feed_since(before.feed_seq) if e.get("kind") != "audit"]
            shown = [{"seq": e.get("seq"), "kind": e.get("kind"), "data": e.get("data")} for e in evs[:5]]
            if evs:
                out.append(f"the operator's feed moved from seq {before.feed_seq} to {after.feed_seq}: "
                           f"{quote(shown)}")
        if before.settings != after.settings:
            out.append(f"the configuration changed from {quote(before.settings)} to {quote(after.settings)}")
        return out

