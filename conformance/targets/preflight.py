"""Pre-flight for an agent the user names: is anything there, and does it let us in?

Before any check runs against ``--url``/``--unix``:

* **nothing listening** (connection refused, name not resolved, no answer in time on the card): the
  run ends at once — exit 3 and one line naming the URL — never a report full of fails;
* **authentication required** (the card, or the card's interfaces, answer 401/403) and the user gave
  no credential: one line saying so, quoting ``WWW-Authenticate`` and naming ``--token``; the report
  has every row ``not_measured`` ("authentication required"), never a wall of fails;
* **credential refused** (the user gave one, and the card or the interfaces still answer 401/403 to
  it): the same — one line saying the credential was refused, and a report whose every row is
  ``not_measured``;
* anything else goes on to the checks — including a server with no card at all, whose card rows
  fail on their own evidence and whose other rows are blocked by them. When ListTasks shows tasks
  not in a terminal state already (another run's, the agent's own users'), the run is told so in one
  line: the agent is busy, and rows that wait on it may be judged on a slower agent than usual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import httpx

from conformance.targets.origins import outside
from conformance.targets.resolve import CREDENTIAL_SENT, AgentLocation, Endpoint, resolve
from conformance.wire.states import TERMINAL
from conformance.wire.tlsdefault import verify_arg

#: How long the pre-flight waits for any answer.
TIMEOUT = 10.0


@dataclass(frozen=True)
class Preflight:
    verdict: str  # "go" | "unreachable" | "auth_required" | "auth_refused"
    message: str = ""
    location: AgentLocation | None = None
    #: On "go": how many tasks ListTasks showed not in a terminal state before the run (None: not known).
    busy: int | None = None

    @property
    def busy_note(self) -> str:
        """The one line saying the target is already busy ("" when it is not, or that is not known)."""
        if not self.busy:
            return ""
        return (f"the target already has {self.busy} task(s) not in a terminal state (ListTasks) before the run "
                "starts: rows that wait on the agent may find it slower than usual")


def _challenge(location: AgentLocation) -> tuple[int, str | None] | None:
    """(status, WWW-Authenticate) when every HTTP answer about the card was 401/403."""
    answered = [a for a in location.attempts if a.status is not None]
    if answered and all(a.status in (401, 403) for a in answered):
        return answered[0].status or 401, next((a.challenge for a in answered if a.challenge), None)
    return None


def _probe_rpc(location: AgentLocation, bearer: str | None = None,
               origins: tuple[str, ...] | None = None) -> tuple[int, str | None] | None:
    """(status, WWW-Authenticate) when the card's first JSON-RPC or HTTP+JSON interface refuses a
    request (without a credential, or with ``bearer``) with 401/403; None when it answers otherwise,
    or is outside the target (``origins``: nothing is sent there, and the card row says so)."""
    reach = _first_http_interface(location, bearer, origins)
    if reach is None:
        return None
    ep, transport, url, auth = reach
    refused: list[httpx.Response] = []
    try:
        with httpx.Client(transport=transport, verify=verify_arg(), timeout=TIMEOUT, follow_redirects=False) as client:
            # Two reads that change nothing: a task that does not exist, and the task list.
            for method, params in (("GetTask", {"id": "agentd-conformance-preflight"}), ("ListTasks", {})):
                if ep.binding == "JSONRPC":
                    body = {"jsonrpc": "2.0", "id": "preflight", "method": method, "params": params}
                    resp = client.post(url, content=json.dumps(body), headers={
                        "Content-Type": "application/json", "A2A-Version": "1.0", **auth})
                else:
                    path = "/tasks/agentd-conformance-preflight" if method == "GetTask" else "/tasks"
                    resp = client.get(url.rstrip("/") + path, headers={"A2A-Version": "1.0", **auth})
                if resp.status_code not in (401, 403):
                    return None
                refused.append(resp)
    except httpx.HTTPError:
        return None
    return refused[0].status_code, next((r.headers.get("www-authenticate") for r in refused
                                         if r.headers.get("www-authenticate")), None)


def _first_http_interface(location: AgentLocation, bearer: str | None, origins: tuple[str, ...] | None
                          ) -> tuple[Endpoint, httpx.HTTPTransport | None, str, dict[str, str]] | None:
    """The card's first JSON-RPC or HTTP+JSON interface of the target, as the pre-flight calls it: (the
    endpoint, a transport for its unix socket if any, the URL to use, the credential's header); None when
    there is none, or it is outside the target (nothing is sent there)."""
    ep = location.endpoint("JSONRPC", "HTTP+JSON")
    if ep is None or outside(ep.url, origins):
        return None
    transport = httpx.HTTPTransport(uds=ep.uds, verify=verify_arg()) if ep.uds else None
    url = "http://localhost/" if ep.uds else ep.url
    return ep, transport, url, {"Authorization": f"Bearer {bearer}"} if bearer else {}


def _busy(location: AgentLocation, bearer: str | None, origins: tuple[str, ...] | None) -> int | None:
    """How many tasks the first page of ListTasks (at the card's first JSON-RPC or HTTP+JSON interface of
    the target) shows not in a terminal state; None when it cannot be told."""
    reach = _first_http_interface(location, bearer, origins)
    if reach is None:
        return None
    ep, transport, url, auth = reach
    try:
        with httpx.Client(transport=transport, verify=verify_arg(), timeout=TIMEOUT, follow_redirects=False) as client:
            if ep.binding == "JSONRPC":
                body = {"jsonrpc": "2.0", "id": "preflight", "method": "ListTasks",
                        "params": {"pageSize": 100, "historyLength": 0}}
                resp = client.post(url, content=json.dumps(body), headers={
                    "Content-Type": "application/json", "A2A-Version": "1.0", **auth})
                answer = resp.json().get("result") if resp.status_code == 200 else None
            else:
                resp = client.get(url.rstrip("/") + "/tasks", params={"pageSize": 100, "historyLength": 0},
                                  headers={"A2A-Version": "1.0", **auth})
                answer = resp.json() if resp.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    tasks = answer.get("tasks") if isinstance(answer, dict) else None
    if not isinstance(tasks, list):
        return None
    states = [(t.get("status") or {}).get("state") for t in tasks if isinstance(t, dict)]
    return sum(1 for s in states if isinstance(s, str) and s not in TERMINAL)


def _auth_message(where: str, status: int, challenge: str | None) -> str:
    quoted = f' (WWW-Authenticate: {" ".join(challenge.split())})' if challenge else " (no WWW-Authenticate header)"
    return (f"the agent requires authentication: {where} answered HTTP {status}{quoted}; pass a credential "
            "with --token operator=TOKEN (and user=/agent= for the other roles)")


def _refused_message(where: str, status: int, challenge: str | None) -> str:
    quoted = f' (WWW-Authenticate: {" ".join(challenge.split())})' if challenge else " (no WWW-Authenticate header)"
    return (f"the agent refused the credential given: {where} answered HTTP {status} to it{quoted}; check the "
            "--token value (operator=, or user=/agent= for the other roles)")


def _credential_refused(location: AgentLocation, bearer: str | None,
                        origins: tuple[str, ...] | None) -> str | None:
    """The one line saying the user's credential was refused (None when it was not): the card answered
    401/403 to it, or the card's interface did."""
    with_it = [a for a in location.attempts if a.status is not None and a.outcome.endswith(CREDENTIAL_SENT)]
    if location.card is None and with_it and all(a.status in (401, 403) for a in with_it):
        return _refused_message(f"the agent card at {with_it[0].url}", with_it[0].status or 401,
                                next((a.challenge for a in with_it if a.challenge), None))
    if location.card is not None and bearer:
        probed = _probe_rpc(location, bearer, origins)
        if probed is not None:
            ep = location.endpoint("JSONRPC", "HTTP+JSON")
            return _refused_message(f"its {ep.binding} interface {ep.url}" if ep else "its interface", *probed)
    return None


def preflight(url: str, *, uds: str | None = None, credentials_given: bool = False,
              bearer: str | None = None, origins: tuple[str, ...] | None = None) -> Preflight:
    """Look at the target once before the checks run (see the module's docstring); ``origins``: where
    the target's interfaces may be (:mod:`conformance.targets.origins`; None: anywhere)."""
    location = resolve(url, uds=uds, timeout=TIMEOUT, bearer=bearer)
    if not any(a.status is not None for a in location.attempts):
        what = location.attempts[-1].outcome if location.attempts else "no answer"
        where = f"the unix socket {uds}" if uds else url
        return Preflight("unreachable", f"nothing answers at {where}: {' '.join(what.split())}", location)
    if credentials_given:
        refused_it = _credential_refused(location, bearer, origins)
        if refused_it:
            return Preflight("auth_refused", refused_it, location)
        return Preflight("go", "", location, _busy(location, bearer, origins))
    refused = _challenge(location)
    if refused is not None and location.card is None:
        return Preflight("auth_required", _auth_message(f"the agent card at {location.attempts[0].url}", *refused),
                         location)
    if location.card is not None:
        probed = _probe_rpc(location, origins=origins)
        if probed is not None:
            ep = location.endpoint("JSONRPC", "HTTP+JSON")
            where = f"its {ep.binding} interface {ep.url}" if ep else "its interface"
            return Preflight("auth_required", _auth_message(where, *probed), location)
        return Preflight("go", "", location, _busy(location, None, origins))
    return Preflight("go", "", location)
