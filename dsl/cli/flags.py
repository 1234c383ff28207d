"""What several verbs share: their flags, the argparse types that read them, the flags read
into the library's options, and the lines they print alike.

Command-line parsing and printing only: each type turns a word into a value or an
`argparse.ArgumentTypeError` worded for the user; what the value then means is the
library's (`evaldsl.report.gates` for `--fail-under`, `evaldsl.run.engines` for the run's
options). Imported by the verbs of `evaldsl.cli` and nothing else.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from evaldsl.errors import OptionsError
from evaldsl.i18n import _
from evaldsl.report.gates import Threshold, parse_threshold
from evaldsl.report.outputs import ReportFiles

if TYPE_CHECKING:
    from evaldsl.report.document import ReportDoc


def positive(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected a whole number, got `{text}`").format(text=text)
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, got {value}").format(value=value))
    return value


_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smh])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600}


def parse_duration(text: str) -> float:
    """`90s`, `30m`, `2h`, `1h30m` in seconds. A unit is required: a bare `10` could
    mean seconds or minutes, and a deadline read the wrong way cuts a run short."""
    spelled = text.strip().lower()
    parts = _DURATION.findall(spelled)
    if not parts or "".join(n + u for n, u in parts) != spelled:
        raise argparse.ArgumentTypeError(
            _("expected a duration such as `90s`, `30m` or `2h`, got `{text}`").format(text=text))
    seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)
    if seconds <= 0:
        raise argparse.ArgumentTypeError(
            _("a deadline must be longer than zero, got `{text}`").format(text=text))
    return seconds


def threshold(text: str) -> Threshold:
    """`--fail-under METRIC=VALUE`."""
    try:
        return parse_threshold(text)
    except OptionsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def ceiling(text: str) -> Threshold:
    """`--fail-over METRIC=VALUE`: the metric must not be above VALUE."""
    try:
        return parse_threshold(text, ceiling=True)
    except OptionsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_gates(group: Any) -> None:
    """`--fail-under` and `--fail-over`, on `run` and `merge` alike."""
    group.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE",
                       type=threshold,
                       help=_("exit 1 when METRIC is below VALUE (e.g. 80%%)"))
    group.add_argument("--fail-over", action="append", default=[], metavar="METRIC=VALUE",
                       type=ceiling,
                       help=_("exit 1 when METRIC is above VALUE (e.g. violation_rate=5%%)"))


def add_report_outputs(p: argparse.ArgumentParser) -> Any:
    """The report files `run` and `merge` both write: `-o`, `--html`, `--md`, `--junit`,
    `--junit-pass`; the argument group back, for a verb's own outputs."""
    out = p.add_argument_group(_("outputs"))
    out.add_argument("-o", "--output", type=Path,
                     help=_("the JSON report (report.json; `-` writes it to stdout)"))
    out.add_argument("--html", type=Path, help=_("a self-contained HTML report"))
    out.add_argument("--md", type=Path, help=_("a Markdown summary for CI comments"))
    out.add_argument("--junit", type=Path, help=_("JUnit XML, one test per case"))
    out.add_argument("--junit-pass", default=None, metavar="LABELS",
                     help=_("verdict labels that pass in JUnit (default: the first branch's)"))
    return out


def add_target_flags(group: Any, required: bool = False) -> None:
    """`--target` and `--transcripts`, on `run` and `collect` alike."""
    group.add_argument("--target", default=None, metavar="NAME", required=required,
                       help=_("drive the agent [targets.NAME] of evaldsl.toml with the "
                              "scenarios' user turns, then judge the dialogs"))
    group.add_argument("--transcripts", type=Path, default=None, metavar="FILE",
                       required=required,
                       help=_("append every driven conversation to FILE (JSONL), as "
                              "`evaldsl run` reads cases"))
    group.add_argument("--key-host", action="append", default=[], metavar="NAME=HOST",
                       help=_("let the key in variable NAME, named by the settings file, go to "
                              "HOST (or HOST:PORT); repeatable"))
    group.add_argument("--simulator", default=None, metavar="MODEL",
                       help=_("the model that plays the scenarios' simulated users: `local`, "
                              "or a model of the judge's endpoint (default: `simulator` in "
                              "evaldsl.toml)"))
    group.add_argument("--trials", type=_trials, default=1, metavar="K",
                       help=_("play each scenario K times (each transcript keeps its `trial`), "
                              "for `pass_hat(LABEL, k)` and `pass_at(LABEL, k)`"))


def _trials(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            _("expected a whole number of at least 1, got `{text}`").format(text=text))
    return value


def report_files(args: argparse.Namespace) -> ReportFiles:
    """`-o`, `--html`, `--md`, `--junit`, `--junit-pass` as the library's `ReportFiles`."""
    return ReportFiles(args.output, args.html, args.md, args.junit, args.junit_pass)


def summary_stream(args: argparse.Namespace) -> TextIO:
    """Where the terminal summary goes: stderr when a report holds stdout."""
    return sys.stderr if report_files(args).on_stdout else sys.stdout


def report_gates(thresholds: list[Threshold], report: ReportDoc) -> int:
    """Each missed `--fail-under` or `--fail-over` said on stderr; 1 when one was missed."""
    from evaldsl.cli.exits import EXIT_FAILED, EXIT_OK
    from evaldsl.report.gates import missed_thresholds

    missed = missed_thresholds(thresholds, report)
    for line in missed:
        print(line, file=sys.stderr)
    return EXIT_FAILED if missed else EXIT_OK


def with_local_defaults(args: argparse.Namespace, config: Path | None) -> None:
    """With the built-in demo, the judge and the simulator default to the local model."""
    from evaldsl.agents.config import configured_targets
    from evaldsl.agents.demo import is_builtin

    if not is_builtin(args.target or "", configured_targets(config)):
        return
    if getattr(args, "simulator", None) is None:
        args.simulator = "local"
    if hasattr(args, "judge") and args.judge is None:
        args.judge = "local"


def check_target_flags(args: argparse.Namespace) -> None:
    """Refuse the flags of a driven run without `--target`; the built-in `demo` target's
    defaults filled in (`with_local_defaults`)."""
    from evaldsl.cli.exits import UsageError

    if args.target is not None:
        with_local_defaults(args, args.config)
        return
    for flag, value in (("--transcripts", args.transcripts), ("--simulator", args.simulator)):
        if value is not None:
            raise UsageError(_("{flag} is for a driven run; add --target NAME").format(
                flag=flag))
    if getattr(args, "trials", 1) > 1:
        raise UsageError(_("{flag} is for a driven run; add --target NAME").format(
            flag="--trials"))


def drive_of(args: argparse.Namespace) -> Any:
    """`--target` and its flags as the library's `Drive`, or None without `--target`."""
    if args.target is None:
        return None
    from evaldsl.run.driving import Drive

    cache: dict[str, Any] = {}
    if getattr(args, "no_cache", False):
        cache["cache_enabled"] = False
    if getattr(args, "cache_dir", None) is not None:
        cache["cache_dir"] = str(args.cache_dir)
    return Drive(args.target, args.config, tuple(args.key_host), args.transcripts,
                 args.simulator, getattr(args, "trials", 1), args.seed or 0, args.resume,
                 getattr(args, "overwrite", False), cache)


SUFFIX = ".eval"


def spec_files(paths: Sequence[str]) -> tuple[list[Path], list[str]]:
    """The spec files named by `paths` (folders searched for `*.eval`), and problems."""
    files: list[Path] = []
    problems: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(_walk(path))
            if not found:
                problems.append(
                    _("no `{SUFFIX}` files under `{raw}`").format(SUFFIX=SUFFIX, raw=raw)
                )
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            problems.append(_("`{raw}` does not exist").format(raw=raw))
    return list(dict.fromkeys(files)), problems


def _walk(folder: Path) -> Iterable[Path]:
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.endswith(SUFFIX):
                yield Path(root) / name
