"""SQLite storage through sqlite-utils.

Two databases: the bundled `snapshots.db` (snapshots + instances, opened read-only, never written by
the app or the tests) and the user's log database (runs, attempts, response cache, and any snapshots
the user builds or imports). `Workspace` reads snapshots from both.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from core.canonical import canonical_json
from core.errors import UserError
from core.instance import Instance, Snapshot

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_SNAPSHOTS = REPO_ROOT / "snapshots.db"


def default_log_db() -> Path:
    if os.environ.get("SEMBENCH_DB"):
        return Path(os.environ["SEMBENCH_DB"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "sembench" / "log.db"


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def _check_readable(db: sqlite_utils.Database, path: Path) -> None:
    """Touch the schema so a truncated or foreign file fails here, with a clear message."""
    try:
        db.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise UserError(f"not a usable SQLite database ({exc})", file=str(path)) from None


def _ensure_snapshot_tables(db: sqlite_utils.Database) -> None:
    if "snapshots" not in db.table_names():
        db["snapshots"].create(
            {"name": str, "family": str, "preset": str, "params": str, "seed": int, "count": int,
             "description": str, "meta": str, "created": str},
            pk="name",
        )
    if "instances" not in db.table_names():
        db["instances"].create(
            {"snapshot": str, "idx": int, "id": str, "family": str, "features": str, "data": str},
            pk=("snapshot", "idx"),
        )
        db["instances"].create_index(["snapshot", "id"], unique=True)


class SnapshotStore:
    """Snapshots and their instances in one SQLite file (read-only unless `writable`)."""

    def __init__(self, path: Path | str, writable: bool = False) -> None:
        self.path = Path(path)
        self.writable = writable
        if writable:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite_utils.Database(str(self.path))
            _check_readable(self.db, self.path)
            _ensure_snapshot_tables(self.db)
        else:
            if not self.path.exists():
                raise UserError("snapshot database not found", file=str(self.path))
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            self.db = sqlite_utils.Database(conn)
            _check_readable(self.db, self.path)

    def close(self) -> None:
        self.db.conn.close()

    def has_tables(self) -> bool:
        return {"snapshots", "instances"} <= set(self.db.table_names())

    def snapshots(self) -> list[Snapshot]:
        if not self.has_tables():
            return []
        rows = self.db.execute(
            "select name, family, preset, params, seed, count, description, meta from snapshots order by name"
        ).fetchall()
        return [
            Snapshot(name=r[0], family=r[1], preset=r[2], params=json.loads(r[3] or "{}"), seed=r[4],
                     count=r[5] or 0, description=r[6] or "", meta=json.loads(r[7] or "{}"))
            for r in rows
        ]

    def snapshot(self, name: str) -> Snapshot | None:
        for snap in self.snapshots():
            if snap.name == name:
                return snap
        return None

    def instance_rows(self, snapshot: str) -> Iterator[tuple[int, str, dict[str, Any], dict[str, Any]]]:
        """(idx, id, features, data) in snapshot order, without building models (fast for tables)."""
        cursor = self.db.execute(
            "select idx, id, features, data from instances where snapshot = ? order by idx", [snapshot]
        )
        for idx, iid, features, data in cursor:
            yield idx, iid, json.loads(features), json.loads(data)

    def feature_rows(self, snapshot: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """(idx, id, features) in snapshot order without decoding instance payloads (tables of 10k rows)."""
        cursor = self.db.execute("select idx, id, features from instances where snapshot = ? order by idx", [snapshot])
        for idx, iid, features in cursor:
            yield idx, iid, json.loads(features)

    def instance_data(self, snapshot: str, instance_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "select data from instances where snapshot = ? and id = ?", [snapshot, instance_id]
        ).fetchone()
        return json.loads(row[0]) if row else None

    def write_snapshot(self, snapshot: Snapshot, instances: Iterable[Instance], features: Any = None) -> int:
        """Replace a snapshot and its instances atomically. `features(instance) -> dict`.

        Duplicate ids are refused before anything is written, so a failed import loses nothing.
        """
        if not self.writable:
            raise UserError("snapshot database is read-only", file=str(self.path))
        rows = []
        seen: dict[str, int] = {}
        for idx, inst in enumerate(instances):
            if inst.id in seen:
                raise UserError(f"duplicate instance id '{inst.id}' (items {seen[inst.id] + 1} and {idx + 1})",
                                field="id")
            seen[inst.id] = idx
            feats = features(inst) if features else dict(inst.meta)
            rows.append((snapshot.name, idx, inst.id, inst.family, canonical_json(feats),
                         canonical_json(inst.to_json_dict())))
        snapshot_row = (snapshot.name, snapshot.family, snapshot.preset, canonical_json(snapshot.params),
                        snapshot.seed, len(rows), snapshot.description, canonical_json(snapshot.meta),
                        snapshot.meta.get("created", ""))
        # Plain sqlite3 statements in one explicit transaction: sqlite-utils' helpers commit on their own.
        conn = self.db.conn
        conn.execute("begin immediate")
        try:
            conn.execute("delete from instances where snapshot = ?", [snapshot.name])
            conn.execute("delete from snapshots where name = ?", [snapshot.name])
            conn.execute("insert into snapshots (name, family, preset, params, seed, count, description, meta, "
                         "created) values (?, ?, ?, ?, ?, ?, ?, ?, ?)", snapshot_row)
            conn.executemany("insert into instances (snapshot, idx, id, family, features, data) "
                             "values (?, ?, ?, ?, ?, ?)", rows)
        except BaseException:
            conn.rollback()
            raise
        conn.commit()
        return len(rows)


LOG_SCHEMA = """
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


class LogStore(SnapshotStore):
    """The user's log database: runs, attempts, response cache, plus user snapshots. WAL mode."""

    def __init__(self, path: Path | str | None = None) -> None:
        super().__init__(path or default_log_db(), writable=True)
        try:
            self.db.execute("pragma journal_mode=wal")
            self.db.execute("pragma busy_timeout=5000")
            self.db.conn.executescript(LOG_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise UserError(f"not a usable SQLite database ({exc})", file=str(self.path)) from None

    # -- attempts --------------------------------------------------------------------------------
    def add_attempt(self, record: dict[str, Any]) -> int:
        """Insert one attempt in its own transaction: a crash loses at most the one in flight."""
        row = {key: _to_column(value) for key, value in record.items()}
        row.setdefault("started", now_iso())
        with self.db.conn:
            cursor = self.db.conn.execute(
                f"insert or replace into attempts ({', '.join(row)}) values ({', '.join('?' for _ in row)})",
                list(row.values()),
            )
        return int(cursor.lastrowid or 0)

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
        columns = {row[1] for row in self.db.execute("pragma table_info(runs)")}
        beat = "coalesce(heartbeat, '')" if "heartbeat" in columns else "''"
        n, stamp = self.db.execute(
            f"select count(*), coalesce(group_concat(id || ':' || coalesce(status, '') || ':' || {beat} || ':' "
            f"|| coalesce(finished, ''), '|'), '') from runs"
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

    def solver_summary(self) -> dict[str, dict[str, tuple[int, bool]]]:
        """instance id -> solver -> (attempts, solved at least once), over the whole log, in one query
        (index-only given attempts(instance_id, solver, correct))."""
        cursor = self.db.execute(
            "select instance_id, solver, count(*), max(coalesce(correct, 0)) from attempts "
            "group by instance_id, solver"
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
    if hasattr(value, "model_dump"):
        return canonical_json(value.model_dump(mode="json"))
    if isinstance(value, dict | list):
        return canonical_json(value)
    if isinstance(value, bool):
        return int(value)
    return value


class Workspace:
    """The bundled snapshots (read-only) plus the user's log database, seen as one."""

    def __init__(self, log_path: Path | str | None = None, snapshots_path: Path | str | None = None) -> None:
        snap_path = Path(snapshots_path) if snapshots_path else BUNDLED_SNAPSHOTS
        self.bundled = SnapshotStore(snap_path) if snap_path.exists() else None
        self.log = LogStore(log_path)
        from core.tools.cache import configure

        configure(self.log.path)  # external tools' results are cached beside the attempts

    def stores(self) -> list[SnapshotStore]:
        return [s for s in (self.log, self.bundled) if s is not None]

    def snapshots(self) -> list[tuple[Snapshot, str]]:
        """(snapshot, origin) where origin is "bundled" or "log"; a log snapshot shadows a bundled one."""
        seen: dict[str, tuple[Snapshot, str]] = {}
        if self.bundled is not None:
            for snap in self.bundled.snapshots():
                seen[snap.name] = (snap, "bundled")
        for snap in self.log.snapshots():
            seen[snap.name] = (snap, "log")
        return [seen[name] for name in sorted(seen)]

    def store_for(self, snapshot: str) -> SnapshotStore:
        for store in self.stores():
            if store.snapshot(snapshot) is not None:
                return store
        known = ", ".join(s.name for s, _ in self.snapshots())
        raise UserError(f"unknown snapshot '{snapshot}' (known: {known or 'none'})")

    def close(self) -> None:
        for store in self.stores():
            store.close()
