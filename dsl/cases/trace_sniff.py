"""Whether a case file holds OTLP/JSON trace data, told from its first bytes.

Every run asks it of every input file, and most are chat files: this module is all the
asking needs, so a run over chat files never imports the trace readers
(`evaldsl.cases.traces` and the OTLP, GenAI and OpenInference modules under it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SNIFF_BYTES = 65536
"""How much of a file is read to tell."""

_EXPORT_KEY = re.compile(rb'"resourceSpans"\s*:')
_SPAN_START = re.compile(rb'\s*\{\s*"(?:traceId|spanId)"\s*:')


def sniff(head: bytes) -> bool:
    """Whether the first bytes of a file look like OTLP/JSON trace data: an export's
    `resourceSpans` key, or a first line that is one span object (`traceId`, `spanId`)."""
    if _EXPORT_KEY.search(head):
        return True
    first = head.lstrip().split(b"\n", 1)[0]
    if b'"spanId"' not in first:
        return False
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):  # a line longer than the head, or hostile
        return _SPAN_START.match(first) is not None
    return isinstance(value, dict) and "traceId" in value and "spanId" in value


def is_trace_file(path: Path) -> bool:
    """Whether a JSON or JSONL file holds OTLP trace data, by its first bytes."""
    if path.suffix.lower() in (".yaml", ".yml"):
        return False
    try:
        with path.open("rb") as handle:
            return sniff(handle.read(SNIFF_BYTES))
    except OSError:
        return False
