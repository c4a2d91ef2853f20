"""The CLI output readers (``conformance.clicheck.output``) at unit level: each reads what its row asks about
and nothing another row owns (the stream a line goes to is A2ACLI_OUT_001's; one JSON document, OUT_002's)."""

from __future__ import annotations

import pytest

from conformance.clicheck.output import ONE_DOCUMENT_ROW, find_error_envelope, one_json_document
from conformance.judge import Blocked

ENVELOPE = ('{\n  "error": {\n    "code": "A2ACLI_ERR_USAGE",\n    "message": "unknown option",\n'
            '    "hint": "see --help"\n  }\n}')


@pytest.mark.parametrize(("stdout", "stderr", "where"), [
    (ENVELOPE, "", "stdout"),
    ("a2a-cli: sending...\n" + ENVELOPE + "\n", "", "stdout"),  # a notice before it (defect mixed-streams)
    ("", "warning: something\n" + ENVELOPE, "stderr"),
    ("", '{"error": {"code": "X", "message": "m"}}', "stderr"),
])
def test_the_error_envelope_is_found_whatever_precedes_it_on_its_stream(stdout: str, stderr: str, where: str) -> None:
    env, found = find_error_envelope(stdout, stderr)
    assert env is not None and env["message"] in ("unknown option", "m") and found == where


def test_no_envelope_is_found_where_there_is_none() -> None:
    assert find_error_envelope("Task: t1\nState: COMPLETED\n", "a2a-cli: {not json") == (None, "")


def test_several_documents_block_the_reading_row_by_the_one_document_row() -> None:
    with pytest.raises(Blocked) as info:
        one_json_document('{"task": {"id": "t"}}\n{"task": {"id": "t"}}\n')
    assert info.value.by == ONE_DOCUMENT_ROW
    assert one_json_document('{"task": {"id": "t"}}') == ({"task": {"id": "t"}}, None)
    doc, problem = one_json_document("Task: t\n")
    assert doc is None and problem is not None and problem.startswith("stdout is not JSON")
