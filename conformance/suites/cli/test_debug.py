"""A2ACLI_OUT_007 (SPEC.md §7.2, §12.1): `--debug` writes diagnostics to stderr, the raw protocol
messages exchanged on the wire included, leaves stdout as it is without the flag, and still redacts
credentials.

Judged against what the scripted agent recorded: every A2A request it received during the `--debug`
run, and every response it sent back, must be visible on stderr — each string value of the message
(method, messageId, the text sent, the task and context ids, the state, the artifact text, ...), so a
tool that logs only "POST /jsonrpc 200" does not pass. stdout is compared with a run without
`--debug` after the server-assigned identifiers of each run are replaced by placeholders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.clicheck.gates import answer_documents
from conformance.clicheck.invocations import AgentMaker, Cli, SecretMaker
from conformance.clicheck.output import secret_forms
from conformance.evidence import Evidence
from conformance.fixtures.scripted_agent import ArtifactSpec, Bearer, CardSpec, Script, TaskFlow, Text
from conformance.fixtures.scripted_agent.recording import RecordedRequest
from conformance.judge import blocked_by, shown, unique

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001", "A2ACLI_SEND_001", "A2ACLI_SEND_006",
                                    "A2ACLI_AUTH_001")

OUT = "A2ACLI_OUT_007"


def string_leaves(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from string_leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from string_leaves(v)


def response_messages(req: RecordedRequest) -> list[Any]:
    """The JSON message(s) the agent sent back: one JSON body, or one per Server-Sent Event."""
    return answer_documents(req.response_body)


def missing_from(stderr: str, messages: list[Any]) -> list[str]:
    """String values of ``messages`` that stderr does not show (as written, or JSON-escaped)."""
    gone = []
    for leaf in dict.fromkeys(s for m in messages for s in string_leaves(m)):
        if leaf and leaf not in stderr and json.dumps(leaf)[1:-1] not in stderr:
            gone.append(leaf)
    return gone


#: An RFC 3339 / ISO 8601 time (a status timestamp), and a UUID (a messageId, an artifactId): values that
#: differ between two runs of the same send, so stdout is compared without them.
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")


@pytest.mark.requirement(OUT)
def test_debug_shows_the_wire_messages_on_stderr_and_leaves_stdout_alone(
        cli: Cli, agent: AgentMaker, new_secret: SecretMaker, evidence: Evidence) -> None:
    """`send --debug` to an agent that requires a bearer token: every request the agent recorded and
    every response it sent appear on stderr value for value; stdout equals that of the same `send`
    without `--debug` (identifiers aside); no form of the token appears anywhere.

    Catches defects `debug-no-wire`, `debug-to-stdout` and `leak-bearer-in-debug`.
    """
    token = new_secret("bearer")
    probe = unique("debug-probe")
    a = agent(Script(card=CardSpec(security=(Bearer(token),)),
                     send=TaskFlow(artifacts=(ArtifactSpec([Text(f"artifact {probe}")], name="result"),))))
    plain = cli.run("send", "--text", probe, "-a", a.base_url, "--bearer", token)
    plain_reqs = a.a2a_requests()
    plain_tasks = list(a.tasks)
    if not plain_reqs or not plain_tasks:
        blocked_by("A2ACLI_SEND_001", f"`send` created no task (exit {plain.exit_code}), so there is no "
                                      "exchange to log")
    a.clear_requests()
    debug = cli.run("send", "--text", probe, "-a", a.base_url, "--bearer", token, "--debug")
    reqs = a.a2a_requests()
    tasks = [t for t in a.tasks if t not in plain_tasks]
    assert reqs and tasks, f"expected `send --debug` to send the message as without --debug; {shown(debug)}"

    err = debug.stderr_text
    missing: dict[str, list[str]] = {}
    for q in reqs:
        name = q.operation or q.method
        assert q.json is not None, "harness: the exchange the agent recorded is not JSON over HTTP"
        missing[f"{name} request"] = missing_from(err, [q.json])
        answers = response_messages(q)
        missing[f"{name} response"] = missing_from(err, answers) if answers else ["(the response body)"]
    evidence.add("wire values not on stderr", missing)
    bad = {k: v[:4] for k, v in missing.items() if v}
    assert not bad, (f"expected each request the agent received and each response it sent on stderr under "
                     f"--debug; values not shown: {bad}; {shown(debug)}")

    def normalised(text: str, task_list: list[Any]) -> str:
        for t in task_list:
            text = text.replace(t.id, "<taskId>").replace(t.context_id, "<contextId>")
        # what differs between two runs of one send whatever the tool does: times and generated ids
        return _UUID.sub("<id>", _TIMESTAMP.sub("<time>", text))

    assert normalised(debug.stdout_text, tasks) == normalised(plain.stdout_text, plain_tasks), (
        f"expected stdout unchanged by --debug (identifiers aside); without: {plain.stdout_text[:300]!r}; "
        f"{shown(debug)}")
    both = debug.stdout_text + debug.stderr_text
    leaked = [form for form, value in secret_forms(token).items() if value in both]
    leaked += ["an 8-character fragment"] if any(token[i:i + 8] in both for i in range(len(token) - 7)) else []
    assert not leaked, f"expected the bearer token redacted under --debug; found it as {leaked}; {shown(debug)}"
