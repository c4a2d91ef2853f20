"""A2ACLI_CHAT_001 (SPEC.md §8.1, §7.1): interactive `chat` carries the contextId — and the taskId while
that task is interrupted — across turns automatically, and the session ends cleanly.

Driven in a pseudo-terminal (``conformance.clicheck.interactive``), three lines typed at the tool's prompt,
judged on the messages the scripted agent received:

1. the first line starts a task that pauses in INPUT_REQUIRED (its status message must be shown);
2. the second line must carry that task's contextId and taskId (a reply to the waiting task), which
   then completes;
3. the third line must carry the contextId, and not the completed task's id (a new task in the same
   context).

Then Ctrl-D at the prompt must end the session with status 0; a second session ended by Ctrl-C must
exit (status 0 or 130) without a traceback. A tool that never shows a prompt fails after a bounded wait.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clicheck.interactive import Session
from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.evidence import Evidence
from conformance.fixtures.scripted_agent import Script, TaskFlow
from conformance.judge import shown, unique

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")

CHAT = "A2ACLI_CHAT_001"


def _wait(cli: Cli) -> float:
    """Bound on each wait for the tool (a prompt, a reply, an exit): the per-invocation bound every other
    row gets (`--cli-timeout`, default 20 s), not a tighter one of this row's own. A fixed 10 s made CHAT_001
    fail under load for tools whose chat works (issue 17 §6)."""
    return cli.runner.timeout


def _first_prompt(cli: Cli, s: Session, bound: float) -> None:
    """Wait for the session's first prompt; without one the check ends (blocked by the row that owns `chat`
    when the tool refused it, else failed)."""
    if s.expect_prompt() is None:
        r = s.close()
        cli.require(r, "chat")
        how = "it exited" if r.exit_code is not None else "none came"
        raise AssertionError(f"expected `chat` to show a prompt within {bound:g}s on a terminal; {how}; "
                             f"{shown(r)}")


def _ids(msg: dict[str, Any]) -> dict[str, Any]:
    return {"contextId": msg.get("contextId"), "taskId": msg.get("taskId")}


@pytest.mark.requirement(CHAT)
def test_chat_carries_context_and_waiting_task_across_three_turns(
        cli: Cli, agent: AgentMaker, evidence: Evidence) -> None:
    """Three turns in one `chat` session: turn 2 carries the contextId and the taskId of the task waiting
    in INPUT_REQUIRED, turn 3 the contextId without the completed task's id; Ctrl-D ends it with 0.

    Catches defects `chat-forgets-context`, `chat-drops-task-id` and `chat-hangs-on-eof`.
    """
    ask = unique("need-more")
    a = agent(Script(send=TaskFlow(states=(("TASK_STATE_INPUT_REQUIRED", 0.0, ask),)), resume=TaskFlow()))
    bound = _wait(cli)
    s = Session(cli, ["chat", "-a", a.base_url], timeout=bound)
    try:
        _first_prompt(cli, s, bound)
        words = [unique("turn-one"), unique("turn-two"), unique("turn-three")]
        shown_after: list[str] = []
        for i, w in enumerate(words):
            s.line(w)
            a.wait_for_requests(lambda q: q.operation in ("SendMessage", "SendStreamingMessage"),
                                timeout=bound, count=i + 1)
            out = s.expect_prompt()
            assert out is not None, (f"expected a prompt for the next line after turn {i + 1} within {bound:g}s; "
                                     f"{shown(s.close())}")
            shown_after.append(out)
        sent = a.sent_messages()
        evidence.add("turns as the agent received them", [_ids(m) for m in sent])
        texts = [" ".join(p.get("text", "") for p in m.get("parts", [])) for m in sent]
        if len(sent) < 3 or any(w not in t for w, t in zip(words, texts, strict=False)):
            r = s.close()
            raise AssertionError(f"expected one message per typed line (3), each with its text; got {texts}; "
                                 f"{shown(r)}")
        if not a.tasks:
            raise AssertionError(f"the agent created no task for the three turns it received; {shown(s.close())}")
        first = a.tasks[0]
        assert ask in shown_after[0], (f"expected turn 1's reply (the agent's INPUT_REQUIRED message) shown; "
                                       f"{shown(s.close())}")
        assert _ids(sent[1]) == {"contextId": first.context_id, "taskId": first.id}, (
            f"expected turn 2 to carry the session's contextId and the taskId of the task waiting in "
            f"INPUT_REQUIRED; sent {_ids(sent[1])}; {shown(s.close())}")
        assert sent[2].get("contextId") == first.context_id and sent[2].get("taskId") != first.id, (
            f"expected turn 3 to carry the contextId and not the completed task's id; sent {_ids(sent[2])}; "
            f"{shown(s.close())}")
        s.eof()
        ended = s.wait_exit(bound)
        r = s.close()
        assert ended and r.exit_code == 0, (f"expected Ctrl-D at the prompt to end the session with status 0 "
                                            f"within {bound:g}s; {shown(r)}")
    finally:
        s.close()


@pytest.mark.requirement(CHAT)
def test_chat_ends_cleanly_on_ctrl_c(cli: Cli, agent: AgentMaker) -> None:
    """Ctrl-C at the `chat` prompt ends the session promptly — status 0 or 130 — with no traceback.

    Catches a tool whose session must be killed to end.
    """
    a = agent(Script(send=TaskFlow()))
    bound = _wait(cli)
    s = Session(cli, ["chat", "-a", a.base_url], timeout=bound)
    try:
        _first_prompt(cli, s, bound)
        s.interrupt()
        ended = s.wait_exit(bound)
        r = s.close()
        assert ended and r.exit_code in (0, 130) or r.term_signal == 2, (
            f"expected Ctrl-C to end the session (status 0 or 130) within {bound:g}s; {shown(r)}")
        assert "Traceback" not in r.stdout_text, f"expected a clean end on Ctrl-C, got a traceback; {shown(r)}"
    finally:
        s.close()
