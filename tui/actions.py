"""What the browser does with its marked rows: export them, send them to a solver as a run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from core.errors import UserError
from core.store import Workspace


def export_instances(ws: Workspace, snapshot: str, ids: list[str], path: str | Path) -> int:
    """The instances' payloads, one JSON object a line (as `sembench snapshot import` reads them)."""
    store = ws.store_for(snapshot)
    out = Path(path).expanduser()
    if out.is_dir():
        raise UserError(f"{out} is a directory: give a file name")
    lines = []
    for iid in ids:
        data = store.instance_data(snapshot, iid)
        if data is not None:
            lines.append(json.dumps(data, ensure_ascii=False))
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def run_in_thread(log_path: Path, snapshots_path: Path | None, snapshot: str, solver: str, ids: list[str]) -> str:
    """One run of `solver` on the instances `ids` of `snapshot`, to its end, with the run machinery of
    `sembench run` (core.runner), in this (worker) thread with its own connections. Returns the run id."""
    from core.runner import RunConfig
    from core.runner.execute import run_async

    ws = Workspace(log_path=log_path, snapshots_path=snapshots_path)
    try:
        config = RunConfig(snapshot=snapshot, solver=solver, ids=ids)
        outcome = asyncio.run(run_async(ws, config))
        return outcome.run_id
    finally:
        ws.close()


def start_marked_run(app: Any, snapshot: str, solver: str, ids: list[str]) -> None:
    """Start the run in a worker thread; it shows on the Runs screen (which polls the log database) while
    it runs, and a notification says when it ends."""

    def work() -> None:
        try:
            run_id = run_in_thread(app.log_path, app.snapshots_path, snapshot, solver, ids)
        except Exception as exc:
            app.call_from_thread(app.notify, f"the run on the marked rows failed: {exc}", severity="error",
                                 markup=False)
            return
        app.call_from_thread(app.invalidate_summary)
        app.call_from_thread(app.notify, f"run {run_id} finished ({len(ids)} instance(s), {solver})", markup=False)

    app.run_worker(work, thread=True, group="marked-run", exit_on_error=False, name=f"run {solver}")
    app.notify(f"run of {solver} on {len(ids)} marked instance(s) started: r shows it", markup=False)
