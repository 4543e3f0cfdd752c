"""A database handed over by someone else is read only when its schema is Sembench's, and no query runs
without a bound.

A view or a trigger can hold any query: `runs` replaced by a view over an endless recursive CTE made
`sembench runs` and `report` run for ever without a word. So a log or snapshots database is opened only
when every object in it is one Sembench makes (the tables and indexes of the migrations, of any earlier
schema version, and of the snapshot tables; SQLite's own), each of the kind Sembench makes it (a table
where a table belongs, never a view, a trigger or a virtual table); anything else is refused with one
line. As a second line of defence every connection runs its statements under a progress handler that
interrupts one that has been running for QUERY_LIMIT_S (SQLite's `interrupted` error, reported like any
other database fault)."""

from __future__ import annotations

import sqlite3
import time
from functools import cache
from pathlib import Path

from core.errors import UserError
from core.terminal import shown

QUERY_LIMIT_S = 120.0  # no statement of Sembench's runs near this long on a database of millions of attempts
PROGRESS_EVERY = 20_000  # SQLite VM instructions between two looks at the clock (~0.1 ms of work)

# Objects of the snapshot tables (made by sqlite-utils: core.store.snapshots) and of earlier schema versions.
SNAPSHOT_OBJECTS = {("table", "snapshots"), ("table", "instances"), ("index", "idx_instances_snapshot_id")}
FORMER_OBJECTS = {("index", "attempts_instance")}  # dropped by migration 4


class _Bound:
    """The progress handler: a statement that has run QUERY_LIMIT_S since it began is interrupted. The
    trace callback, called as each statement begins to execute, starts its clock."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self.began = time.monotonic()

    def begin(self, _sql: str) -> None:
        self.began = time.monotonic()

    def __call__(self) -> int:
        return 1 if time.monotonic() - self.began > self.limit_s else 0


def bound_queries(conn: sqlite3.Connection, limit_s: float = QUERY_LIMIT_S) -> sqlite3.Connection:
    """Interrupt any statement of `conn` that runs longer than `limit_s` (sqlite3.OperationalError
    "interrupted")."""
    bound = _Bound(limit_s)
    conn.set_trace_callback(bound.begin)
    conn.set_progress_handler(bound, PROGRESS_EVERY)
    return conn


@cache
def known_objects() -> frozenset[tuple[str, str]]:
    """(type, name) of every object a Sembench database may hold: what the migrations make (run on an
    empty database in memory), the snapshot tables, earlier versions' objects."""
    from core.store.migrations import MIGRATIONS

    conn = sqlite3.connect(":memory:")
    try:
        for step in MIGRATIONS:
            step(conn)
        made = {(kind, name) for kind, name in conn.execute("select type, name from sqlite_master")}
    finally:
        conn.close()
    return frozenset(made | SNAPSHOT_OBJECTS | FORMER_OBJECTS)


def _sqlite_own(name: str) -> bool:
    return name == "sqlite_sequence" or name.startswith(("sqlite_stat", "sqlite_autoindex_"))


def check_schema(conn: sqlite3.Connection, path: Path | str) -> None:
    """UserError (one line) unless every object of the database is one Sembench makes, of its kind."""
    known = known_objects()
    known_names = {name: kind for kind, name in known}
    strange = []
    for kind, name, sql in conn.execute("select type, name, sql from sqlite_master order by rowid"):
        if _sqlite_own(name) and kind in ("table", "index"):
            continue
        if (kind, name) in known and not (kind == "table" and (sql or "").lstrip()[:12].lower() != "create table"):
            continue
        if name in known_names and kind != known_names[name]:
            strange.append(f"a {shown(kind)} named '{name}' where Sembench's {known_names[name]} belongs")
        elif kind == "table" and name in known_names:
            strange.append(f"'{name}' made as a virtual table")
        else:
            strange.append(f"a {shown(kind)} '{shown(name)}' that Sembench does not make")
    if strange:
        more = f" (and {len(strange) - 1} more)" if len(strange) > 1 else ""
        raise UserError(f"not a Sembench database: it holds {strange[0]}{more}; it is not read (a view or "
                        "trigger can run any query); use --db (SEMBENCH_DB) with a database Sembench made",
                        file=str(path))
