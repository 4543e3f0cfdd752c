"""The researcher's own data per instance: a bookmark, tags and a free-text note, kept in the log
database by (snapshot name, instance id) so they survive a snapshot's re-import under the same name.
The TUI and `sembench notes` read and write these same rows."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pydantic import BaseModel, Field

from core.errors import UserError
from core.store.faults import stored_json
from core.store.runs import now_iso

MAX_NOTE_CHARS = 100_000  # a note is for a person to read; a pasted file is refused, not stored
MAX_TAGS = 64
MAX_TAG_CHARS = 64


class Note(BaseModel):
    """One instance's notes, as stored and exported."""

    snapshot: str
    instance_id: str
    bookmarked: bool = False
    tags: list[str] = Field(default_factory=list)
    note: str = ""
    updated: str = ""


def clean_tag(tag: str) -> str:
    """A tag is one word: searched as `tag:NAME`, so no blanks and nothing a search would split on."""
    tag = tag.strip()
    if not tag or len(tag) > MAX_TAG_CHARS or any(ch.isspace() for ch in tag) or ":" in tag:
        raise UserError(f"a tag is one word of at most {MAX_TAG_CHARS} characters without ':' (got {tag!r})")
    return tag


def _from_row(row: tuple[Any, ...]) -> Note:
    snapshot, instance_id, bookmarked, tags, note, updated = row
    return Note(snapshot=snapshot, instance_id=instance_id, bookmarked=bool(bookmarked),
                tags=stored_json(tags, f"notes.tags of '{instance_id}'", "[]"), note=note or "", updated=updated or "")


COLUMNS = "snapshot, instance_id, bookmarked, tags, note, updated"


def get(conn: sqlite3.Connection, snapshot: str, instance_id: str) -> Note:
    row = conn.execute(f"select {COLUMNS} from notes where snapshot = ? and instance_id = ?",
                       [snapshot, instance_id]).fetchone()
    return _from_row(row) if row else Note(snapshot=snapshot, instance_id=instance_id)


def put(conn: sqlite3.Connection, note: Note) -> Note:
    """Write one instance's notes (a row with nothing in it is deleted), stamped with the time."""
    if len(note.note) > MAX_NOTE_CHARS:
        raise UserError(f"a note holds at most {MAX_NOTE_CHARS:,} characters (got {len(note.note):,})")
    tags = list(dict.fromkeys(clean_tag(t) for t in note.tags))
    if len(tags) > MAX_TAGS:
        raise UserError(f"at most {MAX_TAGS} tags per instance")
    stored = note.model_copy(update={"tags": tags, "updated": now_iso()})
    with conn:
        if not stored.bookmarked and not tags and not stored.note.strip():
            conn.execute("delete from notes where snapshot = ? and instance_id = ?",
                         [stored.snapshot, stored.instance_id])
        else:
            conn.execute(f"insert or replace into notes ({COLUMNS}) values (?, ?, ?, ?, ?, ?)",
                         [stored.snapshot, stored.instance_id, int(stored.bookmarked), json.dumps(tags),
                          stored.note, stored.updated])
    return stored


def update(conn: sqlite3.Connection, snapshot: str, instance_id: str, *, bookmark: bool | None = None,
           add_tags: list[str] | None = None, remove_tags: list[str] | None = None,
           text: str | None = None) -> Note:
    """Change some fields of one instance's notes, keeping the others."""
    note = get(conn, snapshot, instance_id)
    tags = [t for t in note.tags if t not in set(remove_tags or [])] + list(add_tags or [])
    changes: dict[str, Any] = {"tags": tags}
    if bookmark is not None:
        changes["bookmarked"] = bookmark
    if text is not None:
        changes["note"] = text
    return put(conn, note.model_copy(update=changes))


def toggle_bookmark(conn: sqlite3.Connection, snapshot: str, instance_id: str) -> Note:
    return update(conn, snapshot, instance_id, bookmark=not get(conn, snapshot, instance_id).bookmarked)


def all_notes(conn: sqlite3.Connection, snapshot: str | None = None) -> list[Note]:
    where, args = ("where snapshot = ?", [snapshot]) if snapshot is not None else ("", [])
    cursor = conn.execute(f"select {COLUMNS} from notes {where} order by snapshot, instance_id", args)
    return [_from_row(row) for row in cursor]


def by_instance(conn: sqlite3.Connection, snapshot: str) -> dict[str, Note]:
    return {n.instance_id: n for n in all_notes(conn, snapshot)}


def matches(note: Note | None, term: str) -> bool | None:
    """The browser's search terms about notes: `bookmarked`, `tag:NAME`, `note:WORD` (case-insensitive);
    None when `term` is not one of them."""
    lowered = term.lower()
    if lowered == "bookmarked":
        return bool(note and note.bookmarked)
    if lowered.startswith("tag:"):
        return bool(note) and lowered[4:] in {t.lower() for t in note.tags}  # type: ignore[union-attr]
    if lowered.startswith("note:"):
        return bool(note) and lowered[5:] in note.note.lower()  # type: ignore[union-attr]
    return None
