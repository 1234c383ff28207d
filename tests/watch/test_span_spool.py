"""The span spool of `POST /v1/traces`: a body kept as it came (its line breaks made
spaces), read again after a restart into the same conversations; a body that is not JSON
is refused and spools nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.watch.spans import SpanGroups

HERE = Path(__file__).resolve().parents[1] / "cases" / "traces"


def export() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / "genai_weather_paris.json").read_text("utf-8"))
    return data


def test_a_pretty_printed_body_is_spooled_on_one_line_and_read_back(tmp_path: Path) -> None:
    spool = tmp_path / "spans.jsonl"
    body = json.dumps(export(), indent=2, ensure_ascii=False).encode()
    assert b"\n" in body
    groups = SpanGroups(spool, idle_s=60)
    groups.load(set())
    assert groups.add(body, 1000.0) == []
    groups.close()
    assert len(spool.read_bytes().splitlines()) == 1
    first = groups.due(2000.0)

    again = SpanGroups(spool, idle_s=60)
    again.load(set())
    assert again.due(1000.5) == [], "it waits out its idle time from its arrival"
    [row] = again.due(2000.0)
    again.close()
    assert [r.data for r in first] == [row.data]


def test_a_torn_last_line_is_skipped_on_restart(tmp_path: Path) -> None:
    spool = tmp_path / "spans.jsonl"
    groups = SpanGroups(spool, idle_s=60)
    groups.load(set())
    groups.add(json.dumps(export()).encode(), 1000.0)
    groups.close()
    with spool.open("ab") as handle:
        handle.write(b'{"at":1001.0,"spans":{"resourceSpans":[')
    again = SpanGroups(spool, idle_s=60)
    again.load(set())
    second = export()
    for span in second["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["traceId"] = "f" * 32
    again.add(json.dumps(second).encode(), 1002.0)  # acknowledged after the torn line
    again.close()
    last = SpanGroups(spool, idle_s=60)
    last.load(set())
    assert len(last.due(2000.0)) == 2, "the body after the torn line is kept"
    last.close()


@pytest.mark.parametrize("body", [b"{not json", b"", b'{"resourceSpans": [}'])
def test_a_body_that_is_not_json_is_refused_and_spools_nothing(tmp_path: Path,
                                                               body: bytes) -> None:
    spool = tmp_path / "spans.jsonl"
    groups = SpanGroups(spool, idle_s=60)
    groups.load(set())
    with pytest.raises(ValueError):
        groups.add(body, 1000.0)
    groups.close()
    assert not spool.exists() or spool.read_bytes() == b""
