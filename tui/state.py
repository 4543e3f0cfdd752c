"""Where the workbench was left, so that it reopens there: the snapshot, the browser's search, filter,
solver scope and sort, whether its snapshot pane is folded, the open instance and its tab, the Solve tab's
choices, the person's name for human sessions. Kept in $XDG_STATE_HOME/sembench/workbench.json (default
~/.local/state), written within a second of a change (SembenchApp.save_if_changed), so a closed terminal or
a killed process loses at most that second; `sembench --fresh` ignores it.

Never a secret: the Solve tab's choices are a solver spec and sampling options, no key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

MAX_STATE_BYTES = 256 * 1024


class WorkbenchState(BaseModel):
    snapshot: str | None = None
    search: str = ""
    status: str = "all"
    solver_scope: str = ""
    sort_column: str | None = None
    sort_reverse: bool = False
    solve_prefs: dict[str, Any] = {}
    person: str | None = None
    pane_folded: bool = False
    # the instance open over the browser (not a human session's), its snapshot and tab
    instance: str | None = None
    instance_snapshot: str | None = None
    tab: str | None = None


def state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sembench" / "workbench.json"


def load_state(path: Path | None = None) -> WorkbenchState:
    """The saved state, or the defaults when there is none or it cannot be read (never an error: a
    damaged state file must not keep the workbench from opening)."""
    path = path or state_path()
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            return WorkbenchState()
        return WorkbenchState.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return WorkbenchState()


def save_state(state: WorkbenchState, path: Path | None = None) -> None:
    """Write atomically (a crash leaves the old file or the new one); a failure to write is ignored."""
    path = path or state_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_text(state.model_dump_json(indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
