"""`evaldsl watch SPEC`: judge finished sessions as they arrive, fire the spec's alerts.

    evaldsl watch spec.eval --follow sessions/ --state watch-state --port 8765 \\
        --webhook http://127.0.0.1:9000/hook --alerts alerts.jsonl

Sessions come from `--follow` (a JSONL file or a folder of them, read from
the start and then as they grow) and from `POST /sessions` on `--host`
(127.0.0.1 unless told otherwise) and `--port`. The journal in `--state`
holds every judged session and fired alert, so the watch can be stopped in
any way and started again with the same `--state` (docs/watch.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaldsl.i18n import _


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("watch", help=_("judge sessions as they arrive and fire alerts"),
                              description=_("Judge each finished session as it arrives, keep "
                                            "windowed reports and fire the spec's alerts."))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("--follow", type=Path, action="append", default=[], metavar="FILE_OR_DIR",
                   help=_("a JSONL file, or a folder of them, to read sessions from as it grows"))
    p.add_argument("--state", type=Path, required=True, metavar="DIR",
                   help=_("the folder of the watch journal, kept across restarts"))
    p.add_argument("--host", default="127.0.0.1", help=_("the address to listen on"))
    p.add_argument("--port", type=int, default=None,
                   help=_("serve POST /sessions and GET /report on this port"))
    p.add_argument("--alerts", type=Path, default=None, metavar="FILE",
                   help=_("append fired alerts to this JSONL file"))
    p.add_argument("--webhook", action="append", default=[], metavar="URL",
                   help=_("POST each fired alert as JSON to this URL"))
    p.add_argument("--review", type=Path, default=None, metavar="STORE",
                   help=_("queue the sessions the review block draws, or an alert fires on, "
                          "in this review store (.db)"))
    p.add_argument("--quiet", action="store_true",
                   help=_("do not print fired alerts on standard output"))
    p.add_argument("--session-idle", type=_idle, default=180.0, metavar="DURATION",
                   help=_("judge a conversation posted to /v1/traces once no span of it has "
                          "come for this long (default: 3m)"))
    p.add_argument("--judge-sample", type=judge_sample, default=1.0, metavar="SHARE",
                   help=_("run model checks on this share of the sessions, drawn by a hash "
                          "of the session id (e.g. 10%%; default: all); deterministic "
                          "checks run on every session"))
    p.add_argument("--judge-budget", type=judge_budget, default=None, metavar="N/h",
                   help=_("model-judge at most N sessions per hour of arrival; beyond it a "
                          "session's model checks are skipped and counted (default: no limit)"))
    p.add_argument("--poll", type=float, default=0.1, metavar="SECONDS",
                   help=_("how often followed files are read for new lines"))


def run(args: argparse.Namespace) -> int:
    from evaldsl.api import load
    from evaldsl.watch.serving import Watch

    watch = Watch(args.state, tuple(args.follow), args.host, args.port, args.alerts,
                  tuple(args.webhook), args.quiet, args.session_idle, args.poll,
                  args.judge_sample, args.judge_budget)
    watch.check()
    spec = load(args.spec)
    review = _review(args.review, spec)
    try:
        watch.serve(spec, review, _announce)
    finally:
        if review is not None:
            review.close()
    return 0


def _announce(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _idle(text: str) -> float:
    from evaldsl.cli.flags import parse_duration

    return parse_duration(text)


def judge_sample(text: str) -> float:
    """`10%` or `0.1`: the share of sessions model checks run on, above 0 and at most 1."""
    spelled = text.strip()
    try:
        share = float(spelled[:-1]) / 100 if spelled.endswith("%") else float(spelled)
    except ValueError:
        share = -1.0
    if not 0.0 < share <= 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(
            _("expected a share such as `10%` or `0.1` (above 0, at most 100%), got `{text}`")
            .format(text=text))
    return share


def judge_budget(text: str) -> int:
    """`100/h` or `100`: model-judged sessions per hour, a whole number of at least 0."""
    spelled = text.strip().lower().replace(" ", "")
    for unit in ("/hour", "/h"):
        spelled = spelled.removesuffix(unit)
    if not spelled.isascii() or not spelled.isdigit():
        raise argparse.ArgumentTypeError(
            _("expected model-judged sessions per hour such as `100/h`, got `{text}`")
            .format(text=text))
    return int(spelled)


def _review(path: Path | None, spec: Any) -> Any:
    """The review store's feed, or None: flagged sessions then stay in the journal only."""
    if path is None:
        return None
    from evaldsl.review.feed import StoreFeed
    from evaldsl.review.store import open_store

    return StoreFeed(open_store(path), spec)
