"""The strict reader passes what the SDK itself serialises and names the path of every defect."""

from __future__ import annotations

import copy
from typing import Any

from a2a.types import a2a_pb2
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct, Value
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.wire.strict import read_strict

_ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=8)
_text = st.text(max_size=10)
_json_leaf = st.one_of(
    st.none(), st.booleans(), st.text(max_size=5), st.floats(allow_nan=False, allow_infinity=False)
)


def _struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


_parts = st.one_of(
    st.builds(lambda t: a2a_pb2.Part(text=t), _text),
    st.builds(
        lambda b, m: a2a_pb2.Part(raw=b, media_type=m),
        st.binary(max_size=12),
        st.just("application/octet-stream"),
    ),
    st.builds(lambda u, f: a2a_pb2.Part(url=u, filename=f), st.just("https://example.test/f"), _ids),
    st.builds(
        lambda d: a2a_pb2.Part(data=_struct_value(d)),
        st.dictionaries(_ids, _json_leaf, max_size=3),
    ),
)


def _struct_value(d: dict[str, Any]) -> Value:
    v = Value()
    v.struct_value.SetInParent()
    v.struct_value.update(d)
    return v


_messages = st.builds(
    lambda mid, role, parts, meta: a2a_pb2.Message(
        message_id=mid, role=role, parts=parts, metadata=_struct(meta) if meta else None
    ),
    _ids,
    st.sampled_from([a2a_pb2.ROLE_USER, a2a_pb2.ROLE_AGENT]),
    st.lists(_parts, min_size=1, max_size=3),
    st.dictionaries(_ids, _json_leaf, max_size=2),
)
_states = st.sampled_from([v.number for v in a2a_pb2.TaskState.DESCRIPTOR.values if v.number != 0])
_tasks = st.builds(
    lambda tid, cid, state, history, artifacts: a2a_pb2.Task(
        id=tid,
        context_id=cid,
        status=a2a_pb2.TaskStatus(state=state),
        history=history,
        artifacts=[a2a_pb2.Artifact(artifact_id=f"a{i}", parts=p) for i, p in enumerate(artifacts)],
    ),
    _ids,
    _ids,
    _states,
    st.lists(_messages, max_size=2),
    st.lists(st.lists(_parts, min_size=1, max_size=2), max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(task=_tasks)
def test_sdk_serialised_task_has_no_violations(task: a2a_pb2.Task) -> None:
    result = read_strict(MessageToDict(task), a2a_pb2.Task)
    assert result.violations == [] and result.message == task


@settings(max_examples=40, deadline=None)
@given(task=_tasks, msg=_messages, pick=st.booleans())
def test_sdk_serialised_responses_have_no_violations(
    task: a2a_pb2.Task, msg: a2a_pb2.Message, pick: bool
) -> None:
    resp = a2a_pb2.SendMessageResponse(task=task) if pick else a2a_pb2.SendMessageResponse(message=msg)
    assert read_strict(MessageToDict(resp), a2a_pb2.SendMessageResponse).violations == []
    stream = a2a_pb2.StreamResponse(
        status_update=a2a_pb2.TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=task.status
        )
    )
    assert read_strict(MessageToDict(stream), a2a_pb2.StreamResponse).violations == []


def _inject(doc: dict[str, Any], kind: str) -> tuple[dict[str, Any], str]:
    """Apply one defect to a task document; return it and the JSON path it must be reported at."""
    d = copy.deepcopy(doc)
    if kind == "enum_number":
        d["status"]["state"] = a2a_pb2.TaskState.Value(d["status"]["state"])
        return d, "$.status.state"
    if kind == "snake_case":
        d["context_id"] = d.pop("contextId")
        return d, "$.context_id"
    if kind == "two_spellings":
        d["context_id"] = d["contextId"]
        return d, "$.context_id"
    if kind == "null":
        d["status"]["timestamp"] = None
        return d, "$.status.timestamp"
    if kind == "empty_part":
        d["history"][0]["parts"][0] = {}
        return d, "$.history[0].parts[0]"
    if kind == "bad_base64":
        d["history"][0]["parts"].append({"raw": "not base64!"})
        return d, f"$.history[0].parts[{len(d['history'][0]['parts']) - 1}].raw"
    if kind == "missing_required":
        del d["history"][0]["messageId"]
        return d, "$.history[0].messageId"
    assert kind == "unknown_field"
    d["status"]["colour"] = "blue"
    return d, "$.status.colour"


_KINDS = [
    "enum_number", "snake_case", "two_spellings", "null", "empty_part", "bad_base64", "missing_required",
    "unknown_field",
]  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(task=_tasks, msg=_messages, kinds=st.sets(st.sampled_from(_KINDS), min_size=1, max_size=3))
def test_every_injected_defect_is_reported_at_its_path(
    task: a2a_pb2.Task, msg: a2a_pb2.Message, kinds: set[str]
) -> None:
    del task.history[:]
    task.history.append(msg)
    doc = MessageToDict(task)
    expected: set[str] = set()
    for kind in sorted(kinds):
        if kind in ("snake_case", "two_spellings") and ("context_id" in doc or "contextId" not in doc):
            continue
        doc, path = _inject(doc, kind)
        expected.add(path)
    result = read_strict(doc, a2a_pb2.Task)
    paths = {v.path for v in result.violations}
    assert expected <= paths, result.summary()


def test_all_violations_are_reported_together_with_an_outer_path() -> None:
    doc = {
        "task": {
            "id": "t",
            "status": {"state": 3},
            "history": [{"message_id": "m", "role": "ROLE_USER", "parts": [{}, {"text": "a", "url": "u"}]}],
        }
    }
    result = read_strict(doc, a2a_pb2.SendMessageResponse, path="$.result")
    paths = [v.path for v in result.violations]
    for p in (
        "$.result.task.status.state",
        "$.result.task.history[0].message_id",
        "$.result.task.history[0].parts[0]",
        "$.result.task.history[0].parts[1]",
    ):
        assert p in paths, result.summary()
    assert result.message is None and not result.ok


def test_unspecified_state_dropped_by_a_serialiser_is_a_missing_required_field() -> None:
    result = read_strict({"id": "t", "status": {}}, a2a_pb2.Task)
    assert [v.path for v in result.violations] == ["$.status.state"]
    assert result.message is not None


def test_final_empty_listing_page_is_valid_but_a_missing_next_page_token_is_not() -> None:
    """The spec requires nextPageToken present and "" on the final page; an empty listing is valid.
    The SDK's validator alone would flag all four fields of this valid response."""
    from a2a.types import a2a_pb2 as pb

    ok = read_strict({"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}, pb.ListTasksResponse)
    assert ok.violations == []
    missing = read_strict({"tasks": [], "pageSize": 0, "totalSize": 0}, pb.ListTasksResponse)
    assert [v.path for v in missing.violations] == ["$.nextPageToken"]
