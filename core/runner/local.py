"""Runs of local solvers (baseline, oracle, a family's extras) in chunks, not one attempt at a time.

Why: a local attempt is 0.1-2 ms of CPU. Run like a model's attempts (a few workers, each solving one
attempt in a thread, checking it through the verifier's batches and waiting for its previous attempt's
commit before handing over the next) a run spent its time waiting on the writer's 10 ms group-commit
window and the verifier's 20 ms batch window: ~160 attempts/s at ~20% of one core. Here a chunk of
(instance, sample) pairs is solved, checked and turned into rows in one go off the event loop, handed
to the writer as one group, and the next chunks are worked on while it commits.

What is recorded is what the per-attempt path records (the same fields, verdicts and error records;
tests/runs/test_runs_local_chunks.py compares them), and the writer's contract holds: an attempt is
acknowledged (counted, shown, skipped by a resume) only once its chunk's transaction has committed, so a
kill -9 loses only chunks in flight, none of them acknowledged, and a resume redoes exactly those.

Where the work runs: one worker thread (the event loop stays free for the TUI and signals), or, once a
run is known to hold more than POOL_AFTER_S of work in pairs of at least POOL_MIN_ITEM_S each and the
machine has several cores, a pool of worker processes (the family and the solver's name are sent once to each; a family that cannot be pickled, e.g.
one patched in a test, stays in the thread). Families with external tools (`requires`) keep the
per-attempt path: their work is in the tools' processes, which the verifier already runs in parallel.
SEMBENCH_LOCAL_CHUNKS=0 selects the per-attempt path (benchmarks compare the two);
SEMBENCH_LOCAL_PROCESSES=N forces a pool of N processes (0: never).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor  # processes, pickle: imported when a pool starts
from typing import Any

from core.attempts import AttemptRecord, record_from
from core.canonical import canonical_json, storable
from core.errors import EnvironmentFault
from core.family import Family
from core.instance import Instance
from core.runner.verifying import overrides
from core.solver_base import SolveResult
from core.solvers import LocalSolver, Solver
from core.store import now_iso
from core.store.log import attempt_columns
from core.trace import Prompt

CHUNK_S = 0.05  # work per chunk: long enough to amortise a hand-over, short enough for smooth progress
FIRST_CHUNK = 4
MAX_CHUNK = 512
FIRST_WINDOW = 8  # pairs given out before the first commit is seen (see run_chunks)
MAX_WINDOW = 8 * MAX_CHUNK
POOL_AFTER_S = 3.0  # a pool's start (~0.5-1 s of imports per process) pays off beyond this much work
# ... and only for work per pair well above what sending a pair and its record between processes costs
# in this one: a membership instance pickles and unpickles in ~2 ms, its attempt ~0.4 ms, while solving
# and checking it takes ~0.5 ms, so a pool made membership runs slower, never faster.
POOL_MIN_ITEM_S = 0.01
ORPHAN_POLL_S = 0.5

Done = list[tuple[AttemptRecord, dict[str, Any]]]


def chunked(solver: Solver, family: Family, verifier: Any) -> bool:
    """Whether this run goes through the chunked path."""
    if os.environ.get("SEMBENCH_LOCAL_CHUNKS", "1") == "0":
        return False
    return isinstance(solver, LocalSolver) and verifier is None and not family.requires


class ChunkWork:
    """Solve, check and record a chunk of (instance, sample) pairs: what `one_attempt` does for one pair
    with a LocalSolver and the in-process verifier, for many. Picklable (for worker processes) when the
    family is: the solver function is looked up by name on arrival."""

    def __init__(self, family: Family, solver: LocalSolver, *, run_id: str, snapshot: str, style: str) -> None:
        self.family = family
        self.spec = solver.spec
        self.budget_s = solver.budget_s
        self.run_id, self.snapshot, self.style = run_id, snapshot, style
        self.batched = overrides(family, "verify_many") or overrides(family, "check_many")
        self._fn: Callable[[Instance, float], str] | None = solver._fn
        self._prompts: dict[str, tuple[Prompt, dict[str, Any], str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_fn": None, "_prompts": {}}

    def __call__(self, chunk: list[tuple[Instance, int]]) -> tuple[Done, float]:
        """The chunk's attempts with their rows, and the CPU time they took (this thread's: on a busy
        machine wall time would count other processes' turns as work)."""
        start = time.thread_time()
        if self._fn is None:
            self._fn = self.family.local_solvers()[self.spec]
        solved = [self._solve(instance) for instance, _ in chunk]
        checked = self._check([(instance, s) for (instance, _), s in zip(chunk, solved, strict=True)])
        done: Done = []
        for (instance, sample), (started, prompt, result), check in zip(chunk, solved, checked, strict=True):
            if isinstance(check, Exception):
                # the verifier failed on this answer (a family bug): recorded as the per-attempt path does
                result = SolveResult(error=f"{type(check).__name__}: {' '.join(str(check).split())}",
                                     error_kind="internal")
                record = self._record(instance, sample, result, None, started, None)
            else:
                record = self._record(instance, sample, result, check, started, prompt)
            text = prompt[2] if prompt is not None and record.prompt else "{}"
            done.append((record, attempt_columns(record.row(exclude={"prompt"}), text)))
        return done, time.thread_time() - start

    def _prompt(self, instance: Instance) -> tuple[Prompt, dict[str, Any], str]:
        memo = self._prompts.get(instance.id)
        if memo is None:
            prompt = self.family.prompt(instance, self.style)
            dumped = prompt.model_dump()
            memo = self._prompts[instance.id] = (prompt, dumped, canonical_json(storable(dumped)))
        return memo

    def _solve(self, instance: Instance) -> tuple[str, Any, SolveResult | Exception]:
        """(started, prompt, result); a failure to render the prompt is the attempt's internal error."""
        started = now_iso()
        try:
            prompt = self._prompt(instance)
        except EnvironmentFault:
            raise
        except Exception as exc:
            return started, None, exc
        t0 = time.perf_counter()
        assert self._fn is not None
        try:
            text = self._fn(instance, self.budget_s)
        except EnvironmentFault:
            raise  # a tool that cannot run: the run stops, nothing recorded
        except Exception as exc:  # a solver bug is recorded, as LocalSolver.solve does
            return started, prompt, SolveResult(error=f"{type(exc).__name__}: {exc}", error_kind="solver",
                                                elapsed_s=time.perf_counter() - t0)
        return started, prompt, SolveResult(response=text, elapsed_s=time.perf_counter() - t0)

    def _check(self, solved: list[tuple[Instance, tuple[str, Any, SolveResult | Exception]]]) -> list[Any]:
        """Per pair: (answer, verdict), None (nothing to check: a solver error) or the exception raised."""
        out: list[Any] = [None] * len(solved)
        todo = []
        for n, (instance, (_started, _prompt, result)) in enumerate(solved):
            if isinstance(result, Exception):
                out[n] = result
            elif result.error is None:
                todo.append((n, instance, result.response))
        if not todo:
            return out
        if self.batched:  # as the verifier's batches: one failure fails the batch's answers
            try:
                results = self.family.check_many([(i, r) for _n, i, r in todo])
                if not isinstance(results, list) or len(results) != len(todo):
                    raise RuntimeError(f"{self.family.id}.check_many returned {len(results or [])} results "
                                       f"for {len(todo)} answers")
            except EnvironmentFault:
                raise
            except Exception as exc:
                results = [exc] * len(todo)
            for (n, _i, _r), result in zip(todo, results, strict=True):
                out[n] = result
            return out
        for n, instance, response in todo:
            try:
                out[n] = self.family.check(instance, response)
            except EnvironmentFault:
                raise
            except Exception as exc:
                out[n] = exc
        return out

    def _record(self, instance: Instance, sample: int, result: Any, checked: Any, started: str,
                prompt: Any) -> AttemptRecord:
        if isinstance(result, Exception):  # the prompt could not be rendered
            result = SolveResult(error=f"{type(result).__name__}: {' '.join(str(result).split())}",
                                 error_kind="internal")
            prompt = None
        try:
            return record_from(self.family, instance, self.spec, result,
                               prompt=prompt[1] if prompt is not None else {}, run_id=self.run_id,
                               snapshot=self.snapshot, sample=sample, source="run", started=started,
                               checked=checked)
        except EnvironmentFault:
            raise
        except Exception as exc:
            failed = SolveResult(error=f"{type(exc).__name__}: {' '.join(str(exc).split())}", error_kind="internal")
            return record_from(self.family, instance, self.spec, failed, prompt={}, run_id=self.run_id,
                               snapshot=self.snapshot, sample=sample, source="run", started=started)


# -- worker processes -------------------------------------------------------------------------------
_WORK: ChunkWork | None = None


def _init_worker(payload: bytes, parent: int) -> None:
    global _WORK
    import pickle

    # `parent` is given, not read here: a parent killed while this process was starting is already gone
    threading.Thread(target=_leave_when_orphaned, args=(parent,), daemon=True).start()
    _WORK = pickle.loads(payload)


def _leave_when_orphaned(parent: int) -> None:
    """A worker holds both ends of the pool's queues, so it would not see its parent die (kill -9) and
    would wait for work forever: it leaves once it has been orphaned."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    os._exit(1)


def _work_in_process(chunk: list[tuple[Instance, int]]) -> tuple[Done, float]:
    assert _WORK is not None
    return _WORK(chunk)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def pool_size(work: ChunkWork, per_item_s: float, remaining: int) -> tuple[int, bytes | None]:
    """How many worker processes to start (0: none) and the pickled work they are given."""
    forced = os.environ.get("SEMBENCH_LOCAL_PROCESSES")
    worth = per_item_s >= POOL_MIN_ITEM_S and per_item_s * remaining > POOL_AFTER_S
    wanted = int(forced) if forced and forced.isdigit() else (cores() if worth else 0)
    if wanted < 1 or (not forced and wanted < 2):
        return 0, None
    import pickle

    try:
        return wanted, pickle.dumps(work)
    except Exception:  # e.g. a family patched with a local function: the thread does the work
        return 0, None


class Chunks:
    """The run's pairs cut into chunks whose size follows the measured work per pair (CHUNK_S each)."""

    def __init__(self, items: Iterable[tuple[Instance, int]], total: int) -> None:
        self._items: Iterator[tuple[Instance, int]] = iter(items)
        self.remaining = total
        self.size = FIRST_CHUNK
        self.per_item_s = 0.0

    def next(self, most: int) -> list[tuple[Instance, int]]:
        chunk = list(itertools.islice(self._items, min(most, self.size)))
        self.remaining -= len(chunk)
        return chunk

    def measured(self, items: int, seconds: float) -> None:
        if items:
            self.per_item_s = seconds / items
            self.size = max(1, min(MAX_CHUNK, int(CHUNK_S / max(self.per_item_s, 1e-6))))


async def run_chunks(
    work: ChunkWork, items: Any, *, halted: Callable[[], bool],
    hand_over: Callable[[Done], asyncio.Future[None]],
) -> None:
    """Work through `items` chunk by chunk until they run out or `halted()`; each finished chunk goes to
    `hand_over` (which writes it and returns its commit's future; a failed commit is raised here).

    How much is outstanding (given out and not yet acknowledged) is bounded by a window that starts at
    FIRST_WINDOW pairs and grows by what each commit acknowledges, up to MAX_WINDOW: a run that is
    stopped early (Ctrl-C, the TUI) has recorded little beyond what it acknowledged, while a long run
    soon has enough in the pipeline that commits never hold the work up."""
    loop = asyncio.get_running_loop()
    chunks = Chunks(items, len(items))
    executor: Executor = ThreadPoolExecutor(1, thread_name_prefix="sembench-local")
    threads = executor
    processes, pool_decided = 0, False
    window, outstanding = FIRST_WINDOW, 0
    working: set[asyncio.Future[Any]] = set()
    committing: dict[asyncio.Future[Any], int] = {}
    try:
        while True:
            while not halted() and len(working) < max(2, 2 * processes) and window > outstanding:
                chunk = chunks.next(window - outstanding)
                if not chunk:
                    break
                outstanding += len(chunk)
                job = _work_in_process if processes else work
                working.add(loop.run_in_executor(executor, job, chunk))  # type: ignore[arg-type]
            if not working and not committing:
                break
            done, _ = await asyncio.wait(working | set(committing), return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                if future in working:
                    working.discard(future)
                    records, seconds = future.result()  # EnvironmentFault stops the run here
                    chunks.measured(len(records), seconds)
                    if records:  # finished work is recorded even when the run is stopping
                        committing[hand_over(records)] = len(records)
                else:
                    acknowledged = committing.pop(future)
                    future.result()
                    outstanding -= acknowledged
                    window = min(MAX_WINDOW, window + acknowledged)
            if not pool_decided and chunks.per_item_s and chunks.remaining:
                pool_decided = True
                processes, payload = pool_size(work, chunks.per_item_s, chunks.remaining)
                if processes:
                    import multiprocessing
                    from concurrent.futures import ProcessPoolExecutor

                    executor = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                                   initializer=_init_worker, initargs=(payload, os.getpid()))
    finally:
        for future in working:
            future.cancel()
        if executor is not threads:
            executor.shutdown(wait=False, cancel_futures=True)
        threads.shutdown(wait=False, cancel_futures=True)
