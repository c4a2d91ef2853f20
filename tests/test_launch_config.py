"""The launch configuration is the library's (``conformance.agentd_page.launch``), not the reference fixture's:
its vocabulary lives there alone, and its document has a JSON Schema (Draft 2020-12) that accepts every document
the harness makes for the agentd family's configurations, refuses malformed ones naming the path, and that the
reference agentd holds every document it loads to, as any image may (``python -m conformance.agentd_page.launch``).

The configurations below are the ones the agentd checks ask for, taken from the checks' own constants; a guard
reads the checks for the needs they pass, so a new kind of need is added here before it ships. Every
configuration the clean reference run asks for also goes through the schema at run time: the harness holds each
document it makes to it (:func:`conformance.agentd_page.launch.harness_document`), the launched reference's
included (``tests/test_kill_matrix.py -k clean_reference_agentd``).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args

import pytest
import yaml
from jsonschema import Draft202012Validator

from conformance.agentd import configs
from conformance.agentd_page import ROLES, launch
from conformance.agentd_page.launch import ConfigError, Peer, Workflow
from conformance.evidence import SecretSet
from conformance.suites.agent.agentd import test_command as command_checks
from conformance.suites.agent.agentd import test_declarations as declaration_checks
from conformance.suites.agent.agentd import test_extended_card as card_checks
from conformance.suites.agent.agentd import test_negotiation_cors as cors_checks
from conformance.suites.agent.agentd import test_outbound as outbound_checks
from conformance.targets import image
from conformance.targets.container import ContainerSpec
from conformance.targets.contract import REFERENCE_TAKES, V2
from conformance.targets.instances import AgentTargets
from conformance.targets.kinds import build_target, targets_for
from conformance.targets.pool import ContainerPool

ROOT = Path(__file__).resolve().parents[1]
P = "dev.agentd-conformance"
Needs = Callable[[AgentTargets], dict[str, Any]]
#: An image with a JSON-e template whose document takes every need a reference-shaped one takes.
TEMPLATED = {f"{P}.config": "path=/etc/x/config.json,format=json-e", f"{P}.config-template": '{"x": 1}',
             f"{P}.config-takes": ",".join(REFERENCE_TAKES)}


def _relay(url: str) -> Needs:
    return lambda _t: {"workflows": (Workflow(outbound_checks.RELAY, send_to=Peer(url),
                                              send_command=dict(outbound_checks.RELAY_COMMAND)),)}


def _shadow(op: str) -> Needs:
    return lambda _t: {"workflows": (Workflow("shadow", command=op, schema={"type": "object", "properties": {}}),)}


def _given(needs: dict[str, Any]) -> Needs:
    return lambda _t: dict(needs)


def _specs(specs: Any, **more: Any) -> Needs:
    return lambda t: {"principals": configs.principals(t, specs)[0], **more}


#: The configurations the agentd checks ask a launched agent for (by the checks' own constants).
CONFIGURATIONS: dict[str, Needs] = {
    "default": lambda _t: {},
    "standard": lambda _t: configs.standard(),
    "standard-introspection-device-grant": lambda _t: configs.standard(introspection=True, device_grant=True),
    "workflows": lambda _t: {"workflows": configs.workflows()},
    "workflows-introspection": lambda _t: {"introspection": True, "workflows": configs.workflows()},
    **{f"declarations-{k}": _given(v) for k, v in declaration_checks.CONFIGS.items()},
    **{f"vocabulary-{k}": _given(v) for k, v in card_checks.VOCABULARY_CONFIGS.items()},
    "narrowing-events-off": lambda _t: {**card_checks.NARROWING, "events": False},
    "role-principals": _specs(command_checks.ROLE_SPECS),
    "workflow-principals": _specs(command_checks.WF_SPECS, workflows=configs.workflows()),
    "relay-http": _relay("http://127.0.0.1:4000/rpc"),
    "relay-https": _relay("https://172.30.0.1:4443/"),
    "relay-unix": _relay("unix:///tmp/agentd-peer-x/peer.sock"),
    "free-op": _shadow("shadow.probe"),
    "built-in-op": _shadow("status"),  # the schema holds it; the agent refuses it when it starts
    "stream-deadline": lambda _t: {"stream_deadline": 0.5},
    "ring": lambda _t: {"ring": 4},
    "cors": lambda _t: {"events": True, "cors_origins": (cors_checks.ORIGIN,)},
    "auth": lambda _t: {"auth": True},
    "auth-events-off": lambda _t: {"auth": True, "events": False},
    "unix-socket-path": lambda _t: {"listen": "unix", "uds_path": "/tmp/agentd-made/agentd.sock"},
    "tick-instance": lambda _t: {"tick": 0.01, "instance": "reviewer-2"},
}
#: How the checks ask for an instance (a need passed by keyword to one of these is a configuration's).
ASKING = ("agentd", "refusal", "declaring", "instance_for", "standard", "_narrowing", "_narrowed")


def _targets() -> AgentTargets:
    return targets_for(build_target(launch="reference"), SecretSet())


def _pool(labels: dict[str, str]) -> ContainerPool:
    """The reference image's contract (its v1 switches, socket folder and token variables) plus ``labels``."""
    pool = ContainerPool(build_target(container={"image": "x:1"}), SecretSet())
    spec = ContainerSpec(image="x:1", port=image.PORT, socket_dir=image.SOCKET_DIR, switches=dict(image.SWITCHES),
                         defaults=dict(image.DEFAULTS),
                         tokens_env={r: f"AGENTD_{r.upper()}_TOKEN" for r in ("operator", "user", "agent")})
    spec.v2 = V2.read(labels, {}, "x:1")
    spec.network_mode = "internal"
    pool._spec = spec  # noqa: SLF001 - no engine: the pool's configuration only
    return pool


def _as_json(value: Any) -> Any:
    """``value`` as an image reads it from a file (tuples as arrays)."""
    return json.loads(json.dumps(value))


# ---- the schemas ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["document", "context"])
def test_each_schema_is_a_draft_2020_12_schema_in_the_package(name: Literal["document", "context"]) -> None:
    schema = launch.schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert (launch.CONFIG_DIR / f"{name}.schema.json").is_file()
    if name == "document":
        assert tuple(schema["$defs"]["role"]["enum"]) == ROLES


def test_the_guard_knows_every_need_the_checks_pass() -> None:
    """Every need a check passes by keyword when it asks for an instance is one a configuration above has."""
    covered = {key for needs in CONFIGURATIONS.values() for key in needs(_targets())} | {"fresh"}
    passed: dict[str, str] = {}
    for root in (ROOT / "conformance" / "suites" / "agent" / "agentd", ROOT / "conformance" / "agentd"):
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    if name in ASKING:
                        passed.update({k.arg: f"{path.name}:{node.lineno}" for k in node.keywords if k.arg})
    assert set(passed) <= covered, {k: v for k, v in passed.items() if k not in covered}


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_every_document_the_harness_makes_is_valid(name: str) -> None:
    """For each configuration: the document a launched reference is started with, the one a v1 ``config`` switch
    carries (the reference image's ``AGENTD_CONFIG``), the v2 ``format=reference`` file, and the context a v2
    ``config-template`` reads (on the internal network with TLS files, and on the host's with none)."""
    targets = _targets()
    needs = CONFIGURATIONS[name](targets)
    doc, _tokens = targets.launch_document(needs)
    assert launch.document_errors(_as_json(doc)) == []

    from conformance.fixtures.reference_agentd.config import typed_fields

    typed_fields(doc)  # the reference reads it (what it refuses at start, a built-in op's name, is judged later)

    env, _listen, _tokens, _facts, none = _pool({}).configuration(needs)
    assert none is None  # v1: the document travels in the config switch
    if "AGENTD_CONFIG" in env:
        assert launch.document_errors(yaml.safe_load(env["AGENTD_CONFIG"])) == []

    v2 = _pool({f"{P}.config": "path=/etc/agentd/agentd.yaml"})
    *_, document = v2.configuration(needs)
    assert document is not None
    written = yaml.safe_load(document.files("http://127.0.0.1:8420/", None)["/etc/agentd/agentd.yaml"])
    assert launch.document_errors(written) == []

    template = TEMPLATED
    *_, document = _pool(template).configuration(needs)
    assert document is not None
    tls = {"cert": "/run/agentd-conformance/tls/server.crt", "key": "/run/agentd-conformance/tls/server.key",
           "ca": "/run/agentd-conformance/tls/ca.crt"}
    assert launch.context_errors(_as_json(document.context("https://127.0.0.1:40123/", tls))) == []
    document.network = "host"
    assert launch.context_errors(_as_json(document.context("http://127.0.0.1:40124/", None))) == []


# ---- malformed documents ----------------------------------------------------------------------------
BAD: dict[str, tuple[Any, str]] = {
    "unknown member": ({"evnts": True}, "(top level): Additional properties are not allowed ('evnts'"),
    "defects are the run's": ({"defects": ["x"]}, "(top level): Additional properties are not allowed ('defects'"),
    "not a mapping": (["workflows"], "(top level): ['workflows'] is not of type 'object'"),
    "role": ({"principals": [{"name": "op", "token": "t0k3n", "role": "admin"}]}, "principals[0].role: 'admin'"),
    "no token": ({"principals": [{"name": "op"}]}, "principals[0]: 'token' is a required property"),
    "workflow role": ({"workflows": [{"name": "w", "roles": ["user", "root"]}]}, "workflows[0].roles[1]: 'root'"),
    "command without schema": ({"workflows": [{"name": "w", "command": "w.go"}]},
                               "workflows[0]: 'schema' is a dependency of 'command'"),
    "send_to sends nothing": ({"workflows": [{"name": "w", "send_to": "http://127.0.0.1:1/"}]},
                              "workflows[0]: an a2a.send step (send_to) sends exactly one of send_command, send_text"),
    "send_to sends both": ({"workflows": [{"name": "w", "send_to": "http://127.0.0.1:1/", "send_text": "hi",
                                           "send_command": {"op": "status"}}]}, "workflows[0]: an a2a.send step"),
    "a text to no peer": ({"workflows": [{"name": "w", "send_text": "hi"}]},
                          "workflows[0]: 'send_to' is a dependency of 'send_text'"),
    "peer": ({"workflows": [{"name": "w", "send_to": "ftp://h/", "send_text": "hi"}]},
             "workflows[0].send_to: 'ftp://h/' is not a peer: http(s)://host:port/path or unix:///absolute/path"),
    "command with no op": ({"workflows": [{"name": "w", "send_to": "unix:///s.sock", "send_command": {"op": ""}}]},
                           "workflows[0].send_command.op: '' should be non-empty"),
    "ring": ({"ring": 0}, "ring: 0 is less than the minimum of 1"),
    "deadline": ({"stream_deadline": 0}, "stream_deadline: 0 is less than or equal to the minimum of 0"),
    "switch": ({"events": "off"}, "events: 'off' is not of type 'boolean'"),
    "rpc path": ({"rpc_path": "rpc"}, "rpc_path: 'rpc' is not an absolute path"),
    "workflows": ({"workflows": "build"}, "workflows: 'build' is not of type 'array'"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_document_is_refused_naming_the_path(name: str) -> None:
    doc, expected = BAD[name]
    found = launch.document_errors(doc)
    assert any(e.startswith(expected) for e in found), found
    with pytest.raises(ConfigError, match="does not match its schema"):
        launch.check_document(doc)


def test_a_malformed_context_is_refused_naming_the_path() -> None:
    template = TEMPLATED
    *_, document = _pool(template).configuration(configs.standard())
    assert document is not None
    context = _as_json(document.context("https://127.0.0.1:40123/", None))
    context["principals"][0]["token_env"] = "1 TOKEN"
    context["tls"] = {"cert": "server.crt"}
    del context["reference"]
    found = launch.context_errors(context)
    assert "(top level): 'reference' is a required property" in found, found
    assert any(e.startswith("principals[0].token_env: '1 TOKEN' is not a variable's name") for e in found), found
    assert any(e.startswith("tls:") for e in found), found


# ---- the reference reads the document as any image would ----------------------------------------------
INVALID = "workflows:\n- {name: relay, send_to: 'ftp://10.0.0.1/', send_text: hi}\n"


def test_the_reference_refuses_an_invalid_document_naming_the_path() -> None:
    from conformance.fixtures.reference_agentd.config import from_mapping
    from conformance.targets.serve import config_from_env

    with pytest.raises(ConfigError, match=r"workflows\[0\]\.send_to: 'ftp://10.0.0.1/' is not a peer"):
        from_mapping(yaml.safe_load(INVALID))
    with pytest.raises(ConfigError, match=r"does not match its schema: workflows\[0\]\.send_to"):
        config_from_env({"AGENTD_CONFIG": INVALID})


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("how", ["image entry point", "command line"])
def test_the_reference_does_not_start_on_an_invalid_document(how: str, tmp_path: Path) -> None:
    """The image's entry point (``AGENTD_CONFIG``) and the reference's own ``--config`` both exit 2 before
    serving, with one readable line naming the path."""
    if how == "image entry point":
        done = _run("-m", "conformance.targets.serve", env={"AGENTD_CONFIG": INVALID, "AGENTD_PORT": "1"})
    else:
        (tmp_path / "agentd.yaml").write_text(INVALID, encoding="utf-8")
        done = _run("-m", "conformance.fixtures.reference_agentd", "--config", str(tmp_path / "agentd.yaml"))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reference-agentd: configuration refused: "), lines
    assert "workflows[0].send_to: 'ftp://10.0.0.1/' is not a peer" in lines[0], lines


# ---- the command line -------------------------------------------------------------------------------
def test_the_command_line_validates_a_document_and_prints_each_error_with_its_path(tmp_path: Path) -> None:
    good, bad, broken = tmp_path / "good.yaml", tmp_path / "bad.json", tmp_path / "broken.yaml"
    good.write_text(yaml.safe_dump(_targets().launch_document(configs.standard())[0]), encoding="utf-8")
    bad.write_text(json.dumps({"ring": 0, "workflows": [{"name": "w", "command": "w.go"}]}), encoding="utf-8")
    broken.write_text("workflows: [", encoding="utf-8")
    done = _run("-m", "conformance.agentd_page.launch", str(good))
    assert (done.returncode, done.stdout) == (0, f"{good}: a valid document\n"), done
    done = _run("-m", "conformance.agentd_page.launch", str(bad))
    assert done.returncode == 1, done
    assert done.stdout.splitlines() == [f"{bad}: ring: 0 is less than the minimum of 1",
                                        f"{bad}: workflows[0]: 'schema' is a dependency of 'command'"], done.stdout
    done = _run("-m", "conformance.agentd_page.launch", str(broken))
    assert done.returncode == 2 and f"{broken}: cannot read the document" in done.stderr, done
    assert _run("-m", "conformance.agentd_page.launch", str(tmp_path / "absent.yaml")).returncode == 2


def test_the_command_line_validates_a_template_context(tmp_path: Path) -> None:
    template = TEMPLATED
    *_, document = _pool(template).configuration(configs.standard())
    assert document is not None
    context = tmp_path / "context.json"
    context.write_text(json.dumps(document.context("https://127.0.0.1:40123/", None), default=list),
                       encoding="utf-8")
    done = _run("-m", "conformance.agentd_page.launch", "--context", str(context))
    assert (done.returncode, done.stdout) == (0, f"{context}: a valid context\n"), done
    done = _run("-m", "conformance.agentd_page.launch", str(context))  # a context is not a document
    assert done.returncode == 1 and "(top level): Additional properties are not allowed" in done.stdout, done


# ---- the vocabulary is the library's alone ------------------------------------------------------------
VOCABULARY = ("Role", "Principal", "Peer", "Workflow", "as_role", "ConfigError")


def fixture_vocabulary_imports(source: str) -> list[str]:
    """The names of the launch vocabulary ``source`` imports from a fixture (``conformance.fixtures.*``)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("conformance.fixtures"):
            out += [f"{node.module}.{a.name}" for a in node.names if a.name in VOCABULARY]
    return out


def own_vocabulary(source: str) -> list[str]:
    """The names of the launch vocabulary ``source`` defines itself (a class, a function or an assignment)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name in VOCABULARY:
            out.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += [t.id for t in targets if isinstance(t, ast.Name) and t.id in VOCABULARY]
    return out


def _sources(*folders: str) -> list[Path]:
    """The modules under ``folders`` (paths from the checkout's root); ``conformance`` means the library and its
    checks, without the references under ``conformance/fixtures`` (name that folder to get them)."""
    fixtures = ROOT / "conformance" / "fixtures"
    return [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))
            if f == "conformance/fixtures" or not p.is_relative_to(fixtures)]


def test_no_module_outside_the_fixtures_takes_the_vocabulary_from_a_fixture() -> None:
    found = {str(p.relative_to(ROOT)): names for p in _sources("conformance", "tests", "benchmarks")
             if (names := fixture_vocabulary_imports(p.read_text(encoding="utf-8")))}
    assert not found, f"import these from conformance.agentd_page.launch: {found}"


def test_the_fixtures_have_no_copy_of_the_vocabulary_and_the_library_imports_no_fixture() -> None:
    copies = {str(p.relative_to(ROOT)): names for p in _sources("conformance/fixtures")
              if (names := own_vocabulary(p.read_text(encoding="utf-8")))}
    assert not copies, f"the fixtures define launch vocabulary of their own: {copies}"
    from conformance.fixtures import reference_agentd
    from conformance.fixtures.reference_agentd import config

    assert reference_agentd.ConfigError is launch.ConfigError
    held = vars(config)  # the names it uses (imported for its own use, not exported: take them from the library)
    assert held["Workflow"] is launch.Workflow and held["Principal"] is launch.Principal
    page = _sources("conformance/agentd_page")
    assert not [p.name for p in page if "conformance.fixtures" in p.read_text(encoding="utf-8")]


def test_the_guards_can_fail() -> None:
    """The two readers above find a made-up import from the fixture and a made-up copy in one."""
    assert fixture_vocabulary_imports("from conformance.fixtures.reference_agentd.config import Peer, Config\n") \
        == ["conformance.fixtures.reference_agentd.config.Peer"]
    assert own_vocabulary("from typing import Literal\nRole = Literal['user']\nclass Workflow:\n    pass\n") \
        == ["Role", "Workflow"]


def test_the_docs_show_a_valid_document_and_the_command_lines_own_words() -> None:
    """docs/containers.md's example document is valid, and the error it shows is the command line's."""
    text = (ROOT / "docs" / "containers.md").read_text(encoding="utf-8")
    section = text[text.index("## The launch configuration document and its schema"):]
    start = section.index("```yaml\n") + len("```yaml\n")
    shown = yaml.safe_load(section[start:section.index("```", start)])
    assert launch.document_errors(shown) == []
    assert shown["workflows"] == [launch.workflow_document(w) for w in configs.workflows()]
    said = "agentd.yaml: " + launch.document_errors(yaml.safe_load(INVALID))[0]
    assert f"# {said}\n" in section, said


def role_tuples(source: str) -> list[int]:
    """Lines where ``source`` spells the roles out as a literal tuple or list of the three."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Tuple | ast.List) and len(node.elts) == 3
            and {e.value for e in node.elts if isinstance(e, ast.Constant)} == {"operator", "user", "agent"}]


def test_the_roles_are_spelled_out_once() -> None:
    """The page's ``ROLES`` is the one list of roles: no other module of the library, the checks or the fixtures
    keeps a copy (the made-up one below shows the reader finds one)."""
    page = ROOT / "conformance" / "agentd_page"
    found = {str(p.relative_to(ROOT)): lines for p in _sources("conformance", "conformance/fixtures")
             if p not in (page / "__init__.py", page / "launch.py")
             and (lines := role_tuples(p.read_text(encoding="utf-8")))}
    assert not found, f"use conformance.agentd_page.ROLES: {found}"
    assert get_args(launch.Role) == ROLES  # the type spells them out too (a Literal cannot be made from a tuple)
    assert role_tuples("for role in ('operator', 'user', 'agent'):\n    pass\n") == [1]
