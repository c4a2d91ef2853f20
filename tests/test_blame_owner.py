"""One defect fails only the requirement that owns the missing feature (the blame rule, DESIGN.md §2.8).

Each case switches on one defect of a reference that removes a feature one row owns, and runs that
owner with the other rows whose checks use the feature: the owner fails on an assertion of its own
check, and each other row is ``not_measured`` "blocked by <owner>: ..." (never failed, never passed).

* ``card-file-unsupported``: `card get` reads no local card file (A2ACLI_CARD_GET_001, part
  file_path); `card get --validate` is asked of card files (A2ACLI_CARD_GET_002).
* ``ignores-tenant``: the declared tenant is never sent (A2ACLI_TX_003); the catalog entry's card
  declares a tenant (A2ACLI_CARD_GET_005).
* ``no-annotations-declaration``: the card omits task-annotations (AGENTD_DECL_002); the socket check
  asks for the annotations echo (AGENTD_UDS_002).
* ``card-no-well-known``: `-a <origin>` never finds the card (A2ACLI_CARD_GET_001, part host); every
  other check using `-a <origin>` (here A2ACLI_SEND_001, A2ACLI_TASK_POLL_004) is blocked by it.
* ``drops-context-id``: --context-id is never put on the message (A2ACLI_INTERACT_001); the check that
  a context is not a session with a current task (A2ACLI_INTERACT_003) sends one.
* ``extended-card-public-only``: `card get --extended` never asks for the extended card
  (A2ACLI_CARD_GET_003); which credential that request carries is A2ACLI_AUTH_008's question.
* ``api-key-ignores-scheme``: --api-key goes in a fixed header whatever the scheme says
  (A2ACLI_AUTH_001); A2ACLI_API_KEY as the flag's twin (A2ACLI_AUTH_002) and the key on the
  extended-card request (A2ACLI_CARD_GET_003) are judged only where --api-key itself is placed right.
* ``ambiguous-envelope-first-wins``: two command parts are not refused (AGENTD_REFUSE_005); what the
  refusal would carry (AGENTD_REFUSE_012) cannot be seen.
* ``admin-op-missing``: admin.pause is not served (AGENTD_CMD_011); who may reach it
  (AGENTD_CMD_015) cannot be seen.
* ``annotations-missing``: no Task answer carries the annotations (AGENTD_ANN_001); their members
  (AGENTD_ANN_004) cannot be read.
* ``command-runs-as-chat``: a command is answered as a conversation turn (AGENTD_CMD_001); every check
  that sends commands, e.g. the reply's marker (AGENTD_CMD_010), stands on it.
* ``subscribe-misses-updates`` (scripted agent): a subscription ends after the Task, before any update
  (A2A_SUB_004); where a task stream ends (A2A_STREAM_005) and several subscriptions of one task
  (A2A_SUB_005) are watched through subscriptions.
* ``work-reply-as-message``, ``read-reply-as-text``, ``events-plain-json``, ``extended-card-refused``: a
  work command's Task (AGENTD_CMD_007), a read's DataPart document (AGENTD_CMD_005), the feed's event stream
  (AGENTD_EVT_001) and the extended card (AGENTD_CARD_007) are what other agentd checks read to go on.

And for defects whose behaviour a check once read beyond its own requirement (``PASSING``): the owner
fails and the other row still passes (the differential property, DESIGN.md §2.11, on one row).

One narrow run (``--only`` the rows) per case.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.killmatrix import AGENTD, CLI, CORE, DETECTED, Reference, killed, outcomes

#: (reference, defect, the row owning the missing feature, the rows whose checks use that feature).
CASES: tuple[tuple[Reference, str, str, tuple[str, ...]], ...] = (
    (CLI, "card-file-unsupported", "A2ACLI_CARD_GET_001", ("A2ACLI_CARD_GET_002",)),
    (CLI, "ignores-tenant", "A2ACLI_TX_003", ("A2ACLI_CARD_GET_005",)),
    (AGENTD, "no-annotations-declaration", "AGENTD_DECL_002", ("AGENTD_UDS_002",)),
    # an API key put where no scheme says: the environment twin (AUTH_002) and the extended card's
    # credential (CARD_GET_003) are judged only once --api-key itself is placed right
    # no card at the `-a` URL's well-known path: every check is blocked by the card row, whether it then
    # failed (SEND_001), measured nothing (TASK_POLL_004, which found no stream to drop) or was blocked by a
    # row the missing card itself stopped (AUTH_004 once said SEND_001; TX_003 once said TX_004); the push
    # check seeds a config itself, and that request of its own is not the tool reaching the agent (PUSH_001)
    (CLI, "card-no-well-known", "A2ACLI_CARD_GET_001",
     ("A2ACLI_SEND_001", "A2ACLI_TASK_POLL_004", "A2ACLI_AUTH_004", "A2ACLI_TX_003", "A2ACLI_PUSH_001")),
    # -o json printing an event log: what the documents carry (ids, parts, the names in them) is read from one
    (CLI, "json-event-log", "A2ACLI_OUT_002", ("A2ACLI_INTERACT_004", "A2ACLI_OUT_001", "A2ACLI_SEND_004")),
    # errors as plain text: a refused --task-id is shown, but without A2A's error name (OUT_004's)
    (CLI, "no-error-envelope", "A2ACLI_OUT_004", ("A2ACLI_INTERACT_002",)),
    # the tool's own message without a messageId, echoed in the agent's answer: the strict reading of the -o json
    # output (OUT_002, OUT_003) is not judged on it
    (CLI, "no-message-id", "A2ACLI_SEND_001", ("A2ACLI_OUT_002", "A2ACLI_OUT_003")),
    # the last card entry picked: the tenant of the entry meant (TX_003) and a smoke check that went over a binding
    # where the agent's defect does not show (CONFORM_001) are not judged
    (CLI, "ignores-card-order", "A2ACLI_TX_001", ("A2ACLI_TX_003", "A2ACLI_CONFORM_001")),
    # a data artifact not shown at all: how its block is laid out (OUT_005, block_content) cannot be seen
    (CLI, "drops-data-parts", "A2ACLI_SEND_004", ("A2ACLI_OUT_005",)),
    # --context-id never sent: what goes with it (INTERACT_003: no taskId attached) is not judged
    (CLI, "drops-context-id", "A2ACLI_INTERACT_001", ("A2ACLI_INTERACT_003",)),
    # no extended card asked for: which credential it carries (AUTH_008) is not judged
    (CLI, "extended-card-public-only", "A2ACLI_CARD_GET_003", ("A2ACLI_AUTH_008",)),
    (CLI, "api-key-ignores-scheme", "A2ACLI_AUTH_001", ("A2ACLI_AUTH_002", "A2ACLI_CARD_GET_003")),
    (AGENTD, "ambiguous-envelope-first-wins", "AGENTD_REFUSE_005", ("AGENTD_REFUSE_012",)),
    (AGENTD, "admin-op-missing", "AGENTD_CMD_011", ("AGENTD_CMD_015",)),
    (AGENTD, "annotations-missing", "AGENTD_ANN_001", ("AGENTD_ANN_004",)),
    (AGENTD, "command-runs-as-chat", "AGENTD_CMD_001", ("AGENTD_CMD_010",)),
    # found by the CLI differential (benchmarks.differential --reference cli): a shared precondition every check
    # stands on, seen on the harness's agent (conformance.clicheck.gates) or in the output it reads:
    # no A2A-Version header: the agent refuses every request, so a send (SEND_001) and a chat turn (CHAT_001)
    # never reach what they judge
    (CLI, "no-version-header", "A2ACLI_VER_001", ("A2ACLI_SEND_001", "A2ACLI_CHAT_001")),
    # send returns at the first answer: what a finished send shows (INTERACT_004's ids and state, SEND_004's
    # parts) is not there to read
    (CLI, "no-wait-by-default", "A2ACLI_SEND_002", ("A2ACLI_INTERACT_004", "A2ACLI_SEND_004")),
    # JSON by default: the checks reading the default text (TASK_GET_001's rendering, CONFIG_002's sources) are
    # not judged on it
    # (OUT_005: its field-line and terminal checks read the default text)
    (CLI, "output-json-default", "A2ACLI_DEFAULT_001", ("A2ACLI_TASK_GET_001", "A2ACLI_CONFIG_002",
                                                         "A2ACLI_OUT_005")),
    # pretty-printed JSONL: stdout holding nothing but JSON (OUT_001's question) is not judged on the framing
    (CLI, "pretty-jsonl", "A2ACLI_OUT_003", ("A2ACLI_OUT_001",)),
    # a wait that polls on through INPUT_REQUIRED/AUTH_REQUIRED: what a tool shows when it stops for the user
    # (INTERACT_004's ids and the resume command) is never shown
    (CLI, "waits-through-input-required", "A2ACLI_TASK_POLL_003", ("A2ACLI_INTERACT_004",)),
    # one part per message: which part a --media-type binds to (SEND_005) cannot be seen
    (CLI, "single-part-only", "A2ACLI_SEND_006", ("A2ACLI_SEND_005",)),
    # a subscription that ends after the Task with no update (found by benchmarks.differential): where a task
    # stream ends (STREAM_005) and several streams of one task (SUB_005) cannot be seen without updates
    (CORE, "subscribe-misses-updates", "A2A_SUB_004", ("A2A_STREAM_005", "A2A_SUB_005")),
    # found by the agentd differential: the command URI declared with a trailing slash, activated all the same;
    # an echo right for the page's declarations is the card's fail, not the echo's (NEG_007 here, NEG_006 alike)
    (AGENTD, "uri-trailing-slash-declared", "AGENTD_DECL_001", ("AGENTD_NEG_007",)),
    # the events extension declared with the feed off: where the feed method is routed (DECL_013) and the echo of
    # an instance without it (NEG_010) are not judged against a card contradicting the state it was launched in
    (AGENTD, "events-declared-when-off", "AGENTD_DECL_003", ("AGENTD_DECL_013", "AGENTD_NEG_010")),
    # an unknown URI refused: a comma list (NEG_001) or a command's refusal (REFUSE_003) misread only because of
    # the unknown URI among them
    (AGENTD, "unknown-uri-refused", "AGENTD_NEG_005", ("AGENTD_NEG_001", "AGENTD_REFUSE_003")),
    # a comma list read only to its first URI: the echo of requests naming several (NEG_006) and a feed naming
    # events and task-annotations on one line (ANN_011)
    (AGENTD, "header-first-uri-only", "AGENTD_NEG_001", ("AGENTD_NEG_006", "AGENTD_ANN_011")),
    # a unix card declaring a scheme: the flag of a listener without one (CARD_006) has no socket to be read on
    (AGENTD, "unix-declares-bearer", "AGENTD_UDS_006", ("AGENTD_CARD_006",)),
    # found by the agentd differential: that a request is refused at all is the row whose text says so, and the
    # rows of what a refusal carries stand on it. An argument the op does not take ignored (CMD_004's): the
    # BadRequest of the bad-input run (REFUSE_013) and a workflow command's extra argument (CMD_016, whose start
    # schema leaves its properties open) are not judged on it
    (AGENTD, "ignore-unknown-arg", "AGENTD_CMD_004", ("AGENTD_REFUSE_013", "AGENTD_CMD_016")),
    # arguments not held to the op's schema (CMD_003's): the table's code and reason for them (REFUSE_008) are not
    # judged on an argument that was never refused
    (AGENTD, "no-arg-validation", "AGENTD_CMD_003", ("AGENTD_REFUSE_008",)),
    # session ops not served (CMD_014's): the reply kind of auth.sessions.revoke, which needs a session listed by
    # auth.sessions first, cannot be seen (CMD_009)
    (AGENTD, "session-ops-missing", "AGENTD_CMD_014", ("AGENTD_CMD_009",)),
    # found by benchmarks.differential --reference agentd: a reply kind or a frame form the check needs to go on
    # is another row's (conformance.agentd.answers, conformance.agentd.feed): work answered with a Message
    # leaves no task whose result artifact (CMD_008) could be read
    (AGENTD, "work-reply-as-message", "AGENTD_CMD_007", ("AGENTD_CMD_008",)),
    # a read answered in a TextPart: the streamed reply's document (CMD_002) is CMD_005's DataPart
    (AGENTD, "read-reply-as-text", "AGENTD_CMD_005", ("AGENTD_CMD_002",)),
    # the feed as one JSON body: no hello to read the cursor from (EVT_005), no stream to watch (ANN_011)
    (AGENTD, "events-plain-json", "AGENTD_EVT_001", ("AGENTD_EVT_005", "AGENTD_ANN_011")),
    # the extended card refused: what it lists (CARD_013's ring) cannot be seen
    (AGENTD, "extended-card-refused", "AGENTD_CARD_007", ("AGENTD_CARD_013",)),
    # ListTasks not routed when the command URI is named: what its answer carries (DECL_007) cannot be read
    (AGENTD, "list-unrouted-with-command", "AGENTD_DECL_013", ("AGENTD_DECL_007",)),
)

#: (reference, defect, its row, rows a check once failed under it though their own text holds):
#: * audit-when-introspection-off: an audit event per subscription is not an effect of a refused command
#:   (AGENTD_REFUSE_003's observer), nor a reason hello.seq should equal a seq read before (AGENTD_EVT_005);
#: * annotations-without-activation: annotations riding without activation do not show that a near-miss
#:   URI activated them (AGENTD_NEG_004);
#: * permission-denied-http-200, no-bad-request: a refusal's HTTP status and BadRequest are the REFUSE rows';
#:   a check of why a request is refused (AGENTD_CMD_017, _003, _004; CMD_003 also on its own part of the
#:   shared bad-input run) does not read them; nor is the extended card's 401 (AGENTD_CARD_008) a
#:   PERMISSION_DENIED's status;
#: * invalid-args-wrong-reason: which reason a refusal names is its table row's (AGENTD_REFUSE_008); the
#:   ErrorInfo carrying it (AGENTD_REFUSE_012) is there, under the domain of the reason it names;
#: * unknown-op-wrong-code: the code of an UNKNOWN_OP refusal is AGENTD_REFUSE_007's; that the socket serves no
#:   session op (AGENTD_UDS_007) is the refusal's reason;
#: * extended-ops-unnarrowed: who may run admin.set is the page's table, not the card's ops list, for settable
#:   (AGENTD_CARD_012).
PASSING: tuple[tuple[Reference, str, str, tuple[str, ...]], ...] = (
    (AGENTD, "audit-when-introspection-off", "AGENTD_EVT_012", ("AGENTD_REFUSE_003", "AGENTD_EVT_005")),
    (AGENTD, "annotations-without-activation", "AGENTD_ANN_002", ("AGENTD_NEG_004",)),
    (AGENTD, "permission-denied-http-200", "AGENTD_REFUSE_011", ("AGENTD_CMD_017", "AGENTD_CARD_008")),
    (AGENTD, "invalid-args-wrong-reason", "AGENTD_REFUSE_008", ("AGENTD_REFUSE_012",)),
    (AGENTD, "unknown-op-wrong-code", "AGENTD_REFUSE_007", ("AGENTD_UDS_007",)),
    (AGENTD, "extended-ops-unnarrowed", "AGENTD_CARD_010", ("AGENTD_CARD_012",)),
    # the feed method refused for the wrong cause of the table: the refusal still carries an ErrorInfo naming a
    # reason under its domain (REFUSE_012); which cause it names is REFUSE_001's
    (AGENTD, "events-undeclared-served", "AGENTD_REFUSE_001", ("AGENTD_REFUSE_012",)),
    (AGENTD, "no-bad-request", "AGENTD_REFUSE_013", ("AGENTD_CMD_003", "AGENTD_CMD_004")),
    # found by benchmarks.differential --reference agentd:
    # the feed as one JSON body is still routed and answered (DECL_013: the route table, not the stream's form)
    (AGENTD, "events-plain-json", "AGENTD_EVT_001", ("AGENTD_DECL_013",)),
    # a hello without version: the hello is not an event, whose kinds and data EVT_011 judges
    (AGENTD, "hello-missing-version", "AGENTD_EVT_002", ("AGENTD_EVT_011",)),
    # an undeclared kind, pushed as a real event of the ring: the replay stays in order (EVT_006)
    (AGENTD, "undeclared-kind", "AGENTD_EVT_011", ("AGENTD_EVT_006",)),
    # work answered with a Message: the relay's send still reaches the peer (CMD_019), watched without the task
    (AGENTD, "work-reply-as-message", "AGENTD_CMD_007", ("AGENTD_CMD_019",)),
    # text output without the contextId: what --context-id sends (INTERACT_001) and what task get fetches
    # (TASK_GET_001) are judged on their own text; naming the context in every output is OUT_001's
    (CLI, "no-context-in-output", "A2ACLI_OUT_001", ("A2ACLI_INTERACT_001", "A2ACLI_TASK_GET_001")),
    # errors as plain text: a wait that hits --timeout still shows the timeout by exit 5 (TASK_POLL_002)
    (CLI, "no-error-envelope", "A2ACLI_OUT_004", ("A2ACLI_TASK_POLL_002",)),
    # an invented A2ACLI_ERR_ name for a protocol error: the stream's final error line is there (OUT_003); the
    # code's name is OUT_004's
    (CLI, "renames-protocol-errors", "A2ACLI_OUT_004", ("A2ACLI_OUT_003",)),
    # JSON by default, stated as such in help: help shows the effective default (CLI_001), and --debug leaves
    # stdout alone though the JSON carries times and ids of its own (OUT_007)
    (CLI, "output-json-default", "A2ACLI_DEFAULT_001", ("A2ACLI_CLI_001", "A2ACLI_OUT_007")),
    # usage errors under exit 1: an orphan --media-type (SEND_005) and --continue (INTERACT_005) are still
    # refused, as A2ACLI_ERR_USAGE; which status a usage error takes is EXIT_001's
    (CLI, "usage-exit-1", "A2ACLI_EXIT_001", ("A2ACLI_SEND_005", "A2ACLI_INTERACT_005")),
    # a timeout reported under exit 3: a wait on UNSPECIFIED still polled on until --timeout (TASK_POLL_003)
    (CLI, "timeout-exit-3", "A2ACLI_TASK_POLL_002", ("A2ACLI_TASK_POLL_003",)),
    # a fresh contextId made up for each new message is not an id kept from the run before (INTERACT_005)
    (CLI, "invents-context-id", "A2ACLI_INTERACT_003", ("A2ACLI_INTERACT_005",)),
    # found by the agentd differential: the feed refusals of requests naming an unknown URI are NEG_005's
    (AGENTD, "unknown-uri-refused", "AGENTD_NEG_005", ("AGENTD_REFUSE_002",)),
    # repeated header lines, one URI a line, do not stand on how a comma list is read
    (AGENTD, "header-first-uri-only", "AGENTD_NEG_001", ("AGENTD_NEG_002",)),
    # the feed answered without activation: a near-miss URI did not activate it (NEG_003), and the route table
    # (DECL_013) holds: the feed method is a declared method
    (AGENTD, "events-without-activation", "AGENTD_REFUSE_002", ("AGENTD_NEG_003", "AGENTD_DECL_013")),
    # an empty A2A-Extensions header echoes nothing: an unknown URI changes nothing (NEG_005), a refusal echoes
    # nothing (NEG_009); that the header is there at all is NEG_007's
    (AGENTD, "empty-echo-header", "AGENTD_NEG_007", ("AGENTD_NEG_005", "AGENTD_NEG_009")),
    # an inapplicable URI echoed: the socket still carries the echo unchanged (UDS_002)
    (AGENTD, "echo-inapplicable", "AGENTD_NEG_008", ("AGENTD_UDS_002",)),
    # the events extension declared with the feed off: a refused command's effects are read from the
    # configuration, not from a feed the card only says is there (REFUSE_014)
    (AGENTD, "events-declared-when-off", "AGENTD_DECL_003", ("AGENTD_REFUSE_014",)),
)


#: (reference, defect, rows): one wrong behaviour that each row's own text forbids, so the defect declares and
#: fails every one of them:
#: * grant-reaches-operator-op: the rule that lets a grant reach an operator-only op also narrows the extended
#:   card, which then lists that op for the granted caller (AGENTD_CARD_010: only ops this caller may run; the
#:   page: no grant reaches an operator-only op) as well as running it (AGENTD_CMD_015);
#: * unauthenticated-http-200 (split from permission-denied-http-200): the UNAUTHENTICATED refusal's HTTP 200
#:   is the extended card's 401 (AGENTD_CARD_008), not PERMISSION_DENIED's 403.
OWNED: tuple[tuple[Reference, str, tuple[str, ...]], ...] = (
    (AGENTD, "grant-reaches-operator-op", ("AGENTD_CMD_015", "AGENTD_CARD_010")),
    (AGENTD, "unauthenticated-http-200", ("AGENTD_CARD_008",)),
)


#: ``CONFORMANCE_BLAME_OWNER=all`` runs every case; CI runs the cases of :data:`CI_SAMPLE` and every case whose
#: defect is not in :data:`BENCHMARK_ONLY` (one or two per class of fix: a block by a shared precondition, a
#: narrowed check, a row the defect owns). Each case is a narrow run of several seconds; the property they
#: sample, for every named defect of the three references, is ``python -m benchmarks.differential``'s, whose
#: records are in ``benchmarks/results/``.
ALL = os.environ.get("CONFORMANCE_BLAME_OWNER") == "all"
#: Cases left to the benchmark run (each the same class of fix as a case CI keeps), as (defect, owner).
BENCHMARK_ONLY: frozenset[tuple[str, str]] = frozenset({
    ("uri-trailing-slash-declared", "AGENTD_DECL_001"), ("unknown-uri-refused", "AGENTD_NEG_005"),
    ("unix-declares-bearer", "AGENTD_UDS_006"), ("no-arg-validation", "AGENTD_CMD_003"),
    ("read-reply-as-text", "AGENTD_CMD_005"), ("extended-card-refused", "AGENTD_CARD_007"),
    ("unknown-op-wrong-code", "AGENTD_REFUSE_007"), ("extended-ops-unnarrowed", "AGENTD_CARD_010"),
    ("events-undeclared-served", "AGENTD_REFUSE_001"), ("hello-missing-version", "AGENTD_EVT_002"),
    ("undeclared-kind", "AGENTD_EVT_011"), ("timeout-exit-3", "A2ACLI_TASK_POLL_002"),
    ("events-without-activation", "AGENTD_REFUSE_002"),
    ("empty-echo-header", "AGENTD_NEG_007"), ("echo-inapplicable", "AGENTD_NEG_008"),
})


def ci_cases(cases: tuple[tuple[Reference, str, str, tuple[str, ...]], ...]
             ) -> tuple[tuple[Reference, str, str, tuple[str, ...]], ...]:
    """The cases this run takes: all of them with ``CONFORMANCE_BLAME_OWNER=all``, else CI's sample. (The kill
    matrix leaves to these cases the owner rows they show failing: ``tests/test_kill_matrix.SHOWN``.)"""
    return cases if ALL else tuple(c for c in cases if (c[1], c[2]) not in BENCHMARK_ONLY)


@pytest.mark.parametrize(("ref", "defect", "rows"), OWNED, ids=[c[1] for c in OWNED])
def test_the_defect_declares_and_fails_each_row_whose_text_it_breaks(ref: Reference, defect: str,
                                                                     rows: tuple[str, ...], tmp_path: Path) -> None:
    assert defect in ref.defects, f"no defect {defect} in the {ref.key} table"
    undeclared = sorted(set(rows) - {rid.partition(":")[0] for rid in ref.defects[defect].ids})
    assert not undeclared, f"{defect} breaks {undeclared}'s own text but does not declare it"
    report = ref.run(tmp_path, ids=list(rows), defect=defect)
    got = outcomes(tmp_path / "report")
    for rid in rows:
        entry = report.requirements[rid]
        assert entry.status in DETECTED, f"{rid} under {defect}: {entry.status}: {entry.note}"
        assert killed(got, rid), f"{rid} failed on no assertion of its own under {defect}"


@pytest.mark.parametrize(("ref", "defect", "owner", "others"), ci_cases(CASES), ids=[c[1] for c in ci_cases(CASES)])
def test_the_defect_fails_its_owner_and_blocks_the_other_rows(ref: Reference, defect: str, owner: str,
                                                              others: tuple[str, ...], tmp_path: Path) -> None:
    report = ref.run(tmp_path, ids=[owner, *others], defect=defect)
    reqs = report.requirements
    assert reqs[owner].status in DETECTED, f"{owner} under {defect}: {reqs[owner].status}: {reqs[owner].note}"
    assert killed(outcomes(tmp_path / "report"), owner), f"{owner} failed on no assertion of its own under {defect}"
    for other in others:
        got = reqs[other]
        assert got.status == "not_measured" and str(got.note or "").startswith(f"blocked by {owner}:"), (
            f"{other} under {defect} should be not_measured, blocked by {owner}; it is {got.status}: {got.note}")


@pytest.mark.parametrize(("ref", "defect", "owner", "others"), ci_cases(PASSING),
                         ids=[c[1] for c in ci_cases(PASSING)])
def test_the_defect_fails_its_owner_and_leaves_the_other_rows_passing(ref: Reference, defect: str, owner: str,
                                                                      others: tuple[str, ...],
                                                                      tmp_path: Path) -> None:
    report = ref.run(tmp_path, ids=[owner, *others], defect=defect)
    reqs = report.requirements
    assert reqs[owner].status in DETECTED, f"{owner} under {defect}: {reqs[owner].status}: {reqs[owner].note}"
    assert killed(outcomes(tmp_path / "report"), owner), f"{owner} failed on no assertion of its own under {defect}"
    moved = {rid: f"{reqs[rid].status}: {reqs[rid].note}" for rid in others if reqs[rid].status != "pass"}
    assert not moved, f"{defect} moved rows it does not own: {moved}"
