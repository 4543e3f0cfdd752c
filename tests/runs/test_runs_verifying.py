"""Verification is a stage of its own: off the event loop, its own concurrency, batches for verify_many."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import pytest
from runs_support import real_family

from core.family import Family, get_family
from core.instance import Instance
from core.runner.verifying import Verifier, overrides
from core.verdict import Answer, Verdict


class ThreadNoting(Family):
    """Not registered: a family whose check reports the thread it ran on and can be made slow."""

    id = "thread-noting"
    delay = 0.0

    def check(self, instance: Instance, response: str) -> tuple[Answer, Verdict]:
        if self.delay:
            time.sleep(self.delay)
        verdict = Verdict(correct=True, score=1.0, status="ok", details={"thread": threading.get_ident()})
        return Answer.success(response), verdict


class Batching(ThreadNoting):
    id = "batching"
    batches: list[int] = []

    def check_many(self, items: Sequence[tuple[Instance, str]]) -> list[tuple[Answer, Verdict]]:
        self.batches.append(len(items))
        return [self.check(i, r) for i, r in items]


INSTANCE = Instance(id="x", family="thread-noting")


async def test_cheap_checks_run_inline_until_one_is_slow() -> None:
    family = ThreadNoting()
    verifier = Verifier(family)
    here = threading.get_ident()
    try:
        _, first = await verifier.check(INSTANCE, "warm")  # the first check warms up, in a thread
        assert first.details["thread"] != here and not verifier.threaded
        _, fast = await verifier.check(INSTANCE, "a")
        assert fast.details["thread"] == here and not verifier.threaded
        family.delay = Verifier.SLOW_S * 5
        _, slow = await verifier.check(INSTANCE, "b")
        assert slow.details["thread"] == here and verifier.threaded
        family.delay = 0.0
        _, after = await verifier.check(INSTANCE, "c")
        assert after.details["thread"] != here, "from then on, checks run in a worker thread"
    finally:
        verifier.close()


async def test_a_slow_verifier_never_blocks_the_event_loop() -> None:
    family = ThreadNoting()
    family.delay = 0.6
    verifier = Verifier(family, concurrency=4)
    verifier.threaded = True  # as for a tool-backed family
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        start = time.perf_counter()
        results = await asyncio.gather(*(verifier.check(INSTANCE, str(i)) for i in range(4)))
        elapsed = time.perf_counter() - start
    finally:
        task.cancel()
        verifier.close()
    assert all(v.correct for _, v in results)
    assert ticks >= 20, f"the loop ran only {ticks} ticks while verification took {elapsed:.1f} s"
    assert elapsed < 4 * 0.6, "four checks with concurrency 4 ran one after another"


async def test_families_with_check_many_get_batches() -> None:
    family = Batching()
    family.batches = []
    assert overrides(family, "check_many") and not overrides(ThreadNoting(), "check_many")
    verifier = Verifier(family, batch_size=5, batch_wait_s=0.05)
    try:
        results = await asyncio.gather(*(verifier.check(INSTANCE, str(i)) for i in range(12)))
    finally:
        verifier.close()
    assert [a.value for a, _ in results] == [str(i) for i in range(12)]  # each answer gets its own result back
    assert sum(family.batches) == 12 and max(family.batches) == 5 and len(family.batches) == 3


async def test_hooked_verify_many_counts_as_an_override() -> None:
    toy = get_family("toysum")
    assert not overrides(toy, "verify_many")  # the toy family verifies one at a time
    assert overrides(toy, "verify")


async def _after_one_slow_check(family: ThreadNoting, delay: float) -> tuple[Verifier, int]:
    """Check a warm-up answer, one that takes `delay`, then a quick one: the verifier, and the thread the
    quick one ran on."""
    verifier = Verifier(family)
    try:
        await verifier.check(INSTANCE, "warm")
        family.delay = delay
        await verifier.check(INSTANCE, "slow")
        family.delay = 0.0
        _, after = await verifier.check(INSTANCE, "c")
    finally:
        verifier.close()
    return verifier, after.details["thread"]


class Clock:
    """What the verifier reads as `time.perf_counter`: only the checks below move it."""

    now = 0.0

    def perf_counter(self) -> float:
        return self.now


class Clocked(ThreadNoting):
    """Its checks take exactly `delay` on the verifier's clock: a loaded machine cannot add to it (with
    a real sleep, a check of 3x SLOW_S that the OS woke 20 ms late counted as slow, and the test failed in
    a full suite run)."""

    id = "clocked"
    clock = Clock()

    def check(self, instance: Instance, response: str) -> tuple[Answer, Verdict]:
        self.clock.now += self.delay
        verdict = Verdict(correct=True, score=1.0, status="ok", details={"thread": threading.get_ident()})
        return Answer.success(response), verdict


async def test_one_check_preempted_does_not_send_every_check_to_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheap check that the OS preempted (or that waited for the GIL) once, for 3x SLOW_S, is not a
    slow family: the checks stay inline (before, one such check sent every later one to a thread)."""
    import core.runner.verifying as verifying

    family = Clocked()
    monkeypatch.setattr(verifying, "time", family.clock)
    verifier, thread = await _after_one_slow_check(family, Verifier.SLOW_S * 3)
    assert not verifier.threaded and thread == threading.get_ident()
    # ...while three such checks in a row are a slow family: the clock does measure them
    verifier = Verifier(family)
    try:
        await verifier.check(INSTANCE, "warm")
        family.delay = Verifier.SLOW_S * 3
        for n in range(3):
            await verifier.check(INSTANCE, str(n))
    finally:
        verifier.close()
    assert verifier.threaded


class SlowFirst(ThreadNoting):
    """A family whose first check is slow (it imports its modules, fills caches), the others cheap."""

    id = "slow-first"
    checked = 0

    def check(self, instance: Instance, response: str) -> tuple[Answer, Verdict]:
        self.checked += 1
        self.delay = Verifier.SLOW_S * 3 if self.checked == 1 else 0.0
        return super().check(instance, response)


async def test_a_slow_first_check_does_not_send_every_check_to_a_thread() -> None:
    """The first check pays for imports and caches: it runs in a thread, untimed, and the cheap checks
    after it run inline (before, it was timed on the loop and every later check went to a thread)."""
    family = SlowFirst()
    verifier = Verifier(family)
    here = threading.get_ident()
    try:
        _, first = await verifier.check(INSTANCE, "a")
        assert first.details["thread"] != here
        later = [v for _, v in await asyncio.gather(*(verifier.check(INSTANCE, str(i)) for i in range(5)))]
    finally:
        verifier.close()
    assert not verifier.threaded
    assert all(v.details["thread"] == here for v in later)


class InlineBatching(Batching):
    id = "inline-batching"
    inline_checks = True


async def test_inline_checks_are_not_batched_even_with_check_many() -> None:
    """A family with cheap checks (inline_checks, as cascade) whose check_many is only a faster loop:
    each answer is checked as it arrives, on the loop, never held for a batch."""
    family = InlineBatching()
    family.batches = []
    verifier = Verifier(family, batch_size=5, batch_wait_s=0.05)
    here = threading.get_ident()
    try:
        await verifier.check(INSTANCE, "warm")
        results = await asyncio.gather(*(verifier.check(INSTANCE, str(i)) for i in range(12)))
    finally:
        verifier.close()
    assert [a.value for a, _ in results] == [str(i) for i in range(12)]
    assert family.batches == [] and not verifier.batched and not verifier.threaded
    assert all(v.details["thread"] == here for _, v in results)


async def test_inline_checks_stay_on_the_loop_whatever_a_check_took() -> None:
    """inline_checks is the family's word that its checks are cheap and bounded: a check that took long
    (a busy machine, the GIL held elsewhere) does not send the next ones to a thread."""
    verifier, thread = await _after_one_slow_check(InlineBatching(), Verifier.SLOW_S * 5)
    assert thread == threading.get_ident() and not verifier.threaded


async def test_cascade_answers_are_checked_inline_with_the_same_verdicts() -> None:
    """cascade says its checks are cheap: a run checks its answers on the loop, and the verdicts are
    the family's own (check and check_many alike)."""
    family = real_family()
    if family is None or family.id != "cascade":
        pytest.skip("cascade cannot generate here")
    assert family.inline_checks
    params = family.resolve_params(sorted(family.presets())[0])
    instances = [family.generate_one(params, 0, i) for i in range(4)]
    replies = [family.oracle_response(i) for i in instances] + ["no idea"] * 4
    pairs = list(zip(instances * 2, replies, strict=True))
    verifier = Verifier(family)
    try:
        checked = [await verifier.check(i, r) for i, r in pairs]
    finally:
        verifier.close()
    assert not verifier.batched and not verifier.threaded
    expected = family.check_many(pairs)
    assert [(a.model_dump(), v.model_dump()) for a, v in checked] == \
        [(a.model_dump(), v.model_dump()) for a, v in expected]
    assert [v.correct for _, v in checked] == [True] * 4 + [False] * 4
