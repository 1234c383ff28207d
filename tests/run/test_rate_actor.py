"""The judge gate of a Ray run (`evaldsl.run.rate_actor.RateGate`), driven in one event
loop as its actor drives it: a holder that falls silent (its process died) gives back the
permits it held and those it was still waiting for within its silence, not a lease each."""

from __future__ import annotations

import asyncio
import time

from evaldsl.run.rate_actor import NO_PERMIT, RateGate


async def keep_alive(gate: RateGate, holder: str) -> None:
    while True:
        await gate.alive(holder)
        await asyncio.sleep(0.1)


def test_a_silent_holders_permits_and_waits_come_back_within_its_silence() -> None:
    """2 permits held and 4 requests waiting by a holder that then says nothing: a live
    holder's request gets a permit about a second after the silence, though the lease is a
    minute; the dead holder's late requests get none."""
    async def scenario() -> tuple[float, list[int], int, int]:
        gate = RateGate(2, None, lease=60.0, silence=0.5)
        held = [await gate.acquire("dead") for _ in range(2)]
        waiting = [asyncio.create_task(gate.acquire("dead")) for _ in range(4)]
        beating = asyncio.create_task(keep_alive(gate, "alive"))
        started = time.monotonic()
        mine = await asyncio.wait_for(gate.acquire("alive"), timeout=20)
        took = time.monotonic() - started
        late = [await w for w in waiting]
        beating.cancel()
        assert NO_PERMIT not in held
        return took, late, mine, await gate.most_out()

    took, late, mine, peak = asyncio.run(scenario())
    assert mine != NO_PERMIT
    assert took < 10, f"a live holder waited {took:.1f} s for a dead one's permits"
    assert late == [NO_PERMIT] * 4
    assert peak == 2


def test_a_holder_found_silent_that_speaks_again_gets_permits_again() -> None:
    async def scenario() -> tuple[int, int]:
        gate = RateGate(1, None, lease=60.0, silence=0.2)
        first = await gate.acquire("slow")
        await asyncio.sleep(1.5)  # found gone: its permit is taken back
        again = await asyncio.wait_for(gate.acquire("slow"), timeout=10)
        await gate.release(first)  # given back late: not given twice
        return again, await gate.most_out()

    again, peak = asyncio.run(scenario())
    assert again != NO_PERMIT and peak == 1
