"""`evaldsl run SPEC CASES...`: judge case files, write the reports, print the layered summary.

    evaldsl run specs/repair_booking.eval cases.jsonl -o report.json --html report.html \\
        --md summary.md --junit junit.xml --results results.jsonl --fail-under success_rate=80%

Cases stream from JSONL, YAML or JSON files; each finished case is one line
of `--results` at once, so `--resume` continues a killed run (even `kill -9`)
where it stopped and ends with the same report. A progress bar with rate and
ETA shows on stderr when it is a terminal. `--workers N` evaluates the cases
in N processes, each with its own judge client; the reports are the same.
`--engine ray [--address ADDR] [--actors N]` judges them on Ray (docs/cluster.md).

Exit codes: 0 ok; 1 a `--fail-under` threshold was missed; 2 usage, spec or
settings errors (including resuming a journal of another spec, and a judge or
embedder with no key, a refused key, an unknown model or no server at the first
request); 3 data errors (a bad row with `--on-bad-row fail`, an unreadable case
file, a damaged journal); 4 every case errored (the reports are written); 5 the
`--deadline` passed before every case was judged (the reports and journal hold what
finished).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaldsl.cases.remote import case_input
from evaldsl.cli.collector import held_until_begun
from evaldsl.cli.exits import EXIT_DEADLINE, EXIT_NO_RESULTS, Interrupted, UsageError
from evaldsl.cli.flags import (
    add_gates,
    add_report_outputs,
    add_target_flags,
    check_target_flags,
    drive_of,
    parse_duration,
    positive,
    report_files,
    report_gates,
    summary_stream,
)
from evaldsl.i18n import _, ngettext
from evaldsl.run.engines import CASES_PER_REQUEST

if TYPE_CHECKING:
    from evaldsl.report.document import ReportDoc

BAD_ROWS_SHOWN = 10
"""Skipped rows listed on stderr; the report lists up to 100 and counts all."""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help=_("judge case files and write reports"),
                              description=_("Judge case files against a spec and write reports."))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("cases", type=case_input, nargs="+", metavar="CASES",
                   help=_("case files: .jsonl, .yaml/.yml or .json; with --engine ray also "
                          "URIs such as s3://bucket/cases.jsonl"))
    out = add_report_outputs(p)
    out.add_argument("--results", type=Path, help=_("results.jsonl, one line per case"))
    out.add_argument("--otel-out", type=Path, default=None, metavar="FILE",
                     help=_("each verdict as an OpenTelemetry `gen_ai.evaluation.result` event "
                            "tied to the judged trace and span (OTLP/JSON lines)"))
    out.add_argument("-q", "--quiet", action="store_true", help=_("do not print the summary"))
    flow = p.add_argument_group(_("how to run"))
    flow.add_argument("--concurrency", type=positive, default=None, metavar="N",
                      help=_("cases in flight when model checks are involved (default: "
                             "{times} times the judge's concurrency setting)").format(
                                 times=CASES_PER_REQUEST))
    flow.add_argument("--workers", type=positive, default=1, metavar="N",
                      help=_("processes that evaluate cases, each with its own judge client "
                           "(default: 1, this process)"))
    flow.add_argument("--engine", choices=("local", "ray"), default="local",
                      help=_("where cases are judged: this machine (default) or a Ray cluster "
                             "(docs/cluster.md)"))
    flow.add_argument("--actors", type=positive, default=None, metavar="N",
                      help=_("with --engine ray: actors that judge batches (default: --workers)"))
    flow.add_argument("--address", default=None, metavar="ADDR",
                      help=_("with --engine ray: the cluster's address (`ray start --head` "
                             "prints it; default: `RAY_ADDRESS`, else a local Ray)"))
    flow.add_argument("--limit", type=positive, default=None, metavar="N",
                      help=_("judge only the first N cases"))
    pick = p.add_argument_group(_("which cases (docs/running.md)"))
    pick.add_argument("--where", default=None, metavar="EXPR",
                      help=_("judge only the cases this condition over `case` holds for "
                             "(`case.category == \"live_simple\"`)"))
    pick.add_argument("--ids", type=Path, default=None, metavar="FILE",
                      help=_("judge only the cases whose id is a line of FILE"))
    pick.add_argument("--sample", type=positive, default=None, metavar="N",
                      help=_("judge N cases drawn by id, the same ones for the same --seed"))
    pick.add_argument("--seed", type=int, default=None, metavar="S",
                      help=_("the seed of --sample and of simulated users (default: 0)"))
    flow.add_argument("--deadline", type=parse_duration, default=None, metavar="DURATION",
                      help=_("stop asking after this long (`90s`, `30m`, `2h`): unjudged "
                           "model checks error, the reports are written, exit 5"))
    journal = flow.add_mutually_exclusive_group()
    journal.add_argument("--resume", action="store_true",
                         help=_("continue the run recorded in --results"))
    journal.add_argument("--overwrite", action="store_true",
                         help=_("start --results afresh even when it holds an earlier run's "
                              "results (without it such a journal is refused)"))
    flow.add_argument("--input-format", choices=("chat", "otel", "openinference"), default=None,
                      help=_("read the case files as chat transcripts, OpenTelemetry GenAI "
                             "traces or OpenInference traces (default: detected by content; "
                             "docs/cases.md)"))
    flow.add_argument("--map", type=Path, default=None, metavar="FILE",
                      help=_("read each row through a field map (docs/cases.md): a team's own "
                             "JSON log format as cases"))
    flow.add_argument("--on-bad-row", choices=("skip", "fail"), default="fail",
                      help=_("skip malformed rows (counted in the report) or stop (default)"))
    add_gates(flow)
    flow.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                      help=_("show a progress bar (default: when stderr is a terminal)"))
    add_target_flags(p.add_argument_group(_("a live agent (docs/targets.md)")))
    model = p.add_argument_group(_("models"))
    model.add_argument("--judge", default=None, metavar="local|URL",
                       help=_("`local` starts the bundled judge; a URL names an OpenAI-compatible "
                            "server"))
    model.add_argument("--judge-model", default=None,
                       help=_("the judge's model name; with --judge local, the path of a GGUF "
                              "file to serve in place of the bundled weights"))
    model.add_argument("--judge-sha256", default=None, metavar="HEX",
                       help=_("with --judge local: the sha256 the model file must have "
                              "(docs/local_models.md)"))
    model.add_argument("--judge-key-env", default=None, metavar="NAME",
                       help=_("the variable holding the judge's key (a name ending in "
                            "`_API_KEY` or `_TOKEN`), sent to whichever host the judge is at"))
    model.add_argument("--config", type=Path, default=None, help=_("settings (evaldsl.toml)"))
    model.add_argument("--no-cache", action="store_true", help=_("do not read or write the cache"))
    model.add_argument("--cache-dir", type=Path, default=None)


CASE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".yaml", ".yml", ".csv", ".parquet")
"""Case files by extension: a spec given as one is a case file in the spec's place."""


def spec_first(spec: Any, cases: list[Any]) -> None:
    """A usage error when the first argument is a case file (`run hotel.jsonl hotel.eval`),
    rather than the syntax error its first `{` would be."""
    if Path(str(spec)).suffix.lower() not in CASE_SUFFIXES:
        return
    specs = [c for c in cases if str(c).endswith(".eval")]
    order = [*specs, spec, *(c for c in cases if c not in specs)] if specs else [spec]
    raise UsageError(
        _("`{spec}` is a case file: the spec comes first").format(spec=spec),
        _("write `evaldsl run {arguments}`").format(arguments=" ".join(map(str, order)))
        if specs else _("write `evaldsl run SPEC.eval {cases}`").format(cases=spec))


def run(args: argparse.Namespace) -> int:
    with held_until_begun() as begin:
        return _run(args, begin)


def _run(args: argparse.Namespace, begin: Callable[[], None]) -> int:
    """The verb; `begin` is called as the cases start (`evaldsl.cli.collector`)."""
    from evaldsl.run.engines import Runner, deadline_in, with_settings

    check_target_flags(args)
    deadline = deadline_in(args.deadline)
    runner = Runner(
        workers=args.workers, engine=args.engine, actors=args.actors, address=args.address,
        results=args.results, resume=args.resume, overwrite=args.overwrite,
        concurrency=args.concurrency, limit=args.limit, deadline=deadline,
        on_bad_row=args.on_bad_row, input_format=args.input_format, field_map=args.map,
        where=args.where, ids=args.ids, sample=args.sample, seed=args.seed,
        drive=drive_of(args), outputs=report_files(args), otel_out=args.otel_out,
        progress=args.progress, announce=_warn)
    runner.check(args.cases)
    from evaldsl.api import load
    from evaldsl.report.gates import check_thresholds_of

    spec_first(args.spec, args.cases)
    spec = load(args.spec)
    if spec.has_model_checks:
        runner = with_settings(runner, _settings(args, deadline))
    check_thresholds_of(args.fail_under + args.fail_over, spec)
    if not spec.checks:
        _warn(_("warning: `{spec}` defines no checks: nothing is judged").format(spec=args.spec))
    begin()
    try:
        result = runner.run(spec, args.cases)
    except KeyboardInterrupt as exc:
        raise _interrupted(args) from exc
    for bad in result.bad_rows[:BAD_ROWS_SHOWN]:
        print(_("skipped: {bad}").format(bad=bad), file=sys.stderr)
    skipped = result.report.cases.bad_rows_skipped
    if skipped > BAD_ROWS_SHOWN:
        print(
            _("skipped: ... and {value} more rows").format(value=skipped - BAD_ROWS_SHOWN),
            file=sys.stderr,
        )
    _warn_if_no_rows(args, result)
    _warn_ids_not_found(args, result.report)
    if not args.quiet:
        from evaldsl.report.terminal import render_terminal

        print(render_terminal(result.report), file=summary_stream(args))
    if _no_results(result.report):
        return EXIT_NO_RESULTS
    verdict = report_gates(args.fail_under + args.fail_over, result.report)
    return EXIT_DEADLINE if result.report.run.deadline_passed is True else verdict


def _settings(args: argparse.Namespace, deadline: float | None = None) -> Any:
    """The model settings the flags ask for (the runtime is built lazily from them)."""
    from evaldsl.model.resolve import resolve_settings

    return resolve_settings(args.config, judge=args.judge, judge_model=args.judge_model,
                            judge_sha256=args.judge_sha256, judge_key_env=args.judge_key_env,
                            no_cache=args.no_cache, cache_dir=args.cache_dir,
                            deadline=deadline, announce=_warn)


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


def _warn_if_no_rows(args: argparse.Namespace, result: Any) -> None:
    """A run over no rows at all reports zeros honestly, but is most likely a mistake."""
    cases = result.report.cases
    if cases.evaluated == 0 and cases.bad_rows_skipped == 0:
        files = ", ".join(f"`{c}`" for c in args.cases)
        _warn(ngettext("warning: {files} holds no cases", "warning: {files} hold no cases",
                       len(args.cases)).format(files=files))


def _warn_ids_not_found(args: argparse.Namespace, report: ReportDoc) -> None:
    """Ids of `--ids` that no input row had: most likely a file of another data set."""
    missing = report.cases.ids_not_found or 0
    if missing:
        _warn(ngettext("warning: {count} id of {ids} is not in the input",
                       "warning: {count} ids of {ids} are not in the input",
                       missing).format(count=missing, ids=f"`{args.ids}`"))


def _interrupted(args: argparse.Namespace) -> Interrupted:
    """Ctrl-C: with a journal, the cases done so far are kept; say how to go on from them."""
    if args.results is None:
        return Interrupted()
    return Interrupted(_("the results so far are in {results}; add --resume to continue").format(
        results=args.results))


def _no_results(report: ReportDoc) -> bool:
    """Whether every evaluated case errored, said on stderr with the main reason: a run that
    produced no result must not look like one that passed."""
    cases = report.cases
    if not cases.evaluated or cases.errored < cases.evaluated:
        return False
    reason = report.errors[0].reason if report.errors else _("no reason given")
    message = _("evaldsl run: error: every case errored ({count} of {count}), most often: "
                "{reason}").format(count=cases.evaluated, reason=reason)
    print(message, file=sys.stderr)
    return True
