"""Snapshots and their instances in one SQLite file: the bundled `snapshots.db` (read-only) or the log
database (where users build and import their own)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from core.canonical import canonical_json, safe_text, storable
from core.errors import UserError
from core.instance import Instance, Snapshot
from core.store.database import Database
from core.store.faults import LOCK_WAIT_S, db_fault, path_fault, stored_json


def _check_readable(db: Database, path: Path) -> None:
    """Touch the schema so a truncated or foreign file fails here, with a clear message, and refuse a file
    whose objects are not Sembench's (a view or a trigger can run any query: core.store.schema)."""
    from core.store.schema import check_schema

    try:
        db.execute("select count(*) from sqlite_master").fetchone()
        check_schema(db.conn, path)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) or "malformed" in str(exc):
            raise UserError(f"not a usable SQLite database ({exc})", file=str(path)) from None
        raise db_fault(path, exc) from None


def is_snapshots_database(path: Path) -> bool:
    """Whether an existing file is a snapshots database (the bundled snapshots.db, or one `snapshot build
    --out` wrote): snapshots and instances, at least one snapshot, and no attempts. Looked at read-only,
    so nothing is ever written to it; a file that cannot be read that way is not called one."""
    if not path.is_file():
        return False
    from core.store.schema import bound_queries, check_schema

    try:
        conn = bound_queries(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_WAIT_S))
    except (sqlite3.Error, ValueError):
        return False
    try:
        check_schema(conn, path)  # a file that is not Sembench's is no snapshots database (its opener says why)
        tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
        if not {"snapshots", "instances"} <= tables or "attempts" in tables:
            return False
        return conn.execute("select count(*) from snapshots").fetchone()[0] > 0
    except (sqlite3.Error, UserError):
        return False
    finally:
        conn.close()


def refuse_snapshots_database(path: Path) -> None:
    """A log database is never a snapshots database: writing runs into snapshots.db would turn the
    shipped file into a log (WAL mode, new tables, a new digest)."""
    from core.paths import BUNDLED_SNAPSHOTS

    bundled = path.exists() and BUNDLED_SNAPSHOTS.exists() and path.resolve() == BUNDLED_SNAPSHOTS.resolve()
    if bundled or is_snapshots_database(path):
        what = "the bundled snapshots database" if bundled else "a snapshots database"
        raise UserError(f"is {what} (snapshots and instances, as `sembench snapshot build` writes them), not a "
                        "log database, and is never written to; use --db (SEMBENCH_DB) with another file",
                        file=str(path))


def _ensure_snapshot_tables(db: Database) -> None:
    tables = db.table_names()
    if "snapshots" in tables and "instances" in tables:
        return  # every open of an existing file: sqlite_utils is not imported
    helpers = db.sqlite_utils()
    if "snapshots" not in tables:
        helpers["snapshots"].create(
            {"name": str, "family": str, "preset": str, "params": str, "seed": int, "count": int,
             "description": str, "meta": str, "created": str},
            pk="name",
        )
    if "instances" not in tables:
        helpers["instances"].create(
            {"snapshot": str, "idx": int, "id": str, "family": str, "features": str, "data": str},
            pk=("snapshot", "idx"),
        )
        helpers["instances"].create_index(["snapshot", "id"], unique=True)


class SnapshotStore:
    """Snapshots and their instances in one SQLite file (read-only unless `writable`)."""

    # A log database (LogStore) must never be opened on a snapshots database: it would write runs,
    # WAL mode and new tables into it. Snapshot databases themselves may be written (snapshot build).
    is_log_database: ClassVar[bool] = False

    def __init__(self, path: Path | str, writable: bool = False) -> None:
        self.path = Path(path)
        self.writable = writable
        if writable:
            if self.is_log_database:
                refuse_snapshots_database(self.path)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise path_fault(self.path, exc) from None
            if self.path.is_dir():
                raise UserError("is a folder, not a database file; use --db (SEMBENCH_DB) with a file path",
                                file=str(self.path))
            try:
                # The busy timeout applies from the first statement: a database another process is
                # writing makes this wait LOCK_WAIT_S (as every later write does), then fail clearly.
                self.db = Database(sqlite3.connect(str(self.path), timeout=LOCK_WAIT_S))
                _check_readable(self.db, self.path)
                _ensure_snapshot_tables(self.db)
            except sqlite3.Error as exc:
                raise db_fault(self.path, exc) from None
        else:
            if not self.path.exists():
                raise UserError("snapshot database not found", file=str(self.path))
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            self.db = Database(conn)
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
            Snapshot(name=r[0], family=r[1], preset=r[2], params=stored_json(r[3], f"snapshots.params of '{r[0]}'", "{}"),
                     seed=r[4], count=r[5] or 0, description=r[6] or "",
                     meta=stored_json(r[7], f"snapshots.meta of '{r[0]}'", "{}"))
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
            yield (idx, iid, stored_json(features, f"instances.features of '{iid}'"),
                   stored_json(data, f"instances.data of '{iid}'"))

    def feature_rows(self, snapshot: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """(idx, id, features) in snapshot order without decoding instance payloads (tables of 10k rows)."""
        cursor = self.db.execute("select idx, id, features from instances where snapshot = ? order by idx", [snapshot])
        for idx, iid, features in cursor:
            yield idx, iid, stored_json(features, f"instances.features of '{iid}'")

    def payload_field(self, snapshot: str, name: str) -> dict[str, Any]:
        """id -> one top-level field of each instance's payload, read by SQLite (no payload is decoded in
        Python): the browser's label column for families whose ids are hashes."""
        cursor = self.db.execute("select id, json_extract(data, ?) from instances where snapshot = ?",
                                 [f"$.{name}", snapshot])
        return dict(cursor.fetchall())

    def instance_data(self, snapshot: str, instance_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "select data from instances where snapshot = ? and id = ?", [snapshot, instance_id]
        ).fetchone()
        return stored_json(row[0], f"instances.data of '{instance_id}'") if row else None

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
            # storable: text read from files may hold lone surrogates, which SQLite cannot take
            rows.append((snapshot.name, idx, safe_text(inst.id), inst.family, canonical_json(storable(feats)),
                         canonical_json(storable(inst.to_json_dict()))))
        snapshot_row = (snapshot.name, snapshot.family, snapshot.preset, canonical_json(storable(snapshot.params)),
                        storable(snapshot.seed), len(rows), safe_text(snapshot.description),
                        canonical_json(storable(snapshot.meta)), snapshot.meta.get("created", ""))
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
