"""Chunks sent to the cluster and their results handed back, once each, from one watcher thread.

Callers (the `verify` command, a run's verifier) send chunks with a callback; the watcher thread waits
on Dask's `as_completed` and calls the callback with one result per answer of the chunk: an
(Answer, Verdict) pair, or a string saying why there is none (an error naming the instance). Results of
a chunk are taken when its future completes and never again, so nothing is recorded twice.

A family with parts (specs: each mutant of completeness) gets its chunk's answers back with the parts
still to run: each part is a task of its own, and the chunk is delivered once every part is back, its
verdicts finished by the family's `finish_parts` (the verdicts an in-process check gives)."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.cluster.remote import decode_checked
from core.cluster.session import LOST_AFTER_S, POLL_S, ClusterLost, ClusterSession
from core.errors import EnvironmentFault, UserError
from core.family import Family
from core.instance import Instance
from core.verdict import Answer, Verdict

Result = tuple[Answer, Verdict] | str
Deliver = Callable[[list[Result] | BaseException], None]


@dataclass
class _Task:
    answers: int  # answers the task carries (a part carries none of its own)
    on_done: Callable[[Any], None]  # called on the watcher thread with the completed future
    deliver: Deliver  # where a failure goes


class Dispatcher:
    def __init__(self, session: ClusterSession, family: Family, tool_cache: Any = None) -> None:
        from distributed import as_completed

        self.session = session
        self.family = family
        self.tool_cache = tool_cache  # the driver's ToolCache: the workers' tool results are written here
        self._ac = as_completed()
        self._pending: dict[Any, _Task] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.failure: BaseException | None = None
        self.done = 0  # answers delivered
        self.tasks_done = 0
        self._thread: threading.Thread | None = None
        # A batch that keeps every verdict (`sembench verify`) freezes what it has read: the cyclic GC's
        # full collections would scan the growing heap of verdicts again and again (a third of the
        # driver's CPU at 40,000 cascade answers). Unfrozen at close.
        self.freeze_results = False
        self._frozen = False
        session.dispatcher = self

    # -- sending -------------------------------------------------------------------------------------
    def send(self, items: Sequence[tuple[Instance, str]], deliver: Deliver) -> None:
        items = list(items)
        if self.failure is not None:
            deliver(self.failure)
            return
        future = self.session.submit(self.family, items)
        self._track(future, _Task(len(items), lambda f: self._chunk_done(f, items, deliver), deliver))

    def _track(self, future: Any, task: _Task) -> None:
        with self._lock:
            self._pending[future] = task
        self._ac.add(future)
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="sembench-cluster", daemon=True)
            self._thread.start()

    def in_flight(self) -> dict[str, int]:
        """Key of each task in flight -> the answers it carries."""
        with self._lock:
            return {f.key: task.answers for f, task in self._pending.items()}

    def status(self) -> Any:
        return self.session.refresh(self.in_flight(), self.done, self.tasks_done)

    # -- watching ------------------------------------------------------------------------------------
    def _watch(self) -> None:
        lost_since: float | None = None
        while not self._closed:
            batch = self._ac.next_batch(block=False) if self._ac.has_ready() else []
            self.session.poll()
            self.session.record_progress(self)
            if not batch:
                if self.session.alive():
                    lost_since = None
                else:
                    # The client cancels every future as soon as it loses the scheduler (as_completed does
                    # not report them): that, or no scheduler for LOST_AFTER_S, ends the run.
                    lost_since = lost_since or time.monotonic()
                    with self._lock:
                        cancelled = any(f.status == "cancelled" for f in self._pending)
                    if cancelled or time.monotonic() - lost_since >= LOST_AFTER_S:
                        self._fail(ClusterLost(f"lost the Dask scheduler at {self.session.address}"))
                        return
                time.sleep(POLL_S)
                continue
            for future in batch:
                with self._lock:
                    task = self._pending.pop(future, None)
                if task is None:
                    continue
                self.tasks_done += 1
                try:
                    task.on_done(future)
                except BaseException as exc:  # the cluster is gone (or a callback failed): nobody waits on
                    self._fail(exc, task.deliver)
                    return

    def _chunk_done(self, future: Any, items: list[tuple[Instance, str]], deliver: Deliver) -> None:
        from distributed import KilledWorker

        if future.status == "finished":
            out = future.result()
            self._record_tools(out.get("tool_results", []))
            results: list[Result] = list(decode_checked(out))
            if self.freeze_results:
                gc.freeze()
                self._frozen = True
            if out.get("parts"):
                self._run_parts(items, results, out["parts"], deliver)
                return
            self.done += len(results)
            deliver(results)
            return
        if future.status == "cancelled":
            if not self.session.alive():
                raise ClusterLost(f"lost the Dask scheduler at {self.session.address}")
            self.send(items, deliver)  # cancelled by someone else: send it again
            return
        exc = future.exception()
        if isinstance(exc, KilledWorker):
            if len(items) > 1:  # find the answer at fault: each one alone
                collected: list[Result | None] = [None] * len(items)
                left = [len(items)]
                lock = threading.Lock()

                def part(i: int) -> Deliver:
                    def got(result: list[Result] | BaseException) -> None:
                        if isinstance(result, BaseException):
                            deliver(result)
                            return
                        with lock:
                            collected[i] = result[0]
                            left[0] -= 1
                            finished = left[0] == 0
                        if finished:
                            deliver(list(collected))  # type: ignore[arg-type]
                    return got

                for i, item in enumerate(items):
                    self.send([item], part(i))
                return
            instance = items[0][0]
            self.done += 1
            deliver([f"cluster: checking instance {instance.id} killed the worker running it "
                     f"{1 + self.session.allowed_failures} times"])
            return
        self._raise_if_unfit(exc)
        fault = _environment_fault(exc)
        if fault is not None:  # the worker's machine failed, not the answers: none of them is checked
            deliver(fault)
            return
        message = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:500]
        self.done += len(items)
        deliver([message] * len(items))

    @staticmethod
    def _raise_if_unfit(exc: BaseException | None) -> None:
        if type(exc).__name__ == "WorkerMismatch":
            raise UserError(f"refused worker: {' '.join(str(exc).split())}")

    # -- parts ---------------------------------------------------------------------------------------
    def _run_parts(self, items: list[tuple[Instance, str]], results: list[Result], parts: dict[int, dict[str, Any]],
                   deliver: Deliver) -> None:
        """Each part of each answer as a task of its own; the chunk is delivered when all are back."""
        outcomes: dict[int, list[Any]] = {int(i): [None] * len(p["parts"]) for i, p in parts.items()}
        failed: dict[int, str] = {}
        left = [sum(len(p["parts"]) for p in parts.values())]
        lock = threading.Lock()
        faulted = [False]

        def record(i: int, j: int, value: Any, error: str | BaseException | None) -> None:
            with lock:
                if isinstance(error, BaseException):  # an error of a worker's machine: the chunk stops
                    first, faulted[0] = not faulted[0], True
                    if first:
                        deliver(error)
                    return
                if error is not None:
                    failed.setdefault(i, error)
                else:
                    outcomes[i][j] = value
                left[0] -= 1
                if left[0] or faulted[0]:
                    return
            for k, p in parts.items():
                k = int(k)
                if k in failed:
                    results[k] = failed[k]
                else:
                    answer, verdict = results[k]  # type: ignore[misc]
                    results[k] = (answer, self.family.finish_parts(items[k][0], verdict, p["plan"], outcomes[k]))
            self.done += len(results)
            deliver(results)

        for i, p in parts.items():
            for j, part in enumerate(p["parts"]):
                self._send_part(items[int(i)][0], part, lambda v, e, i=int(i), j=j: record(i, j, v, e), deliver)

    def _send_part(self, instance: Instance, part: Any, record: Callable[[Any, str | BaseException | None], None],
                   deliver: Deliver) -> None:
        future = self.session.submit_part(self.family, part)
        self._track(future, _Task(0, lambda f: self._part_done(f, instance, part, record, deliver), deliver))

    def _part_done(self, future: Any, instance: Instance, part: Any, record: Callable[[Any, str | BaseException | None], None],
                   deliver: Deliver) -> None:
        from distributed import KilledWorker

        if future.status == "finished":
            out = future.result()
            self._record_tools(out.get("tool_results", []))
            record(out["result"], None)
            return
        if future.status == "cancelled":
            if not self.session.alive():
                raise ClusterLost(f"lost the Dask scheduler at {self.session.address}")
            self._send_part(instance, part, record, deliver)
            return
        exc = future.exception()
        if isinstance(exc, KilledWorker):
            record(None, f"cluster: checking a part of instance {instance.id} killed the worker running it "
                         f"{1 + self.session.allowed_failures} times")
            return
        self._raise_if_unfit(exc)
        record(None, _environment_fault(exc) or f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:500])

    def _record_tools(self, rows: list[Any]) -> None:
        if self.tool_cache is None or not rows:
            return
        from core.tools.process import ToolResult

        for key, tool, version, result in rows:
            self.tool_cache.put(key, tool, version, ToolResult.model_validate_json(result))

    def _fail(self, exc: BaseException, also: Deliver | None = None) -> None:
        self.failure = exc
        with self._lock:
            waiting, self._pending = [t.deliver for t in self._pending.values()], {}
        told: set[int] = set()
        for deliver in [also, *waiting] if also is not None else waiting:
            if id(deliver) in told:  # a chunk waiting on several parts is told once
                continue
            told.add(id(deliver))
            try:
                deliver(exc)
            except Exception:
                pass

    def close(self) -> None:
        self._closed = True
        with self._lock:
            futures = list(self._pending)
        for future in futures:
            future.cancel()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
        self.session.record_progress(self, final=True)


def _environment_fault(exc: BaseException | None) -> EnvironmentFault | None:
    """A worker's EnvironmentFault (remote.WorkerEnvironmentFault) as the driver's own: a run stops on it and
    keeps the attempts it hit apart (core.store.envfaults), `verify` stops with it, as in-process."""
    if type(exc).__name__ != "WorkerEnvironmentFault":
        return None
    return EnvironmentFault(" ".join(str(exc).split()))
