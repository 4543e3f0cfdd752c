"""Database and file-system faults as one line that names the file and says what to do.

SQLite reports a damaged file, a lock held by another process, a read-only file system or a path it
cannot open with terse messages ("database disk image is malformed", "unable to open database file");
the CLI turns them (and the OSError of creating the database's folder) into a UserError from here.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from core.errors import UserError

# How long opening or writing waits for another process's write lock before giving up (the same at
# start as mid-run: sqlite's busy timeout).
LOCK_WAIT_S = 5.0

ANOTHER_DB = "or use --db (SEMBENCH_DB) with another file"


class DamagedValue(sqlite3.DatabaseError):
    """A value stored as JSON that does not read back: the file is sound but a row was damaged (edited by hand,
    written by another program). An sqlite3.Error, so every caller reports it like any other database fault."""


def stored_json(text: str | bytes | None, where: str, empty: str = "null") -> Any:
    """A JSON column's value (`empty` when NULL or ''); DamagedValue, naming the column, when it does not parse."""
    try:
        return json.loads(text or empty)
    except (ValueError, TypeError, RecursionError) as exc:
        raise DamagedValue(f"{where} holds a value that is not JSON ({' '.join(str(exc).split())[:200]})") from None


def db_fault(path: Path | str, exc: BaseException) -> UserError:
    """A UserError for an sqlite3 error on the database at `path`."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    low = text.lower()
    if isinstance(exc, DamagedValue):
        what = (f"the database is damaged: {text}; move it aside to start a new one, or mend or delete that row "
                "with sqlite3")
    elif "locked" in low or "busy" in low:
        what = (f"the database is locked by another process (a run or the workbench writing to it; waited "
                f"{LOCK_WAIT_S:g} s); wait for it to finish and try again, {ANOTHER_DB}")
    elif "malformed" in low or "not a database" in low or "corrupt" in low or "file is encrypted" in low:
        what = (f"the database is damaged ({text}); move it aside to start a new one, or recover what it "
                f"holds with `sqlite3 {path} .recover | sqlite3 recovered.db` and use --db recovered.db")
    elif "readonly" in low or "read-only" in low or _read_only_fs(Path(path)):
        what = f"cannot write: the file or its file system is read-only ({text}); {ANOTHER_DB.removeprefix('or ')}"
    elif "unable to open" in low or "cannot open" in low:
        what = (f"cannot open or create the database there ({text}): the folder must exist and be writable "
                f"on an ordinary file system; {ANOTHER_DB.removeprefix('or ')}")
    elif "disk i/o" in low or "full" in low:
        what = f"the disk failed or is full ({text}); free space or {ANOTHER_DB.removeprefix('or ')}"
    elif low == "interrupted":
        from core.store.schema import QUERY_LIMIT_S

        what = (f"a query ran {QUERY_LIMIT_S:g} s and was stopped (a database of millions of attempts takes far "
                f"less; this one may not be Sembench's); {ANOTHER_DB.removeprefix('or ')}")
    elif "newer than this sembench" in low:
        what = text
    else:
        what = f"database error ({text}); {ANOTHER_DB.removeprefix('or ')}"
    return UserError(what, file=str(path))


def _read_only_fs(path: Path) -> bool:
    """Whether the nearest existing folder of `path` is on a file system mounted read-only."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def path_fault(path: Path | str, exc: OSError) -> UserError:
    """A UserError for an OSError met while preparing the database's path (its folder)."""
    reason = exc.strerror or type(exc).__name__
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        reason = "a part of the path is a file, not a folder"
    elif exc.errno == errno.EROFS:
        reason = "read-only file system"
    return UserError(f"cannot create the database there ({reason}); use --db (SEMBENCH_DB) with another path",
                     file=str(path))


def is_db_error(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error)
