"""The log database's schema goes through PRAGMA user_version migrations."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import UserError
from core.store import LogStore
from core.store.migrations import SCHEMA_VERSION


def test_a_new_database_is_at_the_current_version(tmp_path) -> None:
    store = LogStore(tmp_path / "log.db")
    assert store.db.execute("pragma user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"runs", "attempts", "response_cache", "tool_cache"} <= set(store.db.table_names())


def test_a_database_from_before_versioning_is_migrated_without_losing_rows(tmp_path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    # the runs table as the first release made it: no liveness columns, no user_version
    conn.execute("create table runs (id text primary key, snapshot text, family text, solver text, samples integer,"
                 " options text, created text, finished text, status text, total integer)")
    conn.execute("insert into runs values ('run-1', 's', 'cascade', 'oracle', 1, '{}', 'then', null, 'finished', 3)")
    conn.commit()
    conn.close()
    store = LogStore(path)
    assert store.db.execute("pragma user_version").fetchone()[0] == SCHEMA_VERSION
    run = store.get_run("run-1")
    assert run["status"] == "finished" and "heartbeat" in run and run["total"] == 3
    assert store.list_runs()[0]["state"] == "finished"


def test_a_database_newer_than_this_program_is_refused(tmp_path) -> None:
    path = tmp_path / "future.db"
    LogStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"pragma user_version = {SCHEMA_VERSION + 5}")
    conn.commit()
    conn.close()
    with pytest.raises(UserError, match="newer than this sembench"):
        LogStore(path)


def test_every_database_has_the_run_progress_table_through_the_migrations(tmp_path) -> None:
    """A cluster run's progress table is a versioned one: a new database has it, and a database of the
    version before it gains it when opened (no run on a cluster needed)."""
    new = LogStore(tmp_path / "new.db")
    assert "run_progress" in new.db.table_names()
    new.close()
    path = tmp_path / "v6.db"
    LogStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("drop table run_progress")
    conn.execute("pragma user_version = 6")
    conn.commit()
    conn.close()
    store = LogStore(path)
    assert "run_progress" in store.db.table_names()
    assert store.db.execute("pragma user_version").fetchone()[0] == SCHEMA_VERSION >= 7
    columns = [row[1] for row in store.db.execute("pragma table_info(run_progress)")]
    assert columns == ["run_id", "progress", "updated"]


def test_a_version_7_log_gains_the_persons_clock_columns_and_keeps_its_attempts(tmp_path) -> None:
    """Version 8: an attempt's time to the first keystroke and its pauses, beside human_time_s."""
    from core.store.migrations import MIGRATIONS

    path = tmp_path / "v7.db"
    conn = sqlite3.connect(path)
    for migration in MIGRATIONS[:7]:
        migration(conn)
    conn.execute("pragma user_version = 7")
    conn.execute("insert into attempts (instance_id, family, solver, human_time_s) values ('i', 'membership', "
                 "'human:Ada', 12.5)")
    conn.commit()
    conn.close()
    store = LogStore(path)
    [row] = store.attempts()
    assert row["human_time_s"] == 12.5 and row["solver"] == "human:Ada"
    assert (row["first_key_s"], row["paused_s"], row["pauses"]) == (None, None, None)
