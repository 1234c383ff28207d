"""What `run --target` and `collect` share: the flags, and the driver they build.

Which agent is driven is never in the spec: `--target NAME` names a `[targets.NAME]` table
of the settings file (`--config`, else `./evaldsl.toml`; docs/targets.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import UsageError
from evaldsl.i18n import _


def trials_of(items: Any, k: int) -> Any:
    """Each scenario `k` times, the `trial` field 1..k and the row `file:line#trial`, so the
    transcripts and the journal tell the trials apart (bad rows pass once)."""
    from dataclasses import replace

    from evaldsl.cases.case import Case

    for item in items:
        if k == 1 or not isinstance(item, Case):
            yield item
            continue
        for trial in range(1, k + 1):
            yield replace(item, origin=f"{item.origin}#{trial}",
                          fields={**item.fields, "trial": trial})


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
    """Refuse, before anything is sent, what a driven run cannot do; the built-in `demo`
    target's defaults filled in (`evaldsl.agents.demo`)."""
    if args.target is not None:
        with_local_defaults(args, args.config)
    if args.target is None:
        for flag, value in (("--transcripts", args.transcripts),
                            ("--simulator", args.simulator)):
            if value is not None:
                raise UsageError(_("{flag} is for a driven run; add --target NAME").format(
                    flag=flag))
        if getattr(args, "trials", 1) > 1:
            raise UsageError(_("{flag} is for a driven run; add --target NAME").format(
                flag="--trials"))
        return
    if getattr(args, "workers", 1) > 1:
        raise UsageError(_("--target drives the agent from one process; leave out --workers"))


class Driving:
    """A driven run's parts: the driver, its transcripts file and the `target` tally."""

    def __init__(self, args: argparse.Namespace, spec: Any, deadline: float | None) -> None:
        from evaldsl.agents.config import load_target
        from evaldsl.agents.driver import Driver
        from evaldsl.agents.factory import make_target
        from evaldsl.agents.simulator_setup import make_simulator
        from evaldsl.agents.tally import TargetTally
        from evaldsl.agents.transcripts import Transcripts

        config = load_target(args.target, args.config, key_hosts=args.key_host)
        self.concurrency = config.concurrency
        self.trials: int = getattr(args, "trials", 1)
        self.tally = TargetTally(config.name, config.kind)
        self.transcripts = None
        self.simulator = None
        if args.transcripts is not None:
            args.transcripts.parent.mkdir(parents=True, exist_ok=True)
            self.transcripts = Transcripts(args.transcripts, args.resume, args.overwrite)
        try:
            self.simulator = make_simulator(args.simulator, args.config, args.seed or 0,
                                            _cache_overrides(args))
            self.driver = Driver(make_target(config), config,
                                 spec.new_report(details=False).plan, self.transcripts,
                                 deadline, self.simulator)
        except BaseException:
            self.close()
            raise

    def scenarios(self, paths: list[Path], spec: Any) -> Any:
        from evaldsl.agents.scenarios import read_scenarios
        from evaldsl.cases.rows import CaseSchema

        return trials_of(read_scenarios(paths, CaseSchema.of(spec)), self.trials)

    def close(self) -> None:
        if self.transcripts is not None:
            self.transcripts.close()
        if self.simulator is not None:
            self.simulator.close()


def _cache_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """`--no-cache` and `--cache-dir`, for the simulator's answers as for the judges'."""
    overrides: dict[str, Any] = {}
    if getattr(args, "no_cache", False):
        overrides["cache_enabled"] = False
    if getattr(args, "cache_dir", None) is not None:
        overrides["cache_dir"] = str(args.cache_dir)
    return overrides
