"""What the scripted agent hosts for the CLI's Tier 2 and 3 checks, driven as a CLI would drive it.

Real sockets on 127.0.0.1, real HTTP (httpx), real gRPC, real TLS and mutual TLS (trustme), real
JOSE (joserfc) and RFC 8785 (rfc8785) on the verifying side, a real webhook receiver. Each test
proves one capability does what its docstring in `fixtures/scripted_agent` promises and that it
is recorded, so a CLI check can be judged on what the agent saw.
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import rfc8785
from a2a.types import a2a_pb2 as pb
from a2a.types.a2a_pb2_grpc import A2AServiceStub
from a2a.utils import errors as a2a_errors
from a2a.utils.proto_utils import validate_proto_required_fields
from google.protobuf.json_format import ParseDict, ParseError
from joserfc import jws, jwt
from joserfc.errors import BadSignatureError
from joserfc.jwk import KeySet

from conformance.evidence import SecretSet
from conformance.fixtures.scripted_agent import (
    ArtifactSpec,
    AuthServerSpec,
    Bearer,
    CardSpec,
    Extension,
    Interface,
    MutualTls,
    OAuth2,
    OpenIdConnect,
    PushPolicy,
    Script,
    ScriptedAgent,
    TaskFlow,
    Text,
    TLSConfig,
)
from conformance.fixtures.scripted_agent.core import core_script
from conformance.fixtures.scripted_agent.defects import CONFORM_DEFECTS
from conformance.fixtures.scripted_agent.downloads import download_script
from conformance.fixtures.scripted_agent.handler import AUTH_STILL_REQUIRED
from conformance.fixtures.scripted_agent.push import DeliveryLog, follow
from conformance.fixtures.scripted_agent.tasks import TaskStore
from conformance.receiver import Receiver
from tests.test_scripted_agent import V1, call, error_reason, message, reason, result, stream

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
CLIENT = "a2a-cli"
EXT = "https://example.org/extensions/scripted-required/v1"


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10.0, headers=V1) as c:
        yield c


def rpc(client: httpx.Client, agent: ScriptedAgent, method: str, params: dict[str, Any],
        headers: dict[str, str] | None = None) -> httpx.Response:
    return client.post(agent.jsonrpc_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                       headers=headers)


def grpc_stub(agent: ScriptedAgent, creds: grpc.ChannelCredentials | None = None) -> tuple[grpc.Channel, Any]:
    assert agent.grpc_target
    channel = grpc.secure_channel(agent.grpc_target, creds) if creds else grpc.insecure_channel(agent.grpc_target)
    return channel, A2AServiceStub(channel)


def grpc_send(stub: Any, text: str, metadata: list[tuple[str, str]], **ids: str) -> pb.SendMessageResponse:
    msg = pb.Message(message_id=f"g-{uuid.uuid4()}", role=pb.Role.ROLE_USER, parts=[pb.Part(text=text)], **ids)
    return stub.SendMessage(pb.SendMessageRequest(message=msg), metadata=[("a2a-version", "1.0"), *metadata],
                            timeout=10)


# ----------------------------------------------------------------------------- OAuth 2: device code


def _device_agent(secrets: SecretSet, **server: Any) -> ScriptedAgent:
    script = Script(card=CardSpec(security=(OAuth2("device_code"),)), auth_server=AuthServerSpec(**server))
    return ScriptedAgent(script, grpc=True, secrets=secrets)


def _start_device(http: httpx.Client, agent: ScriptedAgent, scope: str = "a2a") -> dict[str, Any]:
    resp = http.post(agent.device_authorization_url, data={"client_id": CLIENT, "scope": scope})
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def _poll(http: httpx.Client, agent: ScriptedAgent, device_code: str) -> httpx.Response:
    return http.post(agent.token_url, data={"grant_type": DEVICE_GRANT, "device_code": device_code,
                                            "client_id": CLIENT})


def test_device_code_pends_until_the_harness_approves_then_issues_registered_tokens(http: httpx.Client) -> None:
    secrets = SecretSet()
    with _device_agent(secrets, interval=0) as agent:
        card = http.get(agent.card_url).json()
        flow = card["securitySchemes"]["oauth2-device-code"]["oauth2SecurityScheme"]["flows"]["deviceCode"]
        assert flow["deviceAuthorizationUrl"] == agent.device_authorization_url
        assert flow["tokenUrl"] == flow["refreshUrl"] == agent.token_url
        ParseDict(card, pb.AgentCard())

        start = _start_device(http, agent)
        assert set(start) >= {"device_code", "user_code", "verification_uri", "expires_in", "interval"}
        assert start["verification_uri"].startswith(agent.base_url) and start["interval"] == 0
        assert start["device_code"] in secrets and start["user_code"] not in secrets
        assert agent.wait_for_device_grant().user_code == start["user_code"]

        pending = _poll(http, agent, start["device_code"])
        assert (pending.status_code, pending.json()["error"]) == (400, "authorization_pending")

        agent.approve_device(start["user_code"].lower().replace("-", " "))  # RFC 8628 §6.1: case, punctuation
        granted = _poll(http, agent, start["device_code"])
        assert granted.status_code == 200, granted.text
        token = granted.json()
        assert token["token_type"] == "Bearer" and token["expires_in"] > 0
        assert token["access_token"] in secrets and token["refresh_token"] in secrets
        again = _poll(http, agent, start["device_code"])
        assert again.status_code == 400, f"a device code must be redeemed once, got {again.text}"
        info = agent.auth_server.token_info(token["access_token"])
        assert info is not None and (info.grant_type, info.client_id) == (DEVICE_GRANT, CLIENT)

        # the OAuth exchanges are recorded, the token endpoint with the body the client sent
        polls = [r for r in agent.requests if r.binding == "OAUTH" and r.path.endswith("/token")]
        assert [r.response_status for r in polls] == [400, 200, 400]
        assert polls[0].form["device_code"] == start["device_code"]


def test_the_access_token_admits_a2a_requests_and_the_recording_names_it(http: httpx.Client) -> None:
    secrets = SecretSet()
    with _device_agent(secrets, interval=0) as agent:
        start = _start_device(http, agent)
        agent.approve_device(start["user_code"])
        access = _poll(http, agent, start["device_code"]).json()["access_token"]

        refused = rpc(http, agent, "SendMessage", {"message": message("no token")})
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and 'scope="a2a"' in challenge and "invalid_token" not in challenge

        ok = rpc(http, agent, "SendMessage", {"message": message("with token")},
                 headers={"Authorization": f"Bearer {access}"})
        assert result(ok, "JSONRPC")["task"]
        (rec,) = agent.wait_for_requests(lambda r: b"with token" in r.body)
        assert (rec.bearer, rec.accepted_by, rec.credentials) == (access, "oauth2-device-code",
                                                                  ("header:authorization",))
        assert access not in secrets.redact(json.dumps(rec.headers))

        channel, stub = grpc_stub(agent)
        with channel:
            assert grpc_send(stub, "grpc with token", [("authorization", f"Bearer {access}")]).task.id
            with pytest.raises(grpc.RpcError) as denied:
                grpc_send(stub, "grpc without", [])
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        (grec,) = agent.wait_for_requests(lambda r: r.binding == "GRPC" and r.accepted_by is not None)
        assert grec.bearer == access

        assert agent.expire_tokens(access) == 1
        stale = rpc(http, agent, "SendMessage", {"message": message("stale token")},
                    headers={"Authorization": f"Bearer {access}"})
        assert stale.status_code == 401 and 'error="invalid_token"' in stale.headers["www-authenticate"]


def test_refresh_issues_a_new_access_token_and_rotates_the_refresh_token(http: httpx.Client) -> None:
    secrets = SecretSet()
    with _device_agent(secrets, interval=0) as agent:
        start = _start_device(http, agent)
        agent.approve_device(start["user_code"])
        first = _poll(http, agent, start["device_code"]).json()
        agent.expire_tokens()
        refreshed = http.post(agent.token_url, data={"grant_type": "refresh_token",
                                                     "refresh_token": first["refresh_token"], "client_id": CLIENT})
        assert refreshed.status_code == 200, refreshed.text
        new = refreshed.json()
        assert new["access_token"] != first["access_token"] and new["access_token"] in secrets
        assert new["refresh_token"] != first["refresh_token"] and new["refresh_token"] in secrets
        assert agent.auth_server.valid(new["access_token"]) and not agent.auth_server.valid(first["access_token"])
        ok = rpc(http, agent, "SendMessage", {"message": message()},
                 headers={"Authorization": f"Bearer {new['access_token']}"})
        assert ok.status_code == 200
        reused = http.post(agent.token_url, data={"grant_type": "refresh_token",
                                                  "refresh_token": first["refresh_token"], "client_id": CLIENT})
        assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")


def test_device_code_answers_slow_down_access_denied_and_expired_token(http: httpx.Client) -> None:
    with _device_agent(SecretSet(), interval=5) as agent:
        fast = _start_device(http, agent)
        first = _poll(http, agent, fast["device_code"])  # the interval is kept between polls, not before the first
        assert (first.status_code, first.json()["error"]) == (400, "authorization_pending")
        too_soon = _poll(http, agent, fast["device_code"])
        assert (too_soon.status_code, too_soon.json()["error"]) == (400, "slow_down")
        grant = agent.auth_server.device_grants()[0]
        assert (grant.polls, grant.slow_downs, grant.current_interval()) == (2, 1, 10)

        denied = _start_device(http, agent)
        agent.deny_device(denied["user_code"])
        answer = _poll(http, agent, denied["device_code"])
        assert (answer.status_code, answer.json()["error"]) == (400, "access_denied")

        late = _start_device(http, agent)
        agent.auth_server.expire_device(late["user_code"])
        answer = _poll(http, agent, late["device_code"])
        assert (answer.status_code, answer.json()["error"]) == (400, "expired_token")


def test_oauth_endpoints_are_absent_unless_the_card_declares_oauth(http: httpx.Client) -> None:
    with ScriptedAgent(Script()) as agent:
        resp = http.post(agent.token_url, data={"grant_type": "client_credentials"})
        assert resp.status_code == 404
        assert http.get(agent.openid_configuration_url).status_code == 404
        assert http.get(agent.jwks_url).status_code == 404
        assert {r.binding for r in agent.requests} == {"OTHER"}


# ----------------------------------------------------------------------------- OAuth 2: client credentials


def test_client_credentials_checks_the_secret_and_issues_a_token_without_refresh(http: httpx.Client) -> None:
    secrets = SecretSet()
    ci_secret = secrets.make("cisecret")
    script = Script(card=CardSpec(security=(OAuth2("client_credentials"),)),
                    auth_server=AuthServerSpec(clients={"a2a-ci": ci_secret, CLIENT: None}))
    with ScriptedAgent(script, grpc=True, secrets=secrets) as agent:
        card = http.get(agent.card_url).json()
        cc = card["securitySchemes"]["oauth2-client-credentials"]["oauth2SecurityScheme"]["flows"]
        assert cc["clientCredentials"]["tokenUrl"] == agent.token_url

        basic = http.post(agent.token_url, data={"grant_type": "client_credentials", "scope": "a2a"},
                          auth=("a2a-ci", ci_secret))
        assert basic.status_code == 200, basic.text
        assert "refresh_token" not in basic.json() and basic.json()["access_token"] in secrets
        form = http.post(agent.token_url, data={"grant_type": "client_credentials", "client_id": "a2a-ci",
                                                "client_secret": ci_secret})
        assert form.status_code == 200, form.text

        wrong = http.post(agent.token_url, data={"grant_type": "client_credentials"}, auth=("a2a-ci", "not-it"))
        assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
        public = http.post(agent.token_url, data={"grant_type": "client_credentials", "client_id": CLIENT})
        assert public.json()["error"] in ("invalid_client", "unauthorized_client")

        token = basic.json()["access_token"]
        info = agent.auth_server.token_info(token)
        assert info is not None and (info.grant_type, info.user) == ("client_credentials", None)
        channel, stub = grpc_stub(agent)
        with channel:
            assert grpc_send(stub, "cc", [("authorization", f"Bearer {token}")]).task.id
        rest = http.post(agent.rest_url + "/message:send", json={"message": message()},
                         headers={"Authorization": f"Bearer {token}"})
        assert rest.status_code == 200, rest.text


# ----------------------------------------------------------------------------- OpenID Connect


@pytest.mark.parametrize("key", ["published", "unpublished"])
def test_oidc_discovery_jwks_and_id_tokens_signed_with_the_chosen_key(http: httpx.Client, key: str) -> None:
    secrets = SecretSet()
    script = Script(card=CardSpec(security=(OpenIdConnect(),)),
                    auth_server=AuthServerSpec(interval=0, id_token_key=key))  # type: ignore[arg-type]
    with ScriptedAgent(script, secrets=secrets) as agent:
        card = http.get(agent.card_url).json()
        discovery_url = card["securitySchemes"]["oidc"]["openIdConnectSecurityScheme"]["openIdConnectUrl"]
        assert discovery_url == agent.openid_configuration_url
        meta = http.get(discovery_url).json()
        assert meta["issuer"] == agent.base_url
        assert (meta["token_endpoint"], meta["device_authorization_endpoint"], meta["jwks_uri"]) == (
            agent.token_url, agent.device_authorization_url, agent.jwks_url)
        assert "RS256" in meta["id_token_signing_alg_values_supported"]
        jwks = KeySet.import_key_set(http.get(meta["jwks_uri"]).json())

        start = _start_device(http, agent, scope="openid a2a")
        agent.approve_device(start["user_code"])
        token = _poll(http, agent, start["device_code"]).json()
        assert token["id_token"] in secrets
        if key == "published":
            claims = jwt.decode(token["id_token"], jwks).claims
            assert (claims["iss"], claims["aud"], claims["sub"]) == (agent.base_url, CLIENT, "scripted-user")
        else:
            with pytest.raises(BadSignatureError):
                jwt.decode(token["id_token"], jwks)
        assert rpc(http, agent, "SendMessage", {"message": message()},
                   headers={"Authorization": f"Bearer {token['access_token']}"}).status_code == 200
        assert {r.binding for r in agent.requests} >= {"CARD", "OIDC", "JWKS", "OAUTH", "JSONRPC"}


# ----------------------------------------------------------------------------- signed cards (A2A §8.4)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _verify(card: dict[str, Any], client: httpx.Client) -> str:
    """An independent §8.4.3 verifier: "verified", "bad-signature", "unknown-kid" or "absent"."""
    if not card.get("signatures"):
        return "absent"
    sig = card["signatures"][0]
    header = json.loads(base64.urlsafe_b64decode(sig["protected"] + "=" * (-len(sig["protected"]) % 4)))
    assert (header["alg"], header["typ"]) == ("ES256", "JOSE") and header["kid"]
    keys = KeySet.import_key_set(client.get(header["jku"]).json())
    if header["kid"] not in {k.kid for k in keys}:
        return "unknown-kid"
    payload = rfc8785.dumps({k: v for k, v in card.items() if k != "signatures"})
    try:
        jws.deserialize_compact(f"{sig['protected']}.{_b64(payload)}.{sig['signature']}", keys)
    except BadSignatureError:
        return "bad-signature"
    return "verified"


@pytest.mark.parametrize(("variant", "outcome"), [
    ("valid", "verified"), ("tampered", "bad-signature"), ("wrong-key", "bad-signature"),
    ("unknown-kid", "unknown-kid"), (None, "absent"),
])
def test_signed_card_variants_verify_as_their_name_says(http: httpx.Client, variant: Any, outcome: str) -> None:
    with ScriptedAgent(Script(card=CardSpec(signature=variant))) as agent:
        card = http.get(agent.card_url).json()
        ParseDict(card, pb.AgentCard())  # still a strict A2A AgentCard
        assert _verify(card, http) == outcome
        if variant is not None:
            assert agent.requests[-1].binding == "JWKS"


# ----------------------------------------------------------------------------- catalog


def test_catalog_lists_entries_and_serves_their_cards(http: httpx.Client) -> None:
    alpha = CardSpec(name="alpha-agent", interfaces=(Interface("JSONRPC", tenant="alpha"),))
    external = "http://127.0.0.1:9/elsewhere/agent-card.json"
    with ScriptedAgent(Script(catalog={"alpha": alpha, "external": external})) as agent:
        doc = http.get(agent.catalog_url).json()
        assert doc == {"agents": [{"name": "alpha", "url": agent.catalog_card_url("alpha")},
                                  {"name": "external", "url": external}]}
        card = http.get(doc["agents"][0]["url"]).json()
        assert card["name"] == "alpha-agent"
        assert card["supportedInterfaces"] == [{"url": agent.jsonrpc_url, "protocolBinding": "JSONRPC",
                                                "protocolVersion": "1.0", "tenant": "alpha"}]
        assert http.get(agent.base_url + "/catalog/nobody/agent-card.json").status_code == 404
        assert [r.binding for r in agent.requests] == ["CATALOG", "CARD", "OTHER"]
        assert [r.path for r in agent.card_requests()] == ["/catalog/alpha/agent-card.json"]


# ----------------------------------------------------------------------------- extended card (AUTH_008, CARD_GET_003)


def test_extended_card_needs_the_declared_credential_and_card_requests_record_what_was_presented(
    http: httpx.Client,
) -> None:
    secrets = SecretSet()
    token = secrets.make("extended")
    script = Script(card=CardSpec(security=(Bearer(token),), require_auth=False, extended_agent_card=True))
    with ScriptedAgent(script, grpc=True) as agent:
        assert rpc(http, agent, "SendMessage", {"message": message()}).status_code == 200
        assert rpc(http, agent, "GetExtendedAgentCard", {}).status_code == 401
        ok = rpc(http, agent, "GetExtendedAgentCard", {}, headers={"Authorization": f"Bearer {token}"})
        assert "extended" in [s["id"] for s in result(ok, "JSONRPC")["skills"]]
        assert http.get(agent.rest_url + "/extendedAgentCard").status_code == 401
        assert http.get(agent.rest_url + "/extendedAgentCard",
                        headers={"Authorization": f"Bearer {token}"}).status_code == 200
        channel, stub = grpc_stub(agent)
        with channel, pytest.raises(grpc.RpcError) as no_cred:
            stub.GetExtendedAgentCard(pb.GetExtendedAgentCardRequest(), metadata=[("a2a-version", "1.0")], timeout=10)
        assert no_cred.value.code() == grpc.StatusCode.UNAUTHENTICATED

        http.get(agent.card_url, headers={"Authorization": f"Bearer {token}"})  # a leak AUTH_008 must see
        http.get(agent.card_url)
        seen = [(r.binding, r.operation, r.credentials, r.accepted_by) for r in agent.card_requests()]
        assert seen == [
            ("JSONRPC", "GetExtendedAgentCard", (), None),
            ("JSONRPC", "GetExtendedAgentCard", ("header:authorization",), "bearer"),
            ("HTTP+JSON", "GetExtendedAgentCard", (), None),
            ("HTTP+JSON", "GetExtendedAgentCard", ("header:authorization",), "bearer"),
            ("GRPC", "GetExtendedAgentCard", (), None),
            ("CARD", None, ("header:authorization",), None),
            ("CARD", None, (), None),
        ]


# ----------------------------------------------------------------------------- push notifications


def _push_script(policy: PushPolicy | None) -> Script:
    flow = TaskFlow(states=[("WORKING", 0.0), ("COMPLETED", 1.0)],
                    artifacts=[ArtifactSpec([Text("pushed")], name="out", at=1.0)])
    return Script(card=CardSpec(push_notifications=True), send=flow, push=policy)


def test_push_configs_are_managed_on_every_binding_and_recorded(http: httpx.Client) -> None:
    with ScriptedAgent(_push_script(None), grpc=True) as agent:
        task = agent.hold_task("WORKING")
        cfg = {"taskId": task.id, "url": "http://127.0.0.1:9/hook", "token": "tok-abcdefgh"}
        created = result(rpc(http, agent, "CreateTaskPushNotificationConfig", cfg), "JSONRPC")
        got = result(rpc(http, agent, "GetTaskPushNotificationConfig", {"taskId": task.id, "id": created["id"]}),
                     "JSONRPC")
        assert (got["url"], got["token"]) == (cfg["url"], cfg["token"])
        rest = http.post(f"{agent.rest_url}/tasks/{task.id}/pushNotificationConfigs", json={**cfg, "id": "r1"})
        assert rest.status_code == 200, rest.text
        listed = http.get(f"{agent.rest_url}/tasks/{task.id}/pushNotificationConfigs").json()
        assert {c["id"] for c in listed["configs"]} == {created["id"], "r1"}
        channel, stub = grpc_stub(agent)
        with channel:
            stub.DeleteTaskPushNotificationConfig(pb.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="r1"),
                                                  metadata=[("a2a-version", "1.0")], timeout=10)
        assert http.delete(f"{agent.rest_url}/tasks/{task.id}/pushNotificationConfigs/{created['id']}").status_code \
            == 200
        ops = [(r.binding, r.operation) for r in agent.a2a_requests()]
        assert ops == [
            ("JSONRPC", "CreateTaskPushNotificationConfig"), ("JSONRPC", "GetTaskPushNotificationConfig"),
            ("HTTP+JSON", "CreateTaskPushNotificationConfig"), ("HTTP+JSON", "ListTaskPushNotificationConfigs"),
            ("GRPC", "DeleteTaskPushNotificationConfig"), ("HTTP+JSON", "DeleteTaskPushNotificationConfig"),
        ]


def test_scheduled_webhook_posts_carry_the_token_and_one_wrong_token_on_request(http: httpx.Client) -> None:
    token = "notify-" + uuid.uuid4().hex
    with ScriptedAgent(_push_script(PushPolicy(task_first=True, wrong_token_once=True))) as agent, \
            Receiver() as hook:
        params = {"message": message(), "configuration": {"returnImmediately": True}}
        task = result(rpc(http, agent, "SendMessage", params), "JSONRPC")["task"]
        rpc(http, agent, "CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": hook.url, "token": token})
        done = agent.wait_for_deliveries(lambda d: d.kind == "statusUpdate", timeout=15)
        sent = agent.deliveries
        assert [d.kind for d in sent] == ["task", "task", "artifactUpdate", "statusUpdate"]
        assert [d.wrong_token for d in sent] == [False, True, False, False]
        assert all(d.status == 204 for d in sent), [(d.status, d.error) for d in sent]
        assert done[0].body["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        received = hook.wait(4, timeout=5)
        tokens = [d.headers.get("x-a2a-notification-token") for d in received]
        assert tokens.count(token) == 3 and len({t for t in tokens if t != token}) == 1
        assert all(d.json["task" if i < 2 else next(iter(d.json))] for i, d in enumerate(received))


def test_webhook_follower_stops_at_its_bound() -> None:
    store = TaskStore()
    rec = store.create(TaskFlow(states=[("WORKING", 0.0), ("WORKING", 0.01, "a"), ("COMPLETED", 0.02)]))
    log = DeliveryLog()
    with Receiver() as hook:
        cfg = pb.TaskPushNotificationConfig(task_id=rec.id, id="c", url=hook.url, token="t0k-bound")
        asyncio.run(follow(rec, cfg, PushPolicy(task_first=True, max_posts=2), with_credentials=lambda: True,
                           deliveries=log))
        assert [d.kind for d in log.snapshot()] == ["task", "statusUpdate"]
        assert len(hook.wait(2, timeout=5)) == 2


# ----------------------------------------------------------------------------- required extensions


def test_a_required_extension_not_requested_is_refused_on_every_binding(http: httpx.Client) -> None:
    card = CardSpec(extensions=(Extension(EXT, required=True, description="must be named"),))
    with ScriptedAgent(Script(card=card), grpc=True) as agent:
        served = http.get(agent.card_url).json()
        assert served["capabilities"]["extensions"] == [{"uri": EXT, "required": True, "description": "must be named"}]
        for binding in ("JSONRPC", "HTTP+JSON"):
            refused = call(http, agent, binding, "SendMessage", {"message": message()})
            assert error_reason(refused, binding) == reason(a2a_errors.ExtensionSupportRequiredError)
            with httpx.Client(timeout=10, headers={**V1, "A2A-Extensions": EXT}) as named:
                assert result(call(named, agent, binding, "SendMessage", {"message": message()}), binding)
        channel, stub = grpc_stub(agent)
        with channel:
            with pytest.raises(grpc.RpcError) as refused_grpc:
                grpc_send(stub, "no extension", [])
            assert refused_grpc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert grpc_send(stub, "named", [("a2a-extensions", EXT)]).task.id


# ----------------------------------------------------------------------------- transports (TX_004, TX_005)


def test_grpc_only_and_two_transport_cards(http: httpx.Client) -> None:
    with ScriptedAgent(Script(card=CardSpec(interfaces=(Interface("GRPC"),))), grpc=True) as agent:
        card = http.get(agent.card_url).json()
        assert card["supportedInterfaces"] == [{"url": agent.grpc_url, "protocolBinding": "GRPC",
                                                "protocolVersion": "1.0"}]
        channel, stub = grpc_stub(agent)
        with channel:
            assert grpc_send(stub, "grpc only", []).task.id
        agent.set_script(Script(card=CardSpec(interfaces=(Interface("GRPC"), Interface("JSONRPC")))))
        card = http.get(agent.card_url).json()
        assert [i["protocolBinding"] for i in card["supportedInterfaces"]] == ["GRPC", "JSONRPC"]
        assert result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")["task"]
        assert [r.binding for r in agent.a2a_requests()] == ["GRPC", "JSONRPC"]


# ----------------------------------------------------------------------------- mutual TLS (AUTH_009)


def test_mutual_tls_scheme_needs_a_certificate_of_the_runs_ca(tmp_path: Path) -> None:
    tls = TLSConfig.generate(tmp_path / "mtls", mutual=True)
    assert tls.client_cert_pem and tls.client_key_pem and tls.client_pem
    stranger = TLSConfig.stranger_client(tmp_path / "stranger")
    with ScriptedAgent(Script(card=CardSpec(security=(MutualTls(),))), tls=tls, grpc=True) as agent:
        with httpx.Client(verify=tls.client_context(), timeout=5, headers=V1) as ok:
            assert "mtlsSecurityScheme" in ok.get(agent.card_url).json()["securitySchemes"]["mtls"]
            assert result(rpc(ok, agent, "SendMessage", {"message": message("over mtls")}), "JSONRPC")
        (rec,) = agent.wait_for_requests(lambda r: b"over mtls" in r.body)
        assert rec.accepted_by == "mtls"
        for ctx in (tls.client_context(with_client_cert=False), _context(tls, stranger)):
            with httpx.Client(verify=ctx, timeout=5) as refused, pytest.raises((httpx.HTTPError, ssl.SSLError)):
                refused.get(agent.card_url).raise_for_status()
        creds = grpc.ssl_channel_credentials(tls.ca_pem.read_bytes(), tls.client_key_pem.read_bytes(),
                                             tls.client_cert_pem.read_bytes())
        channel, stub = grpc_stub(agent, creds)
        with channel:
            assert grpc_send(stub, "grpc over mtls", []).task.id
        (grec,) = agent.wait_for_requests(lambda r: r.binding == "GRPC")
        assert grec.accepted_by == "mtls"


def _context(tls: TLSConfig, client_pem: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(tls.ca_pem))
    ctx.load_cert_chain(str(client_pem))
    return ctx


# ----------------------------------------------------------------------------- in-task AUTH_REQUIRED (AUTH_011)


def test_auth_required_task_resumes_only_with_the_credential(http: httpx.Client) -> None:
    token = SecretSet().make("intask")
    script = Script(send=TaskFlow.single("AUTH_REQUIRED", message="authorize the calendar, then reply"),
                    resume=TaskFlow.single("COMPLETED", ArtifactSpec([Text("booked")])), auth_resume=Bearer(token))
    with ScriptedAgent(script, grpc=True) as agent:
        task = result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")["task"]
        assert task["status"]["state"] == "TASK_STATE_AUTH_REQUIRED"
        bare = result(rpc(http, agent, "SendMessage", {"message": message("here", taskId=task["id"])}), "JSONRPC")
        assert bare["task"]["status"]["state"] == "TASK_STATE_AUTH_REQUIRED"
        assert bare["task"]["status"]["message"]["parts"] == [{"text": AUTH_STILL_REQUIRED}]
        done = result(rpc(http, agent, "SendMessage", {"message": message("now", taskId=task["id"])},
                          headers={"Authorization": f"Bearer {token}"}), "JSONRPC")
        assert done["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert [m["parts"][0]["text"] for m in done["task"]["history"]] == ["hello", "received", "here", "now"]

        in_band = result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")["task"]
        resumed = result(rpc(http, agent, "SendMessage", {"message": message(f"token: {token}", taskId=in_band["id"])}),
                         "JSONRPC")
        assert resumed["task"]["status"]["state"] == "TASK_STATE_COMPLETED"

        over_grpc = result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")["task"]
        channel, stub = grpc_stub(agent)
        with channel:
            answer = grpc_send(stub, "grpc", [("authorization", f"Bearer {token}")], task_id=over_grpc["id"])
        assert answer.task.status.state == pb.TaskState.TASK_STATE_COMPLETED


# ----------------------------------------------------------------------------- ListTasks paging (TASK_LIST_001)


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_list_tasks_pages_with_a_cursor_and_filters_by_status_and_context(http: httpx.Client, binding: str) -> None:
    with ScriptedAgent() as agent:
        done = [agent.add_task(TaskFlow.single("COMPLETED"), context_id="ctx-a").id for _ in range(7)]
        working = [agent.hold_task("WORKING", context_id="ctx-b").id for _ in range(2)]
        pages, token = [], ""
        while True:
            params: dict[str, Any] = {"pageSize": 3, **({"pageToken": token} if token else {})}
            page = result(call(http, agent, binding, "ListTasks", params), binding)
            pages.append([t["id"] for t in page["tasks"]])
            token = page["nextPageToken"]
            if not token:
                break
        assert [len(p) for p in pages] == [3, 3, 3]
        assert sorted(sum(pages, [])) == sorted(done + working)
        by_ctx = result(call(http, agent, binding, "ListTasks", {"contextId": "ctx-b"}), binding)
        assert sorted(t["id"] for t in by_ctx["tasks"]) == sorted(working)
        by_status = result(call(http, agent, binding, "ListTasks", {"status": "TASK_STATE_WORKING"}), binding)
        assert sorted(t["id"] for t in by_status["tasks"]) == sorted(working)


# ----------------------------------------------------------------------------- dropped stream (TASK_SUBSCRIBE_002)


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_a_dropped_subscription_resubscribes_to_the_full_task_first(http: httpx.Client, binding: str) -> None:
    flow = TaskFlow(states=[("WORKING", 0.0), ("WORKING", 0.3, "step 1"), ("WORKING", 1.5, "step 2"),
                            ("COMPLETED", 1.8)])
    with ScriptedAgent(Script(send=flow, drop_stream_after=2, drop_stream_limit=1)) as agent:
        task = result(call(http, agent, binding, "SendMessage",
                           {"message": message(), "configuration": {"returnImmediately": True}}), binding)["task"]
        first, clean = stream(http, agent, binding, "SubscribeToTask", {"id": task["id"]})
        assert not clean and [next(iter(e)) for e in first] == ["task", "statusUpdate"]
        again, clean = stream(http, agent, binding, "SubscribeToTask", {"id": task["id"]})
        assert clean, f"the second subscription must run to the end, got {again}"
        assert next(iter(again[0])) == "task" and again[0]["task"]["id"] == task["id"]
        assert again[0]["task"]["status"]["message"]["parts"] == [{"text": "step 1"}]
        assert again[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_a_held_tasks_stream_is_cut_and_the_task_moves_at_the_cut(http: httpx.Client, binding: str) -> None:
    """`drop_moves_to`: only the next subscription's first event (the full Task) carries the new state."""
    script = Script(drop_stream_after=1, drop_stream_limit=1, drop_moves_to="INPUT_REQUIRED")
    with ScriptedAgent(script) as agent:
        rec = agent.hold_task("WORKING")
        first, clean = stream(http, agent, binding, "SubscribeToTask", {"id": rec.id})
        assert not clean and [next(iter(e)) for e in first] == ["task"]
        assert first[0]["task"]["status"]["state"] == "TASK_STATE_WORKING"
        assert rec.state() == "TASK_STATE_INPUT_REQUIRED"
        again, clean = stream(http, agent, binding, "SubscribeToTask", {"id": rec.id})
        assert clean and [next(iter(e)) for e in again] == ["task"], again
        assert again[0]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"


# ----------------------------------------------------------------------------- artifacts for download (DOWNLOAD_001)


def test_download_artifacts_are_bit_exact_and_hostile_names_reach_the_wire_unchanged(http: httpx.Client) -> None:
    tag = uuid.uuid4().hex[:8]
    dl = download_script(tag)
    with ScriptedAgent(dl.script) as agent:
        task = result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")["task"]
        kinds, hostile = task["artifacts"]
        text, raw, data, url = kinds["parts"]
        assert text["text"] == dl.text and data["data"] == dl.data
        assert base64.b64decode(raw["raw"]) == dl.files[raw["filename"]]
        assert url["url"].startswith(agent.base_url + "/files/")
        fetched = http.get(url["url"])
        assert fetched.content == dl.files[url["filename"]]
        assert [p["filename"] for p in hostile["parts"]] == list(dl.hostile)
        assert [base64.b64decode(p["raw"]) for p in hostile["parts"]] == [dl.files[n] for n in dl.hostile]
        assert any(n.startswith("/") for n in dl.hostile) and any(n.startswith("../") for n in dl.hostile)
        assert agent.requests[-1].binding == "FILE"


# ----------------------------------------------------------------------------- protocol defects (CONFORM_001)


@pytest.mark.parametrize("defect", [None, *CONFORM_DEFECTS])
def test_each_conform_defect_breaks_a_strict_reading_of_a_smoke_check_step(http: httpx.Client,
                                                                         defect: str | None) -> None:
    """The clean core agent reads as valid A2A; each CONFORM defect makes the card or the send result invalid."""
    with ScriptedAgent(core_script(defects=[defect] if defect else []), grpc=True) as agent:
        card = http.get(agent.card_url).json()
        sent = result(rpc(http, agent, "SendMessage", {"message": message()}), "JSONRPC")
        broken = []
        for value, proto in ((card, pb.AgentCard()), (sent, pb.SendMessageResponse())):
            try:
                ParseDict(value, proto)
                validate_proto_required_fields(proto)
            except (ParseError, a2a_errors.InvalidParamsError) as exc:
                broken.append(f"{type(proto).__name__}: {exc}")
        assert bool(broken) == (defect is not None), f"{defect}: {broken}"


# ----------------------------------------------------------------------------- tasks per caller


def _send_as(http: httpx.Client, agent: ScriptedAgent, token: str) -> dict[str, Any]:
    msg = {"messageId": f"m-{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{"text": "mine"}]}
    answer = rpc(http, agent, "SendMessage", {"message": msg}, {"Authorization": f"Bearer {token}"}).json()
    return dict(answer["result"]["task"])


@pytest.mark.parametrize("defect", [None, "list-shows-others-tasks", "get-reveals-others-task"])
def test_a_task_is_its_makers_where_the_scheme_tells_callers_apart(http: httpx.Client, defect: str | None) -> None:
    """A bearer scheme accepting two callers' tokens: a task is visible to the caller that made it only (the other
    gets TaskNotFoundError from GetTask and CancelTask, and ListTasks leaves it out); each defect undoes exactly its
    own operation. With one token there is one caller, and every task is shared as before."""
    script = core_script(secured="tok-maker", callers=("tok-other",), defects=[defect] if defect else [])
    with ScriptedAgent(script, grpc=True) as agent:
        task = _send_as(http, agent, "tok-maker")
        other = {"Authorization": "Bearer tok-other"}
        got = rpc(http, agent, "GetTask", {"id": task["id"]}, other).json()
        listed = rpc(http, agent, "ListTasks", {}, other).json()["result"].get("tasks", [])
        cancel = rpc(http, agent, "CancelTask", {"id": task["id"]}, other).json()
        mine = rpc(http, agent, "GetTask", {"id": task["id"]}, {"Authorization": "Bearer tok-maker"}).json()
    assert mine["result"]["id"] == task["id"]
    assert cancel["error"]["code"] == -32001, cancel
    assert (got.get("result", {}).get("id") == task["id"]) == (defect == "get-reveals-others-task"), got
    assert (got.get("error") or {}).get("code", -32001) == -32001, got
    assert ([t["id"] for t in listed] == [task["id"]]) == (defect == "list-shows-others-tasks"), listed
    with ScriptedAgent(core_script(secured="tok-only"), grpc=True) as agent:
        rec = agent.task(_send_as(http, agent, "tok-only")["id"])
        assert rec is not None and rec.owner is None
