"""The error-code table (COMPLIANCE.md §8) from the run's own evidence: every ``A2ACLI_ERR_*`` code a
failed invocation of the tool stated — as the ``code`` of its JSON error envelope, or as the value of a
``Label: value`` field of its text output (SPEC.md Appendix B, §11.2) — reads "yes", whichever check
ran it. A code quoted anywhere else (a help text listing them, an argument) does not count."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_FIELD_CODE = re.compile(r"^[^:\n]+:[ \t]*(A2ACLI_ERR_[A-Z0-9_]+)[ \t]*\r?$", re.MULTILINE)


def _envelope_codes(text: str) -> Iterator[str]:
    docs: list[Any] = []
    try:
        docs.append(json.loads(text))
    except ValueError:
        for line in text.splitlines():
            try:
                docs.append(json.loads(line))
            except ValueError:
                continue
    for doc in docs:
        err = doc.get("error") if isinstance(doc, dict) else None
        code = err.get("code") if isinstance(err, dict) else None
        if isinstance(code, str) and code.startswith("A2ACLI_ERR_"):
            yield code


def stated_codes(stdout: str, stderr: str) -> set[str]:
    """The ``A2ACLI_ERR_*`` codes one failed invocation stated, in either output form."""
    found: set[str] = set()
    for text in (stdout, stderr):
        found.update(_FIELD_CODE.findall(text))
        found.update(_envelope_codes(text))
    return found


def _runs(doc: Any) -> Iterator[dict[str, Any]]:
    for att in (doc.get("attachments") or []) if isinstance(doc, dict) else []:
        data = att.get("data") if isinstance(att, dict) else None
        if isinstance(data, dict) and "exit_code" in data and ("stdout" in data or "stderr" in data):
            yield data


def codes_in_evidence(folder: Path, codes: Iterable[str]) -> dict[str, str]:
    """Code -> where the evidence under ``folder/evidence`` shows a failed invocation stating it."""
    wanted = set(codes)
    out: dict[str, str] = {}
    for path in sorted((folder / "evidence").rglob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        for run in _runs(doc):
            if run.get("exit_code") in (0, None):
                continue
            for code in sorted(stated_codes(str(run.get("stdout") or ""), str(run.get("stderr") or ""))):
                if code in wanted and code not in out:
                    out[code] = f"stated by a failed invocation (exit {run['exit_code']}): " \
                                f"{path.relative_to(folder).as_posix()}"
    return out
