"""One error table for every binding, and one normalised view of an error as a target sent it.

The table holds, per A2A error, its JSON-RPC code, HTTP status, gRPC status and ``ErrorInfo``
reason. Facts come from the A2A 1.0 specification: §5.4 (error code mappings), §9.5 (standard
JSON-RPC codes), §3.3.2 (the generic categories, for the HTTP/gRPC side of the standard errors),
§10.6/§11.6 (``ErrorInfo`` with domain ``a2a-protocol.org`` and the reason rule). For the standard
JSON-RPC errors the spec fixes no reason string; the table carries the SDK's and marks it
non-normative (``reason_normative=False``).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final, Literal

from google.protobuf import any_pb2
from google.protobuf.json_format import MessageToDict
from google.rpc import error_details_pb2, status_pb2

from conformance import revision

DOMAIN: Final = "a2a-protocol.org"
ERROR_INFO_TYPE: Final = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE: Final = "type.googleapis.com/google.rpc.BadRequest"
GRPC_STATUS_DETAILS_KEY: Final = "grpc-status-details-bin"

ViewBinding = Literal["JSONRPC", "HTTP+JSON", "GRPC"]


@dataclass(frozen=True)
class ErrorSpec:
    """How one A2A error must look on each binding."""

    name: str
    jsonrpc_code: int
    http_status: int
    grpc_status: str
    reason: str | None
    a2a_specific: bool
    reason_normative: bool
    domain: str = DOMAIN


def _a2a(name: str, code: int, http: int, grpc: str) -> ErrorSpec:
    # §10.6/§11.6: reason = the type name in UPPER_SNAKE_CASE without the "Error" suffix.
    return ErrorSpec(name, code, http, grpc, reason_for(name), a2a_specific=True, reason_normative=True)


def _std(name: str, code: int, http: int, grpc: str, sdk_reason: str | None) -> ErrorSpec:
    return ErrorSpec(name, code, http, grpc, sdk_reason, a2a_specific=False, reason_normative=False)


def reason_for(error_name: str) -> str:
    """``TaskNotCancelableError`` -> ``TASK_NOT_CANCELABLE`` (the spec's reason rule)."""
    base = error_name.removesuffix("Error")
    out: list[str] = []
    for i, ch in enumerate(base):
        if (
            ch.isupper()
            and i
            and (not base[i - 1].isupper() or (i + 1 < len(base) and base[i + 1].islower()))
        ):
            out.append("_")
        out.append(ch.upper())
    return "".join(out)


#: The table of A2A v1.0.1 (:data:`TABLES` holds each revision's). A2A-specific rows: spec §5.4. Standard
#: rows: codes from §9.5, HTTP/gRPC from §3.3.2 and the SDK (a parse failure is a validation error: 400 /
#: INVALID_ARGUMENT).
ERRORS: Final[tuple[ErrorSpec, ...]] = (
    _a2a("TaskNotFoundError", -32001, 404, "NOT_FOUND"),
    _a2a("TaskNotCancelableError", -32002, 400, "FAILED_PRECONDITION"),
    _a2a("PushNotificationNotSupportedError", -32003, 400, "FAILED_PRECONDITION"),
    _a2a("UnsupportedOperationError", -32004, 400, "FAILED_PRECONDITION"),
    _a2a("ContentTypeNotSupportedError", -32005, 400, "INVALID_ARGUMENT"),
    _a2a("InvalidAgentResponseError", -32006, 500, "INTERNAL"),
    _a2a("ExtendedAgentCardNotConfiguredError", -32007, 400, "FAILED_PRECONDITION"),
    _a2a("ExtensionSupportRequiredError", -32008, 400, "FAILED_PRECONDITION"),
    _a2a("VersionNotSupportedError", -32009, 400, "FAILED_PRECONDITION"),
    _std("JSONParseError", -32700, 400, "INVALID_ARGUMENT", None),
    _std("InvalidRequestError", -32600, 400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    _std("MethodNotFoundError", -32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND"),
    _std("InvalidParamsError", -32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
    _std("InternalError", -32603, 500, "INTERNAL", "INTERNAL_ERROR"),
)

BY_NAME: Final[Mapping[str, ErrorSpec]] = MappingProxyType({e.name: e for e in ERRORS})
BY_JSONRPC_CODE: Final[Mapping[int, ErrorSpec]] = MappingProxyType({e.jsonrpc_code: e for e in ERRORS})
BY_REASON: Final[Mapping[str, ErrorSpec]] = MappingProxyType({e.reason: e for e in ERRORS if e.reason})


@dataclass(frozen=True)
class ErrorTable:
    """The error table and the HTTP+JSON media type of one revision of the A2A text."""

    revision: str
    errors: tuple[ErrorSpec, ...]
    #: What HTTP+JSON requests and answers are labelled with (§11.1).
    rest_media_type: str

    @property
    def by_name(self) -> Mapping[str, ErrorSpec]:
        return MappingProxyType({e.name: e for e in self.errors})

    @property
    def by_jsonrpc_code(self) -> Mapping[int, ErrorSpec]:
        return MappingProxyType({e.jsonrpc_code: e for e in self.errors})

    @property
    def by_reason(self) -> Mapping[str, ErrorSpec]:
        return MappingProxyType({e.reason: e for e in self.errors if e.reason})


def _v1_0_0(spec: ErrorSpec) -> ErrorSpec:
    """``spec`` as the A2A v1.0.0 text's §5.4 had it: six cells differ from v1.0.1."""
    http = {"TaskNotCancelableError": 409, "ContentTypeNotSupportedError": 415, "InvalidAgentResponseError": 502}
    unimplemented = ("PushNotificationNotSupportedError", "UnsupportedOperationError", "VersionNotSupportedError")
    return replace(spec, http_status=http.get(spec.name, spec.http_status),
                   grpc_status="UNIMPLEMENTED" if spec.name in unimplemented else spec.grpc_status)


#: The table of each revision the harness carries (:mod:`conformance.revision`).
TABLES: Final[Mapping[str, ErrorTable]] = MappingProxyType({
    "1.0.0": ErrorTable("1.0.0", tuple(_v1_0_0(e) for e in ERRORS), "application/json"),
    "1.0.1": ErrorTable("1.0.1", ERRORS, "application/a2a+json"),
})


def current() -> ErrorTable:
    """The table of the revision this process judges by (``--spec-revision``; default the newest)."""
    return TABLES[revision.selected()]


@dataclass(frozen=True)
class FieldViolation:
    field: str
    description: str


@dataclass(frozen=True)
class ErrorView:
    """An error as a target sent it, normalised across bindings. Each binding fills what it
    carries: JSON-RPC ``code``; REST ``http_status`` (and the ``status`` string as
    ``grpc_status``); gRPC ``grpc_status``. ``reason``/``domain``/``metadata`` come from the first
    ``google.rpc.ErrorInfo`` detail, ``field_violations`` from every ``google.rpc.BadRequest``."""

    binding: ViewBinding
    code: int | None
    http_status: int | None
    grpc_status: str | None
    reason: str | None
    domain: str | None
    metadata: Mapping[str, Any]
    field_violations: tuple[FieldViolation, ...]
    message: str | None
    details: tuple[Any, ...] = field(default_factory=tuple)
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def has_error_info(self) -> bool:
        return self.reason is not None

    def mismatches(self, spec: ErrorSpec, *, require_error_info: bool | None = None) -> list[str]:
        """Every way this error differs from ``spec`` on its binding (empty list = matches).

        ``ErrorInfo`` (reason and domain) is required by default for A2A-specific errors only.
        """
        need_info = spec.a2a_specific if require_error_info is None else require_error_info
        out: list[str] = []
        if self.binding == "JSONRPC" and self.code != spec.jsonrpc_code:
            out.append(f"JSON-RPC code {self.code!r}, expected {spec.jsonrpc_code} ({spec.name})")
        if self.binding == "HTTP+JSON" and self.http_status != spec.http_status:
            out.append(f"HTTP status {self.http_status!r}, expected {spec.http_status} ({spec.name})")
        if self.binding == "GRPC" and self.grpc_status != spec.grpc_status:
            out.append(f"gRPC status {self.grpc_status!r}, expected {spec.grpc_status} ({spec.name})")
        if need_info:
            if self.reason is None:
                out.append(f"no google.rpc.ErrorInfo detail (expected reason {spec.reason!r})")
            else:
                if spec.reason is not None and self.reason != spec.reason:
                    out.append(f"ErrorInfo.reason {self.reason!r}, expected {spec.reason!r}")
                if self.domain != spec.domain:
                    out.append(f"ErrorInfo.domain {self.domain!r}, expected {spec.domain!r}")
        return out


def from_jsonrpc(error: Any) -> ErrorView:
    """View of a JSON-RPC ``error`` member (``error.data`` is the list of typed details)."""
    problems: list[str] = []
    if not isinstance(error, Mapping):
        return _view("JSONRPC", None, None, None, None, [], (f"error is not an object: {error!r}",))
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        problems.append(f"error.code is not an integer: {code!r}")
        code = None
    data = error.get("data")
    details: list[Any]
    if data is None:
        details = []
    elif isinstance(data, list):
        details = data
    else:
        problems.append("error.data is not an array of typed details")
        details = [data]
    msg = error.get("message")
    return _view("JSONRPC", code, None, None, msg if isinstance(msg, str) else None, details, tuple(problems))


def from_rest(http_status: int, body: Any) -> ErrorView:
    """View of an HTTP+JSON error answer: ``{"error": {code, status, message, details}}``. A body that is
    the status object itself, unwrapped, is still read (its form is listed in ``problems``: the error body
    row judges it, the rows about which error came do not)."""
    problems: list[str] = []
    err = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(err, Mapping):
        problems.append("body has no error object")
        flat = isinstance(body, Mapping) and any(k in body for k in ("status", "details", "message"))
        err = body if flat else {}
    details = err.get("details") or []
    if not isinstance(details, list):
        problems.append("error.details is not an array")
        details = [details]
    code = err.get("code")
    if code is not None and code != http_status:
        problems.append(f"error.code {code!r} differs from the HTTP status {http_status}")
    status = err.get("status")
    msg = err.get("message")
    return _view(
        "HTTP+JSON",
        None,
        http_status,
        status if isinstance(status, str) else None,
        msg if isinstance(msg, str) else None,
        details,
        tuple(problems),
    )


def from_grpc(code_name: str, message: str | None, status: status_pb2.Status | None = None) -> ErrorView:
    """View of a gRPC error: the status code name, its details text and the decoded
    ``google.rpc.Status`` from ``grpc-status-details-bin`` (``None`` when absent)."""
    details = [any_to_dict(d) for d in status.details] if status is not None else []
    return _view("GRPC", None, None, code_name, message, details, ())


def status_from_metadata(metadata: Sequence[tuple[str, str | bytes]]) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` carried in trailing metadata, or ``None``."""
    for key, value in metadata:
        if key == GRPC_STATUS_DETAILS_KEY:
            raw = value if isinstance(value, bytes) else base64.b64decode(value + "==")
            st = status_pb2.Status()
            st.ParseFromString(raw)
            return st
    return None


def any_to_dict(detail: any_pb2.Any) -> dict[str, Any]:
    """A packed detail as ProtoJSON with its ``@type`` (ErrorInfo and BadRequest decoded)."""
    for cls in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
        if detail.Is(cls.DESCRIPTOR):
            msg = cls()
            detail.Unpack(msg)
            return {"@type": detail.type_url, **MessageToDict(msg)}
    return {"@type": detail.type_url, "value": base64.b64encode(detail.value).decode("ascii")}


def _view(
    binding: ViewBinding,
    code: int | None,
    http_status: int | None,
    grpc_status: str | None,
    message: str | None,
    details: list[Any],
    problems: tuple[str, ...],
) -> ErrorView:
    info: Mapping[str, Any] | None = None
    violations: list[FieldViolation] = []
    for d in details:
        if not isinstance(d, Mapping):
            continue
        if d.get("@type") == ERROR_INFO_TYPE and info is None:
            info = d
        elif d.get("@type") == BAD_REQUEST_TYPE:
            for v in d.get("fieldViolations") or d.get("field_violations") or []:
                if isinstance(v, Mapping):
                    violations.append(FieldViolation(str(v.get("field", "")), str(v.get("description", ""))))
    meta = info.get("metadata") if info is not None else None
    return ErrorView(
        binding=binding,
        code=code,
        http_status=http_status,
        grpc_status=grpc_status,
        reason=_str_or_none(info.get("reason")) if info is not None else None,
        domain=_str_or_none(info.get("domain")) if info is not None else None,
        metadata=dict(meta) if isinstance(meta, Mapping) else {},
        field_violations=tuple(violations),
        message=message,
        details=tuple(details),
        problems=problems,
    )


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None
