"""Server-Sent Events: an incremental parser (httpx-sse's decoders under the WHATWG event-stream
rules) and a reader that consumes an httpx streaming response until the server closes it or a
deadline cuts it.

The parser is deliberately literal: it dispatches an event only at a blank line (a final block with
no trailing blank line is *not* an event), so a target that ends its stream without terminating
the last event is visible as a missing event rather than silently repaired.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

StreamEnd = Literal["server", "deadline", "error", "client"]

#: How much raw stream text a reader keeps for evidence.
RAW_LIMIT = 1_000_000


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event. ``id`` is the last-event-id in force at dispatch (None if never set);
    ``retry`` is set when the event's own block carried a valid ``retry:`` field."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The data decoded as JSON (raises ``ValueError`` when it is not JSON)."""
        return json.loads(self.data)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"event": self.event, "data": self.data}
        if self.id is not None:
            d["id"] = self.id
        if self.retry is not None:
            d["retry"] = self.retry
        return d


@dataclass
class SseParser:
    """Feed bytes (or text) in any chunking; each :meth:`feed` returns the events it completed.

    Built on httpx-sse: its line decoder splits on CR, LF and CRLF across chunk boundaries, and its
    event decoder assembles each block's fields and dispatches at the blank line. On top of it this
    parser keeps the spec's literal rules the harness judges by: a block without a ``data`` field
    dispatches nothing, ``retry`` counts only when it is all ASCII digits, the last event id stays
    None until a block sets one, comments are kept for evidence, and an unterminated final block is
    never an event (:meth:`close` hands it back).
    """

    comments: list[str] = field(default_factory=list)
    last_event_id: str | None = None
    retry: int | None = None
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    _lines: SSELineDecoder = field(default_factory=SSELineDecoder)
    _events: SSEDecoder = field(default_factory=SSEDecoder)
    _bom_checked: bool = False
    _skip_lf: bool = False
    _block: list[str] = field(default_factory=list)
    _has_data: bool = False
    _block_retry: int | None = None

    def feed(self, chunk: bytes | str) -> list[SseEvent]:
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not self._bom_checked and text:
            self._bom_checked = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if text and self._skip_lf:
            self._skip_lf = False
            text = text[1:] if text.startswith("\n") else text
        if not text:
            return []
        lines = self._lines.decode(text)
        if self._lines.trailing_cr:
            # A CR ends a line now: the decoder waits to see whether LF follows, a live stream cannot.
            lines += self._lines.flush()
            self._skip_lf = True
        events: list[SseEvent] = []
        for line in lines:
            ev = self._process_line(line)
            if ev is not None:
                events.append(ev)
        return events

    def close(self) -> str:
        """End of stream: flush the decoders and discard an unterminated block (per the SSE spec).

        Returns the discarded, undispatched text (empty when the stream ended cleanly) so a reader
        can report it as evidence.
        """
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self._lines.decode(tail)
        pending = [line for line in self._lines.flush() if line]
        # A block without data or an event name would have dispatched nothing: only its cut line counts.
        meaningful = self._has_data or any(line.partition(":")[0] == "event" for line in self._block)
        undispatched = "\n".join([*(self._block if meaningful else ()), *pending])
        self._block.clear()
        self._events = SSEDecoder()
        self._has_data = False
        return undispatched

    def _process_line(self, line: str) -> SseEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments.append(line[1:])
            return None
        self._block.append(line)
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._has_data = True
        elif name == "id" and "\x00" not in value:
            self.last_event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry = self._block_retry = int(value)
            line = ""  # the spec's rule, not int()'s: a retry that is not all digits is ignored
        if line:
            self._events.decode(line)
        return None

    def _dispatch(self) -> SseEvent | None:
        retry, self._block_retry = self._block_retry, None
        has_data, self._has_data = self._has_data, False
        self._block.clear()
        sse = self._events.decode("")
        if not has_data or sse is None:
            return None
        return SseEvent(data=sse.data, event=sse.event or "message", id=self.last_event_id, retry=retry)


def parse_sse(data: bytes | str) -> list[SseEvent]:
    """All events in a complete stream (an unterminated final block is dropped)."""
    p = SseParser()
    events = p.feed(data)
    p.close()
    return events


@dataclass
class SseRead:
    """What :func:`read_sse` got: the events, how the stream ended, and the raw text."""

    events: list[SseEvent]
    closed_by: StreamEnd
    error: str | None = None
    raw: str = ""
    undispatched: str = ""
    comments: list[str] = field(default_factory=list)


def read_sse(
    response: httpx.Response,
    *,
    deadline: float,
    idle_timeout: float | None = None,
    until: Callable[[SseEvent], bool] | None = None,
) -> SseRead:
    """Read an open httpx streaming response as SSE.

    Ends with ``closed_by="server"`` when the server closes the body, ``"deadline"`` when
    ``deadline`` seconds pass in total or ``idle_timeout`` seconds pass without a byte (the socket is
    shut down to unblock the read), ``"client"`` when ``until(event)`` returned true, ``"error"`` on
    any other transport failure (text in ``error``).
    """
    parser = SseParser()
    events: list[SseEvent] = []
    raw: list[str] = []
    raw_len = 0
    watchdog = _Watchdog(response, deadline, idle_timeout)
    closed_by: StreamEnd = "server"
    error: str | None = None
    watchdog.start()
    try:
        for chunk in response.iter_raw():
            watchdog.touch()
            if raw_len < RAW_LIMIT:
                text = chunk.decode("utf-8", errors="replace")
                raw.append(text)
                raw_len += len(text)
            new = parser.feed(chunk)
            events.extend(new)
            if until is not None and any(until(e) for e in new):
                closed_by = "client"
                break
            if watchdog.cut_reason:
                break
    except (httpx.HTTPError, OSError) as exc:
        if watchdog.cut_reason is None:
            closed_by, error = "error", f"{type(exc).__name__}: {exc}"
    finally:
        watchdog.stop()
    if watchdog.cut_reason is not None and closed_by != "client":
        closed_by, error = "deadline", watchdog.cut_reason
    undispatched = parser.close()
    return SseRead(events, closed_by, error, "".join(raw), undispatched, list(parser.comments))


class _Watchdog:
    """Shuts a response's socket down when the overall deadline or the idle timeout passes."""

    def __init__(self, response: httpx.Response, deadline: float, idle_timeout: float | None) -> None:
        self._response = response
        self._deadline_at = time.monotonic() + deadline
        self._deadline = deadline
        self._idle = idle_timeout
        self._last = time.monotonic()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sse-watchdog", daemon=True)
        self.cut_reason: str | None = None

    def start(self) -> None:
        self._thread.start()

    def touch(self) -> None:
        self._last = time.monotonic()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            now = time.monotonic()
            wake = self._deadline_at
            if self._idle is not None:
                wake = min(wake, self._last + self._idle)
            if now >= wake:
                if now >= self._deadline_at:
                    self.cut_reason = f"stream cut by the harness at its {self._deadline:.3g}s deadline"
                else:
                    self.cut_reason = f"stream cut by the harness after {self._idle:g}s without data"
                self._cut()
                return
            if self._stopped.wait(wake - now):
                return

    def _cut(self) -> None:
        stream = self._response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
                return
            except OSError:
                pass
        with contextlib.suppress(Exception):  # best effort: the reader reports the cut either way
            self._response.close()
