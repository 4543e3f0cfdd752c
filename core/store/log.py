"""The user's log database: runs, attempts, the response cache and tool results, plus user snapshots.

WAL mode, so the TUI can watch a run another process writes. The schema is versioned (migrations.py).
Batch runs write through `AttemptWriter` (core.store.writer): batched transactions from a thread of
its own, so the event loop never waits for SQLite.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from core.canonical import canonical_json
from core.paths import default_log_db
from core.store import envfaults, runs
from core.store.faults import db_fault
from core.store.migrations import migrate
from core.store.runs import now_iso
from core.store.snapshots import SnapshotStore


class LogStore(SnapshotStore):
    """The user's log database: runs, attempts, response cache, plus user snapshots. WAL mode."""

    is_log_database = True  # refuses a snapshots database (core.store.snapshots.refuse_snapshots_database)

    def __init__(self, path: Path | str | None = None) -> None:
        super().__init__(path or default_log_db(), writable=True)
        try:
            self.db.execute("pragma journal_mode=wal")
            self.db.execute("pragma busy_timeout=5000")
            migrate(self.db.conn, str(self.path))
        except sqlite3.DatabaseError as exc:
            raise db_fault(self.path, exc) from None

    # -- runs (core.store.runs) ------------------------------------------------------------------
    def get_run(self, run_id: str) -> dict[str, Any]:
        return runs.get_run(self.db.conn, run_id)

    def list_runs(self) -> list[dict[str, Any]]:
        """Runs, oldest first (core.store.runs.list_runs), each with `env_errors`: its attempts an error of
        the environment stopped and not redone since, as `report` counts them (core.store.envfaults)."""
        rows = runs.list_runs(self.db.conn)
        env = envfaults.outstanding_by_run(self.db.conn)
        for row in rows:
            row["env_errors"] = env.get(row["id"], 0)
        return rows

    def create_run(self, run_id: str, **fields: Any) -> None:
        runs.create_run(self.db.conn, run_id, **fields)

    def claim_run(self, run_id: str) -> dict[str, Any]:
        return runs.claim_run(self.db.conn, run_id)

    def set_status(self, run_id: str, status: str) -> None:
        runs.set_status(self.db.conn, run_id, status)

    # -- errors of the environment (core.store.envfaults) ---------------------------------------------
    def record_env_faults(self, run_id: str, faults: Iterable[tuple[str, int, str]]) -> None:
        envfaults.record(self.db.conn, run_id, faults)

    def env_faults(self, run_id: str) -> dict[str, Any]:
        return envfaults.outstanding(self.db.conn, run_id)

    # -- attempts --------------------------------------------------------------------------------
    def add_attempt(self, record: dict[str, Any]) -> int:
        """Insert one attempt in its own transaction: a crash loses at most the one in flight."""
        row = attempt_columns(record)
        with self.db.conn:
            cursor = self.db.conn.execute(insert_sql(tuple(row)), list(row.values()))
        return int(cursor.lastrowid or 0)

    def complete_verdict(self, attempt_id: int, verdict_column: str) -> None:
        """Replace an attempt's verdict by the same verdict completed later (core.completing: what batch
        checks add beyond right or wrong), as stored text (core.attempts.verdict_column). Its run, if
        any, counts it, so the run's cached report is made again."""
        with self.db.conn:
            row = self.db.conn.execute("select run_id from attempts where id = ?", [attempt_id]).fetchone()
            if row is None:
                return
            self.db.conn.execute("update attempts set verdict = ? where id = ?", [verdict_column, attempt_id])
            if row[0] is not None:
                runs.note_completed(self.db.conn, row[0], 1)

    def attempts(self, *, instance_id: str | None = None, run_id: str | None = None) -> list[dict[str, Any]]:
        where, args = [], []
        if instance_id is not None:
            where.append("instance_id = ?")
            args.append(instance_id)
        if run_id is not None:
            where.append("run_id = ?")
            args.append(run_id)
        sql = "select * from attempts" + (" where " + " and ".join(where) if where else "") + " order by id"
        cursor = self.db.execute(sql, args)
        cols = [d[0] for d in cursor.description]
        return [dict(zip(cols, r, strict=True)) for r in cursor.fetchall()]

    def attempt_summary(self) -> dict[str, tuple[int, bool]]:
        """instance id -> (attempts, solved at least once), over the whole log, in one query."""
        cursor = self.db.execute(
            "select instance_id, count(*), max(coalesce(correct, 0)) from attempts group by instance_id"
        )
        return {iid: (int(n), bool(solved)) for iid, n, solved in cursor}

    def run_progress(self) -> dict[str, tuple[int, int, int]]:
        """run id -> (attempts written, correct, errors) so far: live progress of runs being written."""
        cursor = self.db.execute(
            "select run_id, count(*), sum(coalesce(correct, 0)), sum(error is not null) "
            "from attempts where run_id is not null group by run_id"
        )
        return {run_id: (int(n), int(ok or 0), int(err or 0)) for run_id, n, ok, err in cursor}

    # -- lean reads for pollers (the workbench reads these from worker threads) --------------------
    def change_marker(self) -> tuple[int, int, str]:
        """(largest attempt id, number of runs, a stamp of the runs' ids/statuses/heartbeats): cheap to
        read (one index lookup and a pass over `runs`, never a scan of `attempts`) and different whenever
        an attempt is written or a run starts, beats, ends or changes status."""
        max_id = self.db.execute("select coalesce(max(id), 0) from attempts").fetchone()[0]
        n, stamp = self.db.execute(
            "select count(*), coalesce(group_concat(id || ':' || coalesce(status, '') || ':' || "
            "coalesce(heartbeat, '') || ':' || coalesce(finished, ''), '|'), '') from runs"
        ).fetchone()
        return int(max_id), int(n), str(stamp)

    def run_counts(self, run_ids: Iterable[str] | None = None) -> dict[str, tuple[int, int, int]]:
        """run id -> (attempts written, correct, errors), all three from one statement (one consistent
        read, so `correct` never exceeds `done`), for every run or only `run_ids`. Index-only given
        attempts(run_id, correct) and a partial index on run_id where error is not null."""
        where, args = "a.run_id is not null", []
        if run_ids is not None:
            args = list(run_ids)
            if not args:
                return {}
            where = f"a.run_id in ({', '.join('?' for _ in args)})"
        cursor = self.db.execute(
            "select a.run_id, count(*), sum(coalesce(a.correct, 0)), "
            "(select count(*) from attempts e where e.run_id = a.run_id and e.error is not null) "
            f"from attempts a where {where} group by a.run_id",
            args,
        )
        return {run_id: (int(n), int(ok or 0), int(err or 0)) for run_id, n, ok, err in cursor}

    def solver_summary(self, since_id: int | None = None) -> dict[str, dict[str, tuple[int, bool]]]:
        """instance id -> solver -> (attempts, solved at least once), over the whole log, in one query
        (index-only given attempts(instance_id, solver, correct)); with `since_id`, over the attempts
        written after that one only (attempts are only ever appended: a reader adds these to what it has)."""
        where, args = ("where id > ? ", [since_id]) if since_id is not None else ("", [])
        cursor = self.db.execute(
            "select instance_id, solver, count(*), max(coalesce(correct, 0)) from attempts "
            f"{where}group by instance_id, solver", args
        )
        out: dict[str, dict[str, tuple[int, bool]]] = {}
        for iid, solver, n, solved in cursor:
            out.setdefault(iid, {})[solver] = (int(n), bool(solved))
        return out

    def report_attempts(self, run_id: str) -> list[dict[str, Any]]:
        """A run's attempts with only the columns a report reads: no prompt, reasoning, answer or usage,
        and the raw response only where there is no stored verdict (it is verified again from it)."""
        cursor = self.db.execute(
            "select id, run_id, instance_id, sample, solver, correct, score, status, verdict, error, error_kind, "
            "started, elapsed_s, human_time_s, tokens_in, tokens_out, cached, "
            "case when verdict is null or verdict = '' then response end as response "
            "from attempts where run_id = ? order by id",
            [run_id],
        )
        cols = [d[0] for d in cursor.description]
        return [dict(zip(cols, r, strict=True)) for r in cursor.fetchall()]

    # -- response cache --------------------------------------------------------------------------
    def cache_get(self, key: str) -> dict[str, Any] | None:
        row = self.db.execute("select response from response_cache where key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else None

    def cache_put(self, key: str, spec: str, response: dict[str, Any]) -> None:
        with self.db.conn:
            self.db.conn.execute(
                "insert or replace into response_cache (key, spec, response, created) values (?, ?, ?, ?)",
                [key, spec, canonical_json(response), now_iso()],
            )


def _to_column(value: Any) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float:  # most columns, checked first
        return value
    if hasattr(value, "model_dump_json"):
        # pydantic's own serialiser (in Rust): ~10x faster than model_dump + json.dumps on a verdict.
        # Keys come in field order rather than sorted; every reader parses the JSON.
        return value.model_dump_json()
    if isinstance(value, dict | list):
        return canonical_json(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        return str(value)  # JSON text a row() made already (core.attempts.JsonText), as a plain string
    return value


def attempt_columns(record: Any, prompt_json: str | None = None) -> dict[str, Any]:
    """Column values of one attempt: a row dict (`AttemptRecord.row()`), or an AttemptRecord itself
    (cheaper: its nested models are serialised once, straight to JSON). `prompt_json` replaces the
    prompt column with text already serialised (a run's samples share their instance's prompt)."""
    fields = record.__dict__ if isinstance(record, BaseModel) else record
    row = {key: _to_column(value) for key, value in fields.items()}
    if prompt_json is not None:
        row["prompt"] = prompt_json
    if not row.get("started"):
        row["started"] = now_iso()
    return row


_INSERTS: dict[tuple[str, ...], str] = {}


def insert_sql(columns: tuple[str, ...]) -> str:
    sql = _INSERTS.get(columns)
    if sql is None:
        sql = _INSERTS[columns] = (f"insert or replace into attempts ({', '.join(columns)}) "
                                   f"values ({', '.join('?' for _ in columns)})")
    return sql
