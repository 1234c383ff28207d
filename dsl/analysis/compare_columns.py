"""A journal streamed into compact columns for `evaldsl compare`: ids, codes and values.

Two runs of a million cases held as dicts (or `CaseResult`s) take gigabytes;
as columns they take tens of megabytes: per case its id (UTF-8 bytes), per
outcome block the label's index in `(*labels, error)`, per check its status
code (`STATUSES`), and per metric whether the case is outside, an error or in
the denominator, with its aggregate arguments as floats (a condition 1.0 when
true, as `case_input` counts it). Every later figure is an operation over
these arrays: a pairing is a pair of index arrays into them, and a grouped
metric (`by case.tenant`) has one more column, each case's group code.

Each line is checked as `evaldsl.report.journal_read` checks it, and reads
the same: a line's shape by `record_struct` (the full `record_shape` check,
with its words, for a line the fast path refuses), a line repeated word for
word read once, two different results for one row a data error naming both
lines, whichever problem comes first in the file.
"""

from __future__ import annotations

import gc
import math
import operator
import re
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.record import UNSET, ErrorLine, decode_line
from evaldsl.report.journal import Header, complete_record, is_cost_note, is_header
from evaldsl.report.journal_read import check_version
from evaldsl.report.record_shape import problem
from evaldsl.report.record_struct import convert, decoder
from evaldsl.results import ERROR_LABEL
from evaldsl.runtime.aggregation import BOOL_AGGREGATES

if TYPE_CHECKING:
    import numpy.typing as npt

    from evaldsl.runtime.aggregation import ReportPlan

STATUSES = ("passed", "failed", "error", "skipped")
"""A check's status codes: its index here; `skipped` for a check a case did not compute."""
OUTSIDE, ERRORED, COUNTED = 0, 1, 2
"""A case's state in one metric: outside its `where`, left out as an error, in its
denominator."""
CHUNK = 8192
"""Lines decoded before they are folded into columns: the decoded lines are the only
per-line Python objects held, a few megabytes."""


@dataclass(frozen=True)
class MetricColumns:
    state: npt.NDArray[Any]
    """Per case `OUTSIDE`, `ERRORED` or `COUNTED` (int8)."""
    values: npt.NDArray[Any]
    """(cases, aggregates) floats; meaningful where `state` is `COUNTED`."""
    groups: npt.NDArray[Any] | None = None
    """For a metric with `by`: per case its group's index in `keys` (int32)."""
    keys: tuple[tuple[Any, ...], ...] = ()
    """The group keys met in this journal, in the order first met (a case without one has
    the key of nulls, as the report's `(none)` group)."""


@dataclass(frozen=True)
class Columns:
    """One journal's cases, each line once, in file order."""

    path: Path
    spec_hash: str | None
    """The header's spec hash, None for a journal without a header."""
    ids: npt.NDArray[Any]
    """UTF-8 ids (numpy bytes): their order is the ids' order as text."""
    labels: npt.NDArray[Any]
    """(cases, blocks) label indices into `(*labels, error)` of each of `plan.blocks`."""
    checks: npt.NDArray[Any]
    """(cases, checks) indices into `STATUSES` of each of `plan.checks`."""
    metrics: tuple[MetricColumns, ...]
    """One per `plan.metrics`."""
    trials: npt.NDArray[Any] | None = None
    """Per case its trial of its scenario (int32, 0 for a case of no trial): the line's
    `trial`, else the `#N` a driven run's `--trials` puts after its row; None when no case
    has one."""

    def keys(self, by_trial: bool) -> npt.NDArray[Any]:
        """What pairs a case: its id, or with `by_trial` its id and trial (`id TRIAL_MARK
        N`, a case of no trial counted as trial 1)."""
        if not by_trial:
            return self.ids
        import numpy as np

        trials = self.trials if self.trials is not None else np.zeros(len(self.ids), np.int32)
        marks = np.char.add(TRIAL_MARK, np.maximum(trials, 1).astype("S10"))
        return np.char.add(self.ids, marks)


TRIAL_MARK = b"\x1f#"
"""Between a scenario's id and its trial in a pairing key (no id written by hand has it)."""
_ROW_TRIAL = re.compile(r"#([1-9][0-9]{0,8})\Z")


def key_text(key: bytes) -> str:
    """A pairing key as people read it: `s4 #2` for trial 2 of scenario s4."""
    return key.decode("utf-8").replace(TRIAL_MARK.decode(), " #")


def trial_of(line: Any) -> int:
    """A decoded line's trial: its `trial`, or the `#N` ending its row; 0 for none."""
    if line.trial is not UNSET:
        return int(line.trial)
    found = _ROW_TRIAL.search(line.row)
    return int(found.group(1)) if found else 0


class _Bad(Exception):
    """A line whose metric values cannot be numbers (`mean` over a text)."""

    def __init__(self, index: int, metric: str) -> None:
        self.index, self.metric = index, metric


def read_columns(path: Path, plan: ReportPlan) -> Columns:
    """`path` as columns; see the module docstring."""
    reader = _Reader(path, plan)
    with _collector_paused():
        parts = list(reader.chunks())
    reader.check_rows(None)
    keep = reader.kept()
    columns = _joined(parts) if parts else _empty(plan)
    if not keep.all():
        columns = [c[keep] for c in columns]
    ids, labels, checks, trials, *metric = columns
    each = iter(metric)
    """Per metric its state and values, and a grouped metric's group codes after them."""
    metrics = [MetricColumns(next(each), next(each), next(each) if m.by else None,
                             tuple(reader.keys[i])) for i, m in enumerate(plan.metrics)]
    return Columns(path, reader.header.spec_hash if reader.header else None,
                   ids, labels, checks, tuple(metrics), trials if trials.any() else None)


def _joined(parts: list[list[npt.NDArray[Any]]]) -> list[npt.NDArray[Any]]:
    """The chunks joined a column at a time, each column's chunks let go once joined, so
    a journal is never held twice over."""
    import numpy as np

    out = []
    for i in range(len(parts[0])):
        out.append(np.concatenate([p[i] for p in parts]))
        for p in parts:
            p[i] = out[-1][:0]
    return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cycle collector off while lines are decoded: a million decoded lines make no
    cycle, but each allocation burst would trigger a collection scanning them all (40% of
    the reading time, measured)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _empty(plan: ReportPlan) -> list[npt.NDArray[Any]]:
    import numpy as np

    out = [np.array([], dtype="S1"), np.zeros((0, len(plan.blocks)), np.int8),
           np.zeros((0, len(plan.checks)), np.int8), np.zeros(0, np.int32)]
    for m in plan.metrics:
        out += [np.zeros(0, np.int8), np.zeros((0, len(m.aggregates)))]
        out += [np.zeros(0, np.int32)] if m.by else []
    return out


class _Reader:
    """One pass over a journal: decoded lines folded into column chunks."""

    def __init__(self, path: Path, plan: ReportPlan) -> None:
        self.path, self.plan = path, plan
        self.header: Header | None = None
        self.first_case = 1
        """The line number of the first case line (2 after a header)."""
        self.rows = array("q")
        """Each case line's row, hashed: 8 bytes a line, where a set of rows would take 80."""
        self.decode = decoder(plan).decode
        self.keys: list[dict[tuple[Any, ...], int]] = [{} for _m in plan.metrics]
        """Per metric, each group key met to its index (insertion order is first met)."""
        self.fold = _folder(plan, self.keys)

    def chunks(self) -> Iterator[list[npt.NDArray[Any]]]:
        """The columns in chunks of `CHUNK` lines: one loop, as little work per line as can
        be (this loop is most of a large comparison's time)."""
        lines: list[Any] = []
        rows, decode = self.rows, self.decode
        size, offset = self.path.stat().st_size, 0
        with self.path.open("rb") as f:
            for number, raw in enumerate(f, start=1):
                offset += len(raw)
                try:
                    line = decode(raw) if raw.endswith(b"\n") else self._torn(offset, size)
                except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                    line = self._slow(number, raw)  # RecursionError: a hostile nesting
                if line is None:
                    continue
                lines.append(line)
                rows.append(hash(line.row))
                if len(lines) == CHUNK:
                    yield self._fold(lines, number)
                    lines = []
        if lines:
            yield self._fold(lines, self.first_case + len(rows) - 1)

    @staticmethod
    def _torn(offset: int, size: int) -> None:
        """A line without its newline: a torn last line is ignored, as `read_lines` does (any
        other line ends with one)."""
        assert offset >= size

    def _fold(self, lines: list[Any], last: int) -> list[npt.NDArray[Any]]:
        try:
            return self.fold(lines)
        except _Bad as bad:
            number = last - len(lines) + 1 + bad.index
            self.check_rows(number)
            raise CaseDataError(str(self.path), number, _(
                "`metrics.{name}` has the wrong type").format(name=bad.metric)) from None

    def _slow(self, number: int, raw: bytes) -> Any:
        """A line the fast path refused: the header, or a case line checked in full."""
        record = complete_record(raw)
        if record is None:
            self.check_rows(number)
            raise CaseDataError(str(self.path), number, _("this line is not a JSON object"))
        if number == 1 and is_header(record):
            self.header, self.first_case = Header.from_dict(record), 2
            check_version(self.path, self.header)
            return None
        if is_cost_note(record):
            return None
        found = problem(record, self.plan)
        line = convert(record, self.plan) if found is None else None
        if line is None:
            self.check_rows(number)
            raise CaseDataError(str(self.path), number,
                                found or _("a number is out of range"))
        return line

    def check_rows(self, before: int | None) -> None:
        """Raise for the first line (before line `before`) that gives another result for a
        row already judged; a repeated line is fine."""
        conflicts = [c for c in _repeats(self.path, self.rows, self.first_case).conflicts
                     if before is None or c[0] < before]
        if conflicts:
            first = min(conflicts)
            number, row, earlier = first
            raise CaseDataError(str(self.path), number, _(
                "another result for row `{row}`, already judged at line {line}").format(
                    row=row, line=earlier))

    def kept(self) -> npt.NDArray[Any]:
        """Which case lines count: all but the later copies of a repeated line."""
        import numpy as np

        keep = np.ones(len(self.rows), dtype=bool)
        keep[_repeats(self.path, self.rows, self.first_case).copies] = False
        return keep


def _same_hash(rows: array[int]) -> list[list[int]]:
    """Groups (file order) of case indices whose rows hash alike: few or none, found by
    sorting, so no dict of a million rows is held."""
    import numpy as np

    if not rows:
        return []
    hashes = np.frombuffer(rows, dtype=np.int64)
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    groups: dict[int, list[int]] = {}
    for i in same.tolist():
        groups.setdefault(int(ordered[i]), [int(order[i])]).append(int(order[i + 1]))
    return list(groups.values())


class _Repeats(NamedTuple):
    conflicts: list[tuple[int, str, int]]
    """(line, row, earlier line) of each line giving another result for a row judged before."""
    copies: list[int]
    """The case indices of lines repeating an earlier line word for word."""


def _repeats(path: Path, rows: array[int], first_case: int) -> _Repeats:
    """The lines whose row an earlier line has, told apart by their text: only the lines
    whose row hashes alike are read again, so this costs nothing for a journal without."""
    groups = _same_hash(rows)
    out = _Repeats([], [])
    if not groups:
        return out
    text = dict(_lines_at(path, {first_case + i for g in groups for i in g}))
    for group in groups:
        seen: dict[str, tuple[int, bytes]] = {}
        for i in group:
            raw = text[first_case + i].rstrip(b"\r\n")
            row = str(decode_line(raw).row)
            earlier = seen.setdefault(row, (first_case + i, raw))
            if earlier[0] == first_case + i:
                continue
            if earlier[1] == raw:
                out.copies.append(i)
            else:
                out.conflicts.append((first_case + i, row, earlier[0]))
    return out


def _lines_at(path: Path, numbers: set[int]) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            if number in numbers:
                yield number, raw


def _folder(plan: ReportPlan, keys: list[dict[tuple[Any, ...], int]],
            ) -> Callable[[list[Any]], list[npt.NDArray[Any]]]:
    """The function that folds decoded lines into one chunk of every column; `keys` gathers
    each grouped metric's keys as they are met."""
    import numpy as np

    block_codes = [dict(_codes((*labels, ERROR_LABEL))) for _key, labels in plan.blocks]
    for codes in block_codes:
        codes[msgspec.UNSET] = codes[ERROR_LABEL]
    status = {name: i for i, name in enumerate(STATUSES)}
    blocks = [operator.attrgetter(f"labels.b{i}") for i in range(len(plan.blocks))]
    checks = [operator.attrgetter(f"checks.c{i}") for i in range(len(plan.checks))]
    metrics = [operator.attrgetter(f"metrics.m{i}") for i in range(len(plan.metrics))]
    grouped = [m for m in plan.metrics if m.by]
    group_of = {m.name: operator.attrgetter(f"groups.g{j}") for j, m in enumerate(grouped)}
    skipped = len(STATUSES) - 1

    def fold(lines: list[Any]) -> list[npt.NDArray[Any]]:
        ids = np.array([line.id.encode("utf-8") for line in lines], dtype=bytes)
        labels = np.array([[codes[get(line)] for codes, get in zip(block_codes, blocks,
                                                                   strict=True)]
                           for line in lines], dtype=np.int8).reshape(len(lines), -1)
        statuses = np.array([[skipped if (c := get(line)) is msgspec.UNSET else status[c.status]
                              for get in checks] for line in lines],
                            dtype=np.int8).reshape(len(lines), -1)
        trials = np.array([trial_of(line) for line in lines], dtype=np.int32)
        out = [ids, labels, statuses, trials]
        for i, (m, get) in enumerate(zip(plan.metrics, metrics, strict=True)):
            out += _metric_chunk(m.name, [a.kind in BOOL_AGGREGATES for a in m.aggregates],
                                 [get(line) for line in lines])
            if m.by:
                out.append(_group_codes(lines, group_of[m.name], len(m.by), keys[i]))
        return out

    return fold


def _group_codes(lines: list[Any], get: Callable[[Any], Any], width: int,
                 keys: dict[tuple[Any, ...], int]) -> npt.NDArray[Any]:
    """Each line's group index in `keys` (new keys added as they are met)."""
    import numpy as np

    none = (None,) * width
    codes = []
    for line in lines:
        key = get(line)
        key = none if key is msgspec.UNSET else tuple(key)
        codes.append(keys.setdefault(key, len(keys)))
    return np.array(codes, dtype=np.int32)


def _codes(labels: tuple[str, ...]) -> Iterator[tuple[Any, int]]:
    """Each label to its first index (a label can be written twice: `error`)."""
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        seen.setdefault(label, i)
    yield from seen.items()


def _metric_chunk(name: str, conditions: list[bool], inputs: list[Any],
                  ) -> list[npt.NDArray[Any]]:
    """The state and values columns of one metric over a chunk of lines."""
    import numpy as np

    state = np.array([COUNTED if type(v) is tuple else ERRORED if type(v) is ErrorLine
                      else OUTSIDE for v in inputs], dtype=np.int8)
    width = len(conditions)
    values = np.full((len(inputs), width), math.nan)
    counted = [(i, v) for i, v in enumerate(inputs) if type(v) is tuple]
    for k, condition in enumerate(conditions):
        if condition:
            column = [1.0 if v[k] is True else 0.0 for _i, v in counted]
        else:
            column = [_number(i, name, v[k]) for i, v in counted]
        values[[i for i, _v in counted], k] = column
    return [state, values]


def _number(index: int, metric: str, value: Any) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    raise _Bad(index, metric)
