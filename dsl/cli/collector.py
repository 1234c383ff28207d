"""The cycle collector held while `evaldsl run` starts, and kept off what the start built.

Starting a run imports some 300 modules, then checks and compiles the spec: about 40,000
objects that live as long as the process (classes, functions, pydantic's schemas, the
compiled spec) and a few hundred that are garbage. The collector, set off by every 700
allocations, walks them some 70 times while they are built, its older generations walk
them again while the cases are judged, and Python's last collection at exit walks them
once more: 20-30 ms of CPU, more than a tenth of a run's fixed cost. Held through the
start, then `gc.freeze()`: what the start built moves to the permanent generation, which
no collection walks, and the collections while the cases are judged see only theirs.

Only the program itself does this (`main` with the command line of the process, which
ends when the verb returns). A process that calls `main` in turn (tests) would keep in the
permanent generation whatever cyclic garbage it had when a run began; there nothing is
held or frozen.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_ends_process = [False]
"""Whether the verb that runs is the last thing the process does (`main` without argv)."""


def ends_process(ends: bool) -> None:
    """Say whether the process ends when the verb returns; `main` says it for each verb."""
    _ends_process[0] = ends


@contextmanager
def held_until_begun() -> Iterator[Callable[[], None]]:
    """No cycle collection in the block until the `begin` it gives is called; from then the
    objects made before are frozen and collection runs again. Nothing changes unless the
    process ends with the verb, the collector was on and nothing was frozen before."""
    if not (_ends_process[0] and gc.isenabled() and gc.get_freeze_count() == 0):
        yield _nothing
        return
    begun: list[bool] = []

    def begin() -> None:
        if not begun:
            begun.append(True)
            gc.freeze()
            gc.enable()

    gc.disable()
    try:
        yield begin
    finally:
        gc.enable()


def _nothing() -> None:
    """`begin` where nothing was held."""
