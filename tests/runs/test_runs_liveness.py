"""Runs record their process (pid, host) and a heartbeat: `sembench runs` says "stale" for a run whose
process died, and a run live in another process is not resumed a second time."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from runs_support import run_cli, write_snapshot

from core.liveness import heartbeat, is_live
from core.runner import RunConfig, RunStats, get_run, list_runs, run_async, run_sync
from core.store import LogStore, Workspace, now_iso

LONG_AGO = "2000-01-01T00:00:00.000+00:00"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: the pid now names no process
    return proc.pid


def _set(db, run_id: str, **values) -> None:
    store = LogStore(db)
    with store.db.conn:
        for column, value in values.items():
            store.db.conn.execute(f"update runs set {column} = ? where id = ?", [value, run_id])
    store.close()


def _state(run_id: str) -> str:
    rows = json.loads(run_cli("runs", "--format", "json").stdout)
    return next(r["state"] for r in rows if r["id"] == run_id)


def test_runs_tells_a_live_run_from_a_stale_one(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 2)
    run_id = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle")).run_id
    assert _state(run_id) == "finished"
    _set(log_db, run_id, status="running", pid=os.getpid(), heartbeat=now_iso())
    assert _state(run_id) == "running"
    _set(log_db, run_id, pid=_dead_pid())
    assert _state(run_id) == "stale", "its process is gone"
    _set(log_db, run_id, pid=os.getpid(), heartbeat=LONG_AGO)
    assert _state(run_id) == "stale", "its process exists but has not beaten for ages (a reused pid)"
    _set(log_db, run_id, heartbeat=None)
    assert _state(run_id) == "stale", "no heartbeat at all: written by an older version, long gone"
    assert "stale" in run_cli("runs").stdout


def test_a_run_live_elsewhere_is_not_resumed_twice(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 3)
    run_id = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle", limit=1)).run_id
    _set(log_db, run_id, status="running", pid=os.getpid(), heartbeat=now_iso())
    refused = run_cli("run", "--resume", run_id)
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "still running" in refused.stderr and str(os.getpid()) in refused.stderr
    assert get_run(LogStore(log_db), run_id)["status"] == "running", "the live run is left alone"

    _set(log_db, run_id, pid=_dead_pid())  # killed: stale, so resuming is right
    resumed = run_cli("run", "--resume", run_id, "--format", "json")
    assert resumed.exit_code == 0, resumed.stderr
    run = get_run(LogStore(log_db), run_id)
    assert run["status"] == "finished" and run["pid"] == os.getpid()


async def test_a_running_run_is_stamped_live_and_the_heartbeat_refreshes_it(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 3)
    ws = Workspace(log_db)
    states: list[str] = []

    class Watch:
        def start(self, stats: RunStats) -> None: ...
        def attempt(self, record, stats: RunStats) -> None:
            states.append(next(r["state"] for r in list_runs(ws.log) if r["id"] == stats.run_id))
        def finish(self, stats: RunStats) -> None: ...

    outcome = await run_async(ws, RunConfig(snapshot="s", solver="oracle"), observer=Watch())
    assert states == ["running"] * 3
    _set(log_db, outcome.run_id, status="running", heartbeat=LONG_AGO)
    assert not is_live(get_run(ws.log, outcome.run_id))

    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await heartbeat(ws.log, outcome.run_id, interval_s=7.0, sleep=sleep)
    run = get_run(ws.log, outcome.run_id)
    assert waits == [7.0] * 3 and run["heartbeat"] != LONG_AGO and is_live(run)


def test_old_databases_get_the_liveness_columns(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 1)
    store = LogStore(log_db)
    store.db.conn.execute("insert into runs (id, snapshot, family, solver, samples, options, created, status, total)"
                          " values ('run-old', 's', 'toy', 'oracle', 1, '{}', '2020', 'running', 1)")
    store.db.conn.commit()
    assert [r["state"] for r in list_runs(store)] == ["stale"], "readable before the columns exist"
    run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle"), resume="run-old")
    columns = {row[1] for row in store.db.execute("pragma table_info(runs)")}
    assert {"pid", "host", "heartbeat"} <= columns
    assert get_run(store, "run-old")["status"] == "finished"


def test_now_iso_writes_what_datetime_writes_across_seconds(monkeypatch) -> None:
    # now_iso formats the date and time once per second: the stamps must still be datetime's own, on
    # either side of a second (and of a day, a year) and at the first or last millisecond of one.
    import datetime as dt
    import time

    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    for ns in (0, 999_999_999, 1_000_000_000, 1_764_100_000_000_000_000, 1_764_100_000_999_999_999,
               1_764_100_001_000_000_000, 1_767_225_599_999_000_000, 1_767_225_600_000_000_000,
               1_764_100_001_500_000_000, 1_764_100_000_001_000_000):
        monkeypatch.setattr(time, "time_ns", lambda ns=ns: ns)
        expected = (epoch + dt.timedelta(microseconds=ns // 1000)).isoformat(timespec="milliseconds")
        assert now_iso() == expected
    monkeypatch.undo()
    before = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
    stamp = now_iso()
    assert before <= stamp <= dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
