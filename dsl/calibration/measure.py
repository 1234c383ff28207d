"""A calibration from files: a run's results, the human labels, and everything asked of them.

`calibrate_files(Options(results, labels, ...))` does what `evaldsl calibrate`
does, without a command line: the automatic judgements are read
(`evaldsl.calibration.automatic`), the labels from a filled-in sample or a review
store (the labels stored for the block compared), each row paired with its case
(`evaldsl.analysis.pairing`), the figures computed (`evaldsl.analysis.calibrate`),
reviewer-to-reviewer agreement and the training set added, and, when asked, the
weights fitted (`weight_fit`), few-shot examples chosen (`judge_shots`) and
neighbours learned (`neighbour_examples`). Notes and warnings are handed to
`say` as they arise; a sample with bad rows is refused as a whole
(`Calibrated.refused`, the problems in `pairing.errors`), since figures over a
part of them would mislead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD, Calibration, calibrate
from evaldsl.analysis.pairing import Doubt, HumanRules, Pairing, pair
from evaldsl.analysis.sample_file import GB18030, LabelFile
from evaldsl.analysis.shots import DEFAULT_SHOTS, MAX_SHOT_CHARS
from evaldsl.calibration.automatic import Results, read_results
from evaldsl.calibration.judge_shots import ShotReport, choose_shots
from evaldsl.calibration.judge_shots import render as render_shots
from evaldsl.calibration.neighbour_examples import ExampleReport, learn_examples
from evaldsl.calibration.neighbour_examples import render as render_examples
from evaldsl.calibration.summary import LISTED, render
from evaldsl.calibration.weight_fit import DEFAULT_FOLDS, FitReport, fit_weights
from evaldsl.calibration.weight_fit import render as render_fit
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import RequestError
from evaldsl.i18n import _
from evaldsl.report.layout import VERDICT
from evaldsl.review.label_rows import opinions as label_opinions
from evaldsl.review.label_rows import read_any_labels
from evaldsl.review.reviewer_agreement import render_agreement, reviewer_agreement
from evaldsl.review.training import render_training, training_set, write_training


@dataclass(frozen=True)
class Options:
    """What a calibration compares and what else it is asked for (the flags of
    `evaldsl calibrate`, with the same defaults)."""

    results: Path
    """A run's results.jsonl."""
    labels: Path
    """A filled-in sample (.jsonl or .csv) or a review store (.db)."""
    spec: Path | None = None
    """The spec that produced `results`: labels are then checked against its block's."""
    outcome: str | None = None
    """The outcome block compared (the verdict block, else the first, when None)."""
    score: str | None = None
    """The check or metric giving each case's automatic score."""
    auto_scale: tuple[float, float] | None = None
    human_scale: tuple[float, float] = (0.0, 100.0)
    threshold: float = DEFAULT_THRESHOLD
    label_column: str = "label"
    score_column: str = "score"
    training: Path | None = None
    """Where to write the judgements beyond the threshold as a training set."""
    fit: bool = False
    folds: int = DEFAULT_FOLDS
    seed: int = 0
    shots_for: str | None = None
    cases: Path | None = None
    """The cases the results judged, for `shots_for` and `examples_for`."""
    shots: int = DEFAULT_SHOTS
    shot_chars: int = MAX_SHOT_CHARS
    examples_for: str | None = None


@dataclass(frozen=True)
class Note:
    """A note, warning or error about the inputs, for the caller to show."""

    kind: str
    """`note`, `warning` or `error`."""
    message: str
    hint: str = ""


@dataclass
class Calibrated:
    """What a calibration found; `payload` is its JSON form, `text()` its words."""

    options: Options
    results: Results
    sample: LabelFile
    pairing: Pairing
    figures: Calibration | None = None
    """None when the sample was refused."""
    payload: dict[str, Any] = field(default_factory=dict)
    after: list[str] = field(default_factory=list)
    """The lines of reviewer agreement and of the training set."""
    fit: FitReport | None = None
    shots: ShotReport | None = None
    examples: ExampleReport | None = None

    @property
    def refused(self) -> bool:
        """Whether rows had problems, so nothing was compared."""
        return bool(self.pairing.errors)

    def text(self) -> str:
        """The figures in words, as `evaldsl calibrate` prints them."""
        assert self.figures is not None, "a refused calibration has no figures"
        return ("\n".join([render(self.figures, len(self.pairing.judged),
                                  len(self.pairing.unmatched),
                                  self.results.block or VERDICT, self.options.score),
                           *self.after])
                + (render_fit(self.fit) if self.fit is not None else "")
                + (render_shots(self.shots) if self.shots is not None else "")
                + (render_examples(self.examples) if self.examples is not None else ""))


def _silent(note: Note) -> None:
    """The default `say`: notes are dropped."""


def calibrate_files(options: Options, say: Callable[[Note], None] = _silent) -> Calibrated:
    """Calibrate `options.results` against `options.labels`, and whatever else `options`
    asks for; `say` is handed each note and warning as it arises."""
    o = options
    results = read_results(o.results, o.spec, o.outcome, o.score, o.auto_scale)
    sample = read_any_labels(o.labels, results.block)
    if sample.encoding == GB18030:
        say(Note("note", _("`{labels}` is not UTF-8, so it was read as {GB18030}").format(
            labels=o.labels, GB18030=GB18030)))
    pairing = pair(sample, results.cases, _rules(o, results))
    _check_matches(o, pairing)
    found = Calibrated(o, results, sample, pairing)
    if pairing.errors:
        return found
    for note in _warnings(o, pairing, results):
        say(note)
    found.figures = _compared(o, pairing)
    found.payload = {**found.figures.to_dict(), "cases": len(pairing.judged),
                     "unmatched_labels": len(pairing.unmatched), "outcome": results.block,
                     "score": o.score}
    found.after = _loop_figures(o, sample, pairing, found.payload)
    if o.fit:
        found.fit = fit_weights(o.spec, o.results, pairing.judged, results.block, o.folds,
                                o.seed)
        found.payload["fit"] = found.fit.to_dict()
    if o.shots_for:
        found.shots = choose_shots(
            o.shots_for, o.spec, o.cases, o.results, pairing.judged, folds=o.folds,
            seed=o.seed, shots=o.shots, threshold=o.threshold, shot_chars=o.shot_chars)
        found.payload["shots"] = found.shots.to_dict()
    if o.examples_for:
        found.examples = learn_examples(
            o.examples_for, o.spec, o.cases, o.results, pairing.judged, folds=o.folds,
            seed=o.seed)
        found.payload["examples"] = found.examples.to_dict()
    return found


def refusal(options: Options, pairing: Pairing) -> list[Note]:
    """What follows the problems of a refused sample (the first `LISTED` are named): how
    many more there are, and that nothing was compared."""
    notes = []
    if len(pairing.errors) > LISTED:
        notes.append(Note("error", _("{value} more problems are not shown").format(
            value=len(pairing.errors) - LISTED)))
    rows = len({e.line for e in pairing.errors})
    notes.append(Note(
        "error",
        _("1 row of `{labels}` has problems, so nothing was compared").format(
            labels=options.labels)
        if rows == 1
        else _("{rows} rows of `{labels}` have problems, so nothing was compared").format(
            rows=rows, labels=options.labels
        ),
    ))
    return notes


def _loop_figures(o: Options, sample: LabelFile, pairing: Pairing,
                  payload: dict[str, Any]) -> list[str]:
    """Reviewer-to-reviewer agreement and the training set, into `payload`; their lines."""
    lines: list[str] = []
    opinions = label_opinions(sample, o.label_column, o.score_column, o.human_scale)
    if opinions:
        agreement = reviewer_agreement(opinions)
        payload["reviewers"] = agreement.to_dict()
        lines += ["", *render_agreement(agreement)]
    if o.training is not None:
        found = training_set(pairing.judged, pairing.sources, o.threshold)
        write_training(found, o.training)
        payload["training"] = found.to_dict(o.training)
        lines += ["", *render_training(found, o.training)]
    return lines


def _rules(o: Options, results: Results) -> HumanRules:
    return HumanRules(results.labels, results.from_spec, results.block or VERDICT,
                      o.human_scale, o.label_column if results.block else None,
                      o.score_column)


# ---------------------------------------------------------------- what the rows say


def _check_matches(o: Options, pairing: Pairing) -> None:
    """A sample of no rows, or whose rows all name no case, has nothing to calibrate."""
    if pairing.rows == 0:
        raise RequestError(
            _("`{labels}` holds no rows").format(labels=o.labels),
            _("fill in the sample `evaldsl review` wrote and give that file"),
        )
    if pairing.unmatched and pairing.matched == 0:
        ids, rows = _ids(pairing.unmatched), pairing.rows
        raise RequestError(
            _("the one row of `{labels}` names no case of `{results}` (id {ids})").format(
                labels=o.labels, results=o.results, ids=ids
            )
            if rows == 1
            else _(
                "none of the {rows} rows of `{labels}` names a case "
                "of `{results}` (ids such as {ids})"
            ).format(rows=rows, labels=o.labels, results=o.results, ids=ids),
            _(
                "these are probably the labels of another run or another spec: "
                "calibrate them against the results the sample was drawn from"
            ),
        )


def _warnings(o: Options, pairing: Pairing, results: Results) -> list[Note]:
    notes = []
    unmatched, rows, ids = len(pairing.unmatched), pairing.rows, _ids(pairing.unmatched)
    if unmatched == 1:
        notes.append(Note(
            "warning",
            _(
                "1 of the {rows} rows of `{labels}` names no case of "
                "`{results}` and is left out (id {ids})"
            ).format(rows=rows, labels=o.labels, results=o.results, ids=ids),
        ))
    elif unmatched:
        notes.append(Note(
            "warning",
            _(
                "{unmatched} of the {rows} rows of `{labels}` name no case of "
                "`{results}` and are left out (ids such as {ids})"
            ).format(
                unmatched=unmatched, rows=rows, labels=o.labels, results=o.results, ids=ids
            ),
        ))
    for doubt in pairing.doubts:
        notes.append(Note(
            "warning", _doubt(o, doubt, results),
            " ".join(filter(None, [did_you_mean(doubt.label, results.labels),
                                   "with --spec SPEC, labels are checked against all the "
                                   "labels of the block"]))))
    return notes


def _doubt(o: Options, doubt: Doubt, results: Results) -> str:
    have = ", ".join(f"`{x}`" for x in results.labels) or "none"
    if len(doubt.lines) == 1:
        return _(
            "`{labels}` gives the label `{label}` in 1 row (line {lines}), and no "
            "case of the results has it for `{block}`: they have {have}"
        ).format(
            labels=o.labels,
            label=doubt.label,
            lines=doubt.lines[0],
            block=results.block,
            have=have,
        )
    return _(
        "`{labels}` gives the label `{label}` in {count} rows (the first on line {lines}), "
        "and no case of the results has it for `{block}`: they have {have}"
    ).format(
        labels=o.labels,
        label=doubt.label,
        count=len(doubt.lines),
        lines=doubt.lines[0],
        block=results.block,
        have=have,
    )


def _compared(o: Options, pairing: Pairing) -> Calibration:
    if not pairing.judged:
        raise RequestError(
            _("no row of `{labels}` has a `{label_column}` or a `{score_column}`").format(
                labels=o.labels, label_column=o.label_column, score_column=o.score_column
            ),
            _(
                "reviewers fill in the `{label_column}` column, the `{score_column}` column or "
                "both (--label-column and --score-column name other columns)"
            ).format(label_column=o.label_column, score_column=o.score_column),
        )
    result = calibrate(pairing.judged, o.threshold)
    if result.labels is None and result.scores is None:
        scored = any(j.human_score is not None for j in pairing.judged)
        raise RequestError(
            _("nothing to compare: no case has both an automatic and a human judgement"),
            _("give --score NAME to compare the human scores with a check or a metric")
            if scored and o.score is None
            else "",
        )
    return result


def _ids(ids: list[str], shown: int = 3) -> str:
    return ", ".join(f"`{i}`" for i in ids[:shown])
