"""SQLite storage through sqlite-utils.

Two databases: the bundled `snapshots.db` (snapshots + instances, opened read-only, never written by
the app or the tests) and the user's log database (runs, attempts, response cache, tool results, and any
snapshots the user builds or imports). `Workspace` reads snapshots from both.
"""

from __future__ import annotations

from core.paths import BUNDLED_SNAPSHOTS, DATA_ROOT, default_log_db
from core.store.log import LogStore
from core.store.runs import now_iso
from core.store.snapshots import SnapshotStore
from core.store.workspace import Workspace

REPO_ROOT = DATA_ROOT  # the folder holding snapshots.db and assets/ (a checkout, or share/sembench)

__all__ = ["BUNDLED_SNAPSHOTS", "REPO_ROOT", "LogStore", "SnapshotStore", "Workspace", "default_log_db", "now_iso"]
