"""The strict second reader: parse a target's JSON into the official a2a-sdk proto type and list
every way it departs from ProtoJSON and the A2A required fields.

Three passes, all reported together (never just the first problem):

1. a walk of the raw JSON against the message descriptor, for what ``ParseDict`` lets through or
   stops at: enums given as numbers, snake_case names where ProtoJSON uses camelCase, one field in
   two spellings, ``null`` values, a oneof with no member (an empty Part ``{}``) or two members,
   ``bytes`` that are not base64, unknown fields and wrong JSON types;
2. ``google.protobuf.json_format.ParseDict`` without ``ignore_unknown_fields``;
3. the SDK's required-field validation (``a2a.utils.proto_utils.validate_proto_required_fields``).
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from a2a.utils.errors import InvalidParamsError
from a2a.utils.proto_utils import validate_proto_required_fields
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.json_format import ParseDict, ParseError
from google.protobuf.message import Message

#: Package whose oneofs always need exactly one member (Part.content, StreamResponse.payload, …).
A2A_PACKAGE = "lf.a2a.v1"

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_B64 = re.compile(r"^[A-Za-z0-9+/_-]*={0,2}$")
_INT_TYPES = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}  # fmt: skip
_FLOAT_TYPES = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE}
_STRING_WKT = {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"}


@dataclass(frozen=True)
class Violation:
    """One departure: where (JSON path from ``$``), the value found there, and what is wrong."""

    path: str
    value: Any
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem} (got {self.value!r})"


@dataclass
class StrictResult:
    """``message`` is the strictly parsed message (``None`` when ``ParseDict`` refused the JSON)."""

    message: Message | None
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.message is not None and not self.violations

    def summary(self) -> str:
        return "; ".join(str(v) for v in self.violations) or "no violations"


def _descriptor(message_type: type[Message]) -> Descriptor:
    """The message type's descriptor (its stubs also admit the upb implementation's, of the same interface)."""
    return cast(Descriptor, message_type.DESCRIPTOR)


def _message_of(fd: FieldDescriptor) -> Descriptor:
    """The message type of a message field (protobuf sets it exactly when the field's type is a message)."""
    return cast(Descriptor, fd.message_type)


def _enum_of(fd: FieldDescriptor) -> EnumDescriptor:
    """The enum type of an enum field (protobuf sets it exactly when the field's type is an enum)."""
    return cast(EnumDescriptor, fd.enum_type)


def read_strict(obj: Any, message_type: type[Message], *, path: str = "$") -> StrictResult:
    """Read ``obj`` (decoded JSON) as ``message_type`` and collect every violation.

    ``path`` is the JSON path of ``obj`` inside the payload it came from (e.g. ``$.result``).
    """
    out: list[Violation] = []
    _walk_message(obj, _descriptor(message_type), path, out)
    parsed = message_type()
    message: Message | None = parsed
    try:
        ParseDict(obj, parsed)
    except (ParseError, TypeError, ValueError, AttributeError) as exc:
        out.append(Violation(path, None, f"protobuf ParseDict refused it: {exc}"))
        message = None
    checked = message if message is not None else _lenient(obj, message_type)
    if checked is not None:
        try:
            validate_proto_required_fields(checked)
        except InvalidParamsError as exc:
            errors = (exc.data or {}).get("errors", [])
            for err in errors:
                if _sanctioned_empty(obj, message_type, err["field"]):
                    continue
                p = _json_path(path, _descriptor(message_type), err["field"])
                out.append(Violation(p, _lookup(obj, p, path), f"required field: {err['message']}"))
    return StrictResult(message, _dedupe(out))


#: Required fields whose empty value is itself valid, when present: the specification requires
#: ListTasksResponse.nextPageToken present and "" on the final page (A2A §3.1.4), and a listing with
#: no tasks has an empty ``tasks`` and zero sizes. The SDK's validator counts these as missing; a
#: field absent from the JSON is still reported.
_EMPTY_ALLOWED = {
    ("ListTasksResponse", "next_page_token"): ("nextPageToken", ""),
    ("ListTasksResponse", "tasks"): ("tasks", []),
    ("ListTasksResponse", "page_size"): ("pageSize", 0),
    ("ListTasksResponse", "total_size"): ("totalSize", 0),
}


def _sanctioned_empty(obj: Any, message_type: type[Message], sdk_field: str) -> bool:
    """Is this "missing" required field present in the JSON with an empty value the spec allows?"""
    allowed = _EMPTY_ALLOWED.get((message_type.DESCRIPTOR.name, sdk_field))
    if allowed is None or not isinstance(obj, dict):
        return False
    json_name, empty = allowed
    sentinel = object()
    value = obj.get(json_name, obj.get(sdk_field, sentinel))
    return value is not sentinel and value == empty and type(value) is type(empty)


def _lenient(obj: Any, message_type: type[Message]) -> Message | None:
    """Parse a repaired copy (values ParseDict cannot take removed) so the required-field check
    still runs on a document that the strict parse refused."""
    fixed = copy.deepcopy(obj)
    _repair(fixed, _descriptor(message_type))
    msg = message_type()
    try:
        ParseDict(fixed, msg, ignore_unknown_fields=True)
    except Exception:  # noqa: BLE001 - the strict pass already reported why
        return None
    return msg


def _fatal(value: Any, fd: FieldDescriptor) -> bool:
    """Would ``ParseDict`` refuse this value for this (singular) field?"""
    probe: list[Violation] = []
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if _message_of(fd).full_name.startswith("google.protobuf."):
            _walk_message(value, _message_of(fd), "", probe)
            return bool(probe)
        return not isinstance(value, dict)
    _walk_single(value, fd, "", probe)
    return any("given as a number" not in v.problem for v in probe)


def _default(fd: FieldDescriptor) -> Any:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return {}
    if fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return ""
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return False
    return 0


def _repair(obj: Any, desc: Descriptor) -> None:
    """Remove, in place, every value under ``obj`` that would make ``ParseDict`` fail."""
    if not isinstance(obj, dict) or desc.full_name.startswith("google.protobuf."):
        return
    by_json = {f.json_name: f for f in desc.fields}
    by_name = {f.name: f for f in desc.fields}
    oneofs_taken: set[str] = set()
    for key in list(obj):
        fd = by_json.get(key) or by_name.get(key)
        value = obj[key]
        if fd is None or (value is None and not _is_value_field(fd)):
            del obj[key]
            continue
        oneof = fd.containing_oneof
        if oneof is not None and not _synthetic(oneof):
            if oneof.name in oneofs_taken:
                del obj[key]
                continue
            oneofs_taken.add(oneof.name)
        if _is_map(fd):
            vfd = _message_of(fd).fields_by_name["value"]
            if not isinstance(value, dict):
                del obj[key]
                continue
            for k in list(value):
                if (value[k] is None and not _is_value_field(vfd)) or _fatal(value[k], vfd):
                    del value[k]
                elif vfd.type == FieldDescriptor.TYPE_MESSAGE:
                    _repair(value[k], _message_of(vfd))
        elif _is_repeated(fd):
            if not isinstance(value, list):
                del obj[key]
                continue
            for i, item in enumerate(value):
                if item is None or _fatal(item, fd):
                    value[i] = _default(fd)
                elif fd.type == FieldDescriptor.TYPE_MESSAGE:
                    _repair(item, _message_of(fd))
        elif value is not None and _fatal(value, fd):
            del obj[key]
        elif fd.type == FieldDescriptor.TYPE_MESSAGE:
            _repair(value, _message_of(fd))


def _dedupe(items: list[Violation]) -> list[Violation]:
    seen: set[tuple[str, str]] = set()
    out: list[Violation] = []
    for v in items:
        key = (v.path, v.problem)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENT.match(key) else f'{path}["{key}"]'


def _walk_message(obj: Any, desc: Descriptor, path: str, out: list[Violation]) -> None:
    name = desc.full_name
    if name == "google.protobuf.Value":
        return
    if name == "google.protobuf.Struct":
        if not isinstance(obj, dict):
            out.append(Violation(path, obj, "expected a JSON object (google.protobuf.Struct)"))
        return
    if name == "google.protobuf.ListValue":
        if not isinstance(obj, list):
            out.append(Violation(path, obj, "expected a JSON array (google.protobuf.ListValue)"))
        return
    if name in _STRING_WKT:
        if not isinstance(obj, str):
            out.append(Violation(path, obj, f"expected a string ({name})"))
        return
    if name.startswith("google.protobuf."):
        return  # wrappers, Any, Empty: ParseDict's own rules apply
    if not isinstance(obj, dict):
        out.append(Violation(path, obj, f"expected a JSON object ({desc.name})"))
        return
    by_json = {f.json_name: f for f in desc.fields}
    by_name = {f.name: f for f in desc.fields}
    used: dict[str, str] = {}
    present: set[str] = set()
    for key, value in obj.items():
        here = _child(path, key)
        fd = by_json.get(key) or by_name.get(key)
        if fd is None:
            out.append(Violation(here, value, f"unknown field {key!r} in {desc.name}"))
            continue
        if key != fd.json_name:
            out.append(
                Violation(here, value, f"proto field name {key!r}; ProtoJSON name is {fd.json_name!r}")
            )
        if fd.name in used:
            out.append(Violation(here, value, f"field given twice: {used[fd.name]!r} and {key!r}"))
        used[fd.name] = key
        if value is None:
            if _is_value_field(fd):
                present.add(fd.name)  # JSON null is google.protobuf.Value's null_value
            else:
                out.append(Violation(here, None, "null value"))
            continue
        present.add(fd.name)
        _walk_field(value, fd, here, out)
    for oneof in desc.oneofs:
        if _synthetic(oneof):
            continue
        members = [f.name for f in oneof.fields if f.name in present]
        if len(members) > 1:
            out.append(Violation(path, obj, f"oneof {oneof.name!r} has several members set: {members}"))
        elif not members and desc.full_name.startswith(A2A_PACKAGE + "."):
            names = [f.json_name for f in oneof.fields]
            out.append(Violation(path, obj, f"oneof {oneof.name!r} has no member set (one of {names})"))


def _synthetic(oneof: Any) -> bool:
    synthetic = getattr(oneof, "is_synthetic", None)
    if synthetic is not None:
        return bool(synthetic() if callable(synthetic) else synthetic)
    return len(oneof.fields) == 1 and oneof.name == "_" + oneof.fields[0].name


def _is_value_field(fd: FieldDescriptor) -> bool:
    return (
        fd.message_type is not None
        and fd.message_type.full_name == "google.protobuf.Value"
        and not _is_repeated(fd)
    )


def _is_repeated(fd: FieldDescriptor) -> bool:
    rep = getattr(fd, "is_repeated", None)
    if rep is not None:
        return bool(rep)
    return bool(fd.label == FieldDescriptor.LABEL_REPEATED)  # type: ignore[attr-defined]  # older protobuf's


def _is_map(fd: FieldDescriptor) -> bool:
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry and _is_repeated(fd)


def _walk_field(value: Any, fd: FieldDescriptor, path: str, out: list[Violation]) -> None:
    if _is_map(fd):
        if not isinstance(value, dict):
            out.append(Violation(path, value, "expected a JSON object (map)"))
            return
        vfd = _message_of(fd).fields_by_name["value"]
        for k, v in value.items():
            here = _child(path, str(k))
            if v is None and not _is_value_field(vfd):
                out.append(Violation(here, None, "null value"))
            elif v is not None:
                _walk_single(v, vfd, here, out)
        return
    if _is_repeated(fd):
        if not isinstance(value, list):
            out.append(Violation(path, value, "expected a JSON array"))
            return
        for i, item in enumerate(value):
            here = f"{path}[{i}]"
            if item is None:
                out.append(Violation(here, None, "null value"))
            else:
                _walk_single(item, fd, here, out)
        return
    _walk_single(value, fd, path, out)


def _walk_single(value: Any, fd: FieldDescriptor, path: str, out: list[Violation]) -> None:
    t = fd.type
    if t == FieldDescriptor.TYPE_MESSAGE:
        _walk_message(value, _message_of(fd), path, out)
    elif t == FieldDescriptor.TYPE_ENUM:
        enum = _enum_of(fd)
        if isinstance(value, bool) or not isinstance(value, int | str):
            out.append(Violation(path, value, f"expected an enum name of {enum.name}"))
        elif isinstance(value, int):
            ev = enum.values_by_number.get(value)
            hint = f" ({ev.name})" if ev is not None else " (no such value)"
            out.append(
                Violation(path, value, f"enum {enum.name} given as a number{hint}; ProtoJSON uses the name")
            )
        elif value not in enum.values_by_name:
            out.append(Violation(path, value, f"unknown {enum.name} value"))
    elif t == FieldDescriptor.TYPE_BYTES:
        if not isinstance(value, str):
            out.append(Violation(path, value, "expected a base64 string (bytes)"))
        elif not _is_base64(value):
            out.append(Violation(path, value, "not valid base64 (bytes)"))
    elif t == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            out.append(Violation(path, value, "expected a string"))
    elif t == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            out.append(Violation(path, value, "expected true or false"))
    elif t in _INT_TYPES:
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and re.fullmatch(r"-?\d+", value) is not None
        )
        if not ok:
            out.append(Violation(path, value, "expected an integer"))
    elif t in _FLOAT_TYPES:
        ok = (isinstance(value, int | float) and not isinstance(value, bool)) or value in (
            "NaN", "Infinity", "-Infinity",
        )  # fmt: skip
        if not ok:
            out.append(Violation(path, value, "expected a number"))


def _is_base64(s: str) -> bool:
    """Standard or URL-safe base64, padding optional (what ProtoJSON readers must accept)."""
    if not _B64.match(s) or len(s.rstrip("=")) % 4 == 1:
        return False
    core = s.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        base64.b64decode(core + "=" * (-len(core) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


_SEGMENT = re.compile(r"([A-Za-z0-9_]+)((?:\[[^\]]*\])*)")


def _json_path(base: str, desc: Descriptor | None, sdk_field: str) -> str:
    """Turn the SDK's proto-name path (``history[0].message_id``) into a JSON path."""
    path = base
    for seg in sdk_field.split("."):
        m = _SEGMENT.fullmatch(seg)
        if m is None:
            return f"{path}.{seg}"
        name, idx = m.group(1), m.group(2)
        fd = desc.fields_by_name.get(name) if desc is not None else None
        path = _child(path, fd.json_name if fd is not None else name)
        for key in re.findall(r"\[([^\]]*)\]", idx):
            path = f"{path}[{key}]" if key.isdigit() else _child(path, key)
        if fd is not None and fd.message_type is not None:
            desc = fd.message_type
            if _is_map(fd):
                vfd = desc.fields_by_name["value"]
                desc = vfd.message_type
        else:
            desc = None
    return path


def _lookup(obj: Any, path: str, base: str) -> Any:
    """The value at ``path`` in ``obj`` (``None`` when absent)."""
    rest = path[len(base) :]
    cur = obj
    for m in re.finditer(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\["([^"]*)"\]', rest):
        key = m.group(1) or m.group(3)
        if key is not None:
            cur = cur.get(key) if isinstance(cur, Mapping) else None
        else:
            i = int(m.group(2))
            cur = cur[i] if isinstance(cur, list) and i < len(cur) else None
        if cur is None:
            return None
    return cur


# ---- the lenient reading shared steps use -------------------------------------------------------------


def lenient(obj: Any, message_type: type[Message]) -> Any:
    """A copy of ``obj`` as a tolerant ProtoJSON reader would understand it, for the checks that do not
    judge the data model themselves (DESIGN.md §2.11): a field given by its proto name
    (``status_update``) is read under its ProtoJSON name where that is not also present, and an enum
    value given as a number or in another spelling (``5``, ``task_state_completed``, ``completed``,
    ``input-required``) is read as its name. Nothing else changes: unknown members, timestamps, nulls
    and wrong types stay as they came, for the rows that judge them (:func:`read_strict` lists them)."""
    return _lenient_message(obj, _descriptor(message_type))


def _lenient_message(obj: Any, desc: Descriptor) -> Any:
    if not isinstance(obj, dict) or desc.full_name.startswith("google.protobuf."):
        return obj
    by_json = {f.json_name: f for f in desc.fields}
    by_name = {f.name: f for f in desc.fields}
    out: dict[str, Any] = {}
    for key, value in obj.items():
        fd = by_json.get(key) or by_name.get(key)
        if fd is None:
            out.setdefault(key, value)
            continue
        name = key if key == fd.json_name or fd.json_name in obj else fd.json_name
        out[name] = _lenient_field(value, fd)
    return out


def _lenient_field(value: Any, fd: FieldDescriptor) -> Any:
    if _is_map(fd):
        vfd = _message_of(fd).fields_by_name["value"]
        return {k: _lenient_single(v, vfd) for k, v in value.items()} if isinstance(value, dict) else value
    if _is_repeated(fd):
        return [_lenient_single(v, fd) for v in value] if isinstance(value, list) else value
    return _lenient_single(value, fd)


def _lenient_single(value: Any, fd: FieldDescriptor) -> Any:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return _lenient_message(value, _message_of(fd))
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return enum_name(value, fd.enum_type)
    return value


def enum_name(value: Any, enum: Any) -> Any:
    """The name of enum ``enum``'s value ``value`` read tolerantly (its number; its name in any case, with
    ``-`` for ``_``, with or without the type's common prefix); ``value`` itself when none matches."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        ev = enum.values_by_number.get(value)
        return ev.name if ev is not None else value
    if not isinstance(value, str) or value in enum.values_by_name:
        return value
    spelled = value.strip().upper().replace("-", "_")
    names = list(enum.values_by_name)
    prefix = _common_prefix(names)
    for name in names:
        if spelled in (name, name[len(prefix):]):
            return name
    return value


def _common_prefix(names: list[str]) -> str:
    """The prefix every name shares, up to and including its last ``_`` (``TASK_STATE_``)."""
    if not names:
        return ""
    first, last = min(names), max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n][: first[:n].rfind("_") + 1]
