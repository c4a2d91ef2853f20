"""The gRPC client against the SDK's GrpcHandler on a real grpc.aio server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from a2a.types import a2a_pb2

from conformance.wire import errors
from conformance.wire.grpc import GrpcClient, merge_metadata
from tests.wire_servers import KNOWN_TASK, RunningGrpc, ScriptedHandler, entered, normal_stream_client, serve_grpc


@pytest.fixture(scope="module")
def handler() -> ScriptedHandler:
    return ScriptedHandler()


@pytest.fixture(scope="module")
def server(handler: ScriptedHandler) -> Iterator[RunningGrpc]:
    yield from entered(serve_grpc(handler))


@pytest.fixture
def client(server: RunningGrpc, handler: ScriptedHandler) -> Iterator[GrpcClient]:
    yield from normal_stream_client(handler, GrpcClient(server.target, timeout=5))


def test_unary_call_returns_the_message_and_records_it(client: GrpcClient, handler: ScriptedHandler) -> None:
    r = client.call("GetTask", a2a_pb2.GetTaskRequest(id=KNOWN_TASK), metadata={"a2a-extensions": "urn:x"})
    assert (
        r.ok
        and r.response is not None
        and r.response_dict
        == {
            "id": KNOWN_TASK,
            "contextId": "ctx-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
        }
    )
    assert handler.contexts[-1].requested_extensions == {"urn:x"}
    ex = client.recorder.last
    assert ex.binding == "GRPC" and ex.status == "OK" and ex.target.endswith("/GetTask")
    assert ex.request_body == {"id": KNOWN_TASK} and ("a2a-version", "1.0") in ex.request_headers
    json.dumps(ex.to_evidence())


@pytest.mark.parametrize(
    ("method", "request_message", "error_name"),
    [
        ("GetTask", a2a_pb2.GetTaskRequest(id="missing"), "TaskNotFoundError"),
        ("CancelTask", a2a_pb2.CancelTaskRequest(id=KNOWN_TASK), "TaskNotCancelableError"),
        (
            "GetExtendedAgentCard",
            a2a_pb2.GetExtendedAgentCardRequest(),
            "ExtendedAgentCardNotConfiguredError",
        ),
    ],
)
def test_error_status_details_are_decoded(
    client: GrpcClient, method: str, request_message: a2a_pb2.GetTaskRequest, error_name: str
) -> None:
    r = client.call(method, request_message)
    assert not r.ok and r.status is not None
    view = r.error
    assert view is not None and view.mismatches(errors.BY_NAME[error_name]) == [], view
    assert any(k == errors.GRPC_STATUS_DETAILS_KEY for k, _ in r.trailing_metadata)
    assert client.recorder.last.error == r.details


def test_server_stream_reads_every_message(client: GrpcClient) -> None:
    s = client.stream("SendStreamingMessage", a2a_pb2.SendMessageRequest())
    assert s.code == "OK" and s.closed_by == "server"
    assert [m.WhichOneof("payload") for m in s.messages] == ["task", "status_update", "task"]


def test_stream_error_keeps_messages_and_status(client: GrpcClient, handler: ScriptedHandler) -> None:
    handler.stream_mode = "error"
    s = client.stream("SendStreamingMessage", a2a_pb2.SendMessageRequest())
    assert s.closed_by == "error" and len(s.messages) == 1
    assert s.error is not None and s.error.reason == "TASK_NOT_FOUND"


@pytest.mark.parametrize(("deadline", "idle"), [(0.4, None), (5.0, 0.3)])
def test_stalled_stream_is_cut(
    client: GrpcClient, handler: ScriptedHandler, deadline: float, idle: float | None
) -> None:
    handler.stream_mode = "stall"
    s = client.stream(
        "SendStreamingMessage", a2a_pb2.SendMessageRequest(), deadline=deadline, idle_timeout=idle
    )
    assert s.closed_by == "deadline" and len(s.messages) == 1, (s.code, s.details)


def test_metadata_layers_remove_and_repeat() -> None:
    md = merge_metadata({"a2a-version": "1.0", "x": "1"}, {"A2A-Version": None, "a2a-extensions": ["a", "b"]})
    assert md == [("x", "1"), ("a2a-extensions", "a"), ("a2a-extensions", "b")]
