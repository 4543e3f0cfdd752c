"""Verification off the event loop: a stage of its own between the solver and the store.

Verifiers of tool-backed families take seconds (a compiler, a prover); run on the event loop they would
stall every request in flight and every streamed token. `Verifier` checks responses in a thread pool
with its own concurrency limit, separate from the HTTP one. A family that overrides `verify_many` (or
`check_many`) gets its answers in batches, so one tool start serves many answers.

Cheap in-process checks run inline: a thread hop and the GIL hand-offs it causes cost more than such a
check. A family that says its checks are cheap and bounded (`inline_checks`, cascade) has them run on the
loop, untimed; other in-process checks (membership) run inline until one of them turns out slow. The
first check, which pays for the family's imports and caches, runs in a thread and is not timed. "Slow" is a moving average of the checks'
wall time (each new check weighs a quarter) above SLOW_S: one check that takes 4x SLOW_S is enough, or a
few slow ones in a row, while a cheap check that the OS preempted once on a busy machine is not (it would
send every later check to a thread: at a load of 8 on 2 cores, one weighing half did so within
seconds). Only the monotonic clock is read: thread CPU clocks and getrusage are system calls, which on
this kind of VM cost more than a cheap check.
"""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.family import Family, Hook
from core.instance import Instance
from core.verdict import Answer, Verdict

Checked = tuple[Answer, Verdict]
# Verifier.warm: a turn of the loop this short ran nothing else (an idle turn takes microseconds, one
# that writes requests or reads answers milliseconds); after this many turns it warms up anyway.
IDLE_TURN_S = 0.001
IDLE_TURNS_MAX = 1000


def overrides(family: Family, name: str) -> bool:
    """Whether the family provides its own `name` (a hook or a method), not the base class's."""
    return getattr(type(family), name, None) is not getattr(Family, name)



class Batcher:
    """Answers gathered into batches: one is sent when `batch_size` are waiting or `batch_wait_s` after
    the first, by the subclass's `_flush` (which takes it with `_take_batch`). Shared by the in-process
    verifier and the cluster's."""

    batch_size: int
    batch_wait_s: float
    _pending: list[tuple[Instance, str, asyncio.Future[Checked]]]
    _timer: asyncio.TimerHandle | None

    async def _enqueue(self, instance: Instance, response: str) -> Checked:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Checked] = loop.create_future()
        self._pending.append((instance, response, future))
        if len(self._pending) >= self.batch_size:
            self._flush()
        elif self._timer is None:
            self._timer = loop.call_later(self.batch_wait_s, self._flush)
        return await future

    def _take_batch(self) -> list[tuple[Instance, str, asyncio.Future[Checked]]]:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        return batch

    def _flush(self) -> None:
        raise NotImplementedError

class Verifier(Batcher):
    SLOW_S = 0.02
    WEIGHT = 0.25  # of each new check in the moving average

    def __init__(self, family: Family, concurrency: int | None = None, batch_size: int = 16,
                 batch_wait_s: float = 0.02) -> None:
        self.family = family
        self.concurrency = max(1, concurrency or (os.cpu_count() or 2))
        # A family's own check_many or verify_many is worth a batch (one tool start for many answers),
        # unless the family says its checks are cheap (inline_checks): a batch waits up to batch_wait_s
        # and hops to a thread, which at hundreds of requests in flight cost more than the checks.
        self.inline = bool(getattr(family, "inline_checks", False)) and not family.requires
        self.batched = not self.inline and (overrides(family, "verify_many") or overrides(family, "check_many"))
        self.threaded = bool(family.requires) or self.batched
        self._mean_s = 0.0  # moving average of inline checks' wall time
        self._warm = False  # the first check has run (see check)
        self._in_threads = 0  # warm-up checks still running in threads
        self.batch_size = max(1, batch_size)
        self.batch_wait_s = batch_wait_s
        self._executor: ThreadPoolExecutor | None = None
        self._pending: list[tuple[Instance, str, asyncio.Future[Checked]]] = []
        self._timer: asyncio.TimerHandle | None = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="sembench-verify")
        return self._executor

    async def check(self, instance: Instance, response: str) -> Checked:
        """Extract and verify one response, wherever that is cheapest for this family."""
        if self.batched:
            return await self._enqueue(instance, response)
        if not self.threaded and not self._warm:
            # The first check (and any that arrive while it runs) goes to a thread: it imports the
            # family's checking modules and fills its caches, which is not what a check costs. Timed on
            # the loop, that one check would count as slow and send every later check to a thread.
            self._in_threads += 1
            try:
                return await asyncio.get_running_loop().run_in_executor(
                    self._pool(), self.family.check, instance, response)
            finally:
                self._warm = True
                self._in_threads -= 1
        if self.inline:
            return self.family.check(instance, response)  # cheap by the family's word: not timed
        if not self.threaded:
            start = time.perf_counter()
            try:
                return self.family.check(instance, response)
            finally:
                if not self._in_threads:  # threads still checking would hold the GIL: not timed then
                    self._mean_s += (time.perf_counter() - start - self._mean_s) * self.WEIGHT
                    self.threaded = self._mean_s > self.SLOW_S
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), self.family.check, instance, response)

    async def warm(self, instance: Instance) -> None:
        """Import and run the family's checking code once, on an empty response whose verdict is thrown
        away. A run calls this once its first requests are handed to the loop: otherwise the first
        answers wait for the family's extraction and verification modules to be imported (tens of ms
        of CPU). Families with external tools only import their hooks: their checks start tools. A
        failure here is not a verdict: the real checks meet it again and record it.

        It waits for the first turn of the loop with nothing else to do (the requests written, their
        answers not back yet) and works there, on the loop. Not in a thread: a thread holding the GIL
        makes the loop wait up to a switch interval (5 ms) for each of its many short steps, and the
        first request left only once the warm-up was over (measured: ~150 ms later under load)."""
        for _ in range(IDLE_TURNS_MAX):
            start = time.perf_counter()
            await asyncio.sleep(0)  # one turn of the loop: whatever else was ready ran meanwhile
            if time.perf_counter() - start < IDLE_TURN_S:
                break
        family = self.family
        try:
            for name in ("extract", "verify"):
                hook = getattr(type(family), name, None)
                if isinstance(hook, Hook):
                    hook.resolve()
            if not family.requires:
                if self.batched:
                    family.check_many([(instance, "")])
                else:
                    family.check(instance, "")
                    # Its imports are done: the first real check need not go to a thread (see check).
                    self._warm = True
        except Exception:  # noqa: BLE001 — see the docstring
            pass

    # -- batches -----------------------------------------------------------------------------------
    def _flush(self) -> None:
        batch = self._take_batch()
        if not batch:
            return
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self._pool(), self.family.check_many, [(i, r) for i, r, _ in batch])

        def deliver(done: asyncio.Future[Any]) -> None:
            futures = [f for _, _, f in batch]
            if done.cancelled():
                for f in futures:
                    if not f.done():
                        f.cancel()
                return
            exc = done.exception()
            results = None if exc is not None else done.result()
            if exc is None and (not isinstance(results, list) or len(results) != len(futures)):
                exc = RuntimeError(f"{self.family.id}.check_many returned {len(results or [])} results "
                                   f"for {len(futures)} answers")
            for i, f in enumerate(futures):
                if f.done():
                    continue
                if exc is not None:
                    f.set_exception(exc)
                else:
                    f.set_result(results[i])  # type: ignore[index]

        work.add_done_callback(deliver)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
