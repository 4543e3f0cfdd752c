"""Attempts written in batched transactions by a thread of their own (group commit).

Why: one transaction per attempt on the event loop costs ~90-180 µs of the loop's time per attempt
and caps a run at ~5,000 rows/s; batches of a few hundred reach ~19,000 rows/s, and SQLite releases the
GIL while it works, so the writing overlaps the requests instead of stalling them.

What "recorded" means (the crash-safety contract): `write(row)` returns a future that is done once
the transaction holding the row has committed — only then is the attempt *acknowledged*: counted in
the run's progress, shown to observers, and never asked again by a resume. The writer commits what
arrives within WINDOW_S of a transaction's first row as one transaction, so an attempt waits for about
that plus one commit (~10-20 ms) before it is acknowledged. A kill -9 loses what was in flight: requests
not yet answered and rows queued but not committed (at most two per worker of a model run; a local
solver's run, core.runner.local: the chunks in flight), none of them acknowledged. `close()` (Ctrl-C,
SIGTERM, the end of a run) commits everything queued first.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.store.log import insert_sql

MAX_BATCH = 1000
# How long the first row of a transaction waits for others. Committing each row as it came (1.6 rows per
# transaction at 64 in flight against a 200 ms server) cost ~0.25 ms of CPU per attempt more than
# batches; the runner does not wait for commits before its next request, so this costs no throughput.
WINDOW_S = 0.01
_STOP = object()


class AttemptWriter:
    """One writer thread with its own connection to the log database at `path`."""

    def __init__(self, path: Path | str, *, max_batch: int = MAX_BATCH, busy_timeout_ms: int = 5000,
                 window_s: float = WINDOW_S, on_commit: Callable[[int], None] | None = None) -> None:
        self.path = str(path)
        self.max_batch = max(1, max_batch)
        self.window_s = max(0.0, window_s)
        self.busy_timeout_ms = busy_timeout_ms
        self.on_commit = on_commit  # (rows) in the writer thread after each commit; for tests and benches
        self.batches = 0
        self.rows = 0
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.failed = 0  # rows whose transaction failed (they are not in the database)
        self._closed = False

    # -- the loop's side -----------------------------------------------------------------------------
    def write(self, row: dict[str, Any]) -> asyncio.Future[None]:
        """Queue one attempt's columns; the future is done when they are committed (or failed)."""
        future = self._future()
        self._queue.put(([(tuple(row), tuple(row.values()))], future))
        return future

    def write_many(self, rows: list[dict[str, Any]]) -> asyncio.Future[None]:
        """Queue several attempts' columns behind one future, done when all of them are committed (in
        one transaction: a group is never split) or failed. A local run's chunk is acknowledged at once."""
        future = self._future()
        self._queue.put(([(tuple(row), tuple(row.values())) for row in rows], future))
        return future

    def _future(self) -> asyncio.Future[None]:
        if self._closed:
            raise RuntimeError("the attempt writer is closed")
        loop = asyncio.get_running_loop()
        if self._thread is None:
            self._loop = loop
            self._thread = threading.Thread(target=self._run, name="sembench-writer", daemon=True)
            self._thread.start()
        return loop.create_future()

    def close(self) -> None:
        """Commit everything queued, then stop the thread. Rows written before close() whose waiters
        were cancelled are in the database once this returns (unless `failed` says otherwise)."""
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()

    # -- the writer thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            from core.store.schema import bound_queries

            conn: sqlite3.Connection | None = bound_queries(sqlite3.connect(
                self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None))
            conn.execute(f"pragma busy_timeout={self.busy_timeout_ms}")
            # No fsync per commit: in WAL mode a committed transaction survives the process dying
            # (only a power loss or an OS crash can take the last ones).
            conn.execute("pragma synchronous=normal")
        except sqlite3.Error as exc:
            conn, opened = None, exc
        try:
            stop = False
            while not stop:
                item = self._queue.get()
                if item is _STOP:
                    break
                batch = [item]
                size = len(item[0])
                # Group commit: what arrives within `window_s` of the first row joins its transaction.
                # Slept through rather than waited for row by row: every wake-up of this thread takes
                # the GIL from the event loop.
                if self.window_s:
                    time.sleep(self.window_s)
                while size < self.max_batch:
                    try:
                        nxt = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is _STOP:
                        stop = True
                        break
                    batch.append(nxt)
                    size += len(nxt[0])
                self._commit(conn, batch, None if conn is not None else opened)
        finally:
            if conn is not None:
                conn.close()

    def _commit(self, conn: sqlite3.Connection | None, batch: list[Any], error: BaseException | None) -> None:
        try:
            if conn is None:
                raise error or sqlite3.OperationalError("no connection")
            conn.execute("begin immediate")
            try:
                groups: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
                count = 0
                for group, _future in batch:
                    count += len(group)
                    for columns, values in group:
                        groups.setdefault(columns, []).append(values)
                for columns, rows in groups.items():
                    conn.executemany(insert_sql(columns), rows)
                conn.execute("commit")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("rollback")
                raise
            self.batches += 1
            self.rows += count
            if self.on_commit is not None:
                self.on_commit(count)
        except sqlite3.Error as exc:
            error = exc
            self.failed += sum(len(group) for group, _f in batch)
        except Exception as exc:  # anything else fails its attempts too: a waiter must never wait forever
            error = sqlite3.DatabaseError(f"{type(exc).__name__}: {exc}")
            self.failed += sum(len(group) for group, _f in batch)
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(_settle, [f for _g, f in batch], error)


def _settle(futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
    """On the loop: resolve a batch's futures (a waiter cancelled meanwhile is simply gone)."""
    for future in futures:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
