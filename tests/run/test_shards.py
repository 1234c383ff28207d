"""Shards: the states of any split of the cases, merged in any order, are the whole run's."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.api import load, loads
from evaldsl.cases.loading import load_cases
from evaldsl.cases.rows import CaseSchema
from evaldsl.report.json_report import cost_dict, metric_entry
from evaldsl.report.layout import layout_of
from evaldsl.run.shards import ShardState, run_shard

CASES = 90
EXTRA = """
metric p90_short = percentile(short, 90)
metric shortest = min(short)
metric greeted = count(greets)
"""


def report_of(state: ShardState) -> dict[str, Any]:
    """Everything report.json and the API's `Report` say about the cases of `state`."""
    metrics = [metric_entry(m) for m in state.report.metrics.values()]
    built = state.builder.build(metrics, cost_dict(state.stats), [], 0)
    return {"report": state.report.to_dict(), **built.to_dict()}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> SimpleNamespace:
    folder = tmp_path_factory.mktemp("shards")
    spec_path = folder / "runner.eval"
    spec_path.write_text(kit.SPEC + EXTRA, encoding="utf-8")
    kit.write_cases(folder / "cases.jsonl", CASES)
    spec = load(spec_path)
    layout = layout_of(spec.source, str(spec_path))
    cases = list(load_cases(folder / "cases.jsonl", CaseSchema.of(spec)))
    rows, whole = run_shard(spec, layout, cases)
    return SimpleNamespace(spec=spec, layout=layout, cases=cases, rows=rows,
                           whole=report_of(whole))


@settings(max_examples=30, deadline=None)
@given(cuts=st.lists(st.integers(0, CASES), max_size=4), seed=st.integers(0, 2**16))
def test_merged_shards_give_the_report_of_one_process(world: SimpleNamespace, cuts: list[int],
                                                      seed: int) -> None:
    """Shuffled cases cut anywhere, each shard's state sent as bytes, merged in any order."""
    rnd = random.Random(seed)
    cases = list(world.cases)
    rnd.shuffle(cases)
    bounds = [0, *sorted(cuts), CASES]
    states = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        _, state = run_shard(world.spec, world.layout, cases[start:end])
        states.append(ShardState.loads(state.dumps(), world.spec, world.layout))
    rnd.shuffle(states)
    merged = states[0]
    for state in states[1:]:
        merged = merged.merge(state)
    assert report_of(merged) == world.whole


def test_rows_come_in_input_order(world: SimpleNamespace) -> None:
    """`run_shard` gives one row per case, in the order of the cases."""
    assert [row.id for row in world.rows] == [case.id for case in world.cases]


def test_a_state_loads_only_into_a_spec_with_the_same_metrics(
        world: SimpleNamespace, tmp_path: Path, kit: Any) -> None:
    """The formulas come from the receiving spec; a spec without the metric cannot take it."""
    _, state = run_shard(world.spec, world.layout, world.cases[:3])
    other = loads(kit.SPEC.replace("metric avg_short", "metric mean_short"), name="other.eval")
    with pytest.raises(pickle.UnpicklingError, match="names `\\('metric', 'avg_short'\\)`"):
        ShardState.loads(state.dumps(), other, layout_of(other.source, "other.eval"))
