"""Reading a CLI's output by the specification's rules only (SPEC.md §11, Appendix B).

The spec fixes no text labels, so checks find identifiers by *value* (the scripted agent knows the
taskId it assigned) and states in any of their spellings. These readers never guess: each returns
what it found plus a list of problems, and checks assert on both.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from conformance.judge import blocked_by
from conformance.registry import default_registry

#: Terminal control sequences and other C0 controls a text floor must not carry (tab and LF allowed).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\x9b")
_FIELD = re.compile(r"^([^\s:][^:]*?):(?: (.*))?$")
#: Terminal escape sequences as a whole: CSI (colours, cursor moves), OSC (titles, links), and two-byte escapes.
_ESCAPES = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


def error_codes() -> tuple[str, ...]:
    """The Appendix D codes, from the registry (the one place they are written down)."""
    info = default_registry().families["a2acli"]
    return tuple(info.breakdowns.get("error_codes") or ())


@dataclass
class TextDoc:
    fields: list[tuple[str, str]] = field(default_factory=list)
    blocks: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [k for k, _ in self.fields]

    def values(self) -> list[str]:
        return [v for _, v in self.fields]

    def label_of_value(self, value: str) -> str | None:
        """The label of the first field whose value contains ``value`` (ids are found by value)."""
        for k, v in self.fields:
            if value and value in v:
                return k
        return None

    def text(self) -> str:
        return "\n".join([f"{k}: {v}" for k, v in self.fields] + [c for _, c in self.blocks])


def control_sequences(text: str) -> list[str]:
    """Every terminal control character or escape sequence in ``text`` (repr'd for a message)."""
    return [repr(m.group(0)) for m in _CONTROL.finditer(text)]


def without_escapes(text: str) -> str:
    """``text`` with its terminal escape sequences taken out: what a reader sees on a terminal. The
    readers that find a state or an identifier use it, so a colour (OUT_005's to judge, on the raw
    output) never hides what another row looks for."""
    return _ESCAPES.sub("", text)


def parse_text_floor(text: str) -> TextDoc:
    """Read ``Label: value`` fields and ``Label:`` blocks (closed by a blank line) per §11.2."""
    doc = TextDoc()
    ctrl = control_sequences(text)
    if ctrl:
        doc.problems.append(f"terminal control characters in text output: {', '.join(ctrl[:5])}")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        if line == "":
            i += 1
            continue
        m = _FIELD.match(line)
        if not m:
            doc.problems.append(f"line {i + 1} is neither a 'Label: value' field nor a block label: {line!r}")
            i += 1
            continue
        label, value = m.group(1), m.group(2)
        if value is None or value == "":
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i].rstrip("\r") != "":
                body.append(lines[i].rstrip("\r"))
                i += 1
            if i >= len(lines) and body:
                doc.problems.append(f"block {label!r} is not closed by a blank line")
            doc.blocks.append((label, "\n".join(body)))
            continue
        doc.fields.append((label, value))
        i += 1
    return doc


def parse_json_document(stdout: str) -> tuple[Any, str | None]:
    """Exactly one JSON document on stdout, or a problem saying what else was there."""
    text = stdout.strip()
    if not text:
        return None, "stdout is empty; expected one JSON document"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        decoder = json.JSONDecoder()
        try:
            _, end = decoder.raw_decode(text)
        except json.JSONDecodeError:
            return None, f"stdout is not JSON ({exc}): {text[:200]!r}"
        return None, f"{SEVERAL_DOCUMENTS} (extra data at char {end}): {text[:200]!r}"


#: The row whose text asks `-o json` for one document (the terminal protocol object), not an event log.
ONE_DOCUMENT_ROW = "A2ACLI_OUT_002"
SEVERAL_DOCUMENTS = "stdout holds more than one JSON document"


def one_json_document(stdout: str) -> tuple[Any, str | None]:
    """:func:`parse_json_document` for a check that reads `-o json` output for what it carries: stdout holding
    several JSON documents (an event log) ends the check blocked by A2ACLI_OUT_002, whose text that breaks;
    what the documents carry is the calling row's question only once there is one document to read."""
    doc, problem = parse_json_document(stdout)
    if several_documents(problem):
        blocked_by(ONE_DOCUMENT_ROW, str(problem))
    return doc, problem


#: The row whose text makes human-readable text the default output (SPEC.md §6.5), and its part.
TEXT_DEFAULT_ROW = "A2ACLI_DEFAULT_001"
TEXT_DEFAULT_PART = "output_human_readable_text"
_OUTPUT_FLAGS = ("-o", "--output")


def json_by_default(spec_args: Sequence[str], stdout: str) -> str | None:
    """What shows the tool printed JSON where its default output (no ``-o``/``--output`` given) should be
    text, or None: stdout is one JSON object or array, or JSON lines. Positive evidence that a check
    reading the default output as text reads something DEFAULT_001 already gets wrong."""
    if any(a in _OUTPUT_FLAGS or a.startswith("--output=") for a in spec_args):
        return None
    text = stdout.strip()
    if not text.startswith(("{", "[")):
        return None
    doc, problem = parse_json_document(text)
    if problem is None and isinstance(doc, (dict, list)):
        return f"with no --output flag the tool printed a JSON {'object' if isinstance(doc, dict) else 'array'}"
    objs, problems = parse_jsonl(text + "\n")
    if objs and not problems:
        return f"with no --output flag the tool printed {len(objs)} JSON lines"
    return None


def json_sequence(stdout: str) -> list[Any] | None:
    """The JSON values stdout holds one after another (whatever the whitespace between them), or None when
    something else is on it: stdout that is JSON throughout, though perhaps not one value per line."""
    decoder = json.JSONDecoder()
    text, i = stdout, 0
    out: list[Any] = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out or None
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return None
        out.append(value)


def several_documents(problem: str | None) -> bool:
    """Whether a :func:`parse_json_document` problem is stdout holding more than one document (OUT_002's)."""
    return problem is not None and problem.startswith(SEVERAL_DOCUMENTS)


def parse_jsonl(stdout: str) -> tuple[list[Any], list[str]]:
    """One complete JSON object per line (§11.3); problems name each bad line."""
    objs: list[Any] = []
    problems: list[str] = []
    lines = stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        problems.append("the last JSONL line is not terminated by a newline")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            problems.append(f"line {n} is blank")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n} is not a complete JSON value ({exc}): {line[:120]!r}")
            continue
        if not isinstance(obj, dict):
            problems.append(f"line {n} is not a JSON object: {line[:120]!r}")
        objs.append(obj)
    if not lines:
        problems.append("no JSONL lines on stdout")
    return objs, problems


def error_envelope(obj: Any, name_codes: bool = True) -> tuple[dict[str, Any] | None, list[str]]:
    """The Appendix B error envelope inside ``obj``, with every shape problem found. ``name_codes=False``
    leaves out which name the code has (an ``A2ACLI_ERR_`` code outside Appendix D): that is the naming
    row's (A2ACLI_OUT_004) question, not a row's that only asks for the envelope."""
    if not isinstance(obj, dict) or "error" not in obj:
        return None, ["not an error envelope: no top-level 'error' member"]
    err = obj["error"]
    problems: list[str] = []
    if not isinstance(err, dict):
        return None, [f"'error' is not an object: {err!r}"]
    if not isinstance(err.get("code"), str) or not err.get("code"):
        problems.append(f"error.code must be a non-empty string, got {err.get('code')!r}")
    if not isinstance(err.get("message"), str) or not err.get("message"):
        problems.append(f"error.message must be a non-empty string, got {err.get('message')!r}")
    if "hint" in err and err["hint"] is not None and not isinstance(err["hint"], str):
        problems.append(f"error.hint must be a string or null, got {err['hint']!r}")
    if "a2aCode" in err and err["a2aCode"] is not None and not isinstance(err["a2aCode"], str | int):
        problems.append(f"error.a2aCode must be a string, number or null, got {err['a2aCode']!r}")
    code = err.get("code")
    if name_codes and isinstance(code, str) and code.startswith("A2ACLI_ERR_") and code not in error_codes():
        problems.append(f"error.code {code!r} is in the A2ACLI_ERR_ namespace but not in Appendix D")
    return err, problems


def find_error_envelope(stdout: str, stderr: str) -> tuple[dict[str, Any] | None, str]:
    """Look for the error envelope on stdout (json modes), then on stderr: the whole stream, or a JSON object
    starting at the beginning of any line (a notice line before a pretty-printed envelope does not hide it:
    which stream carries what is OUT_001's question)."""
    decoder = json.JSONDecoder()
    for where, text in (("stdout", stdout), ("stderr", stderr)):
        stripped = text.strip()
        starts = [0] + [m.start(1) for m in re.finditer(r"\n[ \t]*(\{)", stripped)]
        for start in starts:
            try:
                obj, _ = decoder.raw_decode(stripped[start:])
            except (json.JSONDecodeError, ValueError):
                continue
            env, _ = error_envelope(obj)
            if env is not None:
                return env, where
    return None, ""


_STATE_WORDS = re.compile(r"[^a-z]")


def state_matches(text: str, state: str) -> bool:
    """Does ``text`` name ``state`` (``TASK_STATE_INPUT_REQUIRED``) in a recognisable spelling?"""
    short = state.removeprefix("TASK_STATE_")
    wanted = {state.lower(), short.lower(), short.lower().replace("_", "-"), short.lower().replace("_", " "),
              short.lower().replace("_", "")}
    t = without_escapes(text).lower()
    return any(re.search(rf"(?<![a-z_-]){re.escape(w)}(?![a-z_-])", t) for w in wanted)


def json_find(obj: Any, key: str) -> list[Any]:
    """Every value under ``key`` anywhere in a JSON structure."""
    out: list[Any] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                out.append(v)
            out.extend(json_find(v, key))
    elif isinstance(obj, list):
        for v in obj:
            out.extend(json_find(v, key))
    return out


def secret_forms(secret: str) -> dict[str, str]:
    """Recognisable forms of ``secret`` in text: raw, percent-encoded, and base64 at each byte
    alignment (so a ``Basic`` header or any base64 blob containing it is found)."""
    forms = {"raw": secret, "percent-encoded": quote(secret, safe="")}
    raw = secret.encode()
    for pad in range(3):
        # Encode the secret as if it started `pad` bytes into a blob; keep only the base64 groups made
        # of secret bytes alone, which appear verbatim whatever precedes or follows the secret.
        enc = base64.b64encode(b"x" * pad + raw).decode()
        start = 4 if pad else 0
        core = enc[start:((pad + len(raw)) // 3) * 4]
        if len(core) >= 12:
            forms[f"base64 (offset {pad})"] = core
    return forms


def has_token(text: str, value: str) -> bool:
    """Does ``value`` (an identifier) appear in ``text`` whole, not as part of a longer identifier?

    Identifiers are found by value (the agent knows the ids it made); a copy-pasteable id is one a
    reader can select on its own, so it must be delimited by something that is not an identifier
    character (letters, digits, ``-``, ``_``, ``.``).
    """
    if not value:
        return False
    return re.search(rf"(?<![A-Za-z0-9_.-]){re.escape(value)}(?![A-Za-z0-9_-])", without_escapes(text)) is not None
