"""The `runs` table: creating, finding, listing, claiming and closing runs, and telling live runs from
stale ones (a running run's process stamps it with its pid, host and a heartbeat; one whose process
died or went silent reads as "stale", and a live run is never resumed twice)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
import sqlite3
import time
from typing import Any

from core.errors import UserError
from core.store.faults import stored_json

STALE_AFTER_S = 60.0  # a running run whose heartbeat is older than this has lost its process
HOST = socket.gethostname()


def now_iso() -> str:
    """UTC now as `2026-11-26T20:11:51.580+00:00` (what datetime's isoformat with milliseconds writes).
    Every attempt is stamped: the date and time to the second are formatted once per second (~4.4 ->
    ~1.5 µs a call)."""
    ns = time.time_ns()
    second, rest = divmod(ns, 1_000_000_000)
    last_second, prefix = _stamped[0]
    if second != last_second:
        prefix = _dt.datetime.fromtimestamp(second, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _stamped[0] = (second, prefix)
    return f"{prefix}.{rest // 1_000_000:03d}+00:00"


_stamped: list[tuple[int, str]] = [(-1, "")]  # (a second since the epoch, its date and time): one tuple, so
# that a thread reads a pair another thread wrote whole


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # os.kill(pid, 0) is not a probe on Windows; the heartbeat alone decides there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists but belongs to someone else
        return True
    return True


def heartbeat_age(run: dict[str, Any], now: _dt.datetime | None = None) -> float | None:
    beat = run.get("heartbeat")
    if not beat:
        return None
    try:
        then = _dt.datetime.fromisoformat(beat)
    except ValueError:
        return None
    return ((now or _dt.datetime.now(_dt.UTC)) - then).total_seconds()


def is_live(run: dict[str, Any], now: _dt.datetime | None = None) -> bool:
    """A "running" run whose process still exists (when it is on this host) and beat recently."""
    if run.get("status") != "running":
        return False
    age = heartbeat_age(run, now)
    if age is None or age > STALE_AFTER_S:
        return False
    pid = run.get("pid")
    return not (run.get("host") == HOST and isinstance(pid, int) and not _pid_alive(pid))


def _row(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip([d[0] for d in cursor.description], row, strict=True))


def get_run(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    cursor = conn.execute("select * from runs where id = ?", [run_id])
    row = cursor.fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("select id from runs order by created desc limit 5")]
        hint = f" (recent: {', '.join(known)})" if known else " (no runs in this database)"
        raise UserError(f"unknown run '{run_id}'{hint}")
    run = _row(cursor, row)
    run["options"] = stored_json(run["options"], f"runs.options of run '{run_id}'", "{}")
    return run


def list_runs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Runs, oldest first, with `done` (attempts recorded) and `state`: the status, except that a
    "running" run whose process is gone or silent reads "stale". (LogStore.list_runs adds `env_errors`.)"""
    cursor = conn.execute(
        "select r.*, (select count(*) from attempts a where a.run_id = r.id) as done from runs r order by created"
    )
    rows = [_row(cursor, row) for row in cursor.fetchall()]
    for row in rows:
        row["state"] = "stale" if row["status"] == "running" and not is_live(row) else row["status"]
    return rows


def create_run(conn: sqlite3.Connection, run_id: str, *, snapshot: str, family: str, solver: str, samples: int,
               options: dict[str, Any], total: int) -> None:
    with conn:
        insert_run(conn, run_id, snapshot=snapshot, family=family, solver=solver, samples=samples, options=options,
                   total=total)


def insert_run(conn: sqlite3.Connection, run_id: str, *, snapshot: str, family: str, solver: str, samples: int,
               options: dict[str, Any], total: int) -> None:
    """The run's row, running in this process, in the caller's transaction."""
    conn.execute(
        "insert into runs (id, snapshot, family, solver, samples, options, created, finished, status, total,"
        " pid, host, heartbeat) values (?, ?, ?, ?, ?, ?, ?, null, 'running', ?, ?, ?, ?)",
        [run_id, snapshot, family, solver, samples, json.dumps(options), now_iso(), total, os.getpid(), HOST,
         now_iso()],
    )


def claim_run(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """Mark a run as running in this process, unless it is live in another one. BEGIN IMMEDIATE takes
    the write lock first, so two processes resuming at once cannot both win."""
    conn.execute("begin immediate")
    try:
        run = get_run(conn, run_id)
        if is_live(run):
            age = heartbeat_age(run) or 0.0
            raise UserError(f"run '{run_id}' is still running (process {run['pid']} on {run['host']}, "
                            f"heartbeat {age:.0f} s ago); stop it or wait for it to finish")
        conn.execute("update runs set status = 'running', finished = null, pid = ?, host = ?, heartbeat = ? "
                     "where id = ?", [os.getpid(), HOST, now_iso(), run_id])
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return run


def set_status(conn: sqlite3.Connection, run_id: str, status: str) -> None:
    finished = now_iso() if status == "finished" else None
    with conn:
        conn.execute("update runs set status = ?, finished = ? where id = ?", [status, finished, run_id])


def note_completed(conn: sqlite3.Connection, run_id: str, count: int) -> None:
    """Count verdicts of the run completed after they were recorded (core.completing) in its options:
    the report's cache stamp reads them, so a report cached before is made again. In the caller's
    transaction."""
    row = conn.execute("select options from runs where id = ?", [run_id]).fetchone()
    if row is None:
        return
    options = stored_json(row[0], f"runs.options of run '{run_id}'", "{}")
    options = options if isinstance(options, dict) else {}
    options["completed_later"] = int(options.get("completed_later") or 0) + count
    conn.execute("update runs set options = ? where id = ?", [json.dumps(options), run_id])


def touch(conn: sqlite3.Connection, run_id: str) -> None:
    with conn:
        conn.execute("update runs set heartbeat = ? where id = ?", [now_iso(), run_id])
