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
import errno
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from evaldsl.cases.remote import RemoteFile, case_input
from evaldsl.cli.driving import Driving, check_target_flags
from evaldsl.cli.exits import (
    EXIT_DEADLINE,
    EXIT_FAILED,
    EXIT_NO_RESULTS,
    EXIT_OK,
    Interrupted,
    UsageError,
)
from evaldsl.cli.flags import (
    add_gates,
    add_report_outputs,
    add_target_flags,
    parse_duration,
    positive,
)
from evaldsl.i18n import _, ngettext

BAD_ROWS_SHOWN = 10
"""Skipped rows listed on stderr; the report lists up to 100 and counts all."""
CASES_PER_REQUEST = 4
"""Cases in flight per judge request slot when `--concurrency` is not given."""
DEFAULT_REQUESTS = 8
"""The judge's default `concurrency`, for a spec without model checks (no settings read)."""


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
    if args.resume and args.results is None:
        raise UsageError(_("--resume needs --results: the journal to resume from"))
    check_outputs(args)
    check_target_flags(args)
    if args.deadline is not None and args.workers > 1:
        raise UsageError(_("--deadline works with one process only; leave out --workers"))
    check_engine(args)
    deadline = time.time() + args.deadline if args.deadline is not None else None
    from evaldsl.api import Spec, load
    from evaldsl.report.gates import check_thresholds_of
    from evaldsl.report.layout import layout_of

    spec_first(args.spec, args.cases)
    spec = load(args.spec)
    settings = _settings(args, deadline) if spec.has_model_checks else None
    runtime = None
    if settings is not None and args.workers == 1 and args.engine == "local":
        from evaldsl.model.factory import default_runtime

        runtime = default_runtime(settings)
        spec = Spec(spec.graph, runtime=runtime)
    layout = layout_of(spec.source, str(args.spec))
    check_thresholds_of(args.fail_under + args.fail_over, spec)
    if not spec.checks:
        _warn(_("warning: `{spec}` defines no checks: nothing is judged").format(spec=args.spec))
    if args.results is not None:
        _parent(args.results)
    missing = [c for c in args.cases if isinstance(c, Path) and not c.is_file()]
    if missing:
        raise FileNotFoundError(errno.ENOENT, _("no such file"), str(missing[0]))
    selection = _selection(args, spec)
    driving = Driving(args, spec, deadline) if args.target is not None else None
    try:
        return _judged(args, spec, layout, selection, deadline, runtime, settings, driving)
    finally:
        if driving is not None:
            driving.close()


def _judged(args: argparse.Namespace, spec: Any, layout: Any, selection: Any,
            deadline: float | None, runtime: Any, settings: Any, driving: Any) -> int:
    """The run once everything is checked: judge, write the reports, say how it went."""
    from evaldsl.run.runner import RunOptions

    options = RunOptions(results=args.results, inputs=tuple(map(str, args.cases)),
                         concurrency=_cases_in_flight(args, settings, driving),
                         limit=args.limit,
                         resume=args.resume, overwrite=args.overwrite,
                         on_bad_row=args.on_bad_row, progress=args.progress,
                         total=None if selection is not None else _count_rows(args),
                         generated_by=tool_version(), announce=_warn,
                         deadline=deadline, selection=selection)
    junit = junit_sink(args, layout)
    explorer = explorer_sink(args, layout, tuple(map(str, args.cases)))
    otel = otel_sink(args, layout)
    try:
        result = _evaluate(args, spec, layout, options, runtime, settings, junit, explorer,
                           driving, otel)
    except KeyboardInterrupt as exc:
        if junit is not None:
            junit.discard()
        raise _interrupted(args) from exc
    except BaseException:
        if junit is not None:
            junit.discard()
        raise
    if junit is not None:
        junit.finish(result.elapsed)
    if otel is not None:
        otel.finish()
    if driving is not None:
        result.report["target"] = driving.tally.to_dict()
    write_outputs(args, result.report, explorer)
    for bad in result.bad_rows[:BAD_ROWS_SHOWN]:
        print(_("skipped: {bad}").format(bad=bad), file=sys.stderr)
    skipped = result.report["cases"]["bad_rows_skipped"]
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
    return EXIT_DEADLINE if result.report["run"].get("deadline_passed") else verdict


RAY_UNSUPPORTED = ("limit", "deadline", "where", "ids", "sample", "target", "input_format")
"""Flags the Ray engine does not take (docs/cluster.md says why)."""


def check_engine(args: argparse.Namespace) -> None:
    """The Ray engine's flags and URIs only with it, its refusals, and Ray installed,
    before any work."""
    if args.engine != "ray":
        for flag in ("actors", "address"):
            if getattr(args, flag) is not None:
                raise UsageError(_("--{flag} needs --engine ray").format(flag=flag))
        remote = next((c for c in args.cases if isinstance(c, RemoteFile)), None)
        if remote is not None:
            raise UsageError(_("`{uri}` is a URI: only --engine ray reads case files from "
                               "other filesystems").format(uri=remote),
                             _("run with --engine ray, or copy the file here"))
        return
    given = [flag for flag in RAY_UNSUPPORTED if getattr(args, flag) is not None]
    if given:
        raise UsageError(_("--{flag} does not work with --engine ray").format(flag=given[0]),
                         _("docs/cluster.md lists what a Ray run supports"))
    from importlib.util import find_spec

    if find_spec("ray") is None:
        raise UsageError(_("--engine ray needs Ray, which is not installed"),
                         _("install it with `pip install \"evaldsl[ray]\"`"))


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


def _warn_if_no_rows(args: argparse.Namespace, result: Any) -> None:
    """A run over no rows at all reports zeros honestly, but is most likely a mistake."""
    cases = result.report["cases"]
    if cases["evaluated"] == 0 and cases["bad_rows_skipped"] == 0:
        files = ", ".join(f"`{c}`" for c in args.cases)
        _warn(ngettext("warning: {files} holds no cases", "warning: {files} hold no cases",
                       len(args.cases)).format(files=files))


def _selection(args: argparse.Namespace, spec: Any) -> Any:
    """`--where`, `--ids`, `--sample`, checked before anything runs; with `--sample` the
    input is read once more here to draw it (the rule: `evaldsl.run.selection`)."""
    if args.seed is not None and args.sample is None and args.target is None:
        raise UsageError(_("--seed is the seed of --sample; add --sample N"))
    if args.where is None and args.ids is None and args.sample is None:
        return None
    from evaldsl.cases.case import Case
    from evaldsl.cases.loading import read_cases
    from evaldsl.cases.rows import CaseSchema
    from evaldsl.run.selection import Selection, read_ids
    from evaldsl.run.where import Where

    where = Where(args.where, spec, spec.graph.registry) if args.where is not None else None
    selection = Selection(where, read_ids(args.ids) if args.ids is not None else None,
                          args.sample, args.seed or 0)
    if args.sample is None:
        return selection
    if args.target is not None:
        from evaldsl.agents.scenarios import read_scenarios

        cases = read_scenarios(args.cases, CaseSchema.of(spec))
    else:
        cases = read_cases(args.cases, _schema(args, spec), "skip", args.input_format)
    return selection.with_sample(c for c in cases if isinstance(c, Case))


def _warn_ids_not_found(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Ids of `--ids` that no input row had: most likely a file of another data set."""
    missing = report["cases"].get("ids_not_found", 0)
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


def _no_results(report: dict[str, Any]) -> bool:
    """Whether every evaluated case errored, said on stderr with the main reason: a run that
    produced no result must not look like one that passed."""
    cases = report["cases"]
    if not cases["evaluated"] or cases["errored"] < cases["evaluated"]:
        return False
    reasons = report.get("errors") or [{"reason": _("no reason given")}]
    message = _("evaldsl run: error: every case errored ({count} of {count}), most often: "
                "{reason}").format(count=cases["evaluated"], reason=reasons[0]["reason"])
    print(message, file=sys.stderr)
    return True


def _evaluate(args: argparse.Namespace, spec: Any, layout: Any, options: Any, runtime: Any,
              settings: Any, junit: Any, explorer: Any, driving: Any = None,
              otel: Any = None) -> Any:
    """The run: in this process, or in `--workers` processes that read rows the parent hands
    them (each builds its own model runtime from `settings`)."""
    from evaldsl.cases.loading import read_cases, read_rows

    sinks = [sink for sink in (junit, explorer, otel) if sink is not None]
    if args.map is not None and (args.engine == "ray" or args.workers > 1):
        raise UsageError(_("--map reads rows in this process only: leave out --workers "
                           "and --engine ray"))
    if args.engine == "ray":
        from evaldsl.run.ray_engine import run_ray

        return run_ray(spec, layout, [str(c) for c in args.cases], options,
                       args.actors or args.workers, settings, args.address, sinks)
    if args.workers > 1:
        from evaldsl.run.workers import run_workers

        return run_workers(spec, layout, read_rows(args.cases, args.input_format), options,
                           args.workers, settings, sinks)
    from evaldsl.run.runner import run as run_cases

    if driving is not None:
        return run_cases(spec, layout, driving.scenarios(args.cases, spec), options, runtime,
                         [*sinks, driving.tally], driving.driver)
    cases = read_cases(args.cases, _schema(args, spec), "skip", args.input_format)
    return run_cases(spec, layout, cases, options, runtime, sinks)


def _schema(args: argparse.Namespace, spec: Any) -> Any:
    """How a row becomes a case: the spec's `case` block, read through `--map` if given."""
    from evaldsl.cases.fieldmap import FieldMap
    from evaldsl.cases.rows import CaseSchema

    return CaseSchema.of(spec, FieldMap.load(args.map) if args.map is not None else None)


def _cases_in_flight(args: argparse.Namespace, settings: Any, driving: Any = None) -> int:
    """`--concurrency`, or enough cases to keep the judge's request slots full.

    A case often needs no model call (a cheap check decided it) or is between
    rounds, so as many cases as requests would leave slots empty; a few times
    as many keeps them busy and costs only the cases' memory.
    """
    if args.concurrency is not None:
        return int(args.concurrency)
    requests = settings.judge.concurrency if settings is not None else DEFAULT_REQUESTS
    judged = CASES_PER_REQUEST * int(requests)
    return max(judged, driving.concurrency) if driving is not None else judged


def _settings(args: argparse.Namespace, deadline: float | None = None) -> Any:
    """The model settings the flags ask for (the runtime is built lazily from them)."""
    from evaldsl.model.resolve import resolve_settings

    return resolve_settings(args.config, judge=args.judge, judge_model=args.judge_model,
                            judge_sha256=args.judge_sha256, judge_key_env=args.judge_key_env,
                            no_cache=args.no_cache, cache_dir=args.cache_dir,
                            deadline=deadline, announce=_warn)


def _count_rows(args: argparse.Namespace) -> int | None:
    """Lines in JSONL inputs, for the progress bar's ETA and a resumed run's notice (only
    when a bar will show or the run resumes: counting reads the files once more)."""
    shows = args.progress if args.progress is not None else sys.stderr.isatty()
    jsonl = all(c.suffix.lower() in (".jsonl", ".ndjson") for c in args.cases)
    local = all(isinstance(c, Path) for c in args.cases)
    if not (shows or args.resume) or not jsonl or not local or _traced(args):
        return None
    total = 0
    for path in args.cases:
        with path.open("rb") as f:
            total += sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    return total


def _traced(args: argparse.Namespace) -> bool:
    """Whether some input is a trace file, whose lines are spans, not cases."""
    if args.input_format in ("otel", "openinference"):
        return True
    if args.input_format == "chat":
        return False
    from evaldsl.cases.traces import is_trace_file

    return any(is_trace_file(c) for c in args.cases)


def otel_sink(args: argparse.Namespace, layout: Any) -> Any:
    """The `gen_ai.evaluation.result` events of `--otel-out`, or None without it."""
    if args.otel_out is None:
        return None
    from evaldsl.report.otel_events import OtelEvents

    _parent(args.otel_out)
    return OtelEvents(args.otel_out, layout.name, [str(c) for c in args.cases],
                      args.input_format)


def junit_sink(args: argparse.Namespace, layout: Any) -> Any:
    """A streaming JUnit writer, or None without --junit."""
    if args.junit is None:
        return None
    from evaldsl.report.junit import JUnitWriter, verdict_passing

    if args.junit_pass:
        passing = junit_labels(args.junit_pass, layout)
    else:
        passing = verdict_passing(layout)
    _parent(args.junit)
    return JUnitWriter(args.junit, layout.name, passing)


def junit_labels(given: str, layout: Any) -> frozenset[str]:
    """The labels of `--junit-pass`; a usage error naming the spec's labels when one of
    them is no block's (a typo would fail every case in silence)."""
    from evaldsl.diagnostics import listing

    passing = frozenset(s.strip() for s in given.split(",") if s.strip())
    labels = [label for block in layout.blocks for label in block.labels]
    unknown = sorted(passing - set(labels))
    if unknown:
        raise UsageError(_("--junit-pass names {unknown}, which no outcome block has; "
                           "the labels are {labels}").format(
            unknown=listing(unknown), labels=listing(labels, limit=20)))
    return passing


def explorer_sink(args: argparse.Namespace, layout: Any, inputs: tuple[str, ...]) -> Any:
    """The case records for the HTML report's explorer, or None without --html (a run
    that writes no page keeps no case)."""
    if args.html is None:
        return None
    from evaldsl.report.explorer import Explorer

    if getattr(args, "target", None) is None:
        return Explorer(layout, inputs)
    from evaldsl.agents.scenarios import read_scenarios

    transcripts = None if args.transcripts is None else str(args.transcripts)
    return Explorer(layout, inputs, transcripts, read_scenarios)


STDOUT = Path("-")
"""`-o -`: the report on stdout (a file named `-` is `./-`)."""


def _report_outputs(args: argparse.Namespace) -> list[tuple[str, Path | None, str]]:
    """(flag, path, format) of each whole-report output."""
    return [("-o", args.output, "json"), ("--html", args.html, "html"),
            ("--md", args.md, "markdown")]


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, what cannot be written: two reports on one stdout, and
    JUnit on stdout (it is written case by case, beside the run, not at its end)."""
    if args.junit == STDOUT:
        raise UsageError(_("--junit cannot write to stdout; give it a file"),
                         hint=_("`-o -`, `--html -` or `--md -` can"))
    on_stdout = [flag for flag, path, _format in _report_outputs(args) if path == STDOUT]
    if len(on_stdout) > 1:
        raise UsageError(_("only one report can go to stdout, not {flags}").format(
            flags=_(" and ").join(f"`{flag} -`" for flag in on_stdout)))


def summary_stream(args: argparse.Namespace) -> TextIO:
    """Where the terminal summary goes: stderr when a report holds stdout."""
    taken = any(path == STDOUT for _flag, path, _format in _report_outputs(args))
    return sys.stderr if taken else sys.stdout


def write_outputs(args: argparse.Namespace, report: dict[str, Any], cases: Any = None) -> None:
    """`-o`, `--html` and `--md`: the writers `Report.write` uses too; `-` is stdout. `cases`
    (`explorer_sink`) are the case records the HTML page explores."""
    from evaldsl.report.writers import render_report, write_report

    for _flag, path, format in _report_outputs(args):
        if path == STDOUT:
            sys.stdout.write(render_report(report, format, cases))
            sys.stdout.flush()
        elif path is not None:
            write_report(path, report, format, cases)


def _parent(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)


def report_gates(thresholds: list[Any], report: dict[str, Any]) -> int:
    """Each missed `--fail-under` or `--fail-over` said on stderr; 1 when one was missed."""
    from evaldsl.report.gates import missed_thresholds

    missed = missed_thresholds(thresholds, report)
    for line in missed:
        print(line, file=sys.stderr)
    return EXIT_FAILED if missed else EXIT_OK


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"evaldsl {version('evaldsl')}"
    except PackageNotFoundError:
        return "evaldsl"
