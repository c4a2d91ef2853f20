"""The reference image's entry point without an engine: what its environment configures (callback hosts
before the configuration document is validated) and the harness's control socket, driven by the
client the container targets use, against a reference agentd served in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.agentd_page.launch import ConfigError, Peer, Workflow
from conformance.fixtures.reference_agentd import ReferenceAgentd
from conformance.fixtures.reference_agentd.config import Config
from conformance.targets.control import ContainerControl, ControlRefused
from conformance.targets.serve import EnvError, config_from_env, serve_control

RELAY = "workflows:\n- {name: relay, send_to: 'http://172.30.0.1:4000/', send_command: {op: status}}\n"


def test_a_peer_on_a_callback_host_is_accepted_only_when_the_host_is_named() -> None:
    with pytest.raises(ConfigError, match="a peer is http://<loopback>"):
        config_from_env({"AGENTD_CONFIG": RELAY})
    config, _bind, _public = config_from_env({"AGENTD_CONFIG": RELAY, "AGENTD_CALLBACK_HOSTS": "172.30.0.1"})
    assert config.callback_hosts == ("172.30.0.1",)
    assert config.may_call("http://172.30.0.1:9/hook") and config.may_call("http://127.0.0.1:9/")
    assert not config.may_call("http://172.30.0.2:9/hook")


def test_callback_hosts_never_widen_beyond_the_names_given() -> None:
    cfg = Config(callback_hosts=("10.9.0.1",))
    with pytest.raises(ConfigError):
        cfg.with_(workflows=(Workflow("w", send_to=Peer("http://10.9.0.2:1/"), send_command={"op": "status"}),))


def test_a_malformed_switch_is_refused_in_one_line() -> None:
    with pytest.raises(EnvError, match="AGENTD_EVENTS must be on or off"):
        config_from_env({"AGENTD_EVENTS": "maybe"})


def _get_task(agent: ReferenceAgentd, tid: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": tid}}
    r = httpx.post(agent.url, json=body, headers={"A2A-Version": "1.0"}, timeout=10)
    result = r.json().get("result")
    assert isinstance(result, dict), r.text
    return result


def test_the_control_socket_makes_and_moves_tasks_seen_over_the_wire(tmp_path: Path) -> None:
    with ReferenceAgentd(Config()) as agent:
        path = str(tmp_path / "control.sock")
        serve_control(agent, path)
        control = ContainerControl(path)
        tid = control.new_task("input-required")
        assert _get_task(agent, tid)["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        control.move(tid, "completed")
        assert _get_task(agent, tid)["status"]["state"] == "TASK_STATE_COMPLETED"
        assert control.revoke("not-a-token-of-this-agent") is False
        with pytest.raises(ControlRefused, match="refused move"):
            control.move("t-unknown", "completed")


def test_an_absent_control_socket_is_a_readable_refusal(tmp_path: Path) -> None:
    with pytest.raises(ControlRefused, match="control socket .*absent.sock"):
        ContainerControl(str(tmp_path / "absent.sock")).new_task("working")


def test_the_variables_are_judged_with_the_document_not_after_it() -> None:
    """A defect switched on by variable is in force when the document is validated: the shadowing
    workflow a defect lets through is accepted, so the kill run through a container can catch it."""
    shadow = "workflows:\n- {name: shadow, command: status, schema: {type: object, properties: {}}}\n"
    with pytest.raises(ConfigError, match="reserved|built-in"):
        config_from_env({"AGENTD_CONFIG": shadow})
    config, _bind, _public = config_from_env({"AGENTD_CONFIG": shadow, "AGENTD_DEFECTS": "workflow-shadows-builtin"})
    assert config.command_workflow("status") is not None
