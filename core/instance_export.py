"""One instance with everything recorded about it, as JSONL: a line for the instance, one per attempt
(with the run it belongs to), and one for its notes (core.store.notes) when it has any. What a researcher
attaches to a bug report about a rejection; the workbench writes it from the instance view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import UserError
from core.instance import Instance
from core.jsonl import write_jsonl
from core.store import LogStore

ATTEMPT_JSON_COLUMNS = ("prompt", "answer", "verdict", "usage")  # stored as JSON text: written as JSON


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    import json

    out = dict(row)
    for key in ATTEMPT_JSON_COLUMNS:
        value = out.get(key)
        if isinstance(value, str):
            try:
                out[key] = json.loads(value)
            except ValueError:
                pass  # kept as the text it is
    return out


def instance_lines(log: LogStore, snapshot: str | None, instance: Instance) -> list[dict[str, Any]]:
    from core.store import notes

    lines: list[dict[str, Any]] = [{"kind": "instance", "snapshot": snapshot, **instance.model_dump(mode="json")}]
    for row in log.attempts(instance_id=instance.id):
        lines.append({"kind": "attempt", **_decoded(row)})
    if snapshot is not None:
        note = notes.get(log.db.conn, snapshot, instance.id)
        if note.bookmarked or note.tags or note.note:
            lines.append({"kind": "notes", **note.model_dump()})
    return lines


def export_instance(log: LogStore, snapshot: str | None, instance: Instance, path: str | Path) -> int:
    """Write the lines to `path` (replaced); the number of lines written. UserError when it cannot."""
    path = Path(path).expanduser()
    lines = instance_lines(log, snapshot, instance)
    try:
        with path.open("w", encoding="utf-8") as handle:
            return write_jsonl(lines, handle)
    except OSError as exc:
        raise UserError(f"cannot write ({exc.strerror or exc})", file=str(path)) from None
