"""A cluster run's progress where another process can read it: one small row per run in the log database
(table `run_progress`), written by the run's process at most once a second (core.cluster.session), read by
the TUI's Runs screen with one indexed query. The table is made by the log database's migrations
(core.store.migrations, version 7) like every other table; the run's process opened the database through
them before it writes here.

No Dask here: the TUI imports this module."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any


class ProgressWriter:
    """The run's progress row, from the watcher thread (and once more when the session closes)."""

    def __init__(self, db: str | Path, run_id: str) -> None:
        self.db = str(db)
        self.run_id = run_id
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def write(self, status: Any) -> None:
        text = json.dumps(asdict(status), sort_keys=True)
        with self._lock:
            try:
                if self._conn is None:
                    from core.store.schema import bound_queries

                    self._conn = bound_queries(sqlite3.connect(self.db, timeout=1, check_same_thread=False))
                    self._conn.execute("pragma busy_timeout=1000")
                with self._conn:
                    self._conn.execute("insert or replace into run_progress (run_id, progress, updated) values (?, ?, ?)",
                                       [self.run_id, text, time.time()])
            except sqlite3.Error:
                pass  # a progress row that cannot be written (a busy database) waits for the next second

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def read_progress(conn: Any, run_ids: list[str]) -> dict[str, dict[str, Any]]:
    """run id -> its latest cluster counts (`queued`, `running`, `done` tasks, `answers`, `workers`) and
    `age_s`, the seconds since they were written; runs without a row are left out."""
    if not run_ids:
        return {}
    marks = ", ".join("?" * len(run_ids))
    try:
        rows = conn.execute(f"select run_id, progress, updated from run_progress where run_id in ({marks})",
                            list(run_ids)).fetchall()
    except sqlite3.OperationalError:  # a database opened read-only before migration 7 reached it
        return {}
    now = time.time()
    out: dict[str, dict[str, Any]] = {}
    for run_id, text, updated in rows:
        try:
            progress = json.loads(text)
        except ValueError:
            continue
        if isinstance(progress, dict):
            out[run_id] = {**progress, "age_s": max(0.0, now - float(updated))}
    return out


def progress_line(progress: dict[str, Any]) -> str:
    """What the Runs screen shows for a live cluster run."""
    workers = progress.get("workers", 0)
    line = (f"cluster: tasks {progress.get('queued', 0)} queued, {progress.get('running', 0)} running, "
            f"{progress.get('done', 0)} done; {progress.get('answers', 0)} answers checked; "
            f"{workers} worker{'s' if workers != 1 else ''} alive")
    age = progress.get("age_s")
    if isinstance(age, int | float) and age >= 5:
        line += f" (as of {age:.0f} s ago)"
    return line
