"""Snapshots and their instances in one SQLite file: the bundled `snapshots.db` (read-only) or the log
database (where users build and import their own)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from core.canonical import canonical_json
from core.errors import UserError
from core.instance import Instance, Snapshot


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
