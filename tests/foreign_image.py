"""The foreign image of the contract v2 tests: ``tests/foreign_echo_agent.py`` (an a2a-sdk server with its own
configuration file, TLS only, bearer users, an advertised-URL variable) on the reference's base root
filesystem, uid 65532, described by labels only — the worked example of ``docs/containers.md``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.targets.image import SITE, Built, build_on_base

REPOSITORY = "agentd-conformance/foreign-echo-agent"
PREFIX = "dev.agentd-conformance"
#: The image's own configuration document, written from the harness's model (a JSON-e template).
TEMPLATE: dict[str, Any] = {
    "server": {"host": {"$if": "network == 'host'", "then": "127.0.0.1", "else": "0.0.0.0"},
               "port": {"$eval": "port"}, "certificate": "${tls.cert}", "private_key": "${tls.key}"},
    "access": {"$map": {"$eval": "principals"},
               "each(p)": {"user": "${p.name}", "bearer_env": "${p.token_env}",
                           "admin": {"$eval": "p.role == 'operator'"}}},
}
LABELS = {
    f"{PREFIX}.contract": "2",
    f"{PREFIX}.port": "9443",
    f"{PREFIX}.tls": "cert=/etc/echo-agent/tls/cert.pem,key=/etc/echo-agent/tls/key.pem",
    f"{PREFIX}.public-url": "ECHO_ADVERTISE_URL",
    f"{PREFIX}.config": "path=/etc/echo-agent/config.json,format=json-e",
    f"{PREFIX}.config-takes": "principals",
    f"{PREFIX}.config-template": json.dumps(TEMPLATE, separators=(",", ":")),
}

#: The same image delivering push notifications, to https webhooks only (as agentd off loopback), trusting the CA
#: bundle the harness gives it through the ``tls`` label's ``ca=``.
PUSH_LABELS = {
    **LABELS,
    f"{PREFIX}.tls": "cert=/etc/echo-agent/tls/cert.pem,key=/etc/echo-agent/tls/key.pem,ca=ECHO_PUSH_CA",
    f"{PREFIX}.callbacks": "schemes=https",
    f"{PREFIX}.env": "ECHO_PUSH=on,ECHO_PUSH_URLS=https",
    f"{PREFIX}.switches": "push=ECHO_PUSH",
    f"{PREFIX}.defaults": "push=on",
}


def build(labels: dict[str, str] | None = None) -> Built:
    """The image (a look-up after the first build); ``labels`` replace the default ones (a broken contract)."""
    source = (Path(__file__).parent / "foreign_echo_agent.py").read_bytes()
    steps = [f"ENV PYTHONPATH={SITE} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1",
             "USER 65532:65532",
             'ENTRYPOINT ["python3", "/opt/app/echo_agent.py"]']
    return build_on_base(REPOSITORY, {"echo_agent.py": source}, steps, LABELS if labels is None else labels)
