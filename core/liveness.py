"""Run liveness: the process running a run beats its heartbeat every HEARTBEAT_S, so a run whose process
died reads as "stale" (core.store.runs.is_live) and a live run is never resumed twice."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any

from core.store import LogStore
from core.store.runs import HOST, STALE_AFTER_S, heartbeat_age, is_live, touch

HEARTBEAT_S = 15.0

__all__ = ["HEARTBEAT_S", "HOST", "STALE_AFTER_S", "heartbeat", "heartbeat_age", "is_live"]


async def heartbeat(store: LogStore, run_id: str, interval_s: float | None = None,
                    sleep: Callable[[float], Any] = asyncio.sleep) -> None:
    """Beat until cancelled. A failed write is skipped: the attempts matter more than the heartbeat."""
    while True:
        await sleep(HEARTBEAT_S if interval_s is None else interval_s)
        try:
            touch(store.db.conn, run_id)
        except sqlite3.Error:
            pass
