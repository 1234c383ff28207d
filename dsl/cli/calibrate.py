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
and paired row by row with the results (`evaldsl.analysis.pairing`); the
calibration itself, with `--fit`, `--shots-for` and `--examples-for`, is
`evaldsl.calibration`: this verb reads its flags, calls it and prints. Nothing
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
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD
from evaldsl.analysis.shots import DEFAULT_SHOTS, MAX_SHOT_CHARS
from evaldsl.calibration import Note, Options, calibrate_files, refusal
from evaldsl.calibration.summary import LISTED
from evaldsl.calibration.weight_fit import DEFAULT_FOLDS
from evaldsl.cli.exits import EXIT_DATA, EXIT_OK, exit_for
from evaldsl.i18n import N_, _


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
    _fit_arguments(p)
    _shot_arguments(p)
    _example_arguments(p)


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


def _fit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fit", action="store_true",
                        help=_("fit the weights of the spec's weighted score and its level "
                               "thresholds to the human scores, cross-validated, and print "
                               "them as a patch (needs --spec)"))
    parser.add_argument("--folds", type=int, default=DEFAULT_FOLDS, metavar="K",
                        help=_("folds of the cross-validation of --fit, --shots-for and "
                               "--examples-for (default 5)"))
    parser.add_argument("--seed", type=int, default=0,
                        help=_("seed of the folds of --fit, --shots-for and --examples-for "
                               "(default 0)"))


def _shot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shots-for", default=None, metavar="CHECK",
                        help=_("choose few-shot examples for the judge check CHECK from the "
                               "labelled disagreements, and measure their gain "
                               "cross-validated by asking the judge again (needs --spec and "
                               "--cases)"))
    parser.add_argument("--cases", type=Path, default=None, metavar="CASES",
                        help=_("the cases the results judged, for --shots-for and "
                               "--examples-for"))
    parser.add_argument("--shots", type=int, default=DEFAULT_SHOTS, metavar="N",
                        help=_("examples --shots-for proposes (default 3)"))
    parser.add_argument("--shot-chars", type=int, default=MAX_SHOT_CHARS, metavar="N",
                        help=_("the longest text --shots-for shows as an example, in "
                               "characters (default 600)"))


def _example_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--examples-for", default=None, metavar="CHECK",
                        help=_("learn examples for the `classify(by: embeddings)` check "
                               "CHECK from the reviewed cases, and measure their "
                               "gain cross-validated (needs --spec, --cases and --outcome "
                               "naming a block whose labels are the check's)"))


def run(args: argparse.Namespace) -> int:
    options = Options(
        args.results, args.labels, spec=args.spec, outcome=args.outcome, score=args.score,
        auto_scale=args.auto_scale, human_scale=args.human_scale, threshold=args.threshold,
        label_column=args.label_column, score_column=args.score_column,
        training=args.training, fit=args.fit, folds=args.folds, seed=args.seed,
        shots_for=args.shots_for, cases=args.cases, shots=args.shots,
        shot_chars=args.shot_chars, examples_for=args.examples_for)
    found = calibrate_files(options, _say)
    if found.refused:
        for error in found.pairing.errors[:LISTED]:
            exit_for(error, "calibrate")
        for note in refusal(options, found.pairing):
            _say(note)
        return EXIT_DATA
    if args.output is not None:
        args.output.write_text(json.dumps(found.payload, ensure_ascii=False, indent=2) + "\n",
                               "utf-8")
    if args.format == "json":
        print(json.dumps(found.payload, ensure_ascii=False, indent=2))
    else:
        print(found.text())
    return EXIT_OK


_SAY_WORDS = {"note": N_("note"), "warning": N_("warning"), "error": N_("error")}


def _say(note: Note) -> None:
    """A note, warning or error of this verb on stderr, with its hint on the next line."""
    print(
        _("evaldsl calibrate: {kind}: {message}").format(kind=_(_SAY_WORDS[note.kind]),
                                                          message=note.message),
        file=sys.stderr,
    )
    if note.hint:
        print(_("hint: {hint}").format(hint=note.hint), file=sys.stderr)
