"""The handle a store reads and writes through: a sqlite3 connection, plus the few schema questions the
stores ask.

Stores used to hold a `sqlite_utils.Database` for this; every command that opens a database then imported
sqlite_utils (with dateutil, pluggy and sqlite-fts4: ~70 ms of CPU, a tenth of a model run's start-up,
docs/performance.md) to run plain SQL. sqlite-utils now only creates the snapshot tables of a new file
(`Database.sqlite_utils()`, from core.store.snapshots), the one place its table helpers are used."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any


class Database:
    """`execute`/`executemany` on the connection, `table_names()`; `conn` for transactions."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        from core.store.schema import bound_queries

        self.conn = bound_queries(conn)  # no statement runs without a bound (core.store.schema)

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None) -> sqlite3.Cursor:
        return self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)

    def table_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("select name from sqlite_master where type = 'table'")]

    def sqlite_utils(self) -> Any:
        """The same connection as a `sqlite_utils.Database`, for its table helpers (imported on first use).

        execute_plugins=False: no scan of every installed package's entry points for sqlite-utils plugins
        (~45 ms), and no third-party plugin changing the connections sembench writes through."""
        from core.store.sqlite_lib import sqlite_utils

        return sqlite_utils.Database(self.conn, execute_plugins=False)
