"""Errors of the environment a run met (the `env_faults` table, migration 6).

A tool that cannot run (core.errors.EnvironmentFault) is never an attempt: no verdict, nothing cached,
and the run stops. What it hit is kept here instead, one row per (run, instance, sample), so that a
report counts those attempts apart ("environment errors"), neither as answers nor as merely missing.
Such an attempt is still to do: `plan` finds no attempt for it, so a resume redoes it, and once its
attempt is recorded the row is superseded (it no longer counts; it stays as the run's history).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from core.store.runs import now_iso

# The rows of a run not superseded by an attempt. `a.run_id = f.run_id` lets SQLite use the unique
# (run_id, instance_id, sample) index of attempts, so this costs a lookup per fault, never a scan.
OUTSTANDING = ("from env_faults f where f.run_id = ? and not exists (select 1 from attempts a where "
               "a.run_id = f.run_id and a.instance_id = f.instance_id and a.sample = f.sample)")


def record(conn: sqlite3.Connection, run_id: str, faults: Iterable[tuple[str, int, str]]) -> None:
    """Keep the (instance id, sample, cause) a run could not do because the machine failed; a later
    fault on the same attempt replaces the earlier one (its cause is the current one)."""
    now = now_iso()
    with conn:
        conn.executemany("insert or replace into env_faults (run_id, instance_id, sample, cause, created) "
                         "values (?, ?, ?, ?, ?)", [(run_id, iid, sample, cause, now) for iid, sample, cause in faults])


def outstanding(conn: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """{"count": attempts of the run stopped by an error of the environment and not redone since,
    "cause": the latest one's cause (None when there is none)}."""
    count, = conn.execute(f"select count(*) {OUTSTANDING}", [run_id]).fetchone()
    cause = None
    if count:
        cause, = conn.execute(f"select f.cause {OUTSTANDING} order by f.created desc, f.rowid desc limit 1",
                              [run_id]).fetchone()
    return {"count": int(count), "cause": cause}


def outstanding_by_run(conn: sqlite3.Connection) -> dict[str, int]:
    """{run id: its attempts stopped by an error of the environment and not redone since}, for the runs
    that have any (the runs listing: one query for every run)."""
    try:
        rows = conn.execute("select f.run_id, count(*) from env_faults f where not exists (select 1 from attempts "
                            "a where a.run_id = f.run_id and a.instance_id = f.instance_id and a.sample = f.sample) "
                            "group by f.run_id").fetchall()
    except sqlite3.OperationalError:  # a database opened read-only before migration 6: no table, no faults
        return {}
    return {run_id: int(count) for run_id, count in rows}


def stamp(conn: sqlite3.Connection, run_id: str) -> list[int]:
    """Changes whenever a fault is recorded for the run (a cached report must then be recomputed)."""
    count, last = conn.execute("select count(*), coalesce(max(rowid), 0) from env_faults where run_id = ?",
                               [run_id]).fetchone()
    return [int(count), int(last)]
