"""The report files a run or a merge writes: `-o`, `--html`, `--md`, `--junit`.

    files = ReportFiles(json=Path("report.json"), html=Path("report.html"))
    files.check()                                   # before any work
    junit = files.junit_sink(layout)                # JUnit is written case by case
    explorer = files.explorer_sink(layout, inputs)  # the HTML page's case records
    ...
    files.write(report, explorer)                   # the whole-report files at the end

A path of `-` (`STDOUT`) writes that report to stdout; only one may, and JUnit never
(it is written beside the run, not at its end).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaldsl.errors import OptionsError
from evaldsl.i18n import _

if TYPE_CHECKING:
    from evaldsl.report.document import ReportDoc
    from evaldsl.report.layout import SpecLayout

STDOUT = Path("-")
"""`-o -`: the report on stdout (a file named `-` is `./-`)."""


@dataclass(frozen=True)
class ReportFiles:
    """Where a run's reports go; None leaves one out."""

    json: Path | None = None
    html: Path | None = None
    markdown: Path | None = None
    junit: Path | None = None
    junit_pass: str | None = None
    """Verdict labels that pass in JUnit, comma-separated (default: the first branch's)."""

    def _whole(self) -> list[tuple[str, Path | None, str]]:
        """(flag, path, format) of each whole-report output."""
        return [("-o", self.json, "json"), ("--html", self.html, "html"),
                ("--md", self.markdown, "markdown")]

    def check(self) -> None:
        """Refuse, before any work, what cannot be written: two reports on one stdout, and
        JUnit on stdout."""
        if self.junit == STDOUT:
            raise OptionsError(_("--junit cannot write to stdout; give it a file"),
                               hint=_("`-o -`, `--html -` or `--md -` can"))
        on_stdout = [flag for flag, path, _format in self._whole() if path == STDOUT]
        if len(on_stdout) > 1:
            raise OptionsError(_("only one report can go to stdout, not {flags}").format(
                flags=_(" and ").join(f"`{flag} -`" for flag in on_stdout)))

    @property
    def on_stdout(self) -> bool:
        """Whether a report holds stdout (a summary then goes to stderr)."""
        return any(path == STDOUT for _flag, path, _format in self._whole())

    def junit_sink(self, layout: SpecLayout) -> Any:
        """A streaming JUnit writer, or None without a JUnit file."""
        if self.junit is None:
            return None
        from evaldsl.report.junit import JUnitWriter, verdict_passing

        passing = (junit_labels(self.junit_pass, layout) if self.junit_pass
                   else verdict_passing(layout))
        self.junit.parent.mkdir(parents=True, exist_ok=True)
        return JUnitWriter(self.junit, layout.name, passing)

    def explorer_sink(self, layout: SpecLayout, inputs: tuple[str, ...],
                      transcripts: str | None = None,
                      read_scenarios: Callable[..., Any] | None = None) -> Any:
        """The case records for the HTML report's explorer, or None without an HTML file (a
        run that writes no page keeps no case). A driven run's dialogs are read back from
        its `transcripts` by `read_scenarios`."""
        if self.html is None:
            return None
        from evaldsl.report.explorer import Explorer

        if read_scenarios is None:
            return Explorer(layout, inputs)
        return Explorer(layout, inputs, transcripts, read_scenarios)

    def write(self, report: ReportDoc, cases: Any = None) -> None:
        """The whole-report files, with the writers `Report.write` uses; `-` is stdout.
        `cases` (`explorer_sink`) are the case records the HTML page explores."""
        from evaldsl.report.writers import render_report, write_report

        for _flag, path, format in self._whole():
            if path == STDOUT:
                sys.stdout.write(render_report(report, format, cases))
                sys.stdout.flush()
            elif path is not None:
                write_report(path, report, format, cases)


def junit_labels(given: str, layout: SpecLayout) -> frozenset[str]:
    """The labels of `--junit-pass`; an `OptionsError` naming the spec's labels when one of
    them is no block's (a typo would fail every case in silence)."""
    from evaldsl.diagnostics import listing

    passing = frozenset(s.strip() for s in given.split(",") if s.strip())
    labels: Sequence[str] = [label for block in layout.blocks for label in block.labels]
    unknown = sorted(passing - set(labels))
    if unknown:
        raise OptionsError(_("--junit-pass names {unknown}, which no outcome block has; "
                             "the labels are {labels}").format(
            unknown=listing(unknown), labels=listing(labels, limit=20)))
    return passing


def tool_version() -> str:
    """`evaldsl 1.2.3`, the `generated_by` of a report.

    The version `importlib.metadata.version` gives, read from the distribution's metadata
    headers directly: its own reading parses the whole METADATA file, README included, as an
    email message, importing the email parser for it (about 6 ms of every run)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        found = distribution("evaldsl")
    except PackageNotFoundError:
        return "evaldsl"
    text = found.read_text("METADATA") or found.read_text("PKG-INFO") or ""
    version = header_version(text)
    return f"evaldsl {found.version if version is None else version}"


_HEADER = re.compile(r"([\041-\071\073-\176]+):(.*)")
"""A header line: a name of printable ASCII without `:`, then `:` and the value."""


def header_version(text: str) -> str | None:
    """The first `Version` header of metadata text, as the email parser reads it (the name in
    any case, the value after `:` and its leading blanks); None when there is none or a line
    before it is one the parser might read another way (then the caller asks the parser)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t"):  # a folded line of the header before
            continue
        header = _HEADER.fullmatch(line)
        if header is None:
            return None
        if header[1].lower() == "version":
            folded = i + 1 < len(lines) and lines[i + 1][:1] in (" ", "\t")
            return None if folded else header[2].lstrip(" \t")
    return None

