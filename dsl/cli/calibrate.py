"""`evaldsl calibrate RESULTS LABELS`: how close the spec's verdicts are to human judgement.

RESULTS is a run's results.jsonl; LABELS a filled-in review sample (JSONL or
CSV with `id`, `label` and/or `score` columns; empty cells are unlabelled) or
the review store `evaldsl review serve` fills (read by `evaldsl.review.label_rows`).
Labels are compared with one outcome block (`--outcome`, the verdict by
default): agreement, Cohen's kappa and the confusion table. Scores are
compared on a 0-100 scale with an automatic score named by `--score` (a check:
its score times 100, or a metric whose per-case input is a number): mean
absolute deviation, bias and rank correlation, and every case further apart
than `--threshold` points is listed, worst first: those are the cases to read
when refining the spec. Human scores on another scale are rescaled with
`--human-scale 1-5`. With `--training FILE` those cases are written to a
training set, with the dialog, both judgements and the note
(`evaldsl.review.training`). When rows name their reviewer (a store always
does), reviewer-to-reviewer agreement is reported next to reviewer-to-machine.

The sample is read as spreadsheets save it (`evaldsl.analysis.sample_file`)
and paired row by row with the results (`evaldsl.analysis.pairing`). Nothing
is computed over rows that cannot be right: a sample whose rows all name no
case (another run's), an empty one, one nobody filled in, and any row with a
score off the human scale or not a number is an error. With `--spec`, so is a
label the outcome block does not have; without it, a label no case received
is a warning. Rows naming no case, when others do, are a warning and left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD, Calibration, calibrate, rescale
from evaldsl.analysis.pairing import Automatic, Doubt, HumanRules, Pairing, pair
from evaldsl.analysis.sample_file import GB18030, LabelFile
from evaldsl.cli import calibrate_examples, calibrate_fit, calibrate_shots
from evaldsl.cli.exits import EXIT_DATA, EXIT_OK, UsageError, exit_for
from evaldsl.cli.review import check_written_by, checked_records, read_layout
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import N_, _
from evaldsl.report.layout import VERDICT
from evaldsl.review.agreement import render_agreement, reviewer_agreement
from evaldsl.review.label_rows import opinions as label_opinions
from evaldsl.review.label_rows import read_any_labels
from evaldsl.review.training import render_training, training_set, write_training
from evaldsl.stats import percent

LISTED = 25


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "calibrate", help=_("compare the spec's verdicts with human labels"),
        description=_("Compare automatic verdicts and scores with human ones."))
    p.add_argument("results", type=Path, metavar="RESULTS", help=_("results.jsonl of a run"))
    p.add_argument("labels", type=Path, metavar="LABELS",
                   help=_("filled-in sample (.jsonl/.csv) or review store (.db)"))
    p.add_argument("--spec", type=Path, default=None,
                   help=_("the spec that produced RESULTS: human labels are checked against "
                        "its outcome block's labels"))
    p.add_argument("--outcome", default=None, help=_("outcome block to compare labels with"))
    p.add_argument("--score", default=None,
                   help=_("check or metric giving the automatic score of a case"))
    p.add_argument("--auto-scale", type=_scale, default=None, metavar="LOW-HIGH",
                   help=_("scale of the automatic score (checks 0-1, metrics 0-100 by default)"))
    p.add_argument("--human-scale", type=_scale, default=(0.0, 100.0), metavar="LOW-HIGH",
                   help=_("scale of the human scores (default 0-100)"))
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                   help=_("list cases deviating more than this many points (default 20)"))
    p.add_argument("--label-column", default="label")
    p.add_argument("--score-column", default="score")
    p.add_argument("--training", type=Path, default=None, metavar="FILE",
                   help=_("write every case deviating more than the threshold to this "
                          "training set (.jsonl)"))
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", type=Path, default=None, help=_("also write the JSON here"))
    calibrate_fit.add_arguments(p)
    calibrate_shots.add_arguments(p)
    calibrate_examples.add_arguments(p)


def _scale(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split("-", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected LOW-HIGH such as 1-5, got `{text}`").format(text=text)
        ) from None
    if high <= low:
        raise argparse.ArgumentTypeError(_("`{text}`: HIGH must be above LOW").format(text=text))
    return low, high


def run(args: argparse.Namespace) -> int:
    results = read_results(args)
    sample = read_any_labels(args.labels, results.block)
    if sample.encoding == GB18030:
        _say(
            "note",
            _("`{labels}` is not UTF-8, so it was read as {GB18030}").format(
                labels=args.labels, GB18030=GB18030
            ),
        )
    pairing = pair(sample, results.cases, _rules(args, results))
    _check_matches(args, pairing)
    if pairing.errors:
        return _refuse(args, pairing)
    _warn(args, pairing, results)
    result = _compared(args, pairing)
    payload = {**result.to_dict(), "cases": len(pairing.judged),
               "unmatched_labels": len(pairing.unmatched), "outcome": results.block,
               "score": args.score}
    after = _loop_figures(args, sample, pairing, payload)
    fit = calibrate_fit.fit_from_args(args, pairing.judged, results.block) if args.fit else None
    if fit is not None:
        payload["fit"] = fit.to_dict()
    shots = calibrate_shots.shots_from_args(args, pairing.judged) if args.shots_for else None
    if shots is not None:
        payload["shots"] = shots.to_dict()
    examples = (calibrate_examples.examples_from_args(args, pairing.judged)
                if args.examples_for else None)
    if examples is not None:
        payload["examples"] = examples.to_dict()
    if args.output is not None:
        args.output.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", "utf-8")
    if args.format == "json":
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print("\n".join([render(result, len(pairing.judged), len(pairing.unmatched),
                                results.block or VERDICT, args.score), *after])
              + (calibrate_fit.render(fit) if fit is not None else "")
              + (calibrate_shots.render(shots) if shots is not None else "")
              + (calibrate_examples.render(examples) if examples is not None else ""))
    return EXIT_OK


def _loop_figures(args: argparse.Namespace, sample: LabelFile, pairing: Pairing,
                  payload: dict[str, Any]) -> list[str]:
    """Reviewer-to-reviewer agreement and the training set, into `payload`; their lines."""
    lines: list[str] = []
    opinions = label_opinions(sample, args.label_column, args.score_column, args.human_scale)
    if opinions:
        agreement = reviewer_agreement(opinions)
        payload["reviewers"] = agreement.to_dict()
        lines += ["", *render_agreement(agreement)]
    if args.training is not None:
        found = training_set(pairing.judged, pairing.sources, args.threshold)
        write_training(found, args.training)
        payload["training"] = found.to_dict(args.training)
        lines += ["", *render_training(found, args.training)]
    return lines


@dataclass
class Results:
    """What calibration needs of a results file."""

    cases: dict[str, Automatic]
    block: str | None
    """The outcome block compared; None when the results have none."""
    labels: tuple[str, ...]
    """The labels a reviewer may give: the spec's for the block, or those some case has."""
    from_spec: bool


def read_results(args: argparse.Namespace) -> Results:
    """The automatic judgement of every case, in the block `--outcome` names (or the verdict)."""
    records = checked_records(args.results)
    if not records:
        raise UsageError(_("`{results}` holds no case results").format(results=args.results))
    blocks = list(dict.fromkeys(k for r in records for k in r.get("labels", {})))
    block = _block(args, blocks)
    cases = {str(r.get("id")): Automatic(r.get("labels", {}).get(block), _auto_score(r, args))
             for r in records}
    seen = tuple(sorted({a.label for a in cases.values() if a.label is not None}))
    if args.spec is None:
        return Results(cases, block, seen, False)
    layout = read_layout(args.spec)
    check_written_by(args.results, layout)
    spec_labels = next((b.labels for b in layout.blocks if b.key == block), seen)
    return Results(cases, block, spec_labels, True)


def _block(args: argparse.Namespace, blocks: list[str]) -> str | None:
    if args.outcome is None:
        return VERDICT if VERDICT in blocks else next(iter(blocks), None)
    if args.outcome not in blocks:
        have = ", ".join(f"`{b}`" for b in blocks) or "none"
        raise UsageError(
            _("the results `{results}` have no outcome block `{outcome}`; they have {have}").format(
                results=args.results, outcome=args.outcome, have=have
            ),
            did_you_mean(args.outcome, blocks),
        )
    return str(args.outcome)


def _rules(args: argparse.Namespace, results: Results) -> HumanRules:
    return HumanRules(results.labels, results.from_spec, results.block or VERDICT,
                      args.human_scale, args.label_column if results.block else None,
                      args.score_column)


def _auto_score(record: Mapping[str, Any], args: argparse.Namespace) -> float | None:
    name = args.score
    if name is None:
        return None
    check = record.get("checks", {}).get(name)
    if check is not None or name in record.get("skipped", ()):
        return _points(check.get("score") if check else None, args.auto_scale or (0.0, 1.0))
    if name in record.get("metrics", {}):
        inputs = record["metrics"][name]
        value = inputs[0] if isinstance(inputs, list) and inputs else None
        return _points(value, args.auto_scale or (0.0, 100.0))
    raise UsageError(
        _("`{name}` is neither a check nor a metric of these results").format(name=name)
    )


def _points(value: Any, scale: tuple[float, float]) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return rescale(float(value), *scale)


# ---------------------------------------------------------------- what the rows say


def _check_matches(args: argparse.Namespace, pairing: Pairing) -> None:
    """A sample of no rows, or whose rows all name no case, has nothing to calibrate."""
    if pairing.rows == 0:
        raise UsageError(
            _("`{labels}` holds no rows").format(labels=args.labels),
            _("fill in the sample `evaldsl review` wrote and give that file"),
        )
    if pairing.unmatched and pairing.matched == 0:
        ids, rows = _ids(pairing.unmatched), pairing.rows
        raise UsageError(
            _("the one row of `{labels}` names no case of `{results}` (id {ids})").format(
                labels=args.labels, results=args.results, ids=ids
            )
            if rows == 1
            else _(
                "none of the {rows} rows of `{labels}` names a case "
                "of `{results}` (ids such as {ids})"
            ).format(rows=rows, labels=args.labels, results=args.results, ids=ids),
            _(
                "these are probably the labels of another run or another spec: "
                "calibrate them against the results the sample was drawn from"
            ),
        )


def _refuse(args: argparse.Namespace, pairing: Pairing) -> int:
    """Report every bad row (up to `LISTED`): figures over a part of them would mislead."""
    for error in pairing.errors[:LISTED]:
        exit_for(error, "calibrate")
    if len(pairing.errors) > LISTED:
        _say(
            "error",
            _("{value} more problems are not shown").format(value=len(pairing.errors) - LISTED),
        )
    rows = len({e.line for e in pairing.errors})
    _say(
        "error",
        _("1 row of `{labels}` has problems, so nothing was compared").format(labels=args.labels)
        if rows == 1
        else _("{rows} rows of `{labels}` have problems, so nothing was compared").format(
            rows=rows, labels=args.labels
        ),
    )
    return EXIT_DATA


def _warn(args: argparse.Namespace, pairing: Pairing, results: Results) -> None:
    unmatched, rows, ids = len(pairing.unmatched), pairing.rows, _ids(pairing.unmatched)
    if unmatched == 1:
        _say(
            "warning",
            _(
                "1 of the {rows} rows of `{labels}` names no case of "
                "`{results}` and is left out (id {ids})"
            ).format(rows=rows, labels=args.labels, results=args.results, ids=ids),
        )
    elif unmatched:
        _say(
            "warning",
            _(
                "{unmatched} of the {rows} rows of `{labels}` name no case of "
                "`{results}` and are left out (ids such as {ids})"
            ).format(
                unmatched=unmatched, rows=rows, labels=args.labels, results=args.results, ids=ids
            ),
        )
    for doubt in pairing.doubts:
        _say("warning", _doubt(args, doubt, results),
             " ".join(filter(None, [did_you_mean(doubt.label, results.labels),
                                    "with --spec SPEC, labels are checked against all the "
                                    "labels of the block"])))


def _doubt(args: argparse.Namespace, doubt: Doubt, results: Results) -> str:
    have = ", ".join(f"`{x}`" for x in results.labels) or "none"
    if len(doubt.lines) == 1:
        return _(
            "`{labels}` gives the label `{label}` in 1 row (line {lines}), and no "
            "case of the results has it for `{block}`: they have {have}"
        ).format(
            labels=args.labels,
            label=doubt.label,
            lines=doubt.lines[0],
            block=results.block,
            have=have,
        )
    return _(
        "`{labels}` gives the label `{label}` in {count} rows (the first on line {lines}), "
        "and no case of the results has it for `{block}`: they have {have}"
    ).format(
        labels=args.labels,
        label=doubt.label,
        count=len(doubt.lines),
        lines=doubt.lines[0],
        block=results.block,
        have=have,
    )


def _compared(args: argparse.Namespace, pairing: Pairing) -> Calibration:
    if not pairing.judged:
        raise UsageError(
            _("no row of `{labels}` has a `{label_column}` or a `{score_column}`").format(
                labels=args.labels, label_column=args.label_column, score_column=args.score_column
            ),
            _(
                "reviewers fill in the `{label_column}` column, the `{score_column}` column or "
                "both (--label-column and --score-column name other columns)"
            ).format(label_column=args.label_column, score_column=args.score_column),
        )
    result = calibrate(pairing.judged, args.threshold)
    if result.labels is None and result.scores is None:
        scored = any(j.human_score is not None for j in pairing.judged)
        raise UsageError(
            _("nothing to compare: no case has both an automatic and a human judgement"),
            _("give --score NAME to compare the human scores with a check or a metric")
            if scored and args.score is None
            else "",
        )
    return result


def _ids(ids: list[str], shown: int = 3) -> str:
    return ", ".join(f"`{i}`" for i in ids[:shown])


_SAY_WORDS = {"note": N_("note"), "warning": N_("warning"), "error": N_("error")}


def _say(kind: str, message: str, hint: str = "") -> None:
    """A note, warning or error of this verb on stderr, with its hint on the next line."""
    print(
        _("evaldsl calibrate: {kind}: {message}").format(kind=_(_SAY_WORDS[kind]), message=message),
        file=sys.stderr,
    )
    if hint:
        print(_("hint: {hint}").format(hint=hint), file=sys.stderr)


def render(result: Calibration, cases: int, unmatched: int, block: str,
           score: str | None) -> str:
    lines = [
        _("calibration over {cases} labelled cases").format(cases=cases)
        + (
            _(" ({unmatched} labels name no case of the results)").format(unmatched=unmatched)
            if unmatched
            else ""
        )
    ]
    if result.labels is not None:
        la = result.labels
        kappa = "n/a" if la.kappa is None else f"{la.kappa:.3f}"
        lines += [
            "",
            _("labels: automatic `{block}` vs human").format(block=block),
            _("  agreement      {percent}  ({agreed}/{n})").format(
                percent=percent(la.agreement), agreed=la.agreed, n=la.n
            ),
            _("  Cohen's kappa  {kappa}").format(kappa=kappa),
            *_confusion(la.confusion),
        ]
    if result.scores is not None:
        s = result.scores
        lines += [
            "",
            _("scores (0-100 points): automatic `{score}` vs human").format(score=score),
            _("  mean absolute deviation  {mad:.1f} points  (n={n})").format(mad=s.mad, n=s.n),
            _("  bias (automatic - human) {bias:+.1f} points").format(bias=s.bias),
            _("  Pearson r {r} · Spearman rho {r2}").format(r=_r(s.pearson), r2=_r(s.spearman)),
        ]
        lines += [
            "",
            _("cases further apart than {threshold:g} points: {count}").format(
                threshold=result.threshold, count=len(result.deviations)
            ),
        ]
        lines += [
            _(
                "  {id}  automatic {auto_score:.1f}  human {human_score:.1f}  ({deviation:+.1f})"
            ).format(
                id=d.id, auto_score=d.auto_score, human_score=d.human_score, deviation=d.deviation
            )
            for d in result.deviations[:LISTED]
        ]
        if len(result.deviations) > LISTED:
            lines.append(
                _("  ... {value} more (see --format json)").format(
                    value=len(result.deviations) - LISTED
                )
            )
    return "\n".join(lines)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> list[str]:
    humans = sorted({h for row in confusion.values() for h in row})
    autos = sorted(confusion)
    width = max([len(x) for x in [*humans, *autos, "automatic"]]) + 2
    lines = [
        _("  confusion (rows automatic, columns human)"),
        "  " + "".ljust(width) + "".join(h.rjust(width) for h in humans),
    ]
    for a in autos:
        cells = "".join(str(confusion[a].get(h, 0)).rjust(width) for h in humans)
        lines.append("  " + a.ljust(width) + cells)
    return lines


def _r(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
