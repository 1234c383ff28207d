"""A driven run's parts: the agent under test driven with scenarios, for `run` and `collect`.

    drive = Drive("demo", transcripts=Path("transcripts.jsonl"))
    driving = Driving(drive, spec, deadline=None)
    failed = asyncio.run(collect(driving, driving.scenarios(paths, spec)))   # `collect`
    driving.close()

Which agent is driven is never in the spec: `target` names a `[targets.NAME]` table of
the settings file (`config`, else `./evaldsl.toml`; docs/targets.md). `Runner(drive=...)`
(`evaldsl.run.engines`) judges each conversation as it ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.errors import OptionsError
from evaldsl.i18n import _


@dataclass(frozen=True)
class Drive:
    """How to drive the agent under test: `evaldsl run --target` and `collect`'s flags."""

    target: str
    """The `[targets.NAME]` table of the settings file."""
    config: Path | None = None
    key_hosts: Sequence[str] = ()
    """`NAME=HOST`: a key the settings file names, allowed to go to HOST."""
    transcripts: Path | None = None
    """Every driven conversation appended here, as `evaldsl run` reads cases."""
    simulator: str | None = None
    """The model playing the simulated users (`local`, or a model of the judge's endpoint)."""
    trials: int = 1
    seed: int = 0
    resume: bool = False
    """A scenario the transcripts hold is not sent again."""
    overwrite: bool = False
    cache: Mapping[str, Any] = field(default_factory=dict)
    """Overrides of the answer cache for the simulator (`cache_enabled`, `cache_dir`)."""


def check_drive(drive: Drive | None, workers: int = 1) -> None:
    """What a driven run cannot do, refused before anything is sent."""
    if drive is not None and workers > 1:
        raise OptionsError(_("--target drives the agent from one process; leave out --workers"))


def trials_of(items: Iterable[Any], k: int) -> Iterator[Any]:
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


class Driving:
    """A driven run's parts: the driver, its transcripts file and the `target` tally."""

    def __init__(self, drive: Drive, spec: Any, deadline: float | None) -> None:
        from evaldsl.agents.config import load_target
        from evaldsl.agents.driver import Driver
        from evaldsl.agents.simulator_setup import make_simulator
        from evaldsl.agents.target_factory import make_target
        from evaldsl.agents.target_tally import TargetTally
        from evaldsl.agents.transcripts import Transcripts

        config = load_target(drive.target, drive.config, key_hosts=list(drive.key_hosts))
        self.drive = drive
        self.concurrency = config.concurrency
        self.trials = drive.trials
        self.tally = TargetTally(config.name, config.kind)
        self.transcripts = None
        self.simulator = None
        if drive.transcripts is not None:
            drive.transcripts.parent.mkdir(parents=True, exist_ok=True)
            self.transcripts = Transcripts(drive.transcripts, drive.resume, drive.overwrite)
        try:
            self.simulator = make_simulator(drive.simulator, drive.config, drive.seed,
                                            dict(drive.cache))
            self.driver = Driver(make_target(config), config,
                                 spec.new_report(details=False).plan, self.transcripts,
                                 deadline, self.simulator)
        except BaseException:
            self.close()
            raise

    def scenarios(self, paths: Sequence[Path], spec: Any) -> Iterator[Any]:
        from evaldsl.agents.scenarios import read_scenarios
        from evaldsl.cases.rows import CaseSchema

        return trials_of(read_scenarios(paths, CaseSchema.of(spec)), self.trials)

    def close(self) -> None:
        if self.transcripts is not None:
            self.transcripts.close()
        if self.simulator is not None:
            self.simulator.close()


def failure_reason(note: Mapping[str, Any]) -> str:
    """Why a conversation failed: the agent's failure, or the simulated user's."""
    return str(note.get("error") or (note.get("simulator") or {}).get("reason"))


async def collect(driving: Driving, scenarios: Iterable[Any],
                  failed_one: Callable[[str, str], None] | None = None) -> int:
    """Drive every scenario without judging (`evaldsl collect`), each conversation counted in
    `driving.tally` and kept in the transcripts; the number the agent failed, each passed to
    `failed_one(case id, reason)`."""
    from evaldsl.cases.bad_rows import BadRow
    from evaldsl.runtime.concurrency import run_concurrently

    async def one(item: Any) -> Any:
        if isinstance(item, BadRow):
            raise item.error()
        return await driving.driver.drive(item)

    failed = 0
    results: AsyncIterator[Any] = run_concurrently(one, scenarios, driving.concurrency)
    try:
        async for driven in results:
            driving.tally.add_note(driven.note)
            if driven.failure is not None:
                failed += 1
                if failed_one is not None:
                    failed_one(driven.case.id, failure_reason(driven.note))
    finally:
        await driving.driver.aclose()
    return failed
