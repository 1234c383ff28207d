"""A report (`evaldsl.report.document.ReportDoc`) to a file: report.json, HTML or Markdown.

One table of formats for `evaldsl run`, `evaldsl merge` and `Report.write`, so a
report written from Python is byte for byte the one the command line writes.
Files are written through a temporary file and a rename: a reader never sees
half a report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from evaldsl.atomic import replace_file
from evaldsl.errors import EvaldslError
from evaldsl.i18n import _
from evaldsl.report.document import ReportDoc
from evaldsl.report.finite import encode_finite

if TYPE_CHECKING:
    from evaldsl.report.explorer import Explorer

_ENCODE_REPORT = json.JSONEncoder(ensure_ascii=False, indent=2, allow_nan=False).encode


def render_json(report: ReportDoc, cases: Explorer | None = None) -> str:
    """report.json's text: standard JSON, so a non-finite number is written as null; the
    keys in the order the report's type declares them, two spaces of indent."""
    return encode_finite(_ENCODE_REPORT, report.to_dict()) + "\n"


def _html(report: ReportDoc, cases: Explorer | None = None) -> str:
    from evaldsl.report.html import render_html  # its templates only when asked for

    return render_html(report, cases)


def _markdown(report: ReportDoc, cases: Explorer | None = None) -> str:
    from evaldsl.report.markdown import render_markdown

    return render_markdown(report)


FORMATS: dict[str, Callable[[ReportDoc, Explorer | None], str]] = {
    "json": render_json, "html": _html, "markdown": _markdown}
"""Format name -> renderer of a report and, for the formats that show every case (HTML),
the run's case records. JUnit is not here: it is one test per case, written from the
case records as they come (`evaldsl.report.junit`), not from the report."""


def render_report(report: ReportDoc, format: str = "json",
                  cases: Explorer | None = None) -> str:
    """`report` as the text of `format`: what the file holds, or what `-o -` prints; `cases`
    are the run's case records, for the HTML case explorer."""
    render = FORMATS.get(format)
    if render is None:
        known = _(", ").join(f"`{f}`" for f in FORMATS)
        raise EvaldslError(_("unknown report format `{format}` (formats: {known})").format(
            format=format, known=known))
    return render(report, cases)


def write_report(path: Path, report: ReportDoc, format: str = "json",
                 cases: Explorer | None = None) -> Path:
    """Render `report` in `format` and write it atomically to `path`; the path back. An
    HTML page is written piece by piece: its case data may be most of a large file."""
    if format == "html":
        from evaldsl.report.html import html_parts

        write_atomic(path, html_parts(report, cases))
    else:
        write_atomic(path, render_report(report, format, cases))
    return path


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write via a temporary file and rename (`evaldsl.atomic`), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text)
