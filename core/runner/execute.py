"""Running a batch: every (instance, sample) is asked, checked off the event loop and stored as it completes.

Threading: attempts are written by a writer thread with its own connection, in batched transactions
(core.store.writer: an attempt counts as done once its transaction has committed); slow verification
runs in worker threads (core.runner.verifying). The event loop only sends requests and hands results on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.attempts import AttemptRecord, record_from
from core.canonical import canonical_json, storable
from core.errors import EnvironmentFault, UserError
from core.family import Family
from core.instance import Instance
from core.liveness import heartbeat
from core.runner.clients import (
    Answered,
    Client,
    ClientPlan,
    Outbox,
    client_count,
    end_clients,
    failure,
    fork_clients,
    serve_client,
)
from core.runner.config import (
    NullObserver,
    Observer,
    RunConfig,
    RunOutcome,
    RunStats,
    new_run_id,
    resume_command,
)
from core.runner.importing import is_imported, resume_import
from core.runner.local import ChunkWork, chunked, run_chunks
from core.runner.plan import load_snapshot, plan, retry_mode
from core.runner.stop import RunAborted, StopRule, stop_on_signals
from core.runner.verifying import Verifier
from core.solvers import LocalSolver, Solver, SolveResult, is_model_spec, make_solver
from core.store import LogStore, Workspace, now_iso
from core.store.writer import AttemptWriter
from core.trace import Prompt


def create_run(
    store: LogStore, config: RunConfig, family: Family, total: int, run_id: str | None = None,
    extra_options: dict[str, Any] | None = None,
) -> str:
    run_id = run_id or new_run_id()
    store.create_run(run_id, snapshot=config.snapshot, family=family.id, solver=config.solver,
                     samples=config.samples, options={**config.options(), **(extra_options or {})}, total=total)
    return run_id


async def one_attempt(
    family: Family, instance: Instance, solver: Solver, *, run_id: str, snapshot: str, sample: int, style: str,
    prompts: dict[str, tuple[Prompt, dict[str, Any]]] | None = None, verifier: Verifier | None = None,
    stream: bool = False,
) -> AttemptRecord:
    """prompt → solve → extract/verify → record. `prompts` memoises rendering (the prompt and its dump)
    across the samples of an instance; `verifier` checks the response off the event loop (a private one when not given);
    `stream` asks a model for a streamed reply (the same reply, read as it is produced)."""
    started = now_iso()
    try:
        rendered = prompts.get(instance.id) if prompts is not None else None
        if rendered is None:
            prompt = family.prompt(instance, style)
            rendered = (prompt, prompt.model_dump())
            if prompts is not None:
                prompts[instance.id] = rendered
        prompt, dumped = rendered
        t0 = time.perf_counter()
        result = await (solver.solve(instance, prompt, on_delta=_ignore) if stream else solver.solve(instance, prompt))
        if not result.elapsed_s:
            result.elapsed_s = time.perf_counter() - t0
        checked = None
        if result.error is None:
            own = verifier is None
            verifier = verifier or Verifier(family)
            try:
                checked = await verifier.check(instance, result.response)
            finally:
                if own:
                    verifier.close()
        # the record validates (copies) the dump: one dump per instance serves all its samples
        return record_from(family, instance, solver.spec, result, prompt=dumped, run_id=run_id,
                           snapshot=snapshot, sample=sample, source="run", started=started, checked=checked)
    except (EnvironmentFault, RunAborted):
        # the machine failed (a tool that cannot run, the verifier's cluster gone), not the answer: nothing
        # is recorded, and the run stops, resumable (see execute)
        raise
    except Exception as exc:  # a family bug on one instance is recorded, not allowed to stop the run
        failed = SolveResult(error=f"{type(exc).__name__}: {' '.join(str(exc).split())}", error_kind="internal")
        return record_from(family, instance, solver.spec, failed, prompt={}, run_id=run_id, snapshot=snapshot,
                           sample=sample, source="run", started=started)


async def client_share(
    number: int, sock: Any, items: list[tuple[Instance, int]], workers: int, solver: Solver, *, family: Family,
    run_id: str, snapshot: str, style: str, stream: bool, verify_concurrency: int | None,
) -> None:
    """A client process's share of a run (core.runner.clients): `workers` at a time, each attempt made as
    `execute` makes it and sent with its stored row to the run's process, which writes and counts it."""
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    outbox = Outbox(reader, writer)
    listening = asyncio.create_task(outbox.listen())
    queue: Iterator[tuple[Instance, int]] = iter(items)
    per_sample = getattr(solver, "for_sample", None)
    prompt_json: dict[str, str] = {}
    verifier = Verifier(family, verify_concurrency)
    attempt = functools.partial(one_attempt, family, run_id=run_id, snapshot=snapshot, style=style, prompts={},
                                verifier=verifier, stream=stream)

    async def worker() -> None:
        for instance, sample in queue:
            try:
                record = await attempt(instance, per_sample(sample) if per_sample else solver, sample=sample)
            except EnvironmentFault as fault:
                outbox.send(("f", instance.id, sample, str(fault)))  # the run's process stops the run
                raise
            counted = outbox.attempt(instance.id, sample, record, record.columns(prompt_column(record, prompt_json)))
            if counted is not None:
                await counted  # a failure: the stop rule judges it before the next request is sent

    last: tuple[Any, ...] | None = ("d",)
    try:
        with fewer_collections():
            async with asyncio.TaskGroup() as group:
                for n in range(1, workers + 1):
                    group.create_task(worker())
                    if n % START_BATCH == 0 and n < workers:
                        await asyncio.sleep(0)  # as in execute: the first requests leave while the rest start
                if items:
                    group.create_task(verifier.warm(items[0][0]))
    except* EnvironmentFault:
        last = None  # the fault is sent; the run's process stops the run on it
    except* Exception as eg:
        last = ("x", failure(eg.exceptions[0]))
    finally:
        verifier.close()
    listening.cancel()
    await outbox.close(last)


def prompt_column(record: AttemptRecord, memo: dict[str, str]) -> str:
    """The stored prompt of a run's attempt: its instance's prompt as JSON, written once per instance
    (`memo`) for all its samples; "{}" for an attempt recorded without one."""
    if not record.prompt:
        return "{}"
    text = memo.get(record.instance_id)
    if text is None:
        text = memo[record.instance_id] = canonical_json(storable(record.prompt))
    return text


def _ignore(kind: str, chunk: str) -> None:
    """A streamed reply's deltas: a batch run only needs the whole reply."""


async def execute(
    store: LogStore, family: Family, run_id: str, snapshot: str, items: list[tuple[Instance, int]], solver: Solver,
    stats: RunStats, *, concurrency: int, style: str, observer: Observer | None = None,
    verify_concurrency: int | None = None, stream: bool = False, verifier: Any = None,
    clients: ClientPlan | None = None,
) -> RunStats:
    """Run the items with at most `concurrency` in flight. Each attempt is handed to the writer as soon
    as it is done, and counted (stats, observer, stop rule) once its transaction has committed.

    After an answered attempt a worker does not wait for that commit before it sends its next request
    (only before it hands over its next attempt): waiting cost every request a commit's time, about a
    tenth of the throughput against a 200 ms server. So at most two attempts per worker are
    unacknowledged at any time. After a failed attempt it does wait, so that the stop rule has judged
    it before anything more is sent to a failing endpoint.

    A local solver's run (baseline, oracle, ...) goes in chunks instead (core.runner.local): same
    records, acknowledged the same way, without an attempt's wait for a commit.

    With `clients`, the requests are made by that many forked processes (core.runner.clients), and this
    process writes and counts their attempts as they arrive."""
    observer = observer or NullObserver()
    # forked first: before this process has a writer's, a verifier's or a progress bar's thread
    forked: list[Client] = []
    if clients is not None and items:
        forked = fork_clients(clients, items, concurrency, functools.partial(
            client_share, family=family, run_id=run_id, snapshot=snapshot, style=style, stream=stream,
            verify_concurrency=verify_concurrency), loop_factory())
        stats.client_processes = len(forked)
    local = chunked(solver, family, verifier)
    queue: Iterator[tuple[Instance, int]] = iter(items)
    per_sample = getattr(solver, "for_sample", None)
    stop = StopRule()
    prompts: dict[str, tuple[Prompt, dict[str, Any]]] = {}
    prompt_json: dict[str, str] = {}  # the prompt column, serialised once per instance
    # a prebuilt verifier (core.cluster's, with the same check/close) or the in-process one
    verifier = verifier or Verifier(family, verify_concurrency)
    attempt = functools.partial(one_attempt, family, run_id=run_id, snapshot=snapshot, style=style, prompts=prompts,
                                verifier=verifier, stream=stream)
    writer = AttemptWriter(store.path)
    # Records handed to the writer whose commit has not been seen: when the workers are cancelled
    # (Ctrl-C, SIGTERM, an abort), writer.close() still commits them, and they are counted.
    records: dict[int, AttemptRecord] = {}
    halt: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
    over = False  # once the run is over, a late commit notice must not count an attempt again
    faults: list[tuple[str, int, str]] = []  # (instance id, sample, cause): attempts an EnvironmentFault stopped
    workers = max(1, min(concurrency, len(items)))
    active = len(forked) or workers

    def acknowledge(record: AttemptRecord, key: int, committed: asyncio.Future[None]) -> None:
        """On the loop, when the attempt's transaction is over: count it (a failed commit is raised
        by the worker that wrote it). The stop rule's verdict ends the run through `halt`."""
        if over or committed.cancelled() or committed.exception() is not None or records.pop(key, None) is None:
            return
        try:
            stats.add(record)
            observer.attempt(record, stats)
            reason: BaseException | None = stop.check(record)
        except Exception as exc:  # an observer's bug stops the run as it did when raised in a worker
            reason = exc
        if reason is not None and not halt.done():
            halt.set_result(reason)

    async def worker() -> None:
        nonlocal active
        previous: asyncio.Future[None] | None = None
        try:
            for instance, sample in queue:  # one shared iterator: the loop is single-threaded
                if halt.done():
                    break  # the run is stopping: no new request
                try:
                    record = await attempt(instance, per_sample(sample) if per_sample else solver, sample=sample)
                except EnvironmentFault as fault:
                    faults.append((instance.id, sample, str(fault)))  # kept apart, after the writer is done
                    raise
                if previous is not None:
                    await previous  # committed long ago, as a rule; a failed transaction is raised here
                text = prompt_column(record, prompt_json)
                key = id(record)
                records[key] = record
                # the stored copy made safe (surrogates, 64-bit integers) and keys redacted, as on every
                # other path that records an attempt (row() then attempt_columns(), in one pass)
                previous = writer.write(record.columns(text))
                previous.add_done_callback(functools.partial(acknowledge, record, key))
                if record.error is not None:
                    await previous  # the stop rule judges failures before the next request is sent
            if previous is not None:
                await previous
        finally:
            active -= 1
            if active == 0 and not halt.done():
                halt.set_result(None)

    def accept(client: Client, answered: Answered, seq: int, row: dict[str, Any]) -> None:
        """An attempt a client made: written and counted as this process's own are."""
        key = id(answered)
        records[key] = answered  # type: ignore[assignment]  # what stats, observer and stop rule read
        committed = writer.write(row)
        committed.add_done_callback(functools.partial(acknowledge, answered, key))
        if answered.error is not None:  # its client waits until the stop rule has judged it
            committed.add_done_callback(lambda done: None if halt.done() else client.acknowledge(seq, done))

    async def client_worker(client: Client) -> None:
        nonlocal active
        try:
            await serve_client(client, accept, lambda instance_id, sample, cause: faults.append((instance_id, sample, cause)))
        finally:
            active -= 1
            if active == 0 and not halt.done():
                halt.set_result(None)

    async def local_worker() -> None:
        """A local solver's run: chunks of attempts, each handed to the writer as one group
        (core.runner.local)."""
        assert isinstance(solver, LocalSolver)
        work = ChunkWork(family, solver, run_id=run_id, snapshot=snapshot, style=style)

        def hand_over(done: list[tuple[AttemptRecord, dict[str, Any]]]) -> asyncio.Future[None]:
            keys = []
            for record, _row in done:
                keys.append(id(record))
                records[id(record)] = record
            committed = writer.write_many([row for _record, row in done])
            committed.add_done_callback(functools.partial(acknowledge_many, done, keys))
            return committed

        try:
            await run_chunks(work, items, halted=halt.done, hand_over=hand_over)
        finally:
            if not halt.done():
                halt.set_result(None)

    def acknowledge_many(done: list[tuple[AttemptRecord, dict[str, Any]]], keys: list[int],
                         committed: asyncio.Future[None]) -> None:
        for (record, _row), key in zip(done, keys, strict=True):
            acknowledge(record, key, committed)

    async def watch() -> None:
        reason = await halt
        if reason is not None:
            raise reason

    observer.start(stats)
    # Why the run stops, raised once the `try` below is left: an exception raised inside an `except*`
    # clause reaches the caller wrapped in an ExceptionGroup on Python 3.11.0-3.11.3 (Debian 12 has
    # 3.11.2), which would be a traceback where the user must read one line.
    ending: BaseException | None = None
    try:
        with fewer_collections():
            async with asyncio.TaskGroup() as group:
                group.create_task(watch())
                if local:
                    group.create_task(local_worker())
                elif forked:
                    for client in forked:
                        group.create_task(client_worker(client))
                else:
                    for n in range(1, workers + 1):
                        group.create_task(worker())
                        if n % START_BATCH == 0 and n < workers:
                            # A turn of the loop for the workers started so far: their requests leave
                            # while the next ones are prepared, not all after the last (a wave of 256
                            # took ~0.2 s of CPU to prepare before its first request left).
                            await asyncio.sleep(0)
                    # Scheduled after every worker's first step, i.e. once the first wave of requests is
                    # out: the checking code is warmed while they are in flight (Verifier.warm).
                    warm = getattr(verifier, "warm", None)
                    first = next(iter(items), None)
                    if warm is not None and first is not None:
                        group.create_task(warm(first[0]))
    except* RunAborted as eg:
        ending = eg.exceptions[0]
    except* EnvironmentFault as eg:
        # A tool that cannot run fails every attempt alike and says nothing about the answers: stop, with
        # the cause; the attempts it hit are not attempts (a plain resume redoes them), but are kept apart
        # (core.store.envfaults, written below) so that reports count them as errors of the environment.
        ending = ending or RunAborted(f"stopped by an error of the environment, not of the answers: "
                                      f"{eg.exceptions[0]}", None)
    except* sqlite3.Error as eg:
        # Full disk, a database deleted or corrupted under us: stop; what was committed stays.
        ending = ending or UserError(f"cannot write to the log database ({eg.exceptions[0]})", file=str(store.path))
    finally:
        over = True
        end_clients(forked)  # a stopped run's clients are killed; their requests in flight are not recorded
        pending = list(records.values())  # written, then their workers were cancelled (Ctrl-C, an abort)
        writer.close()  # commits everything queued
        if not writer.failed:
            for record in pending:
                stats.add(record)
        if faults:
            with contextlib.suppress(sqlite3.Error):  # the database failing too: the fault is still the message
                store.record_env_faults(run_id, faults)
        verifier.close()
        observer.finish(stats)
    if ending is not None:
        raise ending from None
    return stats


# Workers started per turn of the loop at a run's start (see execute).
START_BATCH = 16
_collecting = {"runs": 0, "threshold": (0, 0, 0)}
YOUNG_THRESHOLD = 10_000


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """While runs execute, the cyclic garbage collector looks at young objects every YOUNG_THRESHOLD
    allocations instead of every 700 (CPython's default), and so runs ~30x less often.

    Why: hundreds of requests in flight keep thousands of young objects alive (futures, buffers,
    records), so each of CPython's frequent young collections walks all of them again; measured at 256
    in flight: ~100 µs of the event loop's time per request in the collector, ~20 µs with this. A
    collection of 10,000 young objects pauses the loop for ~15 ms. Nested runs (the TUI) share one
    setting; the last one to end restores the process's own."""
    if _collecting["runs"] == 0:
        _collecting["threshold"] = gc.get_threshold()
        young, *older = _collecting["threshold"]
        gc.set_threshold(max(young, YOUNG_THRESHOLD), *older)
    _collecting["runs"] += 1
    try:
        yield
    finally:
        _collecting["runs"] -= 1
        if _collecting["runs"] == 0:
            gc.set_threshold(*_collecting["threshold"])


def default_concurrency(solver: Solver) -> int:
    endpoint = getattr(getattr(solver, "provider", None), "endpoint", None)
    if endpoint is not None:
        return endpoint.max_concurrency * len(endpoint.replicas)  # each replica has its own limit
    return min(32, (os.cpu_count() or 2) * 2)


def build_solver(config: RunConfig, family: Family, store: LogStore) -> Solver:
    if is_model_spec(config.solver):
        return make_solver(config.solver, family, params=config.params, cache=store, use_cache=config.cache,
                           max_concurrency=config.concurrency)
    return make_solver(config.solver, family, budget_s=config.budget_s)


async def run_async(
    ws: Workspace, config: RunConfig, *, resume: str | None = None, retry_errors: bool | str | None = None,
    observer: Observer | None = None, run_id: str | None = None, stream: bool = False, cluster: Any = None,
    freeze_heap: bool = False, client_processes: bool = False,
) -> RunOutcome:
    """Start a run (or resume one) and run it to the end. Cancelling the task leaves it resumable.
    A session that can only repeat one failure (see StopRule) ends in a UserError with the resume command.
    `stream` has model solvers read their replies streamed (same replies; for servers and proxies that
    only keep long requests alive while bytes flow). `freeze_heap`: a process that runs this one run and
    exits (the CLI) moves what it holds once the run is planned out of the collector's generations.
    `client_processes`: a process that runs this one run and exits may fork client processes for a
    large model run's requests (core.runner.clients decides)."""
    retry_mode(retry_errors)  # a bad mode fails before anything is written
    store = ws.log
    # One fsync per attempt would cap a run at the disk's sync rate; in WAL mode NORMAL still never
    # loses a committed attempt when the process dies (only on power loss / OS crash).
    store.db.execute("pragma synchronous=normal")
    if resume is not None and is_imported(store.get_run(resume)):
        # answers recorded by `sembench import-answers`: the missing ones come from its file, not a solver
        resume_import(ws, resume)
        done, correct, errors = store.run_counts([resume]).get(resume, (0, 0, 0))
        stats = RunStats(run_id=resume, total=int(store.get_run(resume)["total"] or 0), done=done, correct=correct,
                         errors=errors)
        return RunOutcome(run_id=resume, status="finished", stats=stats)
    snap, family, instances = load_snapshot(ws, config.snapshot, config.limit, config.ids)
    style = config.style or family.prompt_styles[0]
    if style not in family.prompt_styles:
        raise UserError(f"unknown style '{style}' for '{family.id}' (known: {', '.join(family.prompt_styles)})")
    solver = build_solver(config, family, store)
    try:
        if resume is None:
            run_id = create_run(store, config, family, len(instances) * config.samples, run_id)
        else:
            run_id = store.claim_run(resume)["id"]  # a clear error for an unknown or live run
        concurrency = config.concurrency or default_concurrency(solver)
        status = "interrupted"
        beating = asyncio.create_task(heartbeat(store, run_id))
        try:
            items, stats = plan(store, run_id, instances, config.samples, retry_errors)  # interruptible
            if freeze_heap:
                # The imports' and the snapshot's objects stay to the end; left in the generations, every
                # young collection of the request phase that reaches them walks them again: about a quarter
                # of the collector's CPU in a cascade run of 3,840 requests (docs/performance.md). Only where the
                # process ends with the run: cyclic garbage among frozen objects is never collected.
                gc.freeze()
            verifier = None
            if cluster is not None:  # a core.cluster.ClusterSession: checks run on its workers
                from core.cluster.verifier import run_verifier
                from core.tools.cache import configure

                verifier = run_verifier(cluster, family, configure(store.path))
            clients = None
            if client_processes:
                count = client_count(solver, family, len(items), concurrency, cluster=cluster)
                if count:
                    endpoint = solver.provider.endpoint  # type: ignore[attr-defined]  # a ModelSolver's
                    clients = ClientPlan(count, functools.partial(client_solver, config, family),
                                         endpoint.max_concurrency)
            await execute(store, family, run_id, snap.name, items, solver, stats, concurrency=concurrency,
                          style=style, observer=observer, stream=stream, verifier=verifier, clients=clients)
            status = "finished"
        except RunAborted as exc:
            raise UserError(
                f"{config.solver}: {exc.reason}; {stats.done} of {stats.total} attempts recorded. "
                f"Fix it, then: {resume_command(store.path, run_id, exc.retry)}"
            ) from None
        finally:
            beating.cancel()
            _final_status(store, run_id, status)
    finally:
        # The run's pages are copied from the WAL into the database file in a thread (SQLite's work, off
        # the GIL) while the loop closes the solver's connections: closing the log afterwards (the end of
        # a command) then has nothing left to copy. Both were the tail of every run, one after the other.
        closing = [asyncio.to_thread(_checkpoint, store.path)]
        aclose = getattr(solver, "aclose", None)
        if aclose is not None:
            closing.append(aclose())
        await asyncio.gather(*closing)
    return RunOutcome(run_id=run_id, status=status, stats=stats)


def client_solver(config: RunConfig, family: Family, limit: int) -> Solver:
    """A client process's solver: the run's, with `limit` requests in flight per replica (its share) and no
    response cache (core.runner.clients forks only for runs whose replies are not cached)."""
    return make_solver(config.solver, family, params=config.params, use_cache=False, max_concurrency=limit)


def _checkpoint(path: Any) -> None:
    """A passive WAL checkpoint on a connection of its own (it waits for no reader or writer); never
    creates the file (one deleted under the run stays deleted), and a failure is left to the log's
    own close."""
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=rw", uri=True, timeout=1.0)
        try:
            conn.execute("pragma wal_checkpoint(passive)")
        finally:
            conn.close()


def _final_status(store: LogStore, run_id: str, status: str) -> None:
    try:
        store.set_status(run_id, status)
    except sqlite3.Error:
        pass  # the database itself failed; the original error is the one worth reporting


def loop_factory() -> Any:
    """uvloop's event loop when it is installed (its loop and transports are in C: at hundreds of
    requests in flight it halves the loop's own CPU per request), else asyncio's default.
    SEMBENCH_UVLOOP=0 turns it off."""
    if os.environ.get("SEMBENCH_UVLOOP", "1") == "0":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run_sync(
    ws: Workspace, config: RunConfig, *, resume: str | None = None, retry_errors: bool | str | None = None,
    observer: Observer | None = None, stream: bool = False, cluster: Any = None, freeze_heap: bool = False,
    client_processes: bool = False,
) -> RunOutcome:
    """`run_async` under asyncio.run, with Ctrl-C and SIGTERM turned into a clean interruption."""
    holder: dict[str, Any] = {}

    class _Recorder:
        def start(self, stats: RunStats) -> None:
            holder["stats"] = stats
            if observer:
                observer.start(stats)

        def attempt(self, record: AttemptRecord, stats: RunStats) -> None:
            if observer:
                observer.attempt(record, stats)

        def finish(self, stats: RunStats) -> None:
            if observer:
                observer.finish(stats)

    async def main() -> RunOutcome:
        # SIGINT/SIGTERM cancel the run's task, and stop a synchronous phase (loading, planning) at once
        with stop_on_signals(asyncio.get_running_loop(), asyncio.current_task()):
            return await run_async(ws, config, resume=resume, retry_errors=retry_errors, observer=_Recorder(),
                                   stream=stream, cluster=cluster, freeze_heap=freeze_heap,
                                   client_processes=client_processes)

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            return runner.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        stats = holder.get("stats") or RunStats(run_id=resume or "", total=0)
        return RunOutcome(run_id=stats.run_id, status="interrupted", stats=stats)


