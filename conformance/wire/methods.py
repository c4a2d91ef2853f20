"""The core A2A method names and their proto types, as the SDK defines them.

``CORE_METHODS`` is the JSON-RPC method table of a2a-sdk's dispatcher (``JsonRpcDispatcher.METHOD_TO_MODEL``)
in that table's order; request and response types and streaming-ness come from the gRPC service descriptor
in ``a2a.types.a2a_pb2``. The names are written here rather than read from the dispatcher: importing it
imports the SDK's server (starlette, pydantic, its routes), 0.6 s of every run's start-up for a table of
eleven names (issue 20). tests/test_wire_tables.py holds both to the dispatcher's table, names, order and
request types.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from a2a.types import a2a_pb2
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

_SERVICE: Final = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"]

#: Full gRPC service name, e.g. ``a2a.v1.A2AService``.
SERVICE_NAME: Final[str] = _SERVICE.full_name

#: The core method names, in the SDK dispatcher table's order.
CORE_METHODS: Final[tuple[str, ...]] = (
    "SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask",
    "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig", "SubscribeToTask", "GetExtendedAgentCard",
)

#: method name -> request proto class (JSON-RPC ``params`` / gRPC request).
REQUEST_TYPES: Final[Mapping[str, type[Message]]] = MappingProxyType(
    {m: GetMessageClass(_SERVICE.methods_by_name[m].input_type) for m in CORE_METHODS}
)

#: method name -> response proto class (JSON-RPC ``result`` / gRPC response / stream item).
RESPONSE_TYPES: Final[Mapping[str, type[Message]]] = MappingProxyType(
    {m.name: GetMessageClass(m.output_type) for m in _SERVICE.methods}
)

STREAMING_METHODS: Final[frozenset[str]] = frozenset(m.name for m in _SERVICE.methods if m.server_streaming)

#: Method names of the gRPC service (must equal ``CORE_METHODS`` as a set).
GRPC_METHODS: Final[tuple[str, ...]] = tuple(m.name for m in _SERVICE.methods)


def grpc_path(method: str) -> str:
    """The gRPC request path of ``method``: ``/a2a.v1.A2AService/<method>``."""
    return f"/{SERVICE_NAME}/{method}"
