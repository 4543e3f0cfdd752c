"""The bundled snapshots (read-only) and the user's log database, seen as one."""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import UserError
from core.instance import Snapshot
from core.paths import BUNDLED_SNAPSHOTS, default_log_db
from core.store.log import LogStore
from core.store.snapshots import SnapshotStore


class Workspace:
    """The bundled snapshots (read-only) plus the user's log database, seen as one."""

    def __init__(self, log_path: Path | str | None = None, snapshots_path: Path | str | None = None) -> None:
        snap_path = Path(snapshots_path) if snapshots_path else BUNDLED_SNAPSHOTS
        log = Path(log_path) if log_path else default_log_db()
        if (log_path or os.environ.get("SEMBENCH_DB")) and not log.exists() and not log.parent.is_dir():
            # A path the user typed: a folder that is not there is a typo more often than a wish, and a new
            # empty database made there would look like lost runs. Only the default location is made.
            blocker = next((part for part in log.parents if part.exists()), None)
            if blocker is not None and not blocker.is_dir():
                raise UserError(f"{blocker} is a file, not a folder: the log database cannot be created below it "
                                "(give another --db / SEMBENCH_DB)", file=str(log))
            raise UserError(f"no folder {log.parent}: the log database is created only in a folder that exists "
                            "(create it, or give another --db / SEMBENCH_DB)", file=str(log))
        if snap_path.exists() and log.exists() and log.resolve() == snap_path.resolve():
            raise UserError("is the snapshots database this workspace reads, not a log database, and is never "
                            "written to; use --db (SEMBENCH_DB) with another file", file=str(log))
        # LogStore refuses any snapshots database too (looked at read-only, before anything is written).
        self.log = LogStore(log)
        self.bundled = SnapshotStore(snap_path) if snap_path.exists() else None
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
