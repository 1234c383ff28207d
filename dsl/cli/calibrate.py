"""`evaldsl calibrate RESULTS LABELS`: how close the spec's verdicts are to human judgement.

RESULTS is a run's results.jsonl; LABELS a filled-in review sample (JSONL or
CSV with `id`, `label` and/or `score` columns; empty cells are unlabelled).
Labels are compared with one outcome block (`--outcome`, the verdict by
default): agreement, Cohen's kappa and the confusion table. Scores are
compared on a 0-100 scale with an automatic score named by `--score` (a check:
its score times 100, or a metric whose per-case input is a number): mean
absolute deviation, bias and rank correlation, and every case further apart
than `--threshold` points is listed, worst first: those are the cases to read
when refining the spec. Human scores on another scale are rescaled with
`--human-scale 1-5`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD, Calibration, Judged, calibrate, rescale
from evaldsl.analysis.sample_file import read_labels
from evaldsl.cli.exits import EXIT_OK, UsageError
from evaldsl.errors import CaseDataError
from evaldsl.report.journal import read_records
from evaldsl.report.layout import VERDICT
from evaldsl.report.stats import percent

LISTED = 25


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("calibrate", help="compare the spec's verdicts with human labels",
                              description="Compare automatic verdicts and scores with human ones.")
    p.add_argument("results", type=Path, metavar="RESULTS", help="results.jsonl of a run")
    p.add_argument("labels", type=Path, metavar="LABELS", help="filled-in sample (.jsonl/.csv)")
    p.add_argument("--outcome", default=None, help="outcome block to compare labels with")
    p.add_argument("--score", default=None,
                   help="check or metric giving the automatic score of a case")
    p.add_argument("--auto-scale", type=_scale, default=None, metavar="LOW-HIGH",
                   help="scale of the automatic score (checks 0-1, metrics 0-100 by default)")
    p.add_argument("--human-scale", type=_scale, default=(0.0, 100.0), metavar="LOW-HIGH",
                   help="scale of the human scores (default 0-100)")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                   help="list cases deviating more than this many points (default 20)")
    p.add_argument("--label-column", default="label")
    p.add_argument("--score-column", default="score")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", type=Path, default=None, help="also write the JSON here")


def _scale(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split("-", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW-HIGH such as 1-5, got `{text}`") from None
    if high <= low:
        raise argparse.ArgumentTypeError(f"`{text}`: HIGH must be above LOW")
    return low, high


def run(args: argparse.Namespace) -> int:
    judged, unmatched = _join(args, _automatic(args))
    result = calibrate(judged, args.threshold)
    payload = {**result.to_dict(), "cases": len(judged), "unmatched_labels": unmatched,
               "outcome": args.outcome, "score": args.score}
    if args.output is not None:
        args.output.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", "utf-8")
    if args.format == "json":
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(render(result, len(judged), unmatched, args.outcome or "outcome", args.score))
    return EXIT_OK


def _automatic(args: argparse.Namespace) -> dict[str, tuple[str | None, float | None]]:
    """case id -> (automatic label, automatic score in points)."""
    out: dict[str, tuple[str | None, float | None]] = {}
    for _, record in read_records(args.results):
        if args.outcome is None:
            args.outcome = _default_block(record)
        label = record.get("labels", {}).get(args.outcome)
        out[str(record.get("id"))] = (label, _auto_score(record, args))
    if args.outcome is None:
        raise UsageError(f"`{args.results}` holds no case results")
    return out


def _default_block(record: Mapping[str, Any]) -> str | None:
    labels = record.get("labels", {})
    return VERDICT if VERDICT in labels else next(iter(labels), None)


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
    raise UsageError(f"`{name}` is neither a check nor a metric of these results")


def _points(value: Any, scale: tuple[float, float]) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return rescale(float(value), *scale)


def _join(args: argparse.Namespace, auto: Mapping[str, tuple[str | None, float | None]],
          ) -> tuple[list[Judged], int]:
    judged, unmatched = [], 0
    for line, row in read_labels(args.labels).rows:
        case_id = str(row.get("id", ""))
        if case_id not in auto:
            unmatched += 1
            continue
        label = row.get(args.label_column)
        human_label = str(label).strip() if label not in (None, "") else None
        human_score = _human_score(row.get(args.score_column), args, line)
        auto_label, auto_score = auto[case_id]
        judged.append(Judged(case_id, auto_label, human_label, auto_score, human_score))
    return judged, unmatched


def _human_score(value: Any, args: argparse.Namespace, line: int) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CaseDataError(str(args.labels), line, f"`{value}` is not a number",
                            args.score_column) from None
    return rescale(number, *args.human_scale)


def render(result: Calibration, cases: int, unmatched: int, block: str,
           score: str | None) -> str:
    lines = [f"calibration over {cases} labelled cases"
             + (f" ({unmatched} labels name no case of the results)" if unmatched else "")]
    if result.labels is not None:
        la = result.labels
        kappa = "n/a" if la.kappa is None else f"{la.kappa:.3f}"
        lines += ["", f"labels: automatic `{block}` vs human",
                  f"  agreement      {percent(la.agreement)}  ({la.agreed}/{la.n})",
                  f"  Cohen's kappa  {kappa}", *_confusion(la.confusion)]
    if result.scores is not None:
        s = result.scores
        lines += ["", f"scores (0-100 points): automatic `{score}` vs human",
                  f"  mean absolute deviation  {s.mad:.1f} points  (n={s.n})",
                  f"  bias (automatic - human) {s.bias:+.1f} points",
                  f"  Pearson r {_r(s.pearson)} · Spearman rho {_r(s.spearman)}"]
        lines += ["", f"cases further apart than {result.threshold:g} points: "
                      f"{len(result.deviations)}"]
        lines += [f"  {d.id}  automatic {d.auto_score:.1f}  human {d.human_score:.1f}  "
                  f"({d.deviation:+.1f})" for d in result.deviations[:LISTED]]
        if len(result.deviations) > LISTED:
            lines.append(f"  ... {len(result.deviations) - LISTED} more (see --format json)")
    if result.labels is None and result.scores is None:
        lines.append("nothing to compare: no case has both an automatic and a human judgement"
                     + ("" if score else " (give --score NAME to compare scores)"))
    return "\n".join(lines)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> list[str]:
    humans = sorted({h for row in confusion.values() for h in row})
    autos = sorted(confusion)
    width = max([len(x) for x in [*humans, *autos, "automatic"]]) + 2
    lines = ["  confusion (rows automatic, columns human)",
             "  " + "".ljust(width) + "".join(h.rjust(width) for h in humans)]
    for a in autos:
        cells = "".join(str(confusion[a].get(h, 0)).rjust(width) for h in humans)
        lines.append("  " + a.ljust(width) + cells)
    return lines


def _r(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
