"""`generated_by`: the installed version, read from the metadata headers directly."""

from __future__ import annotations

import email
import importlib.metadata

import pytest

from evaldsl.report.outputs import header_version, tool_version


def test_the_version_is_the_one_importlib_metadata_gives() -> None:
    assert tool_version() == f"evaldsl {importlib.metadata.version('evaldsl')}"


@pytest.mark.parametrize("text", [
    "Metadata-Version: 2.1\nName: evaldsl\nVersion: 0.1.0\n\nVersion: 9\n",
    "Name: evaldsl\r\nversion:  1.2.3rc1 \r\nSummary: a\r\n\r\nbody",
    "Summary: long\n  folded line\nVERSION:2.0\n",
    "Name: x\nVersion: 3.0\nVersion: 4.0\n",
])
def test_a_plain_header_is_read_as_the_email_parser_reads_it(text: str) -> None:
    expected = email.message_from_string(text)["Version"]
    assert header_version(text) == expected is not None


@pytest.mark.parametrize("text", [
    "Name: x\nVersion: 1.0\n  continued\n",  # folded: the parser joins the lines
    "Name: x\n\nVersion: 1.0\n",  # in the body
    "Name: x\nnot a header\nVersion: 1.0\n",  # the parser's headers end before it
    "",
])
def test_anything_else_is_left_to_the_parser(text: str) -> None:
    assert header_version(text) is None
