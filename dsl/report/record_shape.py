"""The shape a journal line must have before it is folded into a report.

A journal is written by a run, but it is a text file: it can be edited, cut
and pasted, or written by another tool. Folding a line whose fields have the
wrong types (`"passed": "yes"`, `checks` a list) or name what the spec does
not define (a check, a metric, an outcome block) would fail deep inside the
report with a traceback, or worse count a wrong verdict. So every line is
checked first, against the types `CaseResult.to_dict` writes and the names
of the spec's report plan, and the first problem is said in words naming its
field; the caller turns it into a data error naming the file and line.

    >>> problem({"id": "a", "row": "c.jsonl:1", "checks": []}, None)
    '`checks` is not an object'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from evaldsl.i18n import _
from evaldsl.results import ERROR_LABEL

if TYPE_CHECKING:
    from evaldsl.runtime.aggregation import ReportPlan

STATUSES = frozenset({"passed", "failed", "error"})

Check = Callable[[Any], bool]
"""Whether one value has the wanted type."""


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _error(value: Any) -> bool:
    """`{"error": reason}`: an error value as the journal writes it."""
    return isinstance(value, dict) and len(value) == 1 and _text(value.get("error"))


def _verdict(value: Any) -> bool:
    return value is None or isinstance(value, bool) or _error(value)


def _score(value: Any) -> bool:
    return value is None or _number(value) or _error(value)


def _index(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and value >= 0)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _trial(value: Any) -> bool:
    """A scenario's trial, counted from 1."""
    return _integer(value) and value >= 1


def _metric_input(value: Any) -> bool:
    if value is None or _error(value):
        return True
    return isinstance(value, list) and all(
        v is None or isinstance(v, (bool, int, float, str)) for v in value)


def _group_key(value: Any) -> bool:
    """A grouped metric's key: one text, condition, number or null per `by` field."""
    return isinstance(value, list) and all(
        v is None or isinstance(v, (bool, int, float, str)) for v in value)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(_text(v) for v in value)


def problem(record: Mapping[str, Any], plan: ReportPlan | None) -> str | None:
    """What is wrong with a journal line, or None; `plan` adds the spec's names."""
    for check in (_top, _check_results, _review):
        found = check(record)
        if found is not None:
            return found
    return None if plan is None else _unknown_name(record, plan)


_TOP: tuple[tuple[str, Check, Check | None], ...] = (
    ("labels", lambda v: isinstance(v, dict), _text),
    ("branches", lambda v: isinstance(v, dict), _index),
    ("errors", lambda v: isinstance(v, dict), _text),
    ("checks", lambda v: isinstance(v, dict), lambda v: isinstance(v, dict)),
    ("metrics", lambda v: isinstance(v, dict), _metric_input),
    ("lets", lambda v: isinstance(v, dict), lambda v: True),
    ("groups", lambda v: isinstance(v, dict), _group_key),
    ("skipped", _texts, None),
)
"""(field, the check of the field, the check of each value of an object field)."""


def _top(record: Mapping[str, Any]) -> str | None:
    for name in ("id", "row"):
        if not _text(record.get(name)):
            return _("`{field}` is not text").format(field=name)
    for name, fine in (("trial", _trial), ("target", lambda v: isinstance(v, dict))):
        if name in record and not fine(record[name]):
            return _("`{field}` has the wrong type").format(field=name)
    for name, whole, each in _TOP:
        value = record.get(name, {} if each else [])
        if not whole(value):
            return (_("`{field}` is not an object") if each else
                    _("`{field}` is not a list of text")).format(field=name)
        if each is not None:
            bad = next((k for k, v in value.items() if not each(v)), None)
            if bad is not None:
                return _("`{field}.{key}` has the wrong type").format(field=name, key=bad)
    return None


_CHECK_FIELDS: tuple[tuple[str, Check], ...] = (
    ("status", lambda v: isinstance(v, str) and v in STATUSES),
    ("passed", _verdict),
    ("score", _score),
    ("reason", _text),
)


def _check_results(record: Mapping[str, Any]) -> str | None:
    for name, result in record.get("checks", {}).items():
        for key, wanted in _CHECK_FIELDS:
            if key in result or key == "status":
                if not wanted(result.get(key)):
                    return _("`checks.{name}.{key}` has the wrong type").format(name=name,
                                                                                key=key)
    return None


def _review(record: Mapping[str, Any]) -> str | None:
    review = record.get("review")
    if review is None:
        return None
    fine = (isinstance(review, dict) and isinstance(review.get("sampled"), bool)
            and _number(review.get("draw", 0.0))
            and (review.get("priority") is None or _number(review.get("priority")))
            and (review.get("rule") is None or _integer(review.get("rule")))
            and (review.get("error") is None or _text(review.get("error"))))
    return None if fine else _("`review` has the wrong type")


def _unknown_name(record: Mapping[str, Any], plan: ReportPlan) -> str | None:
    """A block, label, check or metric the spec does not have, or a metric input of the
    wrong length: the line is not of this spec, whatever its header says."""
    blocks = dict(plan.blocks)
    for key, label in record.get("labels", {}).items():
        if key not in blocks:
            return _("outcome block `{name}` is not in the spec").format(name=key)
        if label not in blocks[key] and label != ERROR_LABEL:
            return _("label `{name}` is not in the spec").format(name=label)
    checks = set(plan.checks)
    for name in (*record.get("checks", {}), *record.get("skipped", ())):
        if name not in checks:
            return _("check `{name}` is not in the spec").format(name=name)
    metrics = {m.name: len(m.aggregates) for m in plan.metrics}
    for name, value in record.get("metrics", {}).items():
        if name not in metrics:
            return _("metric `{name}` is not in the spec").format(name=name)
        if isinstance(value, list) and len(value) != metrics[name]:
            return _("`metrics.{name}` has the wrong type").format(name=name)
    return _unknown_group(record, plan)


def _unknown_group(record: Mapping[str, Any], plan: ReportPlan) -> str | None:
    """A key for a metric the spec lacks, does not group, or groups by more or fewer fields."""
    known = {m.name: len(m.by) for m in plan.metrics}
    for name, key in record.get("groups", {}).items():
        if name not in known:
            return _("metric `{name}` is not in the spec").format(name=name)
        if len(key) != known[name] or not known[name]:
            return _("`groups.{name}` has the wrong type").format(name=name)
    return None
