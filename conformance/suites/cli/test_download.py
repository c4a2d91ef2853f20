"""`task download` (SPEC.md §7.1, §10.2) on a task whose artifacts hold every kind of part and hostile names.

The tool runs in a fresh target folder three levels below a scratch directory. It must save the text
part, the data part (as JSON), the raw-bytes part bit for bit, and the URL part (fetched, bit for bit,
or its URL recorded), and it must not write any file outside the target folder whatever names the
agent gives (`../../x`, an absolute path under the system temporary directory, ...): a hostile part is
either saved under a sanitised name inside the folder or refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.clicheck.invocations import AgentMaker, Cli
from conformance.fixtures.scripted_agent import TaskFlow
from conformance.fixtures.scripted_agent.downloads import DownloadSet, download_script
from conformance.judge import shown, unique

pytestmark = pytest.mark.depends_on("A2ACLI_CARD_GET_001")


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def _absolute_target(dl: DownloadSet) -> Path:
    (absolute,) = [Path(n) for n in dl.hostile if n.startswith("/")]
    return absolute


def _as_json(content: bytes) -> object:
    try:
        return json.loads(content)
    except ValueError:
        return None


@pytest.mark.requirement("A2ACLI_DOWNLOAD_001")
def test_task_download_saves_every_part_exactly_and_nothing_outside_the_folder(
    cli: Cli, agent: AgentMaker, tmp_path: Path
) -> None:
    """One `task download <id>` in an empty folder: text, data (as JSON), raw bytes (bit-exact) and the
    URL part (fetched bit-exact, or recorded) are saved inside it, and no file lands outside it.
    Catches names trusted as paths (`../../x`, absolute) and bytes transcoded on the way to disk.
    """
    tag = unique("dl").rsplit("-", 1)[-1]
    dl = download_script(tag)
    a = agent(dl.script)
    flow = dl.script.send
    assert isinstance(flow, TaskFlow)
    rec = a.add_task(flow)
    target = tmp_path / "scratch" / "inner" / "target"
    target.mkdir(parents=True)
    absolute = _absolute_target(dl)
    try:
        r = cli.run("task", "download", rec.id, "-a", a.base_url, cwd=str(target))
        escaped_abs = absolute.exists()
    finally:
        shutil.rmtree(absolute.parent, ignore_errors=True)
    inside = _files(target)
    outside = {p: c for p, c in _files(tmp_path).items() if target not in p.parents}
    cli.evidence.add("downloaded files", {
        "inside": {str(p.relative_to(target)): len(c) for p, c in inside.items()},
        "outside": [str(p) for p in outside] + ([str(absolute)] if escaped_abs else []),
    })
    assert not escaped_abs, f"task download wrote {absolute}, the absolute path an artifact named; {shown(r)}"
    assert not outside, (f"task download wrote outside its folder {target}: {sorted(map(str, outside))}; "
                         f"{shown(r)}")
    names = sorted(str(p.relative_to(target)) for p in inside)
    raw_name = f"raw-{tag}.bin"
    assert dl.files[raw_name] in inside.values(), (
        f"task download saved no file holding the raw part's {len(dl.files[raw_name])} bytes exactly "
        f"(saved: {names}); {shown(r)}")
    assert any(c.decode("utf-8", "replace").rstrip("\r\n") == dl.text for c in inside.values()), (
        f"task download saved no file holding the text part {dl.text!r} (saved: {names}); {shown(r)}")
    assert any(_as_json(c) == dl.data for c in inside.values()), (
        f"task download saved no file holding the data part as JSON {dl.data!r} (saved: {names}); {shown(r)}")
    served_name = f"served-{tag}.bin"
    url = next(p["url"] for p in rec.to_json()["artifacts"][0]["parts"] if "url" in p)
    fetched = dl.files[served_name] in inside.values()
    recorded = url in r.stdout_text or any(url.encode() in c for c in inside.values())
    assert fetched or recorded, (
        f"the URL part {url} was neither saved with its exact bytes nor recorded (saved: {names}); {shown(r)}")
