"""OTLP/JSON trace data read into plain spans, a malformed span named and set aside.

Three shapes are read: an export (`{"resourceSpans": [...]}`, the body of an OTLP/HTTP
JSON request and what a collector's file exporter writes), OTLP JSON lines (one export
per line), and one span per line (`{"traceId", "spanId", ...}`). Attribute values
(`{"stringValue": ...}`, `intValue` as a string, `arrayValue`, `kvlistValue`) become
plain Python values, so the readers of conventions (`evaldsl.cases.otel`,
`evaldsl.cases.openinference`) see `{"gen_ai.usage.input_tokens": 20, ...}`.

A document is first decoded into typed structs (`_Doc`: an export or a span, attribute
values as `_AnyValue`), which msgspec builds without a dict per attribute; a document
that does not fit them (an attribute list written as a plain mapping, a field of another
type, nesting deeper than they take) is read again by the general path, which names what
is wrong, so both paths give the same spans and the same problems.

Hostile data is bounded: an attribute value longer than `MAX_ATTRIBUTE_CHARS` or nested
past `MAX_VALUE_DEPTH`, a timestamp that is not a whole number of nanoseconds, a span that
ends before it starts, a span without ids: each is a `SpanProblem` naming where it stands
(line, the span's place in its batch, its id), and reading goes on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.i18n import _

MAX_ATTRIBUTE_CHARS = 8 * 1024 * 1024
"""The longest attribute text a span may carry (documented in docs/cases.md)."""
MAX_VALUE_DEPTH = 32
"""Levels of `arrayValue`/`kvlistValue` an attribute may nest."""
MAX_TIME_NS = 2**63 - 1


@dataclass(slots=True)
class Span:
    """One span, its attributes as plain values (not frozen: a frozen dataclass's
    `__init__` sets each field through `object.__setattr__`, a fifth of reading a span)."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    """Start time, nanoseconds since the epoch."""
    end: int
    attrs: Mapping[str, Any]
    service: str
    line: int
    """The line of the file the span was read from (1 for a whole `.json` file)."""
    where: str
    """Its place in the batch: `resourceSpans[0].scopeSpans[0].spans[3]`, or empty."""
    order: int
    """Its position in the file, which breaks ties between equal timestamps."""
    status_error: str | None = None
    """The status message of a span whose status code is ERROR."""


@dataclass(frozen=True, slots=True)
class SpanProblem:
    """A span, a batch or a line that cannot be read."""

    line: int
    where: str
    span_id: str
    reason: str


class _Bad(ValueError):
    """Raised inside the span reader with the reason a span is malformed."""


def read_otlp(path: Path) -> Iterator[Span | SpanProblem]:
    """Every span of an OTLP/JSON file or OTLP JSON lines file, in file order."""
    counter = [0]
    if path.suffix.lower() == ".json":
        yield from _whole(path, counter)
        return
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            yield from read_document(raw, number, counter)


def _whole(path: Path, counter: list[int]) -> Iterator[Span | SpanProblem]:
    data = path.read_bytes()
    lines = _span_lines(data)
    yield from read_document(data, 1, counter, lines)


_SPAN_ID = re.compile(rb'"spanId"\s*:\s*"([^"]*)"')


def _span_lines(data: bytes) -> dict[str, int]:
    """The line of each span id's first `"spanId"` key in a whole file, found by a scan, so a
    pretty-printed export names the line a span stands on."""
    lines: dict[str, int] = {}
    line, at = 1, 0
    for match in _SPAN_ID.finditer(data):
        line += data.count(b"\n", at, match.start())
        at = match.start()
        lines.setdefault(match.group(1).decode("utf-8", "replace"), line)
    return lines


def read_document(raw: bytes | str, line: int, counter: list[int] | None = None,
                  lines: Mapping[str, int] | None = None) -> Iterator[Span | SpanProblem]:
    """The spans of one JSON document: an export or a single span. `counter` numbers the
    spans across documents; `lines` gives a whole file's span lines by id."""
    counter = counter if counter is not None else [0]
    fast = _typed(raw, line, counter[0], lines)
    if fast is not None:
        counter[0] += len(fast)
        yield from fast
        return
    yield from _general(raw, line, counter, lines)


def read_export(raw: bytes, line: int = 1) -> list[Span | SpanProblem]:
    """The spans of one posted body (an export or a span); raises `ValueError` (or
    `RecursionError`) when the body is not JSON at all, so nothing of it is kept."""
    fast = _typed(raw, line, 0, None)
    if fast is not None:
        return fast
    decode(raw)  # raises for a body that is not JSON
    return list(_general(raw, line, [0], None))


def _general(raw: bytes | str, line: int, counter: list[int],
             lines: Mapping[str, int] | None) -> Iterator[Span | SpanProblem]:
    """`read_document` on decoded plain values: any document, each problem named."""
    try:
        doc = decode(raw)
    except RecursionError:
        yield SpanProblem(line, "", "", _("not valid JSON: nested too deeply"))
        return
    except ValueError as exc:
        yield SpanProblem(line, "", "", _("not valid JSON: {exc}").format(exc=exc))
        return
    if not isinstance(doc, dict):
        yield SpanProblem(line, "", "", _("expected an OTLP export or a span object"))
        return
    if "resourceSpans" not in doc:
        yield _span(doc, line, "", "", counter, lines)
        return
    batches = doc["resourceSpans"]
    if not isinstance(batches, list):
        yield SpanProblem(line, "resourceSpans", "", _("`resourceSpans` is not a list"))
        return
    for r, batch in enumerate(batches):
        where = f"resourceSpans[{r}]"
        if not isinstance(batch, dict):
            yield SpanProblem(line, where, "", _("a resource batch must be an object"))
            continue
        try:
            service = _service(batch.get("resource"))
        except _Bad as exc:
            yield SpanProblem(line, where + ".resource", "", str(exc))
            continue
        scopes = batch.get("scopeSpans", batch.get("instrumentationLibrarySpans")) or []
        if not isinstance(scopes, list):
            yield SpanProblem(line, where + ".scopeSpans", "", _("`scopeSpans` is not a list"))
            continue
        for s, scope in enumerate(scopes):
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                yield SpanProblem(line, f"{where}.scopeSpans[{s}]", "",
                                  _("a scope must hold a list of `spans`"))
                continue
            for i, span in enumerate(spans):
                yield _span(span, line, f"{where}.scopeSpans[{s}].spans[{i}]", service, counter,
                            lines)


def decode(raw: bytes | str) -> Any:
    """JSON text as a value (msgspec: twice as fast as `json` on span data). Raises
    `ValueError` for text that is not JSON, a lone surrogate included, `RecursionError`
    for nesting too deep."""
    import msgspec  # only once a trace file is read: a chat run never loads it

    try:
        return msgspec.json.decode(raw)
    except msgspec.ValidationError as exc:  # a number out of range
        raise ValueError(str(exc)) from None


def _service(resource: Any) -> str:
    if not isinstance(resource, dict):
        return ""
    name = attributes(resource.get("attributes")).get("service.name")
    return name if isinstance(name, str) else ""


def _span(data: Any, line: int, where: str, service: str, counter: list[int],
          lines: Mapping[str, int] | None) -> Span | SpanProblem:
    counter[0] += 1
    span_id = data.get("spanId") if isinstance(data, dict) else None
    ident = span_id if isinstance(span_id, str) else ""
    at = lines.get(ident, line) if lines is not None else line
    try:
        if not isinstance(data, dict):
            raise _Bad(_("a span must be an object"))
        trace_id = _ident(data, "traceId")
        ident = _ident(data, "spanId")
        parent = data.get("parentSpanId") or ""
        if not isinstance(parent, str):
            raise _Bad(_("`parentSpanId` is not a text"))
        start, end = _time(data, "startTimeUnixNano"), _time(data, "endTimeUnixNano")
        if end < start:
            raise _Bad(_("the span ends before it starts"))
        attrs = attributes(data.get("attributes"))
        name = data.get("name")
        status = data.get("status")
        error = None
        if isinstance(status, dict) and status.get("code") in (2, "STATUS_CODE_ERROR"):
            error = str(status.get("message") or "error")
    except _Bad as exc:
        return SpanProblem(at, where, ident, str(exc))
    return Span(trace_id, ident, parent, name if isinstance(name, str) else "", start, end,
                attrs, service, at, where, counter[0], error)


def _ident(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value or len(value) > 64:
        raise _Bad(_("`{key}` is missing or not an id").format(key=key))
    return value


def _time(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, str) and value.isdigit() and len(value) <= 19:
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise _Bad(_("`{key}` is not a whole number of nanoseconds: {value}").format(
            key=key, value=_short(value)))
    if not 0 <= number <= MAX_TIME_NS:
        raise _Bad(_("`{key}` is out of range: {value}").format(key=key, value=_short(value)))
    return number


def _short(value: Any) -> str:
    text = json.dumps(value)[:40] if not isinstance(value, str) else value[:40]
    return f"`{text}`"


def attributes(items: Any) -> dict[str, Any]:
    """OTLP `[{key, value: {stringValue: ...}}]` as a plain dict; a plain mapping (a span
    written by hand) is taken as it is."""
    if items is None:
        return {}
    if isinstance(items, dict):
        for value in items.values():
            _check_plain(value)
        return items
    if not isinstance(items, list):
        raise _Bad(_("`attributes` is not a list"))
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise _Bad(_("an attribute must be an object with a `key`"))
        out[item["key"]] = any_value(item.get("value"), 0)
    return out


def any_value(value: Any, depth: int) -> Any:
    """One OTLP `AnyValue` as a plain value."""
    if depth > MAX_VALUE_DEPTH:
        raise _Bad(_("an attribute is nested more than {limit} levels deep").format(
            limit=MAX_VALUE_DEPTH))
    if not isinstance(value, dict) or not value:
        return None
    if "stringValue" in value:
        text = value["stringValue"]
        if isinstance(text, str) and len(text) > MAX_ATTRIBUTE_CHARS:
            raise _Bad(_("an attribute is longer than {limit} characters").format(
                limit=MAX_ATTRIBUTE_CHARS))
        return text
    if "intValue" in value:
        number = value["intValue"]
        try:
            return int(number)
        except (TypeError, ValueError):
            raise _Bad(_("`intValue` is not a whole number: {value}").format(
                value=_short(number))) from None
    if "doubleValue" in value:
        number = value["doubleValue"]
        return float(number) if isinstance(number, (int, float, str)) else None
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v, depth + 1) for v in _values(value["arrayValue"])]
    if "kvlistValue" in value:
        return {str(v.get("key")): any_value(v.get("value"), depth + 1)
                for v in _values(value["kvlistValue"]) if isinstance(v, dict)}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _values(inner: Any) -> list[Any]:
    values = inner.get("values") if isinstance(inner, dict) else None
    return values if isinstance(values, list) else []


def _check_plain(value: Any) -> None:
    if isinstance(value, str) and len(value) > MAX_ATTRIBUTE_CHARS:
        raise _Bad(_("an attribute is longer than {limit} characters").format(
            limit=MAX_ATTRIBUTE_CHARS))


# ------------------------------------------------------------------ the typed fast path

def _structs() -> Any:
    """The typed decoder and the unset marker, imported on first use (a chat run never
    loads msgspec)."""
    global _DECODER
    if _DECODER is None:
        from msgspec import UNSET

        from evaldsl.cases.otlp_structs import DECODER

        _DECODER = (DECODER, UNSET, None)
    return _DECODER


_DECODER: Any = None


def _typed(raw: bytes | str, line: int, before: int, lines: Mapping[str, int] | None,
           ) -> list[Span | SpanProblem] | None:
    """The spans of a document by the typed structs, or None when it does not fit them
    (the general path then reads it and names what is wrong)."""
    decoder, unset, _unused = _structs()
    try:
        doc = decoder.decode(raw)
    except Exception:  # noqa: BLE001 - any refusal: the general path says what it is
        return None
    out: list[Span | SpanProblem] = []
    try:
        if doc.resourceSpans is unset:
            out.append(_typed_span(doc, line, "", "", before + 1, lines, unset))
            return out
        for r, batch in enumerate(doc.resourceSpans):
            resource = batch.resource
            service = ""
            if resource is not None and resource.attributes:
                name = _typed_attributes(resource.attributes, unset).get("service.name")
                service = name if isinstance(name, str) else ""
            scopes = batch.scopeSpans
            if scopes is unset:
                scopes = batch.instrumentationLibrarySpans
            for s, scope in enumerate(scopes or ()):
                for i, span in enumerate(scope.spans):
                    out.append(_typed_span(span, line,
                                           f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]",
                                           service, before + len(out) + 1, lines, unset))
    except _Bad:
        return None  # a resource's attributes: the general path names the batch
    return out


def _typed_span(data: Any, line: int, where: str, service: str, order: int,
                lines: Mapping[str, int] | None, unset: Any) -> Span | SpanProblem:
    span_id = data.spanId
    ident = span_id if isinstance(span_id, str) else ""
    at = lines.get(ident, line) if lines is not None else line
    try:
        trace_id = _typed_ident(data.traceId, "traceId")
        ident = _typed_ident(span_id, "spanId")
        parent = data.parentSpanId or ""
        if not isinstance(parent, str):
            raise _Bad(_("`parentSpanId` is not a text"))
        start = _typed_time(data.startTimeUnixNano, "startTimeUnixNano")
        end = _typed_time(data.endTimeUnixNano, "endTimeUnixNano")
        if end < start:
            raise _Bad(_("the span ends before it starts"))
        attrs = _typed_attributes(data.attributes, unset) if data.attributes else {}
        status = data.status
        error = None
        if isinstance(status, dict) and status.get("code") in (2, "STATUS_CODE_ERROR"):
            error = str(status.get("message") or "error")
    except _Bad as exc:
        return SpanProblem(at, where, ident, str(exc))
    name = data.name
    return Span(trace_id, ident, parent, name if isinstance(name, str) else "", start, end,
                attrs, service, at, where, order, error)


def _typed_ident(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 64:
        raise _Bad(_("`{key}` is missing or not an id").format(key=key))
    return value


def _typed_time(value: Any, key: str) -> int:
    if type(value) is str and value.isdigit() and len(value) <= 19:
        number = int(value)
        if number <= MAX_TIME_NS:
            return number
    return _time({key: value}, key)  # the general check, with its words


def _typed_attributes(items: Any, unset: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        value = item.value
        if value is None:
            out[item.key] = None
            continue
        text = value.stringValue
        if text is not unset:
            if text is not None and len(text) > MAX_ATTRIBUTE_CHARS:
                raise _Bad(_("an attribute is longer than {limit} characters").format(
                    limit=MAX_ATTRIBUTE_CHARS))
            out[item.key] = text
        else:
            out[item.key] = _typed_value(value, 0, unset)
    return out


def _typed_value(value: Any, depth: int, unset: Any) -> Any:
    """`any_value` over a typed `_AnyValue`: the same checks in the same order."""
    if depth > MAX_VALUE_DEPTH:
        raise _Bad(_("an attribute is nested more than {limit} levels deep").format(
            limit=MAX_VALUE_DEPTH))
    if value is None:
        return None
    if value.stringValue is not unset:
        text = value.stringValue
        if text is not None and len(text) > MAX_ATTRIBUTE_CHARS:
            raise _Bad(_("an attribute is longer than {limit} characters").format(
                limit=MAX_ATTRIBUTE_CHARS))
        return text
    if value.intValue is not unset:
        number = value.intValue
        try:
            return int(number)
        except (TypeError, ValueError):
            raise _Bad(_("`intValue` is not a whole number: {value}").format(
                value=_short(number))) from None
    if value.doubleValue is not unset:
        number = value.doubleValue
        return float(number) if isinstance(number, (int, float, str)) else None
    if value.boolValue is not unset:
        return bool(value.boolValue)
    if value.arrayValue is not unset:
        inner = value.arrayValue
        return [_typed_value(v, depth + 1, unset) for v in (inner.values or ())] \
            if inner is not None else []
    if value.kvlistValue is not unset:
        inner = value.kvlistValue
        return {kv.key: _typed_value(kv.value, depth + 1, unset)
                for kv in (inner.values or ())} if inner is not None else {}
    if value.bytesValue is not unset:
        return value.bytesValue
    return None
