"""Every exit code keeps its promise on bad input (issue 18 §5): a usage error is exit 2 and a target that cannot
be run is exit 3, each with exactly one line on stderr and no traceback, decided before any run starts.

The command runs in this process (``conformance.command.main``), one case at a time, from a folder holding the
bad inputs: each case is a parse or validation error, or a target that does not answer, so none starts a suite.
Every case names the word its one line must hold.
"""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.command import main

#: A targets file entry per way a target can be wrong as given.
TARGETS = {
    "img.yaml": "targets:\n  - name: x\n    kind: agent\n    container: {image: 'agentd-conformance-no-image:0'}\n",
    "no-exe.yaml": "targets:\n  - name: c\n    kind: cli\n    exe: /no/such/tool\n",
    "family.yaml": "targets:\n  - name: c\n    kind: cli\n    only: [A2A_CARD_001]\n",
    "fact.yaml": "targets:\n  - name: a\n    kind: agent\n    url: http://127.0.0.1:1\n    facts: {evnts: 'on'}\n",
    "short.yaml": "targets:\n  - name: c\n    kind: cli\n    env: {A2ACLI_BEARER: abc}\n",
    "ok.yaml": "targets:\n  - name: c\n    kind: cli\n",
    "revision.yaml": "targets:\n  - name: a\n    kind: agent\n    url: http://127.0.0.1:1\n    spec_revision: '2.0'\n",
    "unset.yaml": ("targets:\n  - name: a\n    kind: agent\n    container: {image: 'x:y', secret_env_from: "
                   "{KEY: CONFORMANCE_SURELY_UNSET_VARIABLE}}\n"),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of bad inputs: files that are not what a flag wants, and a closed port."""
    d = tmp_path_factory.mktemp("bad-inputs")
    (d / "noshebang").write_text("echo hi\n", encoding="utf-8")
    (d / "badinterp").write_text("#!/no/such/interpreter\necho hi\n", encoding="utf-8")
    for exe in ("noshebang", "badinterp"):
        (d / exe).chmod(0o755)
    (d / "afile").write_text("a file, not a folder\n", encoding="utf-8")
    (d / "adir").mkdir()
    (d / "notreport").mkdir()
    (d / "bad.yaml").write_text("a: [\n", encoding="utf-8")
    (d / "adapter.yaml").write_text("version: 3\ntool: x\n", encoding="utf-8")
    (d / "garbage.txt").write_text("no requirement rows here\n", encoding="utf-8")
    for name, text in TARGETS.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


R = ("--report-dir", "{report}")
#: (arguments, exit code, a word the one line on stderr holds).
CASES: list[tuple[tuple[str, ...], int, str]] = [
    # the command and its sub-commands
    ((), 2, "expected a command"),
    (("nope",), 2, "invalid choice"),
    (("--bogus",), 2, "--bogus"),
    (("report",), 2, "expected an action"),
    (("adapter",), 2, "expected an action"),
    (("image",), 2, "expected an action"),
    (("serve-agent", "--bogus"), 2, "--bogus"),
    # cli: the executable
    (("cli", "--exe", "/no/such/tool", *R), 2, "/no/such/tool"),
    (("cli", "--exe", "./noshebang", *R), 2, "Exec format error"),
    (("cli", "--exe", "./badinterp", *R), 2, "interpreter"),
    (("cli", "--exe", "", *R), 2, "empty command"),
    (("cli", "--exe", "a 'b", *R), 2, "cannot parse"),
    # cli: bounds, folders, scope
    (("cli", "--timeout", "0", *R), 2, "--timeout"),
    (("cli", "--timeout", "-5", *R), 2, "--timeout"),
    (("cli", "--timeout", "nan", *R), 2, "--timeout"),
    (("cli", "--cli-timeout", "0", *R), 2, "--cli-timeout"),
    (("cli", "--jobs", "0", *R), 2, "--jobs"),
    (("cli", "--report-dir", "afile"), 2, "is a file"),
    (("cli", "--report-dir", "afile/sub"), 2, "which is a file"),
    (("cli", "--allure-dir", "afile", *R), 2, "--allure-dir"),
    (("cli", "--only", "A2A_CARD_001", *R), 2, "not a2acli"),
    (("cli", "--only", "NOPE_001", *R), 2, "NOPE_001"),
    (("cli", "--tier", "4", *R), 2, "--tier"),
    (("cli", "--require-tier", "0", *R), 2, "--require-tier"),
    # cli: the environment (every --env value a secret)
    (("cli", "--env", "NOEQUALS", *R), 2, "KEY=VALUE"),
    (("cli", "--env", "K=", *R), 2, "KEY=VALUE"),
    (("cli", "--env", "K=abc", *R), 2, "--env-plain"),
    (("cli", "--env", "K=abcdef", "--env-plain", "K=xyz", *R), 2, "both give K"),
    (("cli", "--env", "K=abcd", "--env", "K=efgh", *R), 2, "given twice"),
    (("cli", "--env-plain", "NOEQUALS", *R), 2, "--env-plain"),
    # cli: files it is handed
    (("cli", "--adapter", "/no/such.yaml", *R), 2, "--adapter"),
    (("cli", "--adapter", "bad.yaml", *R), 2, "not valid YAML"),
    (("cli", "--skill", "/no/such/SKILL.md", *R), 2, "--skill"),
    (("cli", "--rerun-failed", "notreport", *R), 2, "--rerun-failed"),
    # baseline options
    (("cli", "--baseline", "/no/such.yaml", *R), 2, "--baseline"),
    (("cli", "--baseline", "bad.yaml", *R), 2, "--baseline"),
    (("cli", "--write-baseline", "/no/such/dir/x.yaml", *R), 2, "--write-baseline"),
    (("cli", "--write-baseline", "adir", *R), 2, "is a folder"),
    # agent
    (("agent", "--token", "nobody=abcdefgh", *R), 2, "unknown role"),
    (("agent", "--token", "operator=abc", *R), 2, "shorter"),
    (("agent", "--fact", "evnts=on", *R), 2, "known: events"),
    (("agent", "--fact", "events=yes", *R), 2, "on or off"),
    (("agent", "--url", "ftp://x", *R), 2, "--url"),
    (("agent", "--url", "http://x", "--launch", "reference", *R), 2, "not allowed"),
    (("agent", "--launch", "nope", *R), 2, "nope"),
    (("agent", "--launch", "scripted", "--defect", "nope", *R), 2, "unknown defect"),
    (("agent", "--container-env", "A=abcdef", *R), 2, "applies only with --container"),
    (("agent", "--container-env-plain", "A=B", *R), 2, "applies only with --container"),
    (("agent", "--container", "absent:img", "--container-env", "A=abc", *R), 2, "--container-env-plain"),
    (("agent", "--container", "absent:img", "--container-env", "A=abcdef", "--container-env-plain", "A=xyz", *R), 2,
     "both set A"),
    (("agent", "--family", "nope", *R), 2, "--family"),
    (("agent", "--spec-revision", "0.3.0", *R), 2, "unknown A2A revision '0.3.0' (known: 1.0.0, 1.0.1)"),
    (("registry", "--spec-revision", "9"), 2, "unknown A2A revision '9'"),
    (("registry", "--changed"), 2, "give --spec-revision"),
    (("agent", "--require-level", "may", *R), 2, "--require-level"),
    (("agent", "--schema-source", "/no/dir", *R), 2, "--schema-source"),
    (("agent", "--launch", "scripted", "--token", "operator=abcdefgh", "--report-dir", "afile"), 2, "is a file"),
    # matrix and matrix merge
    (("matrix",), 2, "--targets"),
    (("matrix", "--targets", "/no/such"), 2, "no such file"),
    (("matrix", "--targets", "bad.yaml"), 2, "cannot read"),
    (("matrix", "--targets", "no-exe.yaml", *R), 2, "/no/such/tool"),
    (("matrix", "--targets", "family.yaml", *R), 2, "not a2acli"),
    (("matrix", "--targets", "fact.yaml", *R), 2, "unknown fact"),
    (("matrix", "--targets", "short.yaml", *R), 2, "A2ACLI_BEARER"),
    (("matrix", "--targets", "unset.yaml", *R), 2, "CONFORMANCE_SURELY_UNSET_VARIABLE is not set"),
    (("matrix", "--targets", "revision.yaml", *R), 2, "unknown A2A revision '2.0'"),
    (("matrix", "--targets", "ok.yaml", "--shard", "3/2"), 2, "--shard"),
    (("matrix", "--targets", "ok.yaml", "--timeout", "0"), 2, "--timeout"),
    (("matrix", "--targets", "ok.yaml", "--report-dir", "afile"), 2, "is a file"),
    (("matrix", "merge"), 2, "DIR"),
    (("matrix", "merge", "notreport"), 2, "matrix.yaml"),
    # report, registry, template, adapter, spec-diff
    (("report", "render", "/no/such"), 2, "no such report"),
    (("report", "verify", "/no/such"), 2, "not a folder"),
    (("report", "verify", "notreport"), 2, "not a report"),
    (("registry", "--family", "nope"), 2, "--family"),
    (("registry", "--tier", "5"), 2, "--tier"),
    (("registry", "--format", "markdown"), 2, "--coverage"),
    (("registry", "--coverage", "--format", "yaml"), 2, "--format"),
    (("template", "--family", "nope"), 2, "--family"),
    (("adapter", "check", "/no/such.yaml"), 2, "cannot read"),
    (("adapter", "check", "bad.yaml"), 2, "not valid YAML"),
    (("adapter", "check", "adapter.yaml", "--exe", "/no/such"), 2, "/no/such"),
    (("adapter", "check", "adapter.yaml", "--exe", "./noshebang"), 2, "Exec format error"),
    (("adapter", "check", "adapter.yaml", "--cli-timeout", "0"), 2, "--cli-timeout"),
    (("spec-diff", "/no/such.md"), 2, "cannot read"),
    (("spec-diff", "garbage.txt"), 2, "no requirement rows"),
    (("spec-diff", "--format", "nope", "garbage.txt"), 2, "--format"),
    # could not run: nothing answers, no engine
    (("agent", "--family", "a2a", "--url", "http://127.0.0.1:{closed}", "--only", "A2A_CARD_001", *R), 3,
     "nothing answers"),
    (("agent", "--container", "agentd-conformance-no-such-image:0", *R), 3, "no container engine"),
    (("image", "build-reference"), 3, "no container engine"),
]
#: The cases that need the engine to be unreachable (DOCKER_HOST names a socket that is not there).
NO_ENGINE = {"no container engine"}


@pytest.fixture
def in_inputs(inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the inputs of this case's own, as the working folder: what one case leaves cannot fail another."""
    mine = tmp_path / "in"
    shutil.copytree(inputs, mine)
    monkeypatch.chdir(mine)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    yield mine


@pytest.mark.parametrize(("args", "code", "says"), CASES, ids=[" ".join(c[0]) or "(nothing)" for c in CASES])
def test_bad_input_exits_with_its_code_and_one_line(in_inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...],
                                                   code: int, says: str) -> None:
    if says in NO_ENGINE:
        monkeypatch.setenv("DOCKER_HOST", f"unix://{in_inputs}/no-engine.sock")
    report = tmp_path / "report"
    argv = [a.format(closed=_closed_port(), report=report) for a in args]
    t0 = time.monotonic()
    got = main(argv)
    took = time.monotonic() - t0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert (got, len(lines)) == (code, 1), f"exit {got}, stderr {err!r}"
    assert says in lines[0] and "Traceback" not in err, err
    assert took < 30, f"a bad input must be refused before anything runs; it took {took:.1f}s"
    assert not report.exists() and not (in_inputs / "reports").exists(), "a refused run writes no report folder"


def test_a_missing_image_in_a_targets_file_is_a_usage_error(in_inputs: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The engine answers but lacks the image: the targets file is wrong, nothing runs (exit 2, one line)."""
    from conformance.targets.engine import EngineUnavailable, docker_client

    try:
        docker_client()
    except EngineUnavailable as exc:
        pytest.skip(f"needs a container engine: {exc}")
    got = main(["matrix", "--targets", "img.yaml", "--report-dir", str(tmp_path / "report")])
    err = capsys.readouterr().err
    assert (got, len(err.splitlines())) == (2, 1), err
    assert "is not on the engine" in err and "x:" in err, err
    assert not (tmp_path / "report").exists()


def test_the_table_covers_every_sub_command() -> None:
    commands = {c[0][0] for c in CASES if c[0] and not c[0][0].startswith("-")}
    assert commands >= {"cli", "agent", "matrix", "report", "registry", "template", "adapter", "spec-diff",
                        "image", "serve-agent"}
    assert len(CASES) >= 30 and {c[1] for c in CASES} == {2, 3}
