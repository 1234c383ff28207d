"""The fuzz suite's budget: how many examples, and how long one may take.

The suite runs in CI on every change, so it is bounded (well under two minutes on two
cores) and derandomised: the same examples every run, so a red run is reproducible and
never a coin toss. `EVALDSL_FUZZ_EXAMPLES=2000` widens it for a longer local hunt (with
random examples then, and the failing one printed by hypothesis).

The deadline is the "nothing hangs" half of the promise: one example taking longer
than `DEADLINE` fails, and hypothesis shows it.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings

WIDENED = int(os.environ.get("EVALDSL_FUZZ_EXAMPLES", "0"))
DEADLINE = timedelta(seconds=10)


def fuzz(examples: int) -> settings:
    """Settings for one fuzz test: `examples` in CI, or the widened count."""
    return settings(max_examples=WIDENED or examples, deadline=DEADLINE,
                    derandomize=not WIDENED, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
