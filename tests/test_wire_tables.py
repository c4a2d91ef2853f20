"""The method list comes from the SDK; the error table agrees with the SDK wherever it defines a fact."""

from __future__ import annotations

import a2a.utils.errors as sdk_errors
import pytest
from a2a.server.request_handlers.grpc_handler import _ERROR_CODE_MAP
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.types import a2a_pb2

from conformance.wire import errors, methods


def test_core_methods_are_the_eleven_of_the_sdk_table() -> None:
    assert len(methods.CORE_METHODS) == 11
    assert tuple(JsonRpcDispatcher.METHOD_TO_MODEL) == methods.CORE_METHODS
    assert set(methods.CORE_METHODS) == set(methods.GRPC_METHODS)
    assert dict(methods.REQUEST_TYPES) == JsonRpcDispatcher.METHOD_TO_MODEL
    assert methods.RESPONSE_TYPES["GetTask"] is a2a_pb2.Task
    assert {"SendStreamingMessage", "SubscribeToTask"} == methods.STREAMING_METHODS
    assert methods.grpc_path("GetTask") == f"/{methods.SERVICE_NAME}/GetTask"


def test_reason_rule_turns_type_names_into_upper_snake() -> None:
    assert errors.reason_for("TaskNotCancelableError") == "TASK_NOT_CANCELABLE"
    assert errors.reason_for("ExtendedAgentCardNotConfiguredError") == "EXTENDED_AGENT_CARD_NOT_CONFIGURED"


@pytest.mark.parametrize("spec", errors.ERRORS, ids=lambda s: s.name)
def test_error_table_agrees_with_the_sdk(spec: errors.ErrorSpec) -> None:
    cls = getattr(sdk_errors, spec.name)
    assert sdk_errors.JSON_RPC_ERROR_CODE_MAP[cls] == spec.jsonrpc_code
    mapping = sdk_errors.A2A_ERROR_MAPPING.get(cls)
    if mapping is not None:
        assert (mapping.http_code, mapping.grpc_status, mapping.reason) == (
            spec.http_status,
            spec.grpc_status,
            spec.reason,
        )
    if cls in _ERROR_CODE_MAP:
        assert _ERROR_CODE_MAP[cls].name == spec.grpc_status


def test_table_covers_every_sdk_error_and_the_nine_a2a_errors() -> None:
    sdk_names = {cls.__name__ for cls in sdk_errors.JSON_RPC_ERROR_CODE_MAP}
    assert sdk_names == set(errors.BY_NAME)
    assert sum(e.a2a_specific for e in errors.ERRORS) == 9
    assert all(e.domain == "a2a-protocol.org" for e in errors.ERRORS)


def test_views_from_each_binding_share_one_shape() -> None:
    info = {
        "@type": errors.ERROR_INFO_TYPE,
        "reason": "TASK_NOT_FOUND",
        "domain": errors.DOMAIN,
        "metadata": {"k": "v"},
    }
    bad = {
        "@type": errors.BAD_REQUEST_TYPE,
        "fieldViolations": [{"field": "message.parts", "description": "empty"}],
    }
    rpc = errors.from_jsonrpc({"code": -32001, "message": "nope", "data": [info, bad]})
    rest = errors.from_rest(
        404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "nope", "details": [info]}}
    )
    assert rpc.reason == rest.reason == "TASK_NOT_FOUND" and rpc.metadata == {"k": "v"}
    assert rpc.field_violations == (errors.FieldViolation("message.parts", "empty"),)
    spec = errors.BY_NAME["TaskNotFoundError"]
    assert rpc.mismatches(spec) == [] and rest.mismatches(spec) == []


def test_views_report_what_is_missing_or_malformed() -> None:
    bare = errors.from_jsonrpc({"code": "-32001", "message": "x", "data": {"not": "a list"}})
    assert bare.code is None and len(bare.problems) == 2
    assert any("ErrorInfo" in m for m in bare.mismatches(errors.BY_NAME["TaskNotFoundError"]))
    wrong = errors.from_rest(400, {"error": {"code": 404, "details": []}})
    assert wrong.problems and wrong.mismatches(errors.BY_NAME["TaskNotFoundError"])


def test_the_card_path_is_the_sdks() -> None:
    """Written in the resolver (the command's own process does not import the SDK), the SDK's constant."""
    from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

    from conformance.targets.resolve import WELL_KNOWN_PATH

    assert WELL_KNOWN_PATH == AGENT_CARD_WELL_KNOWN_PATH
