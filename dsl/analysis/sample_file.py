"""The review sample as a file: written for spreadsheets, read back as they save it.

`evaldsl review` writes the sample; reviewers fill it in, often in Excel or
WPS; `evaldsl calibrate` reads it back. A spreadsheet changes the bytes on the
way: Excel opens a CSV without a byte order mark in the machine's code page
(Chinese text turns to mojibake), so the CSV is written as UTF-8 with a BOM;
saved again, it comes back as "CSV UTF-8" (with the BOM) or, from plain "CSV"
on a Chinese Windows, in GBK, with CRLF line ends either way. Reading accepts
UTF-8 with or without the BOM and GB18030 (a superset of GBK and GB2312), and
refuses anything else with the advice to save the file as "CSV UTF-8". Every
row keeps the line it starts on, so a problem names the file and the line.

JSONL (one object per case) is plain UTF-8 and is read the same way.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from evaldsl.errors import CaseDataError
from evaldsl.i18n import N_, _

HUMAN_COLUMNS = ("label", "score", "note")
"""Left empty for reviewers: a label of the outcome block, a 0-100 score, free text."""

CSV_ENCODING = "utf-8-sig"
"""UTF-8 with a BOM: the one encoding Excel detects on opening a CSV."""

UTF8, UTF8_BOM, GB18030 = "UTF-8", "UTF-8 with BOM", "GB18030"
"""The encodings a sample file is read in, by the names spreadsheets give them."""

SAVE_AS_UTF8 = N_('save the file from the spreadsheet as "CSV UTF-8" and try again')


class LabelRow(NamedTuple):
    line: int
    """The line the row starts on (a CSV cell may span several lines)."""
    values: dict[str, Any]
    """Column -> cell: text in CSV; any JSON value in JSONL."""


@dataclass(frozen=True)
class LabelFile:
    """A filled-in sample: its rows and the encoding they were read in."""

    path: Path
    encoding: str
    rows: list[LabelRow]


# ---------------------------------------------------------------- writing


def write_sample(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """JSONL (one object per case) or CSV (one column per outcome block and check)."""
    if path.suffix.lower() == ".csv":
        _write_csv(rows, path)
        return
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_csv(rows: Sequence[dict[str, Any]], path: Path) -> None:
    blocks = sorted({k for r in rows for k in r["labels"]})
    checks = sorted({k for r in rows for k in r["scores"]})
    head = ["id", "priority", "rule", *blocks, *(f"{c}.score" for c in checks), "dialog",
            *HUMAN_COLUMNS]
    with path.open("w", encoding=CSV_ENCODING, newline="") as out:
        writer = csv.writer(out)
        writer.writerow(head)
        for r in rows:
            writer.writerow([r["id"], r["priority"], r["rule"],
                             *(r["labels"].get(b, "") for b in blocks),
                             *(r["scores"].get(c, "") for c in checks),
                             _transcript(r["dialog"]), *(r[c] for c in HUMAN_COLUMNS)])


def _transcript(dialog: list[dict[str, str]] | None) -> str:
    return "\n".join(f"{m['role']}: {m['content']}" for m in dialog or ())


# ---------------------------------------------------------------- reading


def read_labels(path: Path) -> LabelFile:
    """A filled-in sample file (CSV or JSONL); raises `CaseDataError` naming file and line."""
    text, encoding = decode(path.read_bytes(), str(path))
    if path.suffix.lower() == ".csv":
        return LabelFile(path, encoding, list(_csv_rows(text, str(path))))
    return LabelFile(path, encoding, list(_jsonl_rows(text, str(path))))


def decode(data: bytes, name: str) -> tuple[str, str]:
    """(text, encoding): UTF-8 with or without a BOM, else GB18030, else `CaseDataError`.

    >>> decode("是".encode("gbk"), "x.csv")
    ('是', 'GB18030')
    >>> decode(b"\\xef\\xbb\\xbfid", "x.csv")
    ('id', 'UTF-8 with BOM')
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return _strict(data, "utf-8-sig", name), UTF8_BOM
    try:
        return data.decode("utf-8"), UTF8
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030"), GB18030
    except UnicodeDecodeError as exc:
        raise _undecodable(data, exc.start, _("neither UTF-8 nor GB18030"), name) from None


def _strict(data: bytes, codec: str, name: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise _undecodable(data, exc.start, _("not valid UTF-8 after its BOM"), name) from None


def _undecodable(data: bytes, offset: int, what: str, name: str) -> CaseDataError:
    line = data.count(b"\n", 0, offset) + 1
    return CaseDataError(
        name,
        line,
        _("the file is {what} (byte {offset})").format(what=what, offset=offset),
        hint=_(SAVE_AS_UTF8),
    )


def _csv_rows(text: str, name: str) -> Iterator[LabelRow]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise CaseDataError(name, start, _("not valid CSV: {exc}").format(exc=exc)) from None
        if header is None:
            header = [h.strip() for h in cells]
            _check_header(header, name)
        elif any(c.strip() for c in cells):
            yield LabelRow(start, _cells(header, cells, name, start))
        start = reader.line_num + 1


def _check_header(header: list[str], name: str) -> None:
    if "id" not in header:
        raise CaseDataError(
            name,
            1,
            _("the header has no `id` column"),
            hint=_("keep the header row `evaldsl review` wrote: `id` names the case of each row"),
        )


def _cells(header: list[str], cells: list[str], name: str, line: int) -> dict[str, str]:
    extra = [c for c in cells[len(header):] if c.strip()]
    if extra:
        raise CaseDataError(
            name,
            line,
            _("the row has {count} cells but the header {count2} columns").format(
                count=len(cells), count2=len(header)
            ),
            hint=_("a cell with a comma or a line break must be quoted"),
        )
    values = dict(zip(header, cells, strict=False))
    values.pop("", None)
    return {h: values.get(h, "") for h in header if h}


def _jsonl_rows(text: str, name: str) -> Iterator[LabelRow]:
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise CaseDataError(name, number, _("not valid JSON: {exc}").format(exc=exc)) from None
        if not isinstance(row, dict):
            raise CaseDataError(name, number, _("a row must be a JSON object"))
        yield LabelRow(number, row)
