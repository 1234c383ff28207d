"""Flags more than one verb takes, and the argparse types that read them.

Command-line parsing only: each type turns a word into a value or an
`argparse.ArgumentTypeError` worded for the user; what the value then means is the
library's (`evaldsl.report.gates` for `--fail-under`, `evaldsl.run.engines` for the run's
options). Imported by the verbs of `evaldsl.cli` and nothing else.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from evaldsl.errors import OptionsError
from evaldsl.i18n import _
from evaldsl.report.gates import Threshold, parse_threshold


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
