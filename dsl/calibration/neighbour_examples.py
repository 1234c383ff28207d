"""Examples for a `classify(by: embeddings)` check, learned from the cases reviewers
labelled differently, with their gain measured (`evaldsl calibrate --examples-for CHECK`).

The reviewers label an outcome block whose labels are the check's (`--outcome`); each
labelled case becomes an example (its text, the reviewer's label).
`evaldsl.analysis.neighbours` measures the gain on held-out folds; this module finds the
check, reads the text it read of each case (`--cases`), classifies the held-out cases
again with the spec as the examples would change it (the in-process embedder, no chat
model) and says the examples as a patch (`learn_examples`, `render`). The spec is never rewritten.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaldsl.analysis.calibrate import Judged
from evaldsl.analysis.neighbours import ExampleValidation, Labelled, Relabel
from evaldsl.analysis.neighbours import cross_validate_examples as validate
from evaldsl.calibration.ask_again import read_check
from evaldsl.calibration.splice import spliced_examples
from evaldsl.calibration.weight_fit import DEFAULT_FOLDS
from evaldsl.cases.case import Case
from evaldsl.cases.loading import load_cases
from evaldsl.cases.scopes import select
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import RequestError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord
from evaldsl.review.sample import checked_records
from evaldsl.runtime.graph import CheckNode
from evaldsl.syntax.formatter import quote
from evaldsl.syntax.source import Source
from evaldsl.values import CheckResult

CONCURRENCY = 32
"""Cases classified at once when a fold is classified again."""


@dataclass(frozen=True)
class ExampleReport:
    check: str
    cv: ExampleValidation
    patch: str

    def to_dict(self) -> dict[str, object]:
        return {"check": self.check, "cases": self.cv.n, "folds": self.cv.folds,
                "accuracy_before": self.cv.before, "accuracy_after": self.cv.after,
                "missed": self.cv.missed, "helped": self.cv.helped,
                "examples": [{"id": x.id, "text": x.text, "label": x.human}
                             for x in self.cv.final] if self.cv.helped else []}


def learn_examples(check_name: str, spec: Path | None, cases_file: Path | None, results: Path,
                   judged: Sequence[Judged], *, folds: int = DEFAULT_FOLDS,
                   seed: int = 0) -> ExampleReport:
    """Cross-validate examples learned for the `classify(by: embeddings)` check `check_name`
    of `spec` from the reviewed cases, classifying the texts of `cases_file` again (`folds`
    folds drawn with `seed`)."""
    if spec is None or cases_file is None:
        raise RequestError(_("--examples-for needs --spec SPEC and --cases CASES: the check is "
                           "the spec's, the examples are the cases' texts"))
    from evaldsl.api import load

    loaded = load(spec)
    check = _embedding_check(loaded.graph.checks, check_name)
    cases = {c.id: c for c in load_cases(cases_file)}
    items = gather(check, checked_records(results), judged, cases)
    if len(items) < 2 * folds:
        raise RequestError(_("{n} cases have a reviewer's label among the labels of `{check}`, "
                           "its label and a text in --cases: {k} folds need at least "
                           "{need}").format(n=len(items), check=check.name, k=folds,
                                            need=2 * folds))
    cv = validate(items, spec_relabel(loaded.source, check, cases), folds, seed)
    patch = "" if not (cv.helped and cv.missed) else "".join(difflib.unified_diff(
        loaded.source.text.splitlines(keepends=True),
        with_examples(loaded.source, check, cv.final).splitlines(keepends=True),
        f"a/{str(spec).lstrip('/')}", f"b/{str(spec).lstrip('/')}"))
    return ExampleReport(check.name, cv, patch)


def _embedding_check(checks: Sequence[CheckNode], name: str) -> CheckNode:
    found = next((c for c in checks if c.name == name), None)
    if found is None:
        raise RequestError(_("the spec has no check `{name}`").format(name=name),
                         did_you_mean(name, [c.name for c in checks]))
    if found.primitive.name != "classify" or found.facts.constants.get("by") != "embeddings":
        raise RequestError(_("`{name}` is not a `classify(by: embeddings)` check: "
                           "--examples-for learns its neighbours (for a `judge`, "
                           "--shots-for)").format(name=name))
    if found.scope.combine != "single":
        raise RequestError(_("`{name}` reads `{scope}`, several texts per case: "
                           "--examples-for needs a check over one text per case").format(
                               name=name, scope=found.scope))
    return found


def gather(check: CheckNode, records: Sequence[CaseRecord], judged: Sequence[Judged],
           cases: Mapping[str, Case]) -> list[Labelled]:
    """The labelled cases whose human label is one of the check's, with the text it read."""
    labels = set(check.facts.constants.get("labels") or [])
    by_id = {r.id: r for r in records}
    out = []
    for one in judged:
        record, case = by_id.get(one.id), cases.get(one.id)
        if one.human_label not in labels or record is None or case is None:
            continue
        got = (record.checks.get(check.name) or {}).get("label")
        units = select(case, check.scope)
        if len(units) == 1:
            out.append(Labelled(one.id, units[0].text, str(one.human_label),
                                got if isinstance(got, str) else None))
    return out


def with_examples(source: Source, check: CheckNode, learned: Sequence[Labelled]) -> str:
    """The spec's text with `learned` added to the check's `examples:`."""
    written = [(str(e["text"]), str(e["answer"])) for e in
               check.facts.constants.get("examples") or []]
    items = ",\n".join(f"    {{text: {quote(text)}, answer: {quote(label)}}}" for text, label in
                       [*written, *[(x.text, x.human) for x in learned]])
    return spliced_examples(source, check, items)


def spec_relabel(source: Source, check: CheckNode, cases: Mapping[str, Case]) -> Relabel:
    """Classify held-out cases again with the spec as the examples would change it."""
    from evaldsl.api import loads

    def relabel(examples: Sequence[Labelled], held: Sequence[Labelled]) -> list[str | None]:
        spec = loads(with_examples(source, check, examples), name=source.name)
        found = asyncio.run(read_check(spec, [cases[x.id] for x in held], check.name,
                                       CONCURRENCY, _label))
        return [found.get(x.id) for x in held]

    return relabel


def _label(got: CheckResult) -> str | None:
    """The label the classifier gave, or None where it gave none."""
    label = got.fields.get("label")
    return label if isinstance(label, str) else None


def render(report: ExampleReport) -> str:
    cv = report.cv
    lines = ["", _("examples for `{check}`: the reviewed cases as neighbours ({missed} of "
                   "{cases} misread as it stands), {k}-fold cross-validated").format(
                       check=report.check, k=cv.folds, cases=cv.n, missed=cv.missed),
             _("  accuracy against the reviewers: {before:.3f} as it stands, {after:.3f} on "
               "held-out folds with the other folds' examples").format(
                   before=cv.before, after=cv.after)]
    if report.patch:
        lines += ["", _("the patch (for a human to read and apply; the spec is unchanged):"),
                  report.patch.rstrip("\n")]
    elif not cv.missed:
        lines.append(_("  the check agrees with every reviewed case: no examples to learn"))
    else:
        lines.append(_("  the examples did not improve the held-out accuracy (no gain, or a "
                       "loss): no examples proposed"))
    return "\n".join(lines)

