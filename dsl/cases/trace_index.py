"""Which conversation each trace of a JSONL trace file belongs to, and the line each
conversation ends on, kept as flat arrays of 64-bit hashes rather than dicts of strings.

The first pass of `evaldsl.cases.traces` over a JSONL file feeds `add` each line's
(trace, conversation id, session id) triples; `finish` then turns them into two sorted
tables, which the second pass reads: trace -> conversation (`key`), and the conversations
in the order they end (`ending`). A trace belongs to the first conversation id its spans
give in file order, else to their first session id, else to itself; a conversation ends
on the last line holding a span of one of its traces; conversations ending on the same
line are listed in the order they first appear in the file. These are the rules a plain
grouping by dicts of strings follows (tests/support/trace_oracle.py); what differs is the
memory, which grows with the file by tens of bytes a trace, not hundreds:

- while the first pass runs, 25 bytes a record: a record is one trace's spans on
  consecutive lines, so a file of one export per trace has one record per trace;
- while `finish` works, 33 bytes a trace more (its hash, conversation, last line, rank
  and what names it), the records freed once read; sorts go `_CHUNK` values at a time
  into arrays, never a Python int per value;
- during the second pass, 16 bytes a trace (its hash and its conversation's) and 16 a
  conversation (the line it ends on and its hash), and one bit a line (`Places`).

`benchmarks/trace_read.py` prints what the peak RSS grows by a span.

Ids are told apart by Python's 64-bit string hash (keyed per process), so two distinct
ids share a hash with a chance of about n^2 / 2^65 for n ids (3e-8 for a million traces):
then their traces would be judged as one conversation.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator

_CHUNK = 1 << 12
_HALF = 32
_HALF_MASK = (1 << 32) - 1
"""A conversation's last line and first rank share one int of 64 bits when both fit."""
_OFFSET = 1 << 63
"""Added to a signed hash to pack it, unsigned, below other fields of one sortable int."""
_CONVERSATION, _SESSION, _NONE = 2, 1, 0
"""What names a record's trace; the higher wins, and the earlier among equals."""


class ConversationIndex:
    """The grouping of a JSONL trace file's traces into conversations, built line by line
    (`add`), sealed once (`finish`), then read in file order (`key`, `ending`)."""

    def __init__(self) -> None:
        self._traces = array("q")
        self._named = array("q")
        """The hash of the conversation or session id that names the record's trace."""
        self._kinds = bytearray()
        self._lines = array("q")
        self.traces = array("Q")
        """The traces' hashes (plus 2^63, to be unsigned), sorted; `keys` holds each
        one's conversation."""
        self.keys = array("q")
        self.end_lines = array("q")
        """The line each conversation ends on, in the order they are given; `end_keys`
        holds the conversations."""
        self.end_keys = array("q")
        self._at = 0

    def add(self, line: int, spans: list[tuple[str, str | None, str | None]]) -> None:
        """One line's spans as (trace, conversation id, session id)."""
        traces, named, kinds, lines = self._traces, self._named, self._kinds, self._lines
        for trace, conversation, session in spans:
            h = hash(trace)
            if conversation:
                kind, name = _CONVERSATION, hash(conversation)
            elif session:
                kind, name = _SESSION, hash(session)
            else:
                kind, name = _NONE, 0
            if traces and traces[-1] == h:  # the same trace as the record before: one record
                lines[-1] = line
                if kind > kinds[-1]:
                    kinds[-1], named[-1] = kind, name
                continue
            traces.append(h)
            named.append(name)
            kinds.append(kind)
            lines.append(line)

    def finish(self) -> None:
        """Seal the index: each trace's conversation, each conversation's last line. Each
        step frees what the next no longer needs, so the arrays alive at once stay few."""
        traces, named, kinds, lines = self._traces, self._named, self._kinds, self._lines
        self._traces, self._named, self._kinds, self._lines = (
            array("q"), array("q"), bytearray(), array("q"))
        unique = _distinct(_ascending(h + _OFFSET for h in traces))
        count = len(unique)
        keys = array("q", (h - _OFFSET for h in unique))
        """Each trace's conversation: its own hash until a record names another."""
        kind, last, rank = bytearray(count), array("q", bytes(8 * count)), array("q", [-1]) * count
        ranked = 0
        for record, h in enumerate(traces):
            t = bisect_left(unique, h + _OFFSET)
            if rank[t] < 0:  # its first record: traces ranked by where they first appear
                rank[t], ranked = ranked, ranked + 1
            last[t] = lines[record]  # records are in file order: the last is the latest
            if kinds[record] > kind[t]:
                kind[t], keys[t] = kinds[record], named[record]
        del traces, named, kinds, lines, kind
        self.traces, self.keys = unique, keys
        self._ends(keys, last, rank)

    def _ends(self, keys: array[int], last: array[int], rank: array[int]) -> None:
        """The conversations by the line they end on, then by where they first appear."""
        key_of_rank = array("q", bytes(8 * len(keys)))
        for t, r in enumerate(rank):
            key_of_rank[r] = keys[t]
        conversations = _distinct(_ascending(key + _OFFSET for key in keys))
        count = len(conversations)
        ends, starts = array("q", bytes(8 * count)), array("q", [-1]) * count
        for t, key in enumerate(keys):
            k = bisect_left(conversations, key + _OFFSET)
            ends[k] = max(ends[k], last[t])
            if starts[k] < 0 or rank[t] < starts[k]:
                starts[k] = rank[t]
        del conversations, last, rank
        shift = _HALF if len(keys) <= _HALF_MASK else 64
        try:
            order = _ascending((ends[k] << shift) | starts[k] for k in range(count))
        except OverflowError:  # a line past 2^32: sorted as Python ints
            order = iter(sorted((ends[k] << shift) | starts[k] for k in range(count)))
        del ends, starts
        low = (1 << shift) - 1
        for value in order:
            self.end_lines.append(value >> shift)
            self.end_keys.append(key_of_rank[value & low])

    def key(self, trace: str) -> int:
        """The conversation of a trace, as the hash the second pass groups spans by (a trace
        the first pass did not see is a conversation of its own)."""
        h = hash(trace)
        traces = self.traces
        t = bisect_left(traces, h + _OFFSET)
        return self.keys[t] if t < len(traces) and traces[t] == h + _OFFSET else h

    def ending(self, line: int) -> list[int]:
        """The conversations whose last line is `line` (or before), in the order they are
        given; each once, as lines are read in order."""
        at, lines = self._at, self.end_lines
        if at >= len(lines) or lines[at] > line:
            return []
        stop = at
        while stop < len(lines) and lines[stop] <= line:
            stop += 1
        self._at = stop
        return list(self.end_keys[at:stop])


def _ascending(values: Iterable[int]) -> Iterator[int]:
    """`values`, each in [0, 2^64), in ascending order: sorted `_CHUNK` at a time into
    arrays of 8 bytes a value, then merged, where one sort of them all would hold a Python
    int (about 40 bytes) and a list slot for each. Raises `OverflowError` for a value past
    the range, before anything is given."""
    chunks: list[array[int]] = []
    chunk: list[int] = []
    for value in values:
        chunk.append(value)
        if len(chunk) == _CHUNK:
            chunk.sort()
            chunks.append(array("Q", chunk))
            chunk = []
    chunk.sort()
    chunks.append(array("Q", chunk))
    del chunk
    return heapq.merge(*chunks)


def _distinct(ordered: Iterator[int]) -> array[int]:
    """The distinct values of an ascending sequence, as an array."""
    out = array("Q")
    previous = -1
    for value in ordered:
        if value != previous:
            out.append(value)
            previous = value
    return out


class Places:
    """The lines already given to rows, one bit each, so that every conversation gets a
    place (`file:line`) of its own: its first line, or the next one not taken."""

    def __init__(self) -> None:
        self._bits = bytearray()

    def take(self, line: int) -> int:
        bits = self._bits
        while True:
            byte, bit = line >> 3, 1 << (line & 7)
            if byte >= len(bits):
                bits.extend(bytes(byte - len(bits) + 4096))
            if not bits[byte] & bit:
                bits[byte] |= bit
                return line
            line += 1
