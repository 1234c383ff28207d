"""The watch intake under hypothesis: any bodies, in any batches, never raise, count every
row once, and count each batch's rows as judging them one at a time would."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.api import loads
from evaldsl.cases.loading import RawRow
from evaldsl.watch.intake import _line_count, _whole, posted_chunks
from evaldsl.watch.monitor import MAX_BAD_NAMED, Monitor, Tally
from tests.watch.test_watch_cli import SPEC, session

COMPILED = loads(SPEC)

rows = st.one_of(
    st.integers(0, 12).map(lambda i: json.dumps(session(i, poor=i % 3 == 0))),
    st.sampled_from(["", "   ", "x", "{", "[]", "3", '"text"', "null", '{"id": 1}',
                     '{"id": "a", "messages": 3}', '{"id": "b", "messages": []}',
                     "\ufeff" + json.dumps(session(99)), "\u3000", "\x1c",
                     "[" * 3000 + "]" * 3000, '{"a": ' + "[" * 2000 + "]" * 2000 + "}",
                     '{"id": "n", "tenant": "a", "messages": [{"role": "user", "content": '
                     '"\\ud800"}]}']),
    st.text(max_size=30),
)


def body_of(items: list[str], as_list: bool) -> bytes:
    if as_list:
        values = []
        for item in items:
            try:
                values.append(json.loads(item))
            except (ValueError, RecursionError):
                values.append(item)
        return json.dumps(values).encode()
    return "\n".join(items).encode("utf-8", "surrogatepass")


def one_at_a_time(monitor: Monitor, raws: list[RawRow]) -> tuple[int, int, int]:
    """(judged, duplicates, bad) of the rows fed one by one through `Monitor.ingest`."""
    before = (len(monitor.processed), monitor.duplicates, monitor.bad_rows)

    async def go() -> None:
        for raw in raws:
            await monitor.ingest(raw, 0.0)
    asyncio.run(go())
    return (len(monitor.processed) - before[0], monitor.duplicates - before[1],
            monitor.bad_rows - before[2])


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Monitor, Monitor]]:
    """Two monitors fed the same batches across examples: one by chunks, one row by row."""
    with tempfile.TemporaryDirectory() as left, tempfile.TemporaryDirectory() as right:
        chunked, single = Monitor(COMPILED, Path(left)), Monitor(COMPILED, Path(right))
        yield chunked, single
        chunked.close()
        single.close()


@settings(max_examples=40, deadline=None)
@given(batches=st.lists(st.tuples(st.lists(rows, max_size=12), st.booleans()), max_size=4),
       size=st.integers(1, 5))
def test_any_batches_are_counted_as_row_by_row(pair: tuple[Monitor, Monitor],
                                                batches: list[tuple[list[str], bool]],
                                                size: int) -> None:
    chunked, single = pair
    posted = 0
    for items, as_list in batches:
        body = body_of(items, as_list)
        whole = _whole(body)
        count = len(whole) if whole is not None else _line_count(body)
        raws = [r for c in posted_chunks(body, whole, posted, size) for r in c]
        assert [r.line for r in raws] == list(range(posted + 1, posted + count + 1))
        tally: Tally = asyncio.run(chunked.ingest_chunks(
            iter(posted_chunks(body, whole, posted, size))))
        posted += count
        assert tally.rows == count
        assert len(tally.bad_named) == min(tally.bad, MAX_BAD_NAMED)
        judged, duplicates, bad = one_at_a_time(single, raws)
        assert (tally.judged, tally.duplicates, tally.bad) == (judged, duplicates, bad)
    assert chunked.processed == single.processed


def test_a_flood_of_bad_rows_is_counted_and_named_twenty_times() -> None:
    with tempfile.TemporaryDirectory() as folder:
        monitor = Monitor(COMPILED, Path(folder))
        try:
            body = b"x\n" * 5000 + json.dumps(session(1)).encode() + b"\n" + b"{]\n" * 5000
            tally: Any = asyncio.run(monitor.ingest_chunks(
                iter(posted_chunks(body, _whole(body), 0, 700))))
        finally:
            monitor.close()
    assert (tally.judged, tally.bad, len(tally.bad_named)) == (1, 10_000, MAX_BAD_NAMED)
    assert monitor.bad_rows == 10_000
