"""Container contract v2: what an image says (labels, or a targets file's ``container:`` entry) beyond v1's
environment switches, so an image built as its vendor ships it can be checked without a shim.

v1 (still read): ``port``, ``socket-dir``, ``switches``, ``defaults``, ``tokens``, ``long-running-text``,
``control`` (see :mod:`conformance.targets.container`). v2 adds, each optional:

``dev.agentd-conformance.tls``          ``cert=X,key=X[,ca=X]`` — the image serves TLS: the harness makes a CA
                                        and a server certificate for the addresses it calls, puts them into the
                                        container before it starts and speaks https, trusting only that CA.
                                        ``X`` is a variable the harness sets to the file's path inside
                                        (:data:`TLS_DIR`), or an absolute path where the image reads the file.
                                        ``ca`` is a CA bundle the image trusts for its outbound calls (the
                                        harness's receivers serve https with a certificate of the same CA);
                                        it is put in on a unix socket too, where no TLS is served.
``dev.agentd-conformance.public-url``   the variable the harness sets to the URL it reaches the listener at
                                        (the card's interfaces must name it); v1's fixed
                                        ``AGENTD_PUBLIC_URL`` stays the default
``dev.agentd-conformance.config``       ``path=/in/container[,format=reference|json-e][,env=VAR]`` — a
                                        configuration document the harness writes into the container: the
                                        reference's own shape, or the image's own shape translated by the
                                        JSON-e template in ``config-template`` (from the harness's model:
                                        :func:`render_context`); JSON when the path ends in ``.json``, else
                                        YAML. ``env``: a variable set to the path.
``dev.agentd-conformance.config-template``  the JSON-e template (JSON text)
``dev.agentd-conformance.config-takes`` the needs the document expresses (``principals,workflows,events,...``;
                                        with ``format=reference``: every field of the reference's Config)
``dev.agentd-conformance.env``          ``K=V,...``: environment every container of the image gets
``dev.agentd-conformance.callbacks``    ``schemes=https[+http]`` — the schemes the image delivers webhooks and
                                        peer calls to (default ``http+https``); with https only, the harness's
                                        receivers serve https (:mod:`conformance.receiver`), and without a
                                        ``ca`` the image could trust, checks needing a call back are not
                                        measured (:func:`conformance.targets.pool.way_back`)
``dev.agentd-conformance.state``        ``/abs/folder[,env=VAR]``: a folder the image keeps its state in; the
                                        harness makes it (empty, writable by the image's uid) before the
                                        container starts, and a restart keeps it
``dev.agentd-conformance.network``      ``host``: the image binds and advertises the URL in ``public-url``
                                        on this host's loopback (for an image whose card names its bind
                                        address); default: the harness's internal network
``dev.agentd-conformance.contract``     ``2``: the image speaks this contract (informational; the report
                                        names it)

Tokens per role: with a configuration document, each principal's token is also set in a variable of its own
(``token_env`` in the render context), so a template can reference a secret instead of writing it inline
(an image that refuses inline credentials in files).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

PREFIX = "dev.agentd-conformance"
#: Where the harness puts the TLS files inside a container when the image names a variable for them.
TLS_DIR = "/run/agentd-conformance/tls"
TLS_FILES = {"cert": "server.crt", "key": "server.key", "ca": "ca.crt"}
FORMATS = ("reference", "json-e")
#: Needs a reference-shaped document carries (the reference's Config fields the checks ask for).
REFERENCE_TAKES = ("principals", "workflows", "grants", "tick", "instance", "events", "introspection",
                   "device_grant", "push", "ring", "stream_deadline", "cors_origins", "callback_hosts")
SCHEMES = ("http", "https")


class ContractError(ValueError):
    """A label or entry of the contract is malformed; the message names it."""


def pairs(text: str | None) -> dict[str, str]:
    """``k=v,k=v`` as a mapping (empty keys or values dropped)."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        k, sep, v = part.strip().partition("=")
        if sep and k.strip() and v.strip():
            out[k.strip()] = v.strip()
    return out


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").replace("+", ",").split(",") if n.strip())


@dataclass(frozen=True)
class TlsSpec:
    """Where the image reads its server certificate, key and outbound CA bundle (each a variable or a path)."""

    cert: str
    key: str
    ca: str | None = None

    @classmethod
    def parse(cls, value: str | dict[str, Any] | None, where: str) -> TlsSpec | None:
        if not value:
            return None
        raw = pairs(value) if isinstance(value, str) else {str(k): str(v) for k, v in value.items()}
        unknown = sorted(set(raw) - set(TLS_FILES))
        if unknown or "cert" not in raw or "key" not in raw:
            raise ContractError(f"{where}: expected cert=X,key=X[,ca=X] (X a variable or an absolute path), "
                                f"got {value!r}")
        return cls(cert=raw["cert"], key=raw["key"], ca=raw.get("ca"))

    def placements(self) -> dict[str, tuple[str, str | None]]:
        """Per file (cert, key, ca): (its path inside the container, the variable to set to it or None)."""
        out: dict[str, tuple[str, str | None]] = {}
        for name, given in (("cert", self.cert), ("key", self.key), ("ca", self.ca)):
            if given is None:
                continue
            if given.startswith("/"):
                out[name] = (given, None)
            else:
                out[name] = (f"{TLS_DIR}/{TLS_FILES[name]}", given)
        return out


@dataclass(frozen=True)
class ConfigSpec:
    """A configuration document the harness writes into the container before it starts."""

    path: str
    format: str = "reference"
    env: str | None = None
    template: Any = None
    takes: tuple[str, ...] = REFERENCE_TAKES

    @classmethod
    def parse(cls, value: str | dict[str, Any] | None, template: Any, takes: Any, where: str) -> ConfigSpec | None:
        if not value:
            return None
        raw = pairs(value) if isinstance(value, str) else {str(k): v for k, v in value.items()}
        template = raw.pop("template", template)
        takes = raw.pop("takes", takes)
        path = str(raw.get("path") or "")
        fmt = str(raw.get("format") or "reference")
        if not path.startswith("/"):
            raise ContractError(f"{where}: config needs path=/absolute/path/in/the/container, got {value!r}")
        if fmt not in FORMATS:
            raise ContractError(f"{where}: config format {fmt!r} is not one of {', '.join(FORMATS)}")
        if isinstance(template, str) and template.strip():
            try:
                template = json.loads(template)
            except ValueError as exc:
                raise ContractError(f"{where}: config-template is not JSON: {exc}") from None
        if fmt == "json-e" and template is None:
            raise ContractError(f"{where}: config format json-e needs a config-template")
        if isinstance(takes, str):
            names = _names(takes)
        elif isinstance(takes, list | tuple):
            names = tuple(str(t) for t in takes)
        else:
            names = REFERENCE_TAKES if fmt == "reference" else ()
        return cls(path=path, format=fmt, env=str(raw["env"]) if raw.get("env") else None, template=template,
                   takes=names)


@dataclass(frozen=True)
class CallbackPolicy:
    """The schemes the image calls back to (webhooks, peers)."""

    schemes: tuple[str, ...] = SCHEMES

    @classmethod
    def parse(cls, value: str | dict[str, Any] | None, where: str) -> CallbackPolicy:
        if not value:
            return cls()
        raw = pairs(value) if isinstance(value, str) else {str(k): str(v) for k, v in value.items()}
        schemes = _names(raw.get("schemes"))
        bad = [s for s in schemes if s not in SCHEMES]
        if bad or not schemes:
            raise ContractError(f"{where}: callbacks needs schemes=https[+http], got {value!r}")
        return cls(schemes=schemes)

    @property
    def https_only(self) -> bool:
        return "http" not in self.schemes


@dataclass
class V2:
    """The v2 part of a container spec."""

    tls: TlsSpec | None = None
    public_url_env: str | None = None
    config: ConfigSpec | None = None
    env: dict[str, str] = field(default_factory=dict)
    callbacks: CallbackPolicy = field(default_factory=CallbackPolicy)
    contract: str = "1"
    state: str | None = None
    state_env: str | None = None

    @classmethod
    def read(cls, labels: dict[str, str], entry: dict[str, Any], image: str) -> V2:
        """From the image's labels, each overridden by the targets file's entry (same names, ``_`` for ``-``)."""
        def pick(key: str) -> Any:
            entry_key = key.replace("-", "_")
            return entry[entry_key] if entry.get(entry_key) not in (None, "") else labels.get(f"{PREFIX}.{key}")

        where = f"image {image}"
        out = cls()
        out.tls = TlsSpec.parse(pick("tls"), where)
        out.public_url_env = str(pick("public-url") or "") or None
        out.config = ConfigSpec.parse(pick("config"), pick("config-template"), pick("config-takes"), where)
        out.env = pairs(labels.get(f"{PREFIX}.env"))
        out.callbacks = CallbackPolicy.parse(pick("callbacks"), where)
        state = pick("state")
        if state:
            raw = pairs(state) if "=" in str(state) else {"path": str(state)}
            if not str(raw.get("path", "")).startswith("/") or str(raw.get("path")).rstrip("/") == "":
                raise ContractError(f"{where}: state needs an absolute folder (path=/var/lib/x[,env=VAR]), "
                                    f"got {state!r}")
            out.state, out.state_env = str(raw["path"]).rstrip("/"), raw.get("env")
        out.contract = str(labels.get(f"{PREFIX}.contract") or ("2" if (out.tls or out.config or out.public_url_env)
                                                                   else "1"))
        return out


def render(spec: ConfigSpec, context: dict[str, Any]) -> bytes:
    """The document ``spec`` describes, for ``context`` (:func:`render_context`), as the bytes of its file."""
    import yaml

    if spec.format == "json-e":
        import jsone

        try:
            doc = jsone.render(spec.template, context)
        except Exception as exc:  # noqa: BLE001 - a template error names the image's own template
            raise ContractError(f"config-template: {type(exc).__name__}: {exc}") from None
    else:
        doc = context["reference"]
    if spec.path.endswith(".json"):
        return json.dumps(doc, indent=2, sort_keys=True).encode()
    return yaml.safe_dump(doc, sort_keys=True).encode()


def render_context(*, facts: dict[str, str], principals: list[dict[str, Any]], workflows: list[dict[str, Any]],
                   extra: dict[str, Any], tls: dict[str, str] | None, public_url: str, listen: str,
                   port: int, callback_hosts: list[str], reference: dict[str, Any],
                   network: str = "internal") -> dict[str, Any]:
    """What a template reads: ``facts`` (strings: on/off, numbers), ``principals`` (name, role, grants, token,
    token_env), ``tokens`` / ``token_env`` by role (the first principal of each), ``workflows`` (the
    reference's workflow mappings), ``tls`` (paths inside: cert, key, ca) or null, ``public_url`` (an
    origin), ``listen`` (tcp/unix), ``port`` (on the host's network: the public URL's), ``network``
    (internal, bridge, host), ``callback_hosts``, ``extra`` (tick, instance, ...), and ``reference``
    (the whole document in the reference's shape)."""
    tokens: dict[str, str] = {}
    token_env: dict[str, str] = {}
    for p in principals:
        tokens.setdefault(p["role"], p["token"])
        token_env.setdefault(p["role"], p["token_env"])
    return {"facts": dict(facts), "principals": principals, "tokens": tokens, "token_env": token_env,
            "workflows": workflows, "extra": dict(extra), "tls": tls, "public_url": public_url, "listen": listen,
            "port": port, "network": network, "callback_hosts": list(callback_hosts), "reference": reference}
