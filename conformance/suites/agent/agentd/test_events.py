"""The events extension: ``agentd.events/SubscribeToEvents`` answers an SSE stream of ``hello``,
``event`` and ``goodbye`` frames with the page's members, each frame valid against its schema and of
a declared kind; ``fromSeq`` replay then live events; ``resync`` when the cursor left the ring or the
daemon restarted; per-principal visibility; goodbye at the stream deadline and on revocation, with
nothing past it; malformed params refused.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from a2a.types.a2a_pb2 import Task
from hypothesis import given
from hypothesis import strategies as st

from conformance.a2a.datamodel import read_object
from conformance.a2a.messages import send_params, text_message
from conformance.agentd.answers import WORK_REPLY_ROW, answer_message, answer_task, work_task
from conformance.agentd.bundles import bundles
from conformance.agentd.clients import ext, rpc_client
from conformance.agentd.commands import send_command
from conformance.agentd.configs import BAD_INPUT, workflows
from conformance.agentd.feed import (
    STREAM_ROW,
    FeedReader,
    Results,
    Sentinel,
    events_of,
    frame_kind,
    goodbye_of,
    hello_of,
    newest_seq,
    read_feed,
    read_replay,
    results_of,
    task_event_ids,
)
from conformance.agentd.footing import declaring, deps, lacking
from conformance.agentd_page import (
    COMMAND,
    EVENTS,
    EVENTS_METHOD,
)
from conformance.context import RunContext
from conformance.judge import blocked_by, judged_here, quote, refusal, unique
from conformance.outcome import fail
from conformance.targets.instances import AgentTargets, Instance
from conformance.wire import Recorder
from conformance.wire.jsonrpc import JsonRpcClient, RpcStreamReply

DAY_MS = 86_400_000

#: Every check here is about how the declared events extension behaves (blocked by AGENTD_DECL_003
#: when the card does not declare it; some also send commands: AGENTD_DECL_001).
pytestmark = pytest.mark.depends_on(*deps(EVENTS, COMMAND))


def _say(c: JsonRpcClient, n: int = 1) -> list[str]:
    """``n`` plain messages (each a task, so events on the feed); their task ids."""
    return [str(answer_task(c.call("SendMessage", send_params(text_message("event"))), "a plain message")["id"])
            for _ in range(n)]


#: The row whose own text says events past the cursor still in the ring are replayed: a check that reads
#: events from before its subscription stands on it.
REPLAY_ROW = "AGENTD_EVT_006"
REPLAYS = pytest.mark.depends_on(REPLAY_ROW)
#: Marks a check reading the feed's frames: blocked by :data:`STREAM_ROW` when the feed answers no event
#: stream (:func:`conformance.agentd.feed.unstreamed`).
STREAMS = pytest.mark.depends_on(STREAM_ROW)


def _replay_works(c: JsonRpcClient, cursor: int) -> None:
    """Blocked by :data:`REPLAY_ROW` when a replay does not carry the caller's (``c``'s) own events: it
    sends a message of its own (events every feed filter lets through to their owner) and replays past
    the seq read before it (``cursor`` names what the calling check looked for)."""
    before = newest_seq(c)
    _say(c)
    results = results_of(read_replay(c, before).payloads)
    head = (hello_of(results) or {}).get("seq")
    if isinstance(head, int) and head > before and not events_of(results):
        blocked_by(REPLAY_ROW, f"a replay past seq {before} carried none of the caller's own events though "
                               f"hello.seq is {head} (the check looked for events past seq {cursor})")


def _operator_feed_unfiltered(c: JsonRpcClient) -> None:
    """Blocked by AGENTD_EVT_009 (an operator's feed carries every event) when the operator's (``c``'s)
    feed does not carry the config event of its own admin.set, an event addressed to operators only."""
    cursor = newest_seq(c)
    answer_message(send_command(c, "admin.set", {"path": "feed.note", "value": unique("n")}), "admin.set")
    kinds = [e.get("kind") for e in events_of(results_of(read_replay(c, cursor).payloads))]
    if "config" not in kinds:
        blocked_by("AGENTD_EVT_009", f"the operator's feed does not carry the config event of its own admin.set "
                                     f"(kinds past seq {cursor}: {kinds})")


def _hello(results: Results, what: str) -> dict[str, Any]:
    hello = hello_of(results)
    if hello is None:
        fail(f"{what}: the first frame is not a hello: {quote(results[:2])}")
    return hello


def _seqs(results: Results) -> list[Any]:
    return [e.get("seq") for e in events_of(results)]


# ---- the stream and its frames -----------------------------------------------------------------

@pytest.mark.requirement("AGENTD_EVT_001")
def test_subscribe_answers_a_server_sent_event_stream(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Declared and activated, the method answers text/event-stream whose frames are JSON-RPC
    responses to the request (same id, a result). Catches ``events-plain-json``."""
    inst = declaring(agent_targets, EVENTS)
    with rpc_client(inst, recorder=recorder) as c, judged_here(STREAM_ROW):
        _say(c)
        reply = read_feed(c, {"fromSeq": 0}, deadline=5.0, until=lambda e: True)
    if reply.status != 200 or not reply.is_sse:
        fail(f"SubscribeToEvents answered HTTP {reply.status} {reply.content_type!r}, expected a text/event-stream; "
             f"body {quote(reply.json or reply.body)}")
    rid = reply.exchange.request_body.get("id")
    if not reply.payloads:
        fail("the event stream carried no frame")
    for i, p in enumerate(reply.payloads):
        if not isinstance(p, dict) or p.get("jsonrpc") != "2.0" or p.get("id") != rid or "result" not in p:
            fail(f"frame {i} is not a JSON-RPC result for request id {rid!r}: {quote(p)}")


@pytest.mark.requirement("AGENTD_EVT_002")
@STREAMS
def test_first_frame_is_hello_with_its_members(agent_targets: AgentTargets, recorder: Recorder,
                                               run_context: RunContext) -> None:
    """The first frame is hello: seq, resume, resync, introspection and version (valid against the
    bundle's hello). Catches ``hello-missing-version``."""
    inst = declaring(agent_targets, EVENTS)
    with rpc_client(inst, recorder=recorder) as c:
        results = results_of(read_feed(c, {"fromSeq": 0}, deadline=5.0, until=lambda e: True).payloads)
    hello = _hello(results, "SubscribeToEvents")
    missing = [m for m in ("seq", "resume", "resync", "introspection", "version") if m not in hello]
    if missing:
        fail(f"hello lacks {missing}: {quote(hello)}")
    bundles(run_context).check("events", "$defs/hello", results[0], "the hello frame")


@pytest.mark.requirement("AGENTD_EVT_003")
@STREAMS
@REPLAYS
def test_event_frames_carry_seq_ts_in_epoch_ms_kind_and_data(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Every event frame carries seq (a positive integer), ts (epoch milliseconds: within a day of
    now), kind (a string) and data (an object). Catches ``event-ts-seconds``."""
    inst = declaring(agent_targets, EVENTS)
    with rpc_client(inst, recorder=recorder) as c:
        _say(c)
        results = results_of(read_replay(c, 0).payloads)
        events = events_of(results)
        if not events:
            _replay_works(c, 0)
    if not events:
        fail(f"a replay from 0 carried no event: {quote(results)}")
    now = time.time() * 1000
    for ev in events:
        seq, ts = ev.get("seq"), ev.get("ts")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            fail(f"event seq {seq!r} is not a positive integer: {quote(ev)}")
        if not isinstance(ts, int) or isinstance(ts, bool) or abs(ts - now) > DAY_MS:
            fail(f"event seq {seq}: ts {ts!r} is not epoch milliseconds (now is about {int(now)}): {quote(ev)}")
        if not isinstance(ev.get("kind"), str) or not isinstance(ev.get("data"), dict):
            fail(f"event seq {seq}: kind {ev.get('kind')!r} / data {quote(ev.get('data'))} are not a string and "
                 f"an object")


@pytest.mark.requirement("AGENTD_EVT_004")
@STREAMS
@pytest.mark.depends_on("AGENTD_EVT_013")
def test_last_frame_is_goodbye_with_the_cursor_and_a_reason(agent_targets: AgentTargets, recorder: Recorder,
                                                            run_context: RunContext) -> None:
    """At the end of a stream that saw live events, the last frame is goodbye with reason deadline
    or revoked and seq a cursor past every event delivered; nothing follows it. A stream the target
    does not end at its deadline has no last frame to judge: that is AGENTD_EVT_013's, and this check is
    blocked by it. Catches ``no-goodbye-on-deadline``."""
    inst = declaring(agent_targets, EVENTS, stream_deadline=0.5)
    with (rpc_client(inst, recorder=recorder) as c,
          FeedReader(rpc_client(inst, recorder=recorder), {}, deadline=10.0) as feed):
        feed.wait_for(lambda r: hello_of(r) is not None, "the hello frame")
        _say(c)
        reply = feed.finish()
    results = results_of(reply.payloads)
    bye = goodbye_of(results)
    if bye is None and reply.closed_by != "server":
        blocked_by("AGENTD_EVT_013", f"with a stream deadline of 0.5 s the target did not end the stream within "
                                     f"10 s ({reply.closed_by}); last frames {quote(results[-3:])}")
    if bye is None:
        fail(f"the stream ended ({reply.closed_by}) without a goodbye; last frames {quote(results[-3:])}")
    if frame_kind(results[-1]) != "goodbye":
        fail(f"frames follow the goodbye: {quote(results[-3:])}")
    bundles(run_context).check("events", "$defs/goodbye", results[-1], "the goodbye frame")
    delivered = [s for s in _seqs(results) if isinstance(s, int)]
    if delivered and (not isinstance(bye.get("seq"), int) or bye["seq"] < max(delivered)):
        fail(f"goodbye.seq {bye.get('seq')!r} is behind the last event delivered (seq {max(delivered)})")


@pytest.mark.requirement("AGENTD_EVT_013")
@STREAMS
def test_stream_ends_with_goodbye_deadline_when_the_stream_deadline_passes(agent_targets: AgentTargets,
                                                                          recorder: Recorder) -> None:
    """With a stream deadline of 0.5 s the target closes the stream itself, well within 10 s, its
    last frame goodbye with reason deadline. Catches ``deadline-ignored``."""
    inst = declaring(agent_targets, EVENTS, stream_deadline=0.5)
    with rpc_client(inst, recorder=recorder) as c:
        reply = read_feed(c, {}, deadline=10.0)
    results = results_of(reply.payloads)
    if reply.closed_by != "server":
        fail(f"the stream did not end by itself ({reply.closed_by}: {reply.error}); frames {quote(results[-3:])}")
    bye = goodbye_of(results)
    if bye is None or frame_kind(results[-1]) != "goodbye" or bye.get("reason") != "deadline":
        fail(f"the stream ended without a last goodbye of reason deadline: {quote(results[-3:])}")


# ---- cursors ---------------------------------------------------------------------------------

@pytest.mark.requirement("AGENTD_EVT_005")
@STREAMS
def test_hello_resume_is_the_cursor_and_seq_the_newest(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """Subscribing from a cursor two events back: hello.resume is that cursor and hello.seq the
    newest seq in the feed (the last event replayed, and no older than the newest seen before
    subscribing: the feed is live, so events may have been added since). Catches ``hello-resume-wrong``."""
    inst = declaring(agent_targets, EVENTS)
    with rpc_client(inst, recorder=recorder) as c:
        _say(c, 2)
        newest = newest_seq(c)
        cursor = newest - 2
        results = results_of(read_replay(c, cursor).payloads)
    hello = _hello(results, f"SubscribeToEvents from {cursor}")
    if hello.get("resume") != cursor:
        fail(f"hello.resume is {hello.get('resume')!r}, the cursor asked for is {cursor}")
    seqs = _seqs(results)
    seq = hello.get("seq")
    if not isinstance(seq, int) or seq < newest or (seqs and seqs[-1] != seq):
        fail(f"hello.seq is {seq!r}; the newest seq was {newest} before subscribing, and the replay up to "
             f"hello's seq is {seqs}")


def _replayed(cursor: int) -> Any:
    def done(r: Results) -> bool:
        hello = hello_of(r)
        if hello is None:
            return False
        seqs = [s for s in _seqs(r) if isinstance(s, int)]
        return hello.get("seq", 0) <= cursor or bool(seqs and max(seqs) >= hello.get("seq", 0))
    return done


@pytest.mark.requirement("AGENTD_EVT_006")
@STREAMS
def test_events_past_the_cursor_are_replayed_in_order_then_live(agent_targets: AgentTargets,
                                                                recorder: Recorder) -> None:
    """From a cursor two events back, the operator receives exactly the events after it in seq
    order, then live events (a message sent once the replay is in) with higher seq.
    Catches ``no-replay``."""
    inst = declaring(agent_targets, EVENTS)
    sentinel = Sentinel()
    with rpc_client(inst, recorder=recorder) as c:
        _say(c, 2)
        cursor = newest_seq(c) - 2
        with FeedReader(rpc_client(inst, recorder=recorder), {"fromSeq": cursor}, stop_when=sentinel.seen) as feed:
            feed.wait_for(_replayed(cursor), f"the replay past seq {cursor}")
            sentinel.send(c)
            results = feed.wait_for(sentinel.seen, "the live event of a message sent after the replay")
    hello = _hello(results, "the subscription")
    seqs = _seqs(results)
    head = hello.get("seq", 0)
    replay = [s for s in seqs if isinstance(s, int) and s <= head]
    if replay != list(range(cursor + 1, head + 1)):
        fail(f"replay past {cursor} up to hello.seq {head} was {replay}, expected {list(range(cursor + 1, head + 1))}")
    if seqs != sorted(set(seqs)):
        fail(f"seq does not increase along the stream: {seqs}")
    live = [e for e in sentinel.events(results) if e.get("seq", 0) > head]
    if not live:
        fail(f"no live event after the replay (hello.seq {head}); seqs {seqs}")


@pytest.mark.requirement("AGENTD_EVT_007")
@STREAMS
@REPLAYS
def test_resync_is_true_exactly_when_the_cursor_left_the_ring(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """With a ring of 4 and more events than that, a cursor at 1 is answered resync true, a cursor
    one event back resync false (and that event replayed). Catches ``resync-never``."""
    inst = declaring(agent_targets, EVENTS, COMMAND, ring=4)
    with rpc_client(inst, recorder=recorder) as c:
        for _ in range(3):
            answer_message(send_command(c, "admin.set", {"path": "feed.note", "value": unique("n")}), "admin.set")
        _say(c, 2)
        newest = newest_seq(c)
        if newest < 8:
            fail(f"after three admin.set and two messages the feed's newest seq is only {newest}")
        lost = _hello(results_of(read_replay(c, 1).payloads), "SubscribeToEvents from 1")
        kept_results = results_of(read_replay(c, newest - 1).payloads)
        if newest not in _seqs(kept_results):
            _replay_works(c, newest - 1)
    kept = _hello(kept_results, f"SubscribeToEvents from {newest - 1}")
    if lost.get("resync") is not True:
        fail(f"cursor 1 with newest {newest} and a ring of 4: hello.resync is {lost.get('resync')!r}, expected true")
    if kept.get("resync") is not False or newest not in _seqs(kept_results):
        fail(f"cursor {newest - 1} (one event back): hello.resync {kept.get('resync')!r}, replayed "
             f"{_seqs(kept_results)}; expected false and seq {newest}")


@pytest.mark.requirement("AGENTD_EVT_008")
@STREAMS
def test_a_cursor_from_before_a_restart_is_answered_resync(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """After the daemon restarts (the feed lives in memory), a cursor read before it is answered with
    resync true. Catches ``resync-never``."""
    inst = declaring(agent_targets, EVENTS, COMMAND, fresh=True)
    if inst.launched is None:
        lacking("restartable")
    with rpc_client(inst, recorder=recorder) as c:
        _say(c, 2)
        cursor = newest_seq(c)
        inst.launched.restart()
        hello = _hello(results_of(read_replay(c, cursor).payloads), f"SubscribeToEvents from {cursor} after a restart")
    if hello.get("resync") is not True:
        fail(f"cursor {cursor} from before the restart: hello.resync is {hello.get('resync')!r}, expected true "
             f"(hello {quote(hello)})")


# ---- who sees what -----------------------------------------------------------------------------

def _activity(inst: Instance, recorder: Recorder) -> tuple[int, dict[str, str]]:
    """From a cursor: a message each from the user and the agent, and an admin.set by the operator."""
    with rpc_client(inst, recorder=recorder) as op:
        cursor = newest_seq(op)
        tasks = {}
        for role in ("user", "agent"):
            with rpc_client(inst, role, recorder=recorder) as c:
                tasks[role] = _say(c)[0]
        answer_message(send_command(op, "admin.set", {"path": "feed.note", "value": unique("n")}), "admin.set")
    return cursor, tasks


@pytest.mark.requirement("AGENTD_EVT_009")
@STREAMS
@REPLAYS
def test_the_operator_feed_carries_every_event(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """After the user, the agent and the operator act, the operator's replay has every seq from the
    cursor to the newest, with the others' task events and the operator-only config event.
    Catches ``operator-feed-filtered``."""
    inst = declaring(agent_targets, EVENTS, COMMAND, auth=True)
    cursor, tasks = _activity(inst, recorder)
    with rpc_client(inst, recorder=recorder) as op:
        results = results_of(read_replay(op, cursor).payloads)
        if not events_of(results):
            _replay_works(op, cursor)
    head = _hello(results, "the operator's subscription").get("seq", 0)
    seqs = _seqs(results)
    if seqs[: head - cursor] != list(range(cursor + 1, head + 1)):
        fail(f"the operator's replay past {cursor} has seqs {seqs}, expected every seq up to {head}")
    ids = set(task_event_ids(results))
    missing = [role for role, tid in tasks.items() if tid not in ids]
    if missing or "config" not in {e.get("kind") for e in events_of(results)}:
        fail(f"the operator's feed lacks task events of {missing} or the config event; kinds "
             f"{[e.get('kind') for e in events_of(results)]}")


@pytest.mark.requirement("AGENTD_EVT_010")
@STREAMS
@REPLAYS
def test_a_user_feed_carries_only_its_own_and_everyones_events(agent_targets: AgentTargets, recorder: Recorder,
                                                               run_context: RunContext) -> None:
    """The user's replay over the same activity carries its own task's events and no event of the
    agent's task nor of an operator-only kind (so its seqs have gaps).
    Catches ``feed-leaks-other-principal``."""
    inst = declaring(agent_targets, EVENTS, COMMAND, auth=True)
    cursor, tasks = _activity(inst, recorder)
    operator_only = {k for k, who in bundles(run_context).kinds().items() if who == "operator"}
    sentinel = Sentinel()
    with (rpc_client(inst, "user", recorder=recorder) as user,
          FeedReader(rpc_client(inst, "user", recorder=recorder), {"fromSeq": cursor},
                     stop_when=sentinel.seen) as feed):
        feed.wait_for(lambda r: hello_of(r) is not None, "the hello frame")
        sentinel.send(user)
        results = feed.wait_for(sentinel.seen, "the user's own new task event")
    ids = task_event_ids(results)
    leaked = [e for e in events_of(results) if e.get("kind") in operator_only]
    if tasks["agent"] in ids or leaked:
        fail(f"the user's feed carries the agent's task {tasks['agent']} ({tasks['agent'] in ids}) or operator-only "
             f"events {quote(leaked)}")
    if tasks["user"] not in ids:
        with rpc_client(inst, recorder=recorder) as op:
            _replay_works(op, cursor)
        fail(f"the user's feed lacks its own task {tasks['user']}: task events for {ids}")
    seqs = _seqs(results)
    if seqs == list(range(seqs[0], seqs[0] + len(seqs))) and len(seqs) > 1:
        fail(f"the user's seqs {seqs} have no gap although others' events were pushed among them")


@pytest.mark.requirement("AGENTD_EVT_011")
@STREAMS
@pytest.mark.depends_on(WORK_REPLY_ROW)
def test_every_frame_is_valid_and_of_a_declared_kind(agent_targets: AgentTargets, recorder: Recorder,
                                                     run_context: RunContext) -> None:
    """Over a feed carrying tasks, subagents, conversation, config and status events, every event frame
    validates against the events bundle's event (its kind in the closed vocabulary, its data valid
    against that kind's schema); task events carry a strict A2A Task. The hello and goodbye frames are
    not events: their members are AGENTD_EVT_002's and _004's, their schema AGENTD_DECL_014's.
    Catches ``undeclared-kind``."""
    inst = declaring(agent_targets, EVENTS, COMMAND)
    b = bundles(run_context)
    with rpc_client(inst, recorder=recorder) as c:
        _say(c)
        work_task(send_command(c, "subagent.send", {"subagent": unique("s"), "text": "hi"}), "subagent.send")
        for op, args in (("admin.set", {"path": "feed.note", "value": unique("n")}), ("admin.resume", {})):
            answer_message(send_command(c, op, args), op)
        results = results_of(read_replay(c, 0).payloads)
    vocabulary = set(b.kinds())
    for i, r in enumerate(results):
        if frame_kind(r) not in ("hello", "goodbye"):
            b.check("events", "$defs/event", r, f"frame {i} ({frame_kind(r)})")
    for ev in events_of(results):
        if ev.get("kind") not in vocabulary:
            fail(f"event seq {ev.get('seq')} has kind {ev.get('kind')!r}, outside the vocabulary {sorted(vocabulary)}")
        if ev.get("kind") == "task":
            read_object(recorder, f"the task of event seq {ev.get('seq')}", ev["data"].get("task"), Task, "feed")


@pytest.mark.requirement("AGENTD_EVT_012")
@STREAMS
@REPLAYS
@pytest.mark.depends_on("AGENTD_EVT_009")
def test_audit_events_exist_only_while_introspection_is_on(agent_targets: AgentTargets, recorder: Recorder) -> None:
    """With introspection off, hello.introspection is false and a command leaves no audit event;
    with it on, hello.introspection is true and the command is audited.
    Catches ``audit-when-introspection-off``."""
    off = declaring(agent_targets, EVENTS, COMMAND)
    on_ = declaring(agent_targets, EVENTS, COMMAND, introspection=True, workflows=workflows())
    for on, inst in ((False, off), (True, on_)):
        if inst.facts.get("introspection") != ("on" if on else "off"):
            lacking("launch_config")
        sentinel = Sentinel()
        with rpc_client(inst, recorder=recorder) as c:
            cursor = newest_seq(c)
            answer_message(send_command(c, "status"), "status")
            with FeedReader(rpc_client(inst, recorder=recorder), {"fromSeq": cursor}, stop_when=sentinel.seen) as feed:
                feed.wait_for(lambda r: hello_of(r) is not None, "the hello frame")
                sentinel.send(c)
                results = feed.wait_for(sentinel.seen, "the sentinel task's event")
        hello = _hello(results, "the subscription")
        audits = [e for e in events_of(results) if e.get("kind") == "audit"]
        if hello.get("introspection") is not on:
            fail(f"introspection is {'on' if on else 'off'}, hello.introspection is {hello.get('introspection')!r}")
        if not on and audits:
            fail(f"audit events with introspection off: {quote(audits)}")
        if on and not audits:
            with rpc_client(inst, recorder=recorder) as c:
                _replay_works(c, cursor)  # the status command came before the subscription
                _operator_feed_unfiltered(c)  # audit events are addressed to operators only
            fail(f"with introspection on, the status command left no audit event: kinds "
                 f"{[e.get('kind') for e in events_of(results)]}")


@pytest.mark.requirement("AGENTD_EVT_014")
@STREAMS
def test_revocation_ends_the_stream_with_goodbye_revoked_and_nothing_after(agent_targets: AgentTargets,
                                                                           recorder: Recorder) -> None:
    """Revoking the user's session while its stream is open ends the stream (well within 6 s) with a
    last goodbye of reason revoked, and no event pushed after the revocation reaches it.
    Catches ``no-goodbye-on-revoke``."""
    inst = declaring(agent_targets, EVENTS, COMMAND, fresh=True, auth=True)
    if inst.launched is None:
        lacking("launch_config")
    with (rpc_client(inst, recorder=recorder) as op,
          FeedReader(rpc_client(inst, "user", recorder=recorder), {}, deadline=6.0) as feed):
        feed.wait_for(lambda r: hello_of(r) is not None, "the hello frame")
        if not inst.launched.revoke(inst.token("user")):
            fail("harness: the user's token was not known to the target")
        at_revocation = newest_seq(op)
        answer_message(send_command(op, "admin.resume"), "admin.resume (a status event for every subscriber)")
        reply: RpcStreamReply = feed.finish()
    results = results_of(reply.payloads)
    late = [s for s in _seqs(results) if isinstance(s, int) and s > at_revocation]
    if late:
        fail(f"events pushed after the revocation (seq > {at_revocation}) reached the revoked stream: {late}")
    bye = goodbye_of(results)
    if reply.closed_by != "server" or bye is None or frame_kind(results[-1]) != "goodbye":
        fail(f"after revocation the stream ended {reply.closed_by} ({reply.error}) with last frames "
             f"{quote(results[-3:])}, expected a last goodbye")
    if bye.get("reason") != "revoked":
        fail(f"goodbye reason is {bye.get('reason')!r}, expected 'revoked'")


# ---- params ------------------------------------------------------------------------------------

BAD_PARAMS: tuple[Any, ...] = (
    {"fromSeq": -1}, {"fromSeq": "3"}, {"fromSeq": 1.5}, {"fromSeq": True}, {"fromSeq": None},
    {"since": 3}, {"fromSeq": 0, "follow": True}, [0],
)


def _refused_params(c: JsonRpcClient, params: Any) -> None:
    if isinstance(params, dict):
        reply: Any = c.stream(EVENTS_METHOD, params, headers=ext(EVENTS), deadline=5.0, until=lambda e: True)
    else:
        env = {"jsonrpc": "2.0", "id": unique("r"), "method": EVENTS_METHOD, "params": params}
        try:
            reply = c.raw(env, headers=ext(EVENTS), timeout=5.0)
        except httpx.TimeoutException:
            fail(f"params {quote(params)}: no complete answer within 5 s (an open stream, not a refusal)")
    got = refusal(reply, f"SubscribeToEvents with params {quote(params)}")
    if got.view.code != -32602:
        fail(f"params {quote(params)}: refused with {got.view.code!r}, expected -32602; error {quote(got.body)}")


@pytest.mark.requirement("AGENTD_EVT_015")
def test_malformed_params_are_refused_with_invalid_params(agent_targets: AgentTargets, recorder: Recorder,
                                                          run_context: RunContext) -> None:
    """fromSeq that is not a non-negative integer, unknown members, non-object params, and
    generated params the params schema refuses: -32602, never a stream, never a 5xx.
    Catches ``params-unvalidated``."""
    inst = declaring(agent_targets, EVENTS)
    b = bundles(run_context)
    leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | st.text(
        max_size=4)
    params = st.dictionaries(st.sampled_from(["fromSeq", "from", "seq", "kinds"]) | st.text(max_size=5), leaf,
                             min_size=1, max_size=3).filter(lambda p: bool(b.errors("events", "$defs/params", p)))
    with rpc_client(inst, recorder=recorder) as c:
        for p in BAD_PARAMS:
            _refused_params(c, p)

        @BAD_INPUT
        @given(params)
        def run(p: dict[str, Any]) -> None:
            _refused_params(c, p)

        run()
