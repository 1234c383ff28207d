"""JUnit XML: one test per case, so CI systems list, count and trend cases.

A case passes when its verdict (the unnamed outcome block) is one of the
passing labels: by default the first branch's label, the one an author writes
first because it is the goal (`success`). Other labels are failures, `error`
is a JUnit error. A spec without an unnamed block passes a case when every
check computed for it passed. `--junit-pass success,partial` widens the set.

The writer streams: the `<testsuite>` totals are counted in a first pass
over the records, so a 100,000-case run never holds its cases in memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from evaldsl.report.layout import VERDICT

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

Records = Callable[[], Iterable[Mapping[str, Any]]]
"""Returns a fresh iterator over the case records each time it is called."""


def text(value: object) -> str:
    """Element text: escaped, and without characters XML 1.0 cannot hold."""
    return escape(_INVALID_XML.sub("\ufffd", str(value)))


def attr(value: object) -> str:
    return quoteattr(_INVALID_XML.sub("\ufffd", str(value)))


def case_status(record: Mapping[str, Any], passing: frozenset[str]) -> tuple[str, str]:
    """(`passed` | `failure` | `error`, message) for one case record."""
    verdict = record.get("labels", {}).get(VERDICT)
    checks: Mapping[str, Mapping[str, Any]] = record.get("checks", {})
    if verdict == "error":
        reason = record.get("errors", {}).get(VERDICT, "a value the verdict needed is an error")
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


def details(record: Mapping[str, Any]) -> str:
    """The body of a failure: each check's status, score and reason, then the trace."""
    lines = []
    for name, r in record.get("checks", {}).items():
        reason = f" - {r['reason']}" if r.get("reason") else ""
        lines.append(f"{name}: {r.get('status')} (score {_score(r.get('score'))}){reason}")
    lines.extend(record.get("trace", ()))
    return "\n".join(lines)


def _score(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return "error" if isinstance(value, dict) else str(value)


def write_junit(path: Path, suite: str, records: Records, passing: frozenset[str],
                seconds: float = 0.0) -> None:
    """Write the suite: count statuses in a first pass, stream test cases in a second."""
    totals = {"passed": 0, "failure": 0, "error": 0}
    for record in records():
        totals[case_status(record, passing)[0]] += 1
    tests = sum(totals.values())
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(f"<testsuites name={attr('evaldsl')} tests=\"{tests}\" "
                  f"failures=\"{totals['failure']}\" errors=\"{totals['error']}\">\n")
        out.write(f"<testsuite name={attr(suite)} tests=\"{tests}\" "
                  f"failures=\"{totals['failure']}\" errors=\"{totals['error']}\" "
                  f"skipped=\"0\" time=\"{seconds:.3f}\">\n")
        for record in records():
            out.write(_testcase(record, suite, passing))
        out.write("</testsuite>\n</testsuites>\n")


def _testcase(record: Mapping[str, Any], suite: str, passing: frozenset[str]) -> str:
    status, message = case_status(record, passing)
    head = f"<testcase classname={attr(suite)} name={attr(record.get('id', ''))}"
    if status == "passed":
        return head + "/>\n"
    tag = "failure" if status == "failure" else "error"
    body = (f"<{tag} message={attr(message)} type={attr(status)}>{text(details(record))}"
            f"</{tag}>")
    return f"{head}>{body}</testcase>\n"
