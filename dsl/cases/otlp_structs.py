"""OTLP/JSON as typed msgspec structs: what `evaldsl.cases.otlp` decodes a document into
before it falls back to plain values.

Scalars a span reader checks itself (ids, times, names, status) are `Any`, so a wrong type
is named by the reader with its words; the containers (batches, scopes, spans, attribute
lists and values) are typed, so msgspec builds them without a dict per attribute. A
document that does not fit (an attribute list written as a mapping, a value of another
type) fails to decode here and is read by the general path.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType


class KeyValue(Struct, gc=False):
    key: str
    value: AnyValue | None = None


class Values(Struct, gc=False):
    values: list[AnyValue | None] | None = None


class KvList(Struct, gc=False):
    values: list[KeyValue] | None = None


class AnyValue(Struct, gc=False):
    stringValue: str | None | UnsetType = UNSET  # noqa: N815 - OTLP's own names
    intValue: Any = UNSET  # noqa: N815
    doubleValue: Any = UNSET  # noqa: N815
    boolValue: Any = UNSET  # noqa: N815
    arrayValue: Values | None | UnsetType = UNSET  # noqa: N815
    kvlistValue: KvList | None | UnsetType = UNSET  # noqa: N815
    bytesValue: Any = UNSET  # noqa: N815


class SpanData(Struct, gc=False):
    traceId: Any = None  # noqa: N815
    spanId: Any = None  # noqa: N815
    parentSpanId: Any = None  # noqa: N815
    name: Any = None
    startTimeUnixNano: Any = None  # noqa: N815
    endTimeUnixNano: Any = None  # noqa: N815
    attributes: list[KeyValue] | None = None
    status: Any = None


class Resource(Struct, gc=False):
    attributes: list[KeyValue] | None = None


class Scope(Struct, gc=False):
    spans: list[SpanData]


class Batch(Struct, gc=False):
    resource: Resource | None = None
    scopeSpans: list[Scope] | None | UnsetType = UNSET  # noqa: N815
    instrumentationLibrarySpans: list[Scope] | None = None  # noqa: N815


class Document(Struct, gc=False):
    """An export (`resourceSpans`) or, without it, one span."""

    resourceSpans: list[Batch] | UnsetType = UNSET  # noqa: N815
    traceId: Any = None  # noqa: N815
    spanId: Any = None  # noqa: N815
    parentSpanId: Any = None  # noqa: N815
    name: Any = None
    startTimeUnixNano: Any = None  # noqa: N815
    endTimeUnixNano: Any = None  # noqa: N815
    attributes: list[KeyValue] | None = None
    status: Any = None


DECODER = msgspec.json.Decoder(Document)


class KeyRaw(Struct, gc=False):
    key: str
    value: msgspec.Raw = msgspec.Raw(b"null")
    """The value's JSON text, decoded only for the attributes grouping reads."""


class SpanKeys(Struct, gc=False):
    traceId: Any = None  # noqa: N815
    attributes: list[KeyRaw] | None = None


class ScopeKeys(Struct, gc=False):
    spans: list[SpanKeys]


class BatchKeys(Struct, gc=False):
    scopeSpans: list[ScopeKeys] | None | UnsetType = UNSET  # noqa: N815
    instrumentationLibrarySpans: list[ScopeKeys] | None = None  # noqa: N815


class DocumentKeys(Struct, gc=False):
    """What grouping reads of a document: each span's trace and its attributes undecoded,
    so a first pass over a file skips the message texts."""

    resourceSpans: list[BatchKeys] | UnsetType = UNSET  # noqa: N815
    traceId: Any = None  # noqa: N815
    attributes: list[KeyRaw] | None = None


KEYS_DECODER = msgspec.json.Decoder(DocumentKeys)
VALUE_DECODER = msgspec.json.Decoder(AnyValue | None)


class Spooled(Struct, gc=False):
    """A line of watch's span spool: when a body came, and the body undecoded."""

    at: float = 0.0
    spans: msgspec.Raw = msgspec.Raw(b"null")


SPOOL_DECODER = msgspec.json.Decoder(Spooled)
