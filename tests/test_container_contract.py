"""Container contract v2 without an engine: what labels and a targets file's entry say, and what the harness
makes of them (the configuration document, its variables, the TLS files' places). The engine half is
``tests/test_container_v2.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from conformance.evidence import SecretSet
from conformance.outcome import NotMeasured
from conformance.targets.container import ContainerSpec
from conformance.targets.contract import (
    TLS_DIR,
    V2,
    CallbackPolicy,
    ConfigSpec,
    ContractError,
    TlsSpec,
)
from conformance.targets.kinds import build_target, targets_for
from conformance.targets.pool import ContainerPool
from tests.foreign_image import LABELS, TEMPLATE

P = "dev.agentd-conformance"


def _pool(labels: dict[str, str], entry: dict[str, Any] | None = None) -> ContainerPool:
    target = build_target(container={"image": "x:1", **(entry or {})})
    pool = ContainerPool(target, SecretSet())
    spec = ContainerSpec(image="x:1", port=int(labels.get(f"{P}.port", 8420)))
    spec.v2 = V2.read(labels, entry or {}, "x:1")
    spec.network_mode = "bridge"
    pool._spec = spec
    return pool


def test_tls_label_takes_variables_or_absolute_paths() -> None:
    tls = TlsSpec.parse("cert=SERVE_CERT,key=/etc/x/key.pem,ca=TLS_CA", "image x")
    assert tls is not None
    assert tls.placements() == {"cert": (f"{TLS_DIR}/server.crt", "SERVE_CERT"), "key": ("/etc/x/key.pem", None),
                                "ca": (f"{TLS_DIR}/ca.crt", "TLS_CA")}


@pytest.mark.parametrize("value", ["cert=A", "key=B", "cert=A,key=B,client_ca=C"])
def test_a_tls_label_without_cert_and_key_or_with_unknown_files_is_refused(value: str) -> None:
    with pytest.raises(ContractError, match="cert=X,key=X"):
        TlsSpec.parse(value, "image x")


def test_config_label_needs_an_absolute_path_a_known_format_and_a_json_template() -> None:
    with pytest.raises(ContractError, match="absolute"):
        ConfigSpec.parse("path=config.yaml", None, None, "image x")
    with pytest.raises(ContractError, match="not one of"):
        ConfigSpec.parse("path=/c.yaml,format=toml", None, None, "image x")
    with pytest.raises(ContractError, match="needs a config-template"):
        ConfigSpec.parse("path=/c.yaml,format=json-e", None, None, "image x")
    with pytest.raises(ContractError, match="not JSON"):
        ConfigSpec.parse("path=/c.yaml,format=json-e", "{not json", None, "image x")


def test_callbacks_label_names_schemes_only_from_http_and_https() -> None:
    assert CallbackPolicy.parse("schemes=https", "image x").https_only
    assert not CallbackPolicy.parse(None, "image x").https_only
    with pytest.raises(ContractError, match="schemes"):
        CallbackPolicy.parse("schemes=ftp", "image x")


def test_the_targets_entry_overrides_each_label() -> None:
    v2 = V2.read(LABELS, {"public_url": "OTHER_URL", "config": {"path": "/o.json", "format": "reference"}}, "x")
    assert v2.public_url_env == "OTHER_URL"
    assert v2.config is not None and v2.config.path == "/o.json" and v2.config.format == "reference"
    assert v2.tls is not None and v2.contract == "2"


def test_a_v1_image_reads_as_contract_1_with_the_fixed_public_url_variable() -> None:
    spec = ContainerSpec(image="x")
    spec.v2 = V2.read({f"{P}.port": "8420"}, {}, "x")
    assert spec.v2.contract == "1" and spec.public_url_env == "AGENTD_PUBLIC_URL" and spec.scheme == "http"


def test_roles_become_the_images_own_principals_with_tokens_only_in_variables() -> None:
    """The foreign image's template turns the harness's principals into its ``access`` list; each bearer
    travels in a variable of its own, never inline in the file."""
    pool = _pool(LABELS)
    env, _listen, tokens, facts, document = pool.configuration({"auth": True})
    assert document is not None and set(tokens) == {"operator", "user", "agent"} and facts["auth"] == "on"
    files = document.files("https://127.0.0.1:4443/", {"cert": "/etc/echo-agent/tls/cert.pem",
                                                        "key": "/etc/echo-agent/tls/key.pem"})
    text = files["/etc/echo-agent/config.json"].decode()
    doc = json.loads(text)
    assert doc["server"] == {"host": "0.0.0.0", "port": 9443, "certificate": "/etc/echo-agent/tls/cert.pem",
                             "private_key": "/etc/echo-agent/tls/key.pem"}, doc
    by_user = {a["user"]: a for a in doc["access"]}
    assert by_user["operator-1"]["admin"] is True and by_user["user-1"]["admin"] is False, doc
    assert {env[a["bearer_env"]] for a in doc["access"]} == set(tokens.values()), (doc, sorted(env))
    assert not any(tok in text for tok in tokens.values()), "a token was written inline into the document"


def test_a_need_the_document_does_not_take_is_not_measured_naming_it() -> None:
    pool = _pool(LABELS)
    with pytest.raises(NotMeasured, match="does not take workflows"):
        pool.configuration({"workflows": ()})
    with pytest.raises(NotMeasured, match="no switch for events"):
        pool.configuration({"events": False})


@pytest.mark.parametrize("how", ["takes", "no-config"])
def test_a_structured_need_is_named_by_its_members_so_the_reason_fits_the_note(how: str) -> None:
    """The standard workflows are named by name, never by their repr: against agentd 2.5.1's image (config-takes:
    principals) 18 rows' notes were ``needs workflows=(Workflow(name='build', roles=...`` cut at the note's limit
    before the reason (the document does not take workflows)."""
    from conformance.agentd import configs
    from conformance.verdict import NOTE_LIMIT

    labels = LABELS if how == "takes" else {f"{P}.port": "8420"}
    with pytest.raises(NotMeasured) as info:
        _pool(labels).configuration({"auth": True, "workflows": configs.workflows()})
    note = str(info.value)
    assert "Workflow(" not in note and "workflows build, hold, ask, review" in note, note
    reason = "does not take workflows" if how == "takes" else "cannot be given"
    assert reason in note[:NOTE_LIMIT], note


def test_reference_format_writes_the_references_config_fields() -> None:
    pool = _pool({f"{P}.config": "path=/etc/agentd/agentd.yaml"})
    _env, _listen, tokens, _facts, document = pool.configuration({"auth": True, "events": False})
    assert document is not None
    doc = yaml.safe_load(document.files("http://127.0.0.1:1/", None)["/etc/agentd/agentd.yaml"])
    assert doc["events"] is False and {p["role"]: p["token"] for p in doc["principals"]} == tokens, doc


def test_a_template_error_is_a_container_failure_naming_the_template() -> None:
    from conformance.targets.container import ContainerFailure

    labels = {**LABELS, f"{P}.config-template": json.dumps({"x": {"$eval": "no_such_name"}})}
    pool = _pool(labels)
    _env, _listen, _tokens, _facts, document = pool.configuration({})
    assert document is not None
    with pytest.raises(ContainerFailure, match="config-template"):
        document.files("https://127.0.0.1:1/", None)


def test_the_worked_example_template_is_the_one_the_docs_show() -> None:
    """docs/containers.md shows the foreign image's template; the two must not drift apart."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "containers.md").read_text(encoding="utf-8")
    start = text.index("```json\n", text.index("config-template")) + len("```json\n")
    shown = json.loads(text[start:text.index("```", start)])
    assert shown == TEMPLATE


def test_state_label_names_an_absolute_folder_and_optionally_its_variable() -> None:
    v2 = V2.read({f"{P}.state": "path=/var/lib/agentd,env=AGENTD_STATE_DIR"}, {}, "x")
    assert (v2.state, v2.state_env) == ("/var/lib/agentd", "AGENTD_STATE_DIR")
    assert V2.read({f"{P}.state": "/data/"}, {}, "x").state == "/data"
    with pytest.raises(ContractError, match="absolute folder"):
        V2.read({f"{P}.state": "path=data"}, {}, "x")


def test_a_host_network_image_is_called_back_on_loopback() -> None:
    """An image sharing this host's network reaches the harness's receivers on 127.0.0.1 (not a gateway)."""
    pool = _pool({})
    pool.spec.network_mode = "host"
    assert pool.callback_host == "127.0.0.1"


def test_an_image_calling_back_to_https_only_gets_https_receivers_and_no_gap_when_it_names_a_ca() -> None:
    from tests.foreign_image import PUSH_LABELS

    pool = _pool(PUSH_LABELS)
    assert (pool.callback_scheme, pool.callback_gap) == ("https", None)
    plain = _pool(LABELS)
    assert (plain.callback_scheme, plain.callback_gap) == ("http", None)


@pytest.mark.parametrize("tls", ["cert=C,key=K", None])
def test_an_https_only_image_without_a_ca_bundle_leaves_call_backs_not_measured_naming_the_label(
        tls: str | None) -> None:
    """``callbacks=schemes=https`` without ``ca=``: the harness cannot make the image trust its receivers, so every
    check that needs a call back is not measured, the note naming the label that would fix it — never a fail."""
    from conformance.targets.pool import way_back

    labels = {f"{P}.callbacks": "schemes=https", **({f"{P}.tls": tls} if tls else {})}
    pool = _pool(labels)
    gap = pool.callback_gap
    assert pool.callback_scheme == "https" and gap is not None
    assert "calls back to https only" in gap and "names no CA bundle" in gap and len(gap) < 260, gap
    fix = "add ca=VARIABLE (or ca=/path) to its label" if tls else f"{P}.tls=cert=VAR,key=VAR,ca=VAR"
    assert gap.endswith(fix + (f" {P}.tls" if tls else "")), gap

    class Agent:
        callback_host: str | None = "172.30.0.1"
        callback_scheme = "https"
        callback_gap: str | None = gap

    with pytest.raises(NotMeasured, match="names no CA bundle"):
        way_back(Agent())
    Agent.callback_gap = None
    assert way_back(Agent()) == "172.30.0.1"
    Agent.callback_host = None
    with pytest.raises(NotMeasured, match="default bridge"):
        way_back(Agent())


def test_the_ca_bundle_is_given_on_a_unix_socket_too_and_the_server_pair_only_on_tcp() -> None:
    """The image calls back to the harness's https receivers whatever it listens on; only TCP serves TLS."""
    from conformance.targets.container import ContainerAgent
    from conformance.tls import harness_tls
    from tests.foreign_image import PUSH_LABELS

    spec = _pool(PUSH_LABELS).spec
    env: dict[str, str] = {}
    files = ContainerAgent(spec, {}, listen="unix").tls_files(env)
    assert files == {f"{TLS_DIR}/ca.crt": harness_tls().ca_pem} and env == {"ECHO_PUSH_CA": f"{TLS_DIR}/ca.crt"}
    env = {}
    files = ContainerAgent(spec, {}, listen="tcp").tls_files(env)
    assert sorted(files) == ["/etc/echo-agent/tls/cert.pem", "/etc/echo-agent/tls/key.pem", f"{TLS_DIR}/ca.crt"]
    assert env == {"ECHO_PUSH_CA": f"{TLS_DIR}/ca.crt"}


def test_a_capability_the_image_cannot_be_switched_to_leaves_the_served_side_to_judge() -> None:
    """``core(push=...)`` on an image with no way to switch push is None (as on a running target), so the
    capability rows judge the side the image serves: against agentd 2.5.1's image (push off, no push switch)
    A2A_CARD_005 was not_measured 'needs push=on' although its undeclared side was measurable (all four config
    methods answer PushNotificationNotSupportedError there)."""
    targets = targets_for(build_target(container={"image": "x:1"}), SecretSet())
    assert targets.containers is not None
    targets.containers._spec = _pool(LABELS)._spec
    assert targets.core(push=True) is None
    with pytest.raises(NotMeasured, match="no switch for push"):
        targets.agentd(push=True)  # a check that needs push on itself still says why it cannot be measured
