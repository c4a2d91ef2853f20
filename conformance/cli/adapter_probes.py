"""What ``adapter check`` runs: one probe per command shape the CLI checks use, each with what the
scripted agent must receive and what the tool must print when the translation is right.

A probe is written in the specification's grammar (SPEC.md §7) with placeholders the check fills per
run (``{agent}``, ``{task}``, ...: :data:`PLACEHOLDERS`). It names the A2A operation the agent must
receive (``expect``), the request fields and headers that carry what the flags said, and the shape of
the output (``json``: one JSON document; ``jsonl``: one JSON object per line). Every spec feature a
check uses (:data:`conformance.clicheck.features.OWNERS`) is in at least one probe, or in :data:`NOT_PROBED`
with the reason (``tests/test_adapter_check.py`` keeps the two in step).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: What a probe's arguments may name, filled by the check for each run.
PLACEHOLDERS = {
    "agent": "the scripted agent's origin (http://127.0.0.1:PORT)",
    "host": "the agent as host:port",
    "card_file": "a file holding the agent's card",
    "task": "a completed task with an artifact",
    "held": "a task held in WORKING",
    "input": "a task held in INPUT_REQUIRED",
    "config": "a push-notification config of {held}, created before the run",
    "config_file": "a .env file setting A2ACLI_AGENT_CARD={agent}",
    "part_file": "a small text file to attach",
    "data_file": "a JSON file holding {\"probe\": \"data\"}",
    "hook": "a webhook URL (never called)",
    "bearer": "a bearer token the probe makes",
    "api_key": "an API key the probe makes",
    "push_token": "a webhook token the probe makes",
    "push_credentials": "a webhook credential the probe makes",
}


@dataclass(frozen=True)
class Probe:
    """One command shape, and what shows its translation is right.

    - ``args``: spec grammar with ``{placeholders}``; ``env``: spec variables set for the run.
    - ``expect``: the A2A operation the agent must receive (``CARD`` for a card fetch; ``a|b`` for
      either; empty: the run needs no agent, and only its exit status and output are judged).
    - ``fields``: request field path (``message.contextId``; ``a|b`` for either) -> the value it must
      carry (placeholders allowed); ``headers``: header name -> value.
    - ``binding``: the binding the request must come on.
    - ``output``: ``json``, ``jsonl`` or ``any`` (something printed); empty: not judged.
    - ``secured``: the card declares a bearer and an API-key scheme (the credential probes); otherwise
      it declares none, so a tool that refuses to call a secured agent without credentials still runs.
    - ``completes``: once the agent receives ``expect``, the ``{held}`` task moves to COMPLETED, so a
      command that waits for the task's end (``--wait``, ``subscribe``) ends.
    """

    args: tuple[str, ...]
    expect: str = ""
    fields: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    binding: str = ""
    output: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    secured: bool = False
    completes: bool = False

    @property
    def key(self) -> str:
        """The probe's name: its arguments with placeholders, and its variables."""
        env = " ".join(f"{k}=..." for k in self.env)
        return " ".join(filter(None, [env, " ".join(self.args)]))


A = ("-a", "{agent}")
SEND = ("send", "--text", "probe", *A)
#: A plain send: a tool may use either method (streaming where the card offers it).
SENT = "SendMessage|SendStreamingMessage"

PROBES: tuple[Probe, ...] = (
    # the surface (SPEC.md §7.1, §7.2)
    Probe(("--help",), output="any"),
    Probe(("-v",), output="any"),
    Probe(("--version",), output="any"),
    Probe(("help", "send"), output="any"),
    Probe(("send", "--help"), output="any"),
    Probe(("completion", "bash"), output="any"),
    Probe(("config", "show"), output="any"),
    # commands a short run cannot drive (a browser, a terminal, a server): their help answers
    Probe(("auth", "login", "--help"), output="any"),
    Probe(("chat", "--help"), output="any"),
    Probe(("conformance", "--help"), output="any"),
    Probe(("demo-server", "--help"), output="any"),
    # card get: the three forms of a card reference, and its switches
    Probe(("card", "get", *A, "-o", "json"), expect="CARD", output="json"),
    Probe(("card", "get", "-a", "{host}"), expect="CARD"),
    Probe(("card", "get", "-a", "{card_file}", "-o", "json"), output="json"),
    Probe(("card", "get", *A, "--validate"), expect="CARD"),
    Probe(("card", "get", *A, "--extended", "--bearer", "{bearer}"), expect="GetExtendedAgentCard",
          headers={"authorization": "Bearer {bearer}"}, secured=True),
    # send: parts, output, streaming, ids, and the options every command shares
    Probe((*SEND, "-o", "json"), expect=SENT, fields={"message.parts.0.text": "probe"}, output="json"),
    Probe((*SEND, "-o", "json", "--stream"), expect="SendStreamingMessage", output="jsonl"),
    Probe((*SEND, "--stream"), expect="SendStreamingMessage"),
    Probe((*SEND, "--async", "-o", "json"), expect=SENT, fields={"configuration.returnImmediately": True},
          output="json"),
    Probe((*SEND, "-o", "text", "--context-id", "ctx-probe", "--metadata", '{"probe": "meta"}',
           "--a2a-version", "1.0", "--svc-param", "x-probe:svc"), expect=SENT,
          fields={"message.contextId": "ctx-probe", "metadata.probe|message.metadata.probe": "meta"},
          headers={"a2a-version": "1.0", "x-probe": "svc"}, output="any"),
    Probe((*SEND, "--task-id", "{input}"), expect=SENT, fields={"message.taskId": "{input}"}),
    Probe(("send", *A, "--file", "{part_file}", "--media-type", "text/plain", "--data", "{data_file}"), expect=SENT,
          fields={"message.parts.0.mediaType": "text/plain", "message.parts.1.data.probe": "data"}),
    Probe((*SEND, "--transport", "HTTP+JSON", "--debug", "--verbose", "--insecure"), expect=SENT,
          binding="HTTP+JSON"),
    Probe((*SEND, "--transport", "JSONRPC"), expect=SENT, binding="JSONRPC"),
    Probe((*SEND, "--bearer", "{bearer}"), expect=SENT, headers={"authorization": "Bearer {bearer}"}, secured=True),
    Probe((*SEND, "--api-key", "{api_key}"), expect=SENT, headers={"x-api-key": "{api_key}"}, secured=True),
    Probe(SEND, expect=SENT, headers={"authorization": "Bearer {bearer}"}, env={"A2ACLI_BEARER": "{bearer}"},
          secured=True),
    Probe(SEND, expect=SENT, headers={"x-api-key": "{api_key}"}, env={"A2ACLI_API_KEY": "{api_key}"},
          secured=True),
    Probe(("send", "--text", "probe", "--config", "{config_file}"), expect=SENT),
    Probe(("send", "--text", "probe"), expect=SENT, env={"A2ACLI_AGENT_CARD": "{agent}"}),
    # task commands
    Probe(("task", "get", "{task}", *A, "-o", "json", "--history", "2"), expect="GetTask",
          fields={"id": "{task}", "historyLength": 2}, output="json"),
    Probe(("task", "get", "{held}", *A, "--wait", "--poll-interval", "200ms", "--timeout", "8s"),
          expect="GetTask", fields={"id": "{held}"}, completes=True),
    Probe(("task", "cancel", "{held}", *A), expect="CancelTask", fields={"id": "{held}"}),
    Probe(("task", "list", *A, "-o", "json", "--status", "TASK_STATE_WORKING", "--context-id", "ctx-probe",
           "--page-size", "5"), expect="ListTasks",
          fields={"status": "TASK_STATE_WORKING", "contextId": "ctx-probe", "pageSize": 5}, output="json"),
    Probe(("task", "subscribe", "{held}", *A), expect="SubscribeToTask", fields={"id": "{held}"}, completes=True),
    Probe(("task", "download", "{task}", *A), expect="GetTask", fields={"id": "{task}"}),
    Probe(("task", "push-config", "create", "{held}", "--url={hook}", "--token={push_token}",
           "--auth-scheme=Bearer", "--auth-credentials={push_credentials}", *A),
          expect="CreateTaskPushNotificationConfig",
          fields={"taskId": "{held}", "url|config.url": "{hook}", "token|config.token": "{push_token}"}),
    # the same without an authentication block, which some tools cannot send (their adapters say so)
    Probe(("task", "push-config", "create", "{held}", "--url={hook}", "--token={push_token}", *A),
          expect="CreateTaskPushNotificationConfig",
          fields={"taskId": "{held}", "url|config.url": "{hook}", "token|config.token": "{push_token}"}),
    Probe(("task", "push-config", "get", "{held}", "{config}", *A), expect="GetTaskPushNotificationConfig",
          fields={"taskId": "{held}", "id": "{config}"}),
    Probe(("task", "push-config", "list", "{held}", *A), expect="ListTaskPushNotificationConfigs",
          fields={"taskId": "{held}"}),
    Probe(("task", "push-config", "delete", "{held}", "{config}", *A), expect="DeleteTaskPushNotificationConfig",
          fields={"taskId": "{held}", "id": "{config}"}),
)

#: Spec features a check uses that no probe runs, and why.
NOT_PROBED: dict[str, str] = {
    "--page-token": "needs a page token the agent issued in an earlier answer",
    "--client-id": "an `auth login` flow needs a person or an authorization-server script; `auth login --help` runs",
    "--client-secret": "as --client-id",
    "--client-cert": "needs a mutual-TLS agent",
    "--client-key": "needs a mutual-TLS agent",
}
