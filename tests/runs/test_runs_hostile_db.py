"""A log database handed over by someone else: one whose schema is not Sembench's (a view or a trigger
where tables belong, an object Sembench does not make) is refused with one line before any query; every
statement runs under a bound, so a query that would run for ever is stopped."""

from __future__ import annotations

import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from runs_support import cli_command

from core.errors import UserError
from core.store import LogStore
from core.store.faults import db_fault
from core.store.schema import bound_queries

ENDLESS = "with recursive r(i) as (select 1 union all select i + 1 from r) select i from r"


def _made(path: Path, *statements: str) -> Path:
    LogStore(path).close()
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    return path


def _sembench(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command("--db", str(db), *args), capture_output=True, text=True, timeout=60)


def test_runs_replaced_by_a_view_over_an_endless_query_is_refused_with_one_line(tmp_path: Path) -> None:
    db = _made(tmp_path / "handed-over.db", "drop table runs",
               "create view runs as select i as id, 's' as snapshot, 'cascade' as family, 'x' as solver, 1 as samples, "
               "'{}' as options, '' as created, null as finished, 'finished' as status, 1 as total, null as pid, "
               f"null as host, null as heartbeat from ({ENDLESS})")
    for args in (["runs"], ["report", "run-1"], ["runs", "--format", "json"]):
        started = time.monotonic()
        done = _sembench(db, *args)  # today's code ran for ever here (the timeout fails the test)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert "not a Sembench database" in lines[0] and "a view named 'runs'" in lines[0], lines
        assert time.monotonic() - started < 30


@pytest.mark.parametrize(("statement", "says"), [
    ("create trigger on_attempt after insert on attempts begin delete from runs; end",
     "a trigger 'on_attempt' that Sembench does not make"),
    ("create table loot (x)", "a table 'loot' that Sembench does not make"),
    ("create view \"\x1b]52;c;aGk=\x07v\" as select 1", "a view '\\u001b]52;c;aGk=\\u0007v' that Sembench does not make"),
])
def test_objects_sembench_does_not_make_are_refused_by_name(tmp_path: Path, statement: str, says: str) -> None:
    db = _made(tmp_path / "log.db", statement)
    with pytest.raises(UserError, match="not a Sembench database") as caught:
        LogStore(db)
    assert says in str(caught.value)
    done = _sembench(db, "runs")
    assert done.returncode == 2 and says in done.stderr and "\x1b" not in done.stderr, done.stderr


def test_a_virtual_table_where_a_table_belongs_is_refused(tmp_path: Path) -> None:
    db = _made(tmp_path / "log.db", "drop table notes", "create virtual table notes using fts5(snapshot, note)")
    with pytest.raises(UserError, match="'notes' made as a virtual table"):
        LogStore(db)


def test_a_statement_past_its_bound_is_interrupted_and_reported_in_one_line(tmp_path: Path) -> None:
    conn = bound_queries(sqlite3.connect(":memory:"), limit_s=0.3)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupted") as caught:
        conn.execute(f"select count(*) from ({ENDLESS})").fetchone()
    assert time.monotonic() - started < 10
    message = str(db_fault(tmp_path / "log.db", caught.value))
    assert "was stopped" in message and "\n" not in message
    # the bound is per statement: the connection goes on serving short ones
    assert conn.execute("select 1").fetchone() == (1,)
    time.sleep(0.4)
    assert conn.execute("select count(*) from (with recursive r(i) as (select 1 union all select i + 1 from r "
                        "where i < 1000) select i from r)").fetchone() == (1000,)
