"""Case files: JSONL and YAML, streamed, validated against a spec's `case {}` block.

    for item in read_cases(["cases.jsonl"], schema=CaseSchema.of(spec), on_bad_row="skip"):
        if isinstance(item, BadRow): ...   # counted and reported by the runner
        else: spec.evaluate(item)

Rows are read one at a time, so memory does not grow with the file. A row
that cannot become a case (not JSON, invalid UTF-8, a missing `id`, a field
of the wrong type) is a `BadRow` naming file, line, field and reason. With
`on_bad_row="fail"` the first one raises `CaseDataError`; with `"skip"` it is
yielded for the caller to count and reading goes on.

Formats by extension: `.jsonl`/`.ndjson` (one object per line), `.yaml`/
`.yml` (a list of cases, or one case per `---` document) and `.json` (a list
or one case). A YAML syntax error ends that file (YAML cannot resume after it),
keeping the rows before it.

Reading is two steps, `read_rows` (a file's rows as `RawRow`s: a JSONL line
still as its bytes) and `RawRow.item` (the row as a case or a bad row), so
that a run with workers reads the files once in the parent and lets the
workers, not the parent, pay for decoding and validating. `read_cases` takes
both steps at once: a JSONL file's lines become items in one loop, with no
`RawRow` between (`_file_items`), the same items `RawRow.item` gives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from msgspec import DecodeError
from msgspec.json import Decoder

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.load_limits import MAX_YAML_NODES, yaml_expanded_size
from evaldsl.cases.rows import EMPTY_SCHEMA, CaseSchema, RowProblem, to_case
from evaldsl.cases.trace_sniff import is_trace_file
from evaldsl.cases.unwritable import screened_loads
from evaldsl.i18n import N_, _

if TYPE_CHECKING:
    import yaml

Policy = Literal["skip", "fail"]
YAML_SUFFIXES = (".yaml", ".yml")
_DOCUMENT_SUFFIXES = (*YAML_SUFFIXES, ".json")
"""Files read whole (`_rows`); any other is read as JSONL."""


Item = Case | BadRow


class RawRow(NamedTuple):
    """One row as read from its file, before it is decoded and validated."""

    file: str
    line: int
    data: Any
    """A JSONL line's bytes, a value decoded from a JSON or YAML file, or a `BadRow`."""

    @property
    def origin(self) -> str:
        """`file:line`: the row's place, which names it in messages and in a journal."""
        return f"{self.file}:{self.line}"

    def item(self, schema: CaseSchema = EMPTY_SCHEMA) -> Item | None:
        """The row as a case or a bad row; None for a blank JSONL line."""
        data = self.data
        if isinstance(data, bytes):
            return _line_item(self.file, self.line, data, schema)
        if isinstance(data, BadRow):
            return data
        case = to_case(data, schema, self.origin)
        return case if isinstance(case, Case) else _bad(self.file, self.line, case)


def case_of(row: Any, schema: CaseSchema = EMPTY_SCHEMA, file: str = "<case>", line: int = 1,
            ) -> Case:
    """One row given in memory (a dict an engine passes to `Spec.evaluate`) as a case, checked
    as a case file's row is; a bad one raises `CaseDataError` with the same words."""
    case = to_case(row, schema, "")
    if isinstance(case, Case):
        return case
    raise _bad(file, line, case).error()


def read_cases(paths: str | Path | Iterable[str | Path], schema: CaseSchema = EMPTY_SCHEMA,
               on_bad_row: Policy = "fail", input_format: str | None = None) -> Iterator[Item]:
    """Cases from every file in order; bad rows raise or are yielded by the policy.
    `input_format` (`chat`, `otel`, `openinference`) overrides detection by content.
    The files' own iterators are chained, so a case passes one generator of this module
    (`_file_items`) on its way to the caller, not one per layer."""
    each = [paths] if isinstance(paths, (str, Path)) else paths
    if on_bad_row == "fail":
        return _until_bad(each, schema, input_format)
    return chain.from_iterable(_each_file(each, schema, input_format))


def _each_file(paths: Iterable[str | Path], schema: CaseSchema,
               input_format: str | None) -> Iterator[Iterator[Item]]:
    """Each file's items in turn, a file opened only once the one before is read (and
    nothing touched before the first case is asked for)."""
    for path in paths:
        yield _file_items(Path(path), schema, input_format, False)


def _until_bad(paths: Iterable[str | Path], schema: CaseSchema,
               input_format: str | None) -> Iterator[Item]:
    """The `fail` policy's items: one generator over every file, so reading ends for good
    at the first bad row (a chain would go on with the next file if asked again)."""
    for path in paths:
        yield from _file_items(Path(path), schema, input_format, True)


def load_cases(paths: str | Path | Iterable[str | Path],
               schema: CaseSchema = EMPTY_SCHEMA) -> Iterator[Case]:
    """Only the good cases, failing on the first bad row: the simple form for tests."""
    for item in read_cases(paths, schema, "fail"):
        assert isinstance(item, Case)
        yield item


def read_file(path: Path, schema: CaseSchema = EMPTY_SCHEMA,
              input_format: str | None = None) -> Iterator[Item]:
    """Every row of one file as a case or a bad row."""
    return _file_items(path, schema, input_format, False)


def _file_items(path: Path, schema: CaseSchema, input_format: str | None,
                fail: bool) -> Iterator[Item]:
    """`read_rows` of one file, each row as its item (`RawRow.item`); with `fail` a bad row
    raises. A JSONL file's lines are read, decoded and checked in this one loop, without a
    `RawRow` or a generator per layer between the file and the caller."""
    name = str(path)
    try:
        rows = _traced(path, input_format)
        if rows is None and path.suffix.lower() not in _DOCUMENT_SUFFIXES:
            with path.open("rb") as handle:
                for number, raw in enumerate(handle, 1):
                    item = _line_item(name, number, raw, schema)
                    if item is not None:
                        if fail and isinstance(item, BadRow):
                            raise item.error()
                        yield item
            return
        for row in rows or _rows(path):
            item = row.item(schema)
            if item is not None:
                if fail and isinstance(item, BadRow):
                    raise item.error()
                yield item
    except OSError as exc:
        bad = _unreadable(name, exc)
        if fail:
            raise bad.error() from None
        yield bad


def read_rows(paths: Iterable[str | Path], input_format: str | None = None) -> Iterator[RawRow]:
    """The rows of every file in order, undecoded; a file that cannot be read is a bad row."""
    for path in paths:
        name = str(path)
        try:
            yield from _traced(Path(path), input_format) or _rows(Path(path))
        except OSError as exc:
            yield RawRow(name, 0, _unreadable(name, exc))


def _unreadable(name: str, exc: OSError) -> BadRow:
    return BadRow(name, 0, _("cannot read the file: {value}").format(value=exc.strerror or exc))


def _traced(path: Path, input_format: str | None) -> Iterator[RawRow] | None:
    """A trace file's conversations as rows (`evaldsl.cases.traces`), or None for a chat file
    (told without importing the trace readers)."""
    if input_format == "chat" or (input_format is None and not is_trace_file(path)):
        return None
    from evaldsl.cases.traces import trace_rows

    rows = trace_rows(path, input_format)
    if rows is None:
        return None
    name = str(path)
    return (RawRow(name, line, data) for line, data in rows)


def _rows(path: Path) -> Iterator[RawRow]:
    suffix = path.suffix.lower()
    name = str(path)
    if suffix in YAML_SUFFIXES:
        return (RawRow(name, line, row) for line, row in yaml_rows(path))
    if suffix == ".json":
        return (RawRow(name, line, row) for line, row in json_rows(path))
    return jsonl_lines(path)


def jsonl_lines(path: Path) -> Iterator[RawRow]:
    """Every line of a JSONL file as its bytes, blank ones included (`RawRow.item` skips them)."""
    name = str(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            yield RawRow(name, number, raw)


_strict_loads = Decoder().decode
"""msgspec's JSON decoder: standard JSON only (`_decode_raw`)."""

_BLANK = object()
"""What `_decode_raw` returns for a blank line."""


def _line_item(name: str, number: int, raw: bytes, schema: CaseSchema) -> Item | None:
    """A JSONL line as a case or a bad row; None for a blank line. The row is decoded here,
    so `to_case` may keep its dict as the case's fields."""
    data, screened = _decode_raw(name, number, raw)
    if data is _BLANK:
        return None
    if isinstance(data, BadRow):
        return data
    case = to_case(data, schema, f"{name}:{number}", screened, owned=True)
    return case if isinstance(case, Case) else _bad(name, number, case)


def _decode_raw(name: str, number: int, raw: bytes) -> tuple[Any, bool]:
    """One JSONL line as a value, a `BadRow`, or `_BLANK`; and whether the value is
    proven free of anything `unwritable` names, so it need not be walked.

    msgspec decodes the line first, at a third of the json module's work: it reads standard
    JSON only, so a value it gives is the json module's (the same types, key order and
    float bits, tests/cases/test_line_decoding.py) and holds nothing `unwritable` names: it
    refuses NaN, Infinity, a number that overflows and a lone surrogate, escaped or raw.
    Whatever it refuses, a blank line, a byte order mark or a broken row among them, is
    read again by the json module (`_decode_json`), which gives the value or the words."""
    try:
        return _strict_loads(raw), True
    except (DecodeError, RecursionError):
        return _decode_json(name, number, raw)


def _decode_json(name: str, number: int, raw: bytes) -> tuple[Any, bool]:
    """`_decode_raw` by the json module (`screened_loads`): NaN, Infinity and lone
    surrogates read as Python reads them, for `unwritable` to name, and every malformed
    line's reason in words."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = BadRow(name, number, _("not UTF-8 text (byte {value})").format(value=exc.start + 1))
        return bad, False
    if not text or text.isspace():  # `not text.strip()`, without copying the line
        return _BLANK, False
    if number == 1:
        text = text.lstrip("\ufeff")
    try:
        return screened_loads(text)
    except RecursionError:
        return BadRow(name, number, _("not valid JSON: nested too deeply")), False
    except ValueError as exc:
        return BadRow(name, number, json_reason(exc, text, line=False)), False


JSON_ERRORS = {
    "Expecting value": N_("a value is expected"),
    "Expecting ',' delimiter": N_("`,` or a closing bracket is expected"),
    "Expecting ':' delimiter": N_("`:` is expected after the key"),
    "Expecting property name enclosed in double quotes": N_(
        "a key in double quotes is expected"),
    "Unterminated string starting at": N_("a text is not closed by `\"`"),
    "Invalid control character at": N_("a control character (a raw line break or tab) is "
                                        "inside a text"),
    "Extra data": N_("something follows the JSON value"),
    "Invalid \\escape": N_("a backslash escape is not valid JSON"),
}
"""Python's JSON errors (`JSONDecodeError.msg`) in words of the catalogue."""
FULL_WIDTH_JSON = {"：": ":", "，": ",", "“": "\"", "”": "\"", "｛": "{", "｝": "}",
                   "【": "[", "】": "]"}


def json_reason(exc: Exception, text: str, line: bool) -> str:
    """Why a text is not JSON, in the user's language, with where and, for full-width
    punctuation near that place, the ASCII character to write."""
    msg = getattr(exc, "msg", str(exc))
    worded = _(JSON_ERRORS[msg]) if msg in JSON_ERRORS else msg[:1].lower() + msg[1:]
    col, row = getattr(exc, "colno", None), getattr(exc, "lineno", None)
    if col and line and row:
        at = _(" at line {line}, column {col}").format(line=row, col=col)
    else:
        at = _(" at column {col}").format(col=col) if col else ""
    reason = _("not valid JSON: {lower}{at}").format(lower=worded, at=at)
    pos = getattr(exc, "pos", None)
    if isinstance(pos, int) and text:
        near = text[max(0, pos - 2): pos + 2]
        found = next((ch for ch in near if ch in FULL_WIDTH_JSON), None)
        if found:
            reason += _("; `{ch}` is full-width: JSON needs `{ascii}`").format(
                ch=found, ascii=FULL_WIDTH_JSON[found])
    return reason


def json_rows(path: Path) -> Iterator[tuple[int, Any]]:
    """A `.json` file: a list of cases or one case (read whole; meant for small files)."""
    name = str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        yield (
            getattr(exc, "lineno", 1),
            BadRow(name, getattr(exc, "lineno", 1), json_reason(exc, text if isinstance(
                exc, json.JSONDecodeError) else "", line=True)),
        )
        return
    if not isinstance(data, list):
        yield _line_at(text, _skip_space(text, 0)), data
        return
    yield from zip((_line_at(text, start) for start in _item_starts(text)), data, strict=True)


def _item_starts(text: str) -> Iterator[int]:
    """Where each item of the (already valid) top-level JSON list in `text` begins, so a bad
    item is reported at its own line rather than at the file's first."""
    decoder = json.JSONDecoder()
    at = _skip_space(text, _skip_space(text, 0) + 1)  # past the `[`
    while text[at] != "]":
        yield at
        _, end = decoder.raw_decode(text, at)
        at = _skip_space(text, end)
        if text[at] == ",":
            at = _skip_space(text, at + 1)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _line_at(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def yaml_rows(path: Path) -> Iterator[tuple[int, Any]]:
    """A list of cases, or one case per document, each with the line it starts on.

    A syntax error ends the file, but what came before it is kept: the
    documents already read, and the list items of the broken document that
    precede the one holding the error (see `_salvage`).
    """
    import yaml  # only YAML case files pay for it

    name = str(path)
    try:
        data = path.read_bytes()
        for document in yaml.compose_all(data, Loader=yaml.SafeLoader):
            yield from _document_rows(name, document)
    except yaml.MarkedYAMLError as exc:
        nodes, exc = _salvage(data, exc)
        for node in nodes:
            yield node.start_mark.line + 1, _construct(name, node)
        yield _syntax_error(name, exc)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        yield 0, BadRow(name, 0, _("not valid YAML: {exc}").format(exc=exc))


def _document_rows(name: str, document: yaml.Node | None) -> Iterator[tuple[int, Any]]:
    import yaml

    if document is None:
        return
    nodes = document.value if isinstance(document, yaml.SequenceNode) else [document]
    for node in nodes:
        yield node.start_mark.line + 1, _construct(name, node)


def _syntax_error(name: str, exc: yaml.MarkedYAMLError) -> tuple[int, BadRow]:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 0
    reason = _("not valid YAML: {value}; the rest of the file is not read").format(
        value=exc.problem or exc.context
    )
    return line, BadRow(name, line, reason)


_LINE = re.compile(r"[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029]|$)")
"""One line with its break, counted as YAML marks count them."""
_ITEM = re.compile(r"-(?:[ \t]|$)")
_DOCUMENT = re.compile(r"(?:---|\.\.\.)(?:[ \t]|$)")
_SALVAGE_TRIES = 20
"""Shorter prefixes `_salvage` tries at most: bounds the work a hostile file can cause."""


def _salvage(
    data: bytes, exc: yaml.MarkedYAMLError
) -> tuple[list[yaml.Node], yaml.MarkedYAMLError]:
    """The list items before the one holding a syntax error, and the error to report.

    The broken document runs from the last `---` before the error; its text
    up to the top-level `- ` item holding the error is composed again on its
    own, so anchors among those items still resolve. A parser may notice an
    error late (an unclosed bracket is seen items later), so while that
    prefix is broken too, one item fewer is tried. The error reported is
    the parser's own, at the line where it noticed.
    """
    import yaml

    mark = exc.problem_mark or exc.context_mark
    try:
        lines = _LINE.findall(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return [], exc
    if mark is None:
        return [], exc
    end = min(mark.line, len(lines) - 1)
    start = next((i + 1 for i in range(end, -1, -1) if _DOCUMENT.match(lines[i])), 0)
    items = [i for i in range(start, end + 1) if _ITEM.match(lines[i])]
    for cut in reversed(items[1:][-_SALVAGE_TRIES:]):
        try:
            node = yaml.compose("\n" * start + "".join(lines[start:cut]), Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            continue
        return (list(node.value) if isinstance(node, yaml.SequenceNode) else []), exc
    return [], exc


def _construct(name: str, node: yaml.Node) -> Any:
    """One row from its node; one whose aliases expand past the limit is a bad row, unbuilt."""
    import yaml

    line = node.start_mark.line + 1
    if yaml_expanded_size(node, MAX_YAML_NODES) > MAX_YAML_NODES:
        return BadRow(
            name,
            line,
            _("YAML aliases expand to more than {limit} nodes").format(limit=MAX_YAML_NODES),
        )
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        return BadRow(name, line, _("not valid YAML: {exc}").format(exc=exc))
    finally:
        loader.dispose()


def _bad(name: str, line: int, problem: RowProblem) -> BadRow:
    return BadRow(name, line, problem.reason, problem.field)
