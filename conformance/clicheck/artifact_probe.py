"""An artifact with one part of every kind, and the check that a CLI's text output shows them all.

Shared by the `send` and `task get` rendering checks (SPEC.md §10.2, §10.3): a text part must be
shown as text, a data part as JSON, a file part by name, media type and (inline bytes) size.
"""

from __future__ import annotations

import re

from conformance.cli.runner import CliResult
from conformance.clicheck.invocations import Cli
from conformance.fixtures.scripted_agent import ArtifactSpec, Data, Raw, Text, Url
from conformance.judge import shown, unique

#: Size of the inline file part; any size format ("423 bytes", "423 B") shows these digits.
RAW_SIZE = 423
_SIZE = re.compile(rf"(?<![0-9A-Za-z_-]){RAW_SIZE}(?![0-9a-f-])")


def all_kinds_artifact() -> tuple[ArtifactSpec, dict[str, str]]:
    """One artifact with a text, a data, an inline-file and a URL-file part; the values to find."""
    v = {
        "text": unique("artifact-text"),
        "data_key": unique("data-key"),
        "data_value": unique("data-value"),
        "raw_name": unique("inline") + ".bin",
        "raw_type": "application/x-conformance-raw",
        "url_name": unique("remote") + ".pdf",
        "url_type": "application/pdf",
    }
    parts = (
        Text(v["text"]),
        Data({v["data_key"]: v["data_value"]}),
        Raw(b"\x00" * RAW_SIZE, filename=v["raw_name"], media_type=v["raw_type"]),
        Url("http://127.0.0.1:9/files/remote.pdf", filename=v["url_name"], media_type=v["url_type"]),
    )
    return ArtifactSpec(parts=parts, name=unique("artifact")), v


def assert_every_part_rendered(cli: Cli, r: CliResult, v: dict[str, str]) -> None:
    """Every part of `all_kinds_artifact` is visible in the default (text) stdout: nothing dropped
    (AssertionError otherwise; blocked by A2ACLI_DEFAULT_001 when that output is JSON instead)."""
    out = cli.default_text(r)
    missing = [
        f"{k}={v[k]!r}"
        for k in ("text", "data_key", "data_value", "raw_name", "raw_type", "url_name", "url_type")
        if v[k] not in out
    ]
    if not _SIZE.search(out):
        missing.append(f"size of the inline file ({RAW_SIZE} bytes)")
    assert not missing, f"expected every artifact part rendered; missing: {', '.join(missing)}; {shown(r)}"
