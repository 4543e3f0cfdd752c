"""Tool results cached by content, in the log database (table `tool_cache`).

The key is a hash of the tool's name and version, the argv, the input files, stdin and the options
that change the outcome (limits, timeout), so verifying the same answer twice runs the tool once, and
a new tool version never reuses an old result. Results that say nothing about the input (a timeout, a
tool killed by its memory limit under load) are not cached unless the caller asks.

Verification runs in worker threads; each thread gets its own SQLite connection (sqlite3 connections
are not shared across threads). A small in-process dict sits in front of the database.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from core.tools.process import ToolResult

MEMORY_ENTRIES = 512
SCHEMA = ("create table if not exists tool_cache (key text primary key, tool text, version text, "
          "result text, created text)")


def cache_key(tool: str, version: str, argv: list[str], files: dict[str, Any], stdin: str | None,
              options: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    header = json.dumps({"tool": tool, "version": version, "argv": argv, "stdin": stdin, "options": options},
                        sort_keys=True, ensure_ascii=False)
    digest.update(header.encode("utf-8", "surrogatepass"))
    for name in sorted(files):
        content = files[name]
        data = content if isinstance(content, bytes) else str(content).encode("utf-8", "surrogatepass")
        digest.update(b"\0file\0" + name.encode("utf-8", "surrogatepass") + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.hexdigest()


class ToolCache:
    """A cache in one SQLite file (the log database), or in memory only when `path` is None."""

    def __init__(self, path: Path | str | None) -> None:
        self.path = Path(path) if path is not None else None
        self._local = threading.local()
        self._memory: OrderedDict[str, ToolResult] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _conn(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
                conn.execute("pragma busy_timeout=10000")
                conn.execute(SCHEMA)
                conn.commit()
            except (OSError, sqlite3.Error):
                conn = None  # a cache that cannot be written is only a slower run, never an error
                self.path = None
            self._local.conn = conn
        return conn

    def get(self, key: str) -> ToolResult | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                self.hits += 1
                return self._memory[key].model_copy(update={"cached": True})
        conn = self._conn()
        row = None
        if conn is not None:
            try:
                row = conn.execute("select result from tool_cache where key = ?", [key]).fetchone()
            except sqlite3.Error:
                row = None
        if row is None:
            with self._lock:
                self.misses += 1
            return None
        try:
            result = ToolResult.model_validate_json(row[0])
        except ValueError:
            return None
        self._remember(key, result)
        with self._lock:
            self.hits += 1
        return result.model_copy(update={"cached": True})

    def put(self, key: str, tool: str, version: str, result: ToolResult) -> None:
        self._remember(key, result)
        conn = self._conn()
        if conn is None:
            return
        import datetime as _dt

        from core.models.config import known_secrets
        from core.models.secrets import contains_secret

        try:
            # A tool's output may quote the answer it checked; one quoting an API key stays in memory only.
            if contains_secret(result.model_dump(mode="json"), known_secrets()):
                return
            with conn:
                conn.execute("insert or replace into tool_cache (key, tool, version, result, created) "
                             "values (?, ?, ?, ?, ?)",
                             [key, tool, version, result.model_dump_json(),
                              _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")])
        except (sqlite3.Error, ValueError):  # ValueError: text that cannot be stored (lone surrogates)
            pass

    def _remember(self, key: str, result: ToolResult) -> None:
        with self._lock:
            self._memory[key] = result
            self._memory.move_to_end(key)
            while len(self._memory) > MEMORY_ENTRIES:
                self._memory.popitem(last=False)


_CACHE: ToolCache | None = None
_CACHE_LOCK = threading.Lock()


def configure(path: Path | str | None) -> ToolCache:
    """Cache tool results in this database (the workspace's log database); None keeps them in memory."""
    global _CACHE
    with _CACHE_LOCK:
        if _CACHE is None or _CACHE.path != (Path(path) if path is not None else None):
            _CACHE = ToolCache(path)
        return _CACHE


def current() -> ToolCache:
    """The configured cache; by default the default log database (where `sembench` writes attempts)."""
    global _CACHE
    with _CACHE_LOCK:
        if _CACHE is None:
            from core.paths import default_log_db

            _CACHE = ToolCache(default_log_db())
        return _CACHE
