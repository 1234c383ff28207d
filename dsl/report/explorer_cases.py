"""Dialogs and case fields for the case explorer, read back from the case files by row.

A journal line names its input row (`cases.jsonl:12`) but holds neither the
dialog nor the case's fields, and a run cannot keep 50,000 dialogs in memory
until its end. So when the HTML report is written the case files are read
once more and each row a case was judged on gives its dialog (clipped: at most
`TURNS_LIMIT` turns of `MESSAGE_LIMIT` characters) and the values of the
spec's group fields. The files may be gone by then (a `merge` on another
machine) or edited (the row now holds another id): such cases show no
dialog, and the page says how many and why instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case, Message
from evaldsl.cases.loading import Item, read_rows
from evaldsl.i18n import _, ngettext
from evaldsl.report.explorer import NAME_LIMIT, Entry, clip, page_json

ROW = "row"
"""A transcript's field naming the scenario row it was driven from
(`evaldsl.agents.transcripts.ROW`, which this stage does not import)."""

TURNS_LIMIT = 60
"""Turns kept of a dialog; the rest are counted in a last line."""
MESSAGE_LIMIT = 2000
"""Characters kept of one message."""


class CaseTexts(NamedTuple):
    """Per entry, in the explorer's order, JSON texts for the page (`page_json`); `note`
    says what is missing and why (None when every case has its dialog)."""

    dialogs: list[str]
    """`[[role, content, [calls], latency_ms], ...]`, or `null` when not read back."""
    groups: list[str]
    """The group fields' values, or `null`."""
    note: str | None


def dialog_entry(case: Case) -> list[list[Any]]:
    """A case's messages as the explorer shows them, clipped."""
    out: list[list[Any]] = [_turn(m) for m in case.messages[:TURNS_LIMIT]]
    more = len(case.messages) - TURNS_LIMIT
    if more > 0:
        words = ngettext("{count} more turn not shown", "{count} more turns not shown", more)
        out.append(["…", words.format(count=more), [], None])
    return out


def _turn(message: Message) -> list[Any]:
    calls = [clip(c.written, MESSAGE_LIMIT) for c in message.tool_calls]
    return [message.speaker, clip(message.content, MESSAGE_LIMIT), calls, message.latency_ms]


def group_value(value: Any) -> str | bool | None:
    """A group field's value as a filter offers it: text (clipped) or a bool."""
    if value is None or isinstance(value, bool):
        return value
    return clip(str(value), NAME_LIMIT)


Reader = Callable[[list[str]], Iterable[Item]]
"""Reads input files as cases, each with its `origin` (the scenario reader of a driven run)."""


def read_back(entries: Sequence[Entry], paths: Iterable[str],
              groups: Sequence[str], transcripts: str | None = None,
              reader: Reader | None = None) -> CaseTexts:
    """Each entry's dialog and group values from the rows of `paths` it names; a driven
    run's from its `transcripts` first, each line naming the scenario row it was driven
    from, so the page shows the dialog as it was sent and answered, with each reply's
    latency (a conversation the agent failed shows its scenario's turns, read by `reader`)."""
    paths = list(paths)
    where = {e.row: i for i, e in enumerate(entries)}
    dialogs, values = ["null"] * len(entries), ["null"] * len(entries)
    unreadable: list[str] = []
    found = 0
    sources = [] if transcripts is None else [_driven(transcripts)]
    for origin, case in chain(*sources, _inputs(paths, reader, unreadable)):
        i = where.get(origin)
        if i is None or dialogs[i] != "null":
            continue
        if isinstance(case, Case) and clip(case.id, NAME_LIMIT) == entries[i].id:
            dialogs[i] = page_json(dialog_entry(case))
            values[i] = page_json([group_value(case.fields.get(g)) for g in groups])
            found += 1
    note = _note(len(entries) - found, len(entries), unreadable, len(paths))
    return CaseTexts(dialogs, values, note)


def _driven(transcripts: str) -> Iterator[tuple[str, Item | None]]:
    """A transcripts file's conversations, by the scenario row each was driven from."""
    for row in read_rows([transcripts]):
        case = row.item()
        if isinstance(case, Case):
            yield str(case.fields.get(ROW)), case


def _inputs(paths: list[str], reader: Reader | None, unreadable: list[str]
            ) -> Iterator[tuple[str, Item | None]]:
    """The input rows by origin; a file that cannot be read is noted in `unreadable`."""
    if reader is not None:
        for item in reader(paths):
            if isinstance(item, BadRow) and item.line == 0:
                unreadable.append(f"{item.file} ({item.reason})")
            elif isinstance(item, Case):
                yield item.origin, item
        return
    for row in read_rows(paths):
        if isinstance(row.data, BadRow) and row.line == 0:
            unreadable.append(f"{row.file} ({row.data.reason})")
        yield row.origin, row.item()


def _note(missing: int, total: int, unreadable: list[str], inputs: int) -> str | None:
    if not missing:
        return None
    if not inputs:
        return _("the cases were not read from case files: there is no dialog to show")
    note = _("{missing} of {total} cases show no dialog: their rows are no longer in the "
             "case files, or hold another case").format(missing=missing, total=total)
    if unreadable:
        note += _("; not readable: {files}").format(files=", ".join(unreadable))
    return note
