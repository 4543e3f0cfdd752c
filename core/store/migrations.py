"""The log database's schema, versioned with `PRAGMA user_version`.

Each migration takes the schema from version i to i+1 and runs once, in a transaction, when a process
opens a database older than `SCHEMA_VERSION`. Version 1 is the schema as it was before versioning
(created with "if not exists", so databases made by earlier releases, which read as version 0, are
brought up to it without losing anything; runs tables made before liveness get its columns). A database
newer than this program knows is refused: an older release must not write into a schema it does not know.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from core.errors import UserError

V1 = """
create table if not exists runs (
  id text primary key, snapshot text, family text, solver text, samples integer,
  options text, created text, finished text, status text, total integer,
  pid integer, host text, heartbeat text
);
create table if not exists attempts (
  id integer primary key autoincrement,
  run_id text, snapshot text, instance_id text not null, family text not null, sample integer default 0,
  solver text not null, source text, prompt text, response text, reasoning text, answer text,
  correct integer, score real, status text, verdict text, error text, error_kind text,
  started text, elapsed_s real, human_time_s real, tokens_in integer, tokens_out integer,
  usage text, cached integer default 0
);
create unique index if not exists attempts_run_item on attempts(run_id, instance_id, sample)
  where run_id is not null;
create index if not exists attempts_instance on attempts(instance_id);
create index if not exists attempts_run_correct on attempts(run_id, correct) where run_id is not null;
create index if not exists attempts_run_errors on attempts(run_id) where run_id is not null and error is not null;
create index if not exists attempts_instance_solver on attempts(instance_id, solver, correct);
create table if not exists response_cache (
  key text primary key, spec text, response text, created text
);
"""

LIVENESS_COLUMNS = (("pid", "integer"), ("host", "text"), ("heartbeat", "text"))


def _v1(conn: sqlite3.Connection) -> None:
    for statement in V1.split(";"):
        if statement.strip():
            conn.execute(statement)
    have = {row[1] for row in conn.execute("pragma table_info(runs)")}
    for name, sql_type in LIVENESS_COLUMNS:
        if name not in have:
            conn.execute(f"alter table runs add column {name} {sql_type}")


def _v2(conn: sqlite3.Connection) -> None:
    """External tools' results, cached by content (core.tools.cache creates it too, for databases it
    reaches before this migration ran)."""
    conn.execute("create table if not exists tool_cache (key text primary key, tool text, version text, "
                 "result text, created text)")


def _v3(conn: sqlite3.Connection) -> None:
    """Finished reports, cached per run (core.report): `stamp` says which state of the run (its
    attempts, header and snapshot, sembench's and the family's code) a value was computed from."""
    conn.execute("create table if not exists report_cache (run_id text not null, kind text not null, "
                 "stamp text not null, value text not null, created text, primary key (run_id, kind))")
    # A run's numbers without its wide rows: an attempt row carries its prompt, response and verdict
    # (~4 KB, over several pages), and a report over 200,000 of them would read them all. This index
    # holds what counts, pass@k and the best-of-k selection read (index-only scans) and finds sample 0
    # of every instance directly. It is keyed on the expression `'' || run_id`, not on run_id itself,
    # so that only queries that ask for it by that expression (core.report's RUN_FACTS) use it: keyed
    # on run_id, SQLite's planner (no statistics) would pick it for other queries on a run, e.g. the
    # error counts the TUI polls, and read every row instead of the few errors. Building it on an old
    # database reads the table once, when that database is first opened by this version.
    conn.execute("create index if not exists attempts_run_facts on attempts(('' || run_id), sample, instance_id, "
                 "correct, score, cached, tokens_in, tokens_out, elapsed_s) where run_id is not null")


def _v4(conn: sqlite3.Connection) -> None:
    """attempts_instance(instance_id) goes: attempts_instance_solver(instance_id, solver, correct) starts
    with the same column, so every query by instance uses that one (the summaries index-only, as
    before; an instance's attempts with a sort of its few rows by id). Each index is one more b-tree
    every attempt's insert updates: with ~50,000 attempts in the log, this one cost ~10 µs of the
    writer's ~57 µs of CPU per attempt, and about a fifth of its page writes (both grow with the log)."""
    conn.execute("drop index if exists attempts_instance")


def _v5(conn: sqlite3.Connection) -> None:
    """The researcher's notes per instance (core.store.notes): keyed by snapshot name and instance id,
    not by a row of `instances`, so a snapshot imported again under its name keeps them."""
    conn.execute("create table if not exists notes (snapshot text not null, instance_id text not null, "
                 "bookmarked integer not null default 0, tags text not null default '[]', "
                 "note text not null default '', updated text, primary key (snapshot, instance_id))")


def _v6(conn: sqlite3.Connection) -> None:
    """Attempts a run could not make because the machine failed (an EnvironmentFault: a tool missing or
    broken, a full or read-only TMPDIR, the OOM killer): never attempts, never verdicts, but what the run
    met, so that reports count them apart (core.store.envfaults). A row is superseded once its (run,
    instance, sample) has an attempt: a resume redoes them."""
    conn.execute("create table if not exists env_faults (run_id text not null, instance_id text not null, "
                 "sample integer not null, cause text not null, created text, "
                 "primary key (run_id, instance_id, sample))")


def _v7(conn: sqlite3.Connection) -> None:
    """A cluster run's progress, one row per run (core.cluster.progress): written by the run's process at
    most once a second, read by the workbench's Runs screen. Databases an earlier release gave a cluster
    run already have it (that release made it on first write), hence "if not exists"."""
    conn.execute("create table if not exists run_progress (run_id text primary key, progress text not null, "
                 "updated real not null)")


def _v8(conn: sqlite3.Connection) -> None:
    """A person's clock beside `human_time_s` (now the time from the problem shown to the answer sent,
    pauses left out): the time before the first keystroke, and how often and how long the clock stood
    still (core.attempts.HumanTiming). Empty for models, and for people's attempts recorded before."""
    have = {row[1] for row in conn.execute("pragma table_info(attempts)")}
    for name, sql_type in (("first_key_s", "real"), ("paused_s", "real"), ("pauses", "integer")):
        if name not in have:
            conn.execute(f"alter table attempts add column {name} {sql_type}")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Bring the database to SCHEMA_VERSION; returns the version it had. BEGIN IMMEDIATE takes the write
    lock first, so two processes opening an old database at once migrate it once."""
    version = conn.execute("pragma user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise UserError(f"log database schema version {version} is newer than this sembench knows "
                        f"({SCHEMA_VERSION}); upgrade sembench", file=path)
    if version == SCHEMA_VERSION:
        return version
    conn.execute("begin immediate")
    try:
        current = conn.execute("pragma user_version").fetchone()[0]  # another process may have won
        for step in MIGRATIONS[current:]:
            step(conn)
        conn.execute(f"pragma user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.rollback()
        raise
    conn.commit()
    return version
