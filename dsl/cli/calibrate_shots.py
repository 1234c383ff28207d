"""`evaldsl calibrate --shots-for CHECK`: few-shot examples for a judge check, from the
cases it got most wrong, with their cross-validated gain.

The choice and the folds are `evaldsl.analysis.shots`; this module finds the check in
the spec, reads what the judge read of each labelled case (`--cases`), asks the judge
again about each held-out fold with the spec as the examples would change it, and
prints the examples as a patch. The judge is the one `evaldsl run` would use
(evaldsl.toml and the environment), and asking it costs one judgement per labelled
case. The spec is never rewritten.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import math
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import Calibration, Judged
from evaldsl.analysis.shots import (
    DEFAULT_SHOTS,
    MAX_SHOT_CHARS,
    Rejudge,
    ShotCase,
    ShotValidation,
    cross_validate_shots,
)
from evaldsl.cases.case import Case
from evaldsl.cases.loading import load_cases
from evaldsl.cases.scopes import select
from evaldsl.cases.windows import Window, windowed
from evaldsl.cli.calibrate_fit import figure, mean_known
from evaldsl.cli.exits import UsageError
from evaldsl.cli.review import checked_records
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import _
from evaldsl.model.prompts import render_unit
from evaldsl.runtime.graph import CheckNode
from evaldsl.syntax.formatter import quote
from evaldsl.syntax.source import Source

MAX_SHOTS = 20
"""As many examples as a check takes."""
CONCURRENCY = 8
"""Cases asked about at once when a fold is judged again."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shots-for", default=None, metavar="CHECK",
                        help=_("choose few-shot examples for the judge check CHECK from the "
                               "labelled disagreements, and measure their gain "
                               "cross-validated by asking the judge again (needs --spec and "
                               "--cases)"))
    parser.add_argument("--cases", type=Path, default=None, metavar="CASES",
                        help=_("the cases the results judged, for --shots-for"))
    parser.add_argument("--shots", type=int, default=DEFAULT_SHOTS, metavar="N",
                        help=_("examples --shots-for proposes (default 3)"))
    parser.add_argument("--shot-chars", type=int, default=MAX_SHOT_CHARS, metavar="N",
                        help=_("the longest text --shots-for shows as an example, in "
                               "characters (default 600)"))


@dataclass(frozen=True)
class ShotReport:
    check: str
    cv: ShotValidation
    cases: int
    scale: int
    patch: str
    helped: bool
    """Whether the examples improved the held-out figures (`measured_gain`); without a
    gain the report proposes nothing."""

    def to_dict(self) -> dict[str, object]:
        return {
            "check": self.check, "folds": self.cv.k, "seed": self.cv.seed, "cases": self.cases,
            "rejudge_errors": self.cv.errors,
            "held_out_mean": {name: {"before": mean_known(b), "after": mean_known(a)}
                              for name, b, a in _by_figure(self.cv)},
            "per_fold": [{"n": len(f.test_ids), "examples": list(f.examples),
                          "before": _figures(f.before), "after": _figures(f.after)}
                         for f in self.cv.folds],
            "helped": self.helped,
            "proposed": [{"id": s.id, "answer": answer(s, self.scale), "human": s.human,
                          "judge": s.auto} for s in self.cv.final] if self.helped else [],
            "patch": self.patch,
        }


def shots_from_args(args: argparse.Namespace, judged: Sequence[Judged]) -> ShotReport:
    """Cross-validate few-shot examples for the check `--shots-for` of `--spec`."""
    if args.spec is None or args.cases is None:
        raise UsageError(_("--shots-for needs --spec SPEC and --cases CASES: the check is the "
                           "spec's, the examples are the cases' texts"))
    if not 1 <= args.shots <= MAX_SHOTS:
        raise UsageError(_("--shots must be from 1 to {most}, got {n}").format(
            most=MAX_SHOTS, n=args.shots))
    import evaldsl

    spec = evaldsl.load(args.spec)
    check = _judge_check(spec.graph.checks, args.shots_for)
    scale = int(check.facts.constants.get("scale", 10))
    cases = {c.id: c for c in load_cases(args.cases)}
    labelled = gather(check, checked_records(args.results), judged, cases)
    if len(labelled) < 2 * args.folds:
        raise UsageError(_("{n} cases have a human score, a score of `{check}` and a text "
                           "in --cases: {k} folds need at least {need}").format(
                               n=len(labelled), check=check.name, k=args.folds,
                               need=2 * args.folds))
    rejudge = spec_rejudge(spec.source, check, cases, scale)
    cv = cross_validate_shots(labelled, rejudge, args.folds, args.seed, args.shots,
                              args.threshold, args.shot_chars)
    helped = measured_gain(cv)
    diff = "" if not (cv.final and helped) else "".join(difflib.unified_diff(
        spec.source.text.splitlines(keepends=True),
        with_examples(spec.source, check, cv.final, scale).splitlines(keepends=True),
        f"a/{str(args.spec).lstrip('/')}", f"b/{str(args.spec).lstrip('/')}"))
    return ShotReport(check.name, cv, len(labelled), scale, diff, helped)


def measured_gain(cv: ShotValidation) -> bool:
    """Whether the examples made the judge closer to the reviewers on held-out cases: the
    mean Spearman went up, or, where no Spearman is known, the mean absolute deviation went
    down. No change is no gain: examples cost tokens on every case."""
    figures = {name: (mean_known(b), mean_known(a)) for name, b, a in _by_figure(cv)}
    before, after = figures["spearman"]
    if before is not None and after is not None:
        return after > before
    before, after = figures["mad"]
    return before is not None and after is not None and after < before


def _judge_check(checks: Sequence[CheckNode], name: str) -> CheckNode:
    names = [c.name for c in checks]
    found = next((c for c in checks if c.name == name), None)
    if found is None:
        raise UsageError(_("the spec has no check `{name}`").format(name=name),
                         did_you_mean(name, names))
    if found.primitive.name != "judge":
        raise UsageError(_("`{name}` is a `{primitive}` check: --shots-for chooses examples "
                           "for a `judge`, whose points the human scores rate").format(
                               name=name, primitive=found.primitive.name))
    if found.scope.combine != "single":
        raise UsageError(_("`{name}` reads `{scope}`, several texts per case: --shots-for "
                           "needs a check over one text per case").format(
                               name=name, scope=found.scope))
    return found


def gather(check: CheckNode, records: Sequence[Mapping[str, Any]], judged: Sequence[Judged],
           cases: Mapping[str, Case]) -> list[ShotCase]:
    """The labelled cases with the check's recorded points and the text it read."""
    by_id = {str(r.get("id")): r for r in records}
    out = []
    for one in judged:
        record, case = by_id.get(one.id), cases.get(one.id)
        if one.human_score is None or record is None or case is None:
            continue
        score = (record.get("checks", {}).get(check.name) or {}).get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or math.isnan(score):
            continue
        units = select(case, check.scope)
        if len(units) == 1:
            shown = render_unit(windowed(units[0], window_of(check)))
            out.append(ShotCase(one.id, shown, 100.0 * score, one.human_score))
    return out


def window_of(check: CheckNode) -> Window | None:
    """The check's `window:`, so an example shows what the judge reads of a case."""
    written = check.facts.constants.get("window")
    return None if written is None else Window.model_validate(written)


def answer(shot: ShotCase, scale: int) -> int:
    """The human's points on the judge's scale."""
    return round(shot.human / 100.0 * scale)


def with_examples(source: Source, check: CheckNode, shots: Sequence[ShotCase],
                  scale: int) -> str:
    """The spec's text with `shots` as the check's `examples:` (in place of any written)."""
    items = ",\n".join(f"    {{text: {quote(s.text)}, answer: {answer(s, scale)}}}"
                       for s in shots)
    return spliced_examples(source, check, items)


def spliced_examples(source: Source, check: CheckNode, items: str) -> str:
    """The spec's text with the check's `examples:` argument set to the list `items` (one
    written item a line), in place of any written, or added before the call closes."""
    written = check.node.arg("examples")
    text = source.text
    if written is not None:
        start = source.offset(written.name_span.line, written.name_span.col)
        end = source.offset(written.value.span.end_line, written.value.span.end_col)
        return text[:start] + f"examples: [\n{items}\n  ]" + text[end:]
    span = check.node.span
    close = source.offset(span.end_line, span.end_col) - 1
    return text[:close] + f",\n  examples: [\n{items}\n  ]" + text[close:]


def spec_rejudge(source: Source, check: CheckNode, cases: Mapping[str, Case],
                 scale: int) -> Rejudge:
    """Ask the judge about cases with the spec as `examples` would change it."""
    import evaldsl

    def rejudge(examples: Sequence[ShotCase], held: Sequence[ShotCase]) -> list[float | None]:
        spec = evaldsl.loads(with_examples(source, check, examples, scale), name=source.name)
        found = asyncio.run(_points(spec, [cases[c.id] for c in held], check.name))
        return [found.get(c.id) for c in held]

    return rejudge


async def _points(spec: Any, cases: list[Case], name: str) -> dict[str, float | None]:
    """The check's points per case id (None where it erred or was not needed)."""
    found: dict[str, float | None] = {}
    try:
        results = spec.evaluate_many(cases, concurrency=CONCURRENCY)
        async with aclosing(results):
            async for result in results:
                got = result.checks.get(name)
                score = None if got is None or got.is_error else got.score
                found[result.id] = (100.0 * float(score) if isinstance(score, (int, float))
                                    else None)
    finally:
        await spec.aclose()
    return found


# ---------------------------------------------------------------- figures


def _figures(c: Calibration) -> dict[str, float | None]:
    s = c.scores
    return {"spearman": s.spearman if s else None, "mad": s.mad if s else None}


def _by_figure(cv: ShotValidation) -> list[tuple[str, list[float | None], list[float | None]]]:
    return [(name, [_figures(f.before)[name] for f in cv.folds],
             [_figures(f.after)[name] for f in cv.folds]) for name in ("spearman", "mad")]


def render(report: ShotReport) -> str:
    cv = report.cv
    lines = ["", _("shots for `{check}`: up to {n} examples from the labelled disagreements, "
                   "{k}-fold cross-validated (seed {seed}) over {cases} cases").format(
                       check=report.check, n=max((len(f.examples) for f in cv.folds),
                                                 default=0),
                       k=cv.k, seed=cv.seed, cases=report.cases)]
    if cv.errors:
        lines.append(_("  {n} held-out cases erred when asked again, left out of both "
                       "columns").format(n=cv.errors))
    lines.append(_("  held out (mean over {k} folds)   as recorded   with examples   change"
                   ).format(k=cv.k))
    names = {"spearman": _("Spearman"), "mad": _("mean abs. deviation")}
    for name, before, after in _by_figure(cv):
        b, a = mean_known(before), mean_known(after)
        change = None if a is None or b is None else a - b
        digits, sign = (1, "") if name == "mad" else (3, "+")
        lines.append(f"    {names[name]:<30}{figure(b, digits, sign):>12}"
                     f"{figure(a, digits, sign):>16}{figure(change, digits):>9}")
    if report.patch:
        lines += ["", _("the patch (for a human to read and apply; the spec is unchanged):"),
                  report.patch.rstrip("\n")]
    elif cv.final and not report.helped:
        lines.append(_("  the examples did not improve the held-out figures (no gain, or a "
                       "loss): no examples proposed"))
    else:
        lines.append(_("  no labelled case differs from the judge by more than the threshold: "
                       "no examples to propose"))
    return "\n".join(lines)
