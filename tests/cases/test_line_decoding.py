"""A JSONL line is decoded by msgspec when it can be and by the json module otherwise; the
two readings must agree on every line: the same value (types, key order, float bits), the
same bad row, and a line only cleared of the walk when nothing in it is unwritable."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.loading import _decode_json, _decode_raw
from evaldsl.cases.unwritable import unwritable

LINES = [
    b'{"id": "a", "messages": []}\n', b'{"id": "a"}\r\n', b"\n", b"   \t\r\n", b"\x0c\n",
    b"\x1c\n", b"\xc2\x85\n", b"\xe3\x80\x80\n", b"\xef\xbb\xbf{}\n", b'{"a": 1}\xef\xbb\xbf\n',
    b"NaN\n", b"-Infinity\n", b'{"x": [Infinity]}', b"1e400", b"-1e999", b"1e-400",
    b"1" + b"0" * 5000, b"1" * 400 + b".5e308", b"4.9e-324", b"1.7976931348623159e308",
    b'"\\ud800"', b'"\\udc00x"', b'"\\ud800\\ud800"', b'"\\ud83d\\ude00"', b'{"\\ud800": 1}',
    b'"\xed\xa0\x80"', b'"\xff"', b'"\xc0\x80"', b'"\xf4\x90\x80\x80"', b'"a\tb"', b'"\x7f"',
    b'"\\u0000"', b'"\\x"', b'"\\u12"', b"\x0b1", b"1\x0b", b"01", b"1.", b".5", b"+1", b"-",
    b"-0", b"-0.0", b"[1,]", b'{"a": 1,}', b"{1: 2}", b'{"a": 1, "a": 2, "b": 3}', b"[] []",
    b"true", b"True", b"null", b"[" * 3000 + b"]" * 3000, b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b'{"id": "x", "messages": [', b"\xef\xbc\x9a", b'{"a"\xef\xbc\x9a 1}',
]


def _same(number: int, raw: bytes) -> None:
    got, cleared = _decode_raw("f.jsonl", number, raw)
    want, _ = _decode_json("f.jsonl", number, raw)
    if isinstance(want, BadRow) or isinstance(got, BadRow):
        assert got == want
        return
    assert repr(got) == repr(want)  # types, key order, -0.0 and float digits included
    if cleared:
        assert unwritable(got) is None


@pytest.mark.parametrize("raw", LINES, ids=range(len(LINES)))
@pytest.mark.parametrize("number", [1, 2])
def test_a_line_decodes_as_the_json_module_decodes_it(raw: bytes, number: int) -> None:
    _same(number, raw)


VALUES = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(
        st.characters(codec=None, exclude_categories=())),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(st.characters(codec=None, exclude_categories=()), max_size=3), inner,
        max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_any_value_decodes_as_the_json_module_decodes_it(value: Any, ascii: bool) -> None:
    """Every JSON value, NaN, lone surrogates and huge numbers among them, spelt with or
    without escapes."""
    _same(2, json.dumps(value, ensure_ascii=ascii).encode("utf-8", "surrogatepass"))


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(), st.sampled_from(
    ["{!r}", "{:e}", "{:.17g}", "{:.30f}", "{:E}"]))
def test_a_number_decodes_to_the_same_bits(number: float, spelling: str) -> None:
    try:
        text = spelling.format(number) if not isinstance(number, int) else str(number)
    except ValueError:
        return
    _same(2, text.encode())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_decode_as_the_json_module_decodes_them(raw: bytes) -> None:
    _same(2, raw)
