"""JUnit XML: one test per case, so CI systems list, count and trend cases.

A case passes when its verdict (the unnamed outcome block) is one of the
passing labels: by default the first branch's label, the one an author writes
first because it is the goal (`success`). Other labels are failures, `error`
is a JUnit error. A spec without an unnamed block passes a case when every
check computed for it passed. `--junit-pass success,partial` widens the set.

The writer streams (`JUnitWriter`): test cases go to a scratch file as they
come and the suite is assembled at the end, so a 100,000-case run never holds
its cases in memory and the journal is never read back. In a run with workers
each worker renders its cases (`JUnitCases`) and the writer only appends the text.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from evaldsl.record import CaseRecord
from evaldsl.report.layout import VERDICT

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters XML 1.0 cannot hold; they become U+FFFD."""


def text(value: object) -> str:
    """Element text: escaped, and without characters XML 1.0 cannot hold."""
    out = _INVALID_XML.sub("\ufffd", str(value))
    return out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr(value: object) -> str:
    """A quoted attribute value (`str.replace` chains: far faster than `str.translate`)."""
    out = text(value).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
    return f'"{out.replace(chr(9), "&#9;")}"'


def case_status(record: CaseRecord, passing: frozenset[str]) -> tuple[str, str]:
    """(`passed` | `failure` | `error`, message) for one case record."""
    verdict = record.labels.get(VERDICT)
    checks = record.checks
    if verdict == "error":
        reason = record.errors.get(VERDICT, "a value the verdict needed is an error")
        return "error", f"verdict `error`: {reason}"
    if verdict is not None:
        if verdict in passing:
            return "passed", ""
        return "failure", f"verdict `{verdict}`"
    failing = [n for n, r in checks.items() if r.get("status") != "passed"]
    if not failing:
        return "passed", ""
    kind = "error" if any(checks[n].get("status") == "error" for n in failing) else "failure"
    return kind, "checks not passed: " + ", ".join(failing)


def details(record: CaseRecord) -> str:
    """The body of a failure: each check that did not pass, with its score and reason.

    (The full trace is in results.jsonl; a CI page wants the reasons at a glance.)
    """
    lines = []
    for name, r in record.checks.items():
        if r.get("status") != "passed":
            reason = f" - {r['reason']}" if r.get("reason") else ""
            lines.append(f"{name}: {r.get('status')} (score {_score(r.get('score'))}){reason}")
    return "\n".join(lines)


def _score(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return "error" if isinstance(value, dict) else str(value)


class JUnitPart(NamedTuple):
    """Some cases rendered: how many of each status, and their `<testcase>` elements."""

    totals: dict[str, int]
    text: str


@dataclass(frozen=True)
class JUnitCases:
    """Renders case records as `<testcase>` elements (the per-case half of `JUnitWriter`)."""

    suite: str
    passing: frozenset[str]

    @cached_property
    def _head(self) -> str:
        return f"<testcase classname={attr(self.suite)} name="

    def render(self, record: CaseRecord) -> tuple[str, str]:
        """(status, element) of one case record."""
        status, message = case_status(record, self.passing)
        return status, _testcase(record, self._head, status, message)

    @staticmethod
    def join(rendered: Sequence[tuple[str, str]]) -> JUnitPart:
        """Cases rendered one by one, as one part for `JUnitWriter.add_rendered`."""
        totals = {"passed": 0, "failure": 0, "error": 0}
        for status, _ in rendered:
            totals[status] += 1
        return JUnitPart(totals, "".join(element for _, element in rendered))


class JUnitWriter:
    """Streams test cases to a scratch file while counting, then writes the suite around them.

    The `<testsuite>` element carries totals before its children, so the
    body goes to `<path>.part` first; `finish` writes the head, copies the
    body and removes the scratch file. Memory stays flat however many cases.
    """

    def __init__(self, path: Path, suite: str, passing: frozenset[str]) -> None:
        self.path = path
        self.suite = suite
        self.passing = passing
        self.totals = {"passed": 0, "failure": 0, "error": 0}
        self.cases = JUnitCases(suite, passing)
        self._part = path.with_name(path.name + ".part")
        self._body = self._part.open("w", encoding="utf-8")

    def add(self, record: CaseRecord) -> None:
        status, element = self.cases.render(record)
        self.totals[status] += 1
        self._body.write(element)

    def renderer(self) -> JUnitCases:
        """What renders cases where they are evaluated (a worker); see `add_rendered`."""
        return self.cases

    def add_rendered(self, part: JUnitPart) -> None:
        """Append cases `renderer()` rendered, in the order they are given."""
        for status, count in part.totals.items():
            self.totals[status] += count
        self._body.write(part.text)

    def finish(self, seconds: float = 0.0) -> None:
        self._body.close()
        totals, tests = self.totals, sum(self.totals.values())
        with self.path.open("w", encoding="utf-8") as out:
            out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            out.write(f"<testsuites name={attr('evaldsl')} tests=\"{tests}\" "
                      f"failures=\"{totals['failure']}\" errors=\"{totals['error']}\">\n")
            out.write(f"<testsuite name={attr(self.suite)} tests=\"{tests}\" "
                      f"failures=\"{totals['failure']}\" errors=\"{totals['error']}\" "
                      f"skipped=\"0\" time=\"{seconds:.3f}\">\n")
            with self._part.open(encoding="utf-8") as body:
                shutil.copyfileobj(body, out)
            out.write("</testsuite>\n</testsuites>\n")
        self._part.unlink()

    def discard(self) -> None:
        """Drop the scratch file (the run failed before the suite was complete)."""
        self._body.close()
        self._part.unlink(missing_ok=True)


def verdict_passing(layout: Any) -> frozenset[str]:
    """The labels a case passes with by default: the verdict's first branch (the goal)."""
    verdict = next((b for b in layout.blocks if b.key == VERDICT), None)
    return frozenset(verdict.labels[:1]) if verdict else frozenset()


def write_junit(path: Path, suite: str, records: Iterable[CaseRecord],
                passing: frozenset[str], seconds: float = 0.0) -> None:
    """The whole suite from an iterable of case records."""
    writer = JUnitWriter(path, suite, passing)
    for record in records:
        writer.add(record)
    writer.finish(seconds)


def _testcase(record: CaseRecord, head: str, status: str, message: str) -> str:
    head += attr(record.id)
    if status == "passed":
        return head + "/>\n"
    tag = "failure" if status == "failure" else "error"
    body = (f"<{tag} message={attr(message)} type={attr(status)}>{text(details(record))}"
            f"</{tag}>")
    return f"{head}>{body}</testcase>\n"
