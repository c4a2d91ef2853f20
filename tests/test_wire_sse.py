"""The SSE parser follows the event-stream rules in any chunking; the reader ends streams honestly."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Iterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.wire.sse import SseEvent, SseParser, SseRead, parse_sse, read_sse
from tests.wire_servers import raw_sse_app, serve_http


def test_multiline_data_event_and_id_fields_make_one_event() -> None:
    events = parse_sse(b"event: update\nid: 7\ndata: line1\ndata: line2\n\n")
    assert events == [SseEvent(data="line1\nline2", event="update", id="7")]


def test_comments_are_kept_aside_and_not_dispatched() -> None:
    p = SseParser()
    assert p.feed(b": keep-alive\n\n:x\ndata: a\n\n") == [SseEvent(data="a")]
    assert p.comments == [" keep-alive", "x"]


@pytest.mark.parametrize("eol", [b"\r\n", b"\n", b"\r"])
def test_every_line_ending_is_accepted(eol: bytes) -> None:
    stream = eol.join([b"data: a", b"", b"data: b", b"data: c", b"", b""])
    assert [e.data for e in parse_sse(stream)] == ["a", "b\nc"]


def test_final_event_without_blank_line_is_not_dispatched() -> None:
    p = SseParser()
    assert p.feed(b"data: one\n\ndata: two\n") == [SseEvent(data="one")]
    assert "two" in p.close()


def test_retry_and_id_rules() -> None:
    events = parse_sse(b"retry: 1500\ndata: a\n\nretry: x1\nid: bad\x00id\ndata: b\n\n")
    assert events[0].retry == 1500 and events[1].retry is None
    assert events[1].id is None, "an id containing NUL must be ignored"


def test_empty_data_block_and_space_handling() -> None:
    events = parse_sse(b"data\n\ndata:  two spaces\n\nevent: only\n\n")
    assert [e.data for e in events] == ["", " two spaces"]


def test_bom_is_stripped_and_cr_lf_split_across_chunks_is_one_line_end() -> None:
    p = SseParser()
    got = p.feed(b"\xef\xbb\xbfdata: a\r") + p.feed(b"\n\r") + p.feed(b"\ndata: b\n\n")
    assert [e.data for e in got] == ["a", "b"]


_line = st.one_of(
    st.builds(
        lambda v: "data: " + v,
        st.text(alphabet=st.characters(blacklist_characters="\r\n\x00", blacklist_categories=["Cs"]), max_size=12),
    ),
    st.sampled_from(["event: x", "id: 3", "retry: 10", ": c", "", "data", "data:é€😀"]),
)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(_line, max_size=25),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_random_chunking_gives_the_same_events(lines: list[str], eol: str, cuts: list[int]) -> None:
    data = eol.join(lines).encode() + eol.encode() * 2
    whole = parse_sse(data)
    points = sorted({c % (len(data) + 1) for c in cuts})
    p = SseParser()
    got: list[SseEvent] = []
    prev = 0
    for c in [*points, len(data)]:
        got += p.feed(data[prev:c])
        prev = c
    p.close()
    assert got == whole


async def _stall() -> AsyncGenerator[bytes]:
    yield b"data: first\n\n"
    await asyncio.Event().wait()


async def _forever() -> AsyncGenerator[bytes]:
    while True:
        yield b": tick\n\ndata: x\n\n"
        await asyncio.sleep(0.02)


async def _unterminated() -> AsyncGenerator[bytes]:
    yield b"data: a\n\ndata: b"


@pytest.fixture(scope="module")
def sse_urls() -> Iterator[dict[str, str]]:
    urls = {}
    with (
        serve_http(raw_sse_app(_stall)) as stall,
        serve_http(raw_sse_app(_forever)) as forever,
        serve_http(raw_sse_app(_unterminated)) as unterminated,
    ):
        urls = {"stall": stall.url, "forever": forever.url, "unterminated": unterminated.url}
        yield urls


def _read(url: str, **kw: float) -> tuple[SseRead, float]:
    with httpx.Client(timeout=5) as c, c.stream("GET", url + "/sse") as r:
        t0 = time.monotonic()
        got = read_sse(r, **kw)  # type: ignore[arg-type]
        return got, time.monotonic() - t0


def test_stalled_stream_is_cut_by_idle_timeout(sse_urls: dict[str, str]) -> None:
    got, took = _read(sse_urls["stall"], deadline=5.0, idle_timeout=0.3)
    assert got.closed_by == "deadline" and [e.data for e in got.events] == ["first"], got
    assert "without data" in (got.error or "")
    assert took < 4.0


def test_never_ending_stream_is_cut_at_the_overall_deadline(sse_urls: dict[str, str]) -> None:
    got, took = _read(sse_urls["forever"], deadline=0.4, idle_timeout=1.0)
    assert got.closed_by == "deadline" and len(got.events) >= 1, got
    assert got.comments
    assert took < 3.0


def test_server_close_drops_an_unterminated_final_event(sse_urls: dict[str, str]) -> None:
    got, _ = _read(sse_urls["unterminated"], deadline=5.0)
    assert got.closed_by == "server"
    assert [e.data for e in got.events] == ["a"]
    assert "b" in got.undispatched
