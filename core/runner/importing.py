"""Answers produced elsewhere (another harness, a person, `sembench export`), verified and recorded as a run."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from core.attempts import record_from, seconds
from core.errors import UserError
from core.instance import Instance
from core.limits import MAX_SAMPLES
from core.runner.config import RunConfig
from core.runner.execute import create_run
from core.runner.plan import load_snapshot
from core.runner.stop import checkpoint
from core.solver_base import SolveResult
from core.store import LogStore, Workspace


def import_answers(ws: Workspace, snapshot: str, path: Path, solver_name: str) -> tuple[str, int, int]:
    """Verify `{"id", "response"}` lines (or `sembench export` rows) against a snapshot and record
    them as a finished run. The whole file is checked before anything is written."""
    from core.jsonl import read_jsonl

    _snap, family, instances = load_snapshot(ws, snapshot)
    by_id = {inst.id: inst for inst in instances}
    entries: list[tuple[Instance, int, SolveResult]] = []
    next_sample: dict[str, int] = {}
    seen: set[tuple[str, int]] = set()
    name = str(path)
    for number, obj in read_jsonl(path):
        iid = obj.get("id", obj.get("instance_id"))
        if iid is None:
            raise UserError("missing", file=name, line=number, field="id")
        iid = str(iid)
        if iid not in by_id:
            raise UserError(f"no instance '{iid}' in snapshot '{snapshot}'", file=name, line=number, field="id")
        response, error = obj.get("response"), obj.get("error")
        if response is None and error is None:
            raise UserError("missing", file=name, line=number, field="response")
        for key in ("response", "error", "reasoning", "error_kind"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise UserError("must be a string", file=name, line=number, field=key)
        sample = obj.get("sample")
        if sample is None:
            sample = next_sample.get(iid, 0)
        if not isinstance(sample, int) or isinstance(sample, bool) or not 0 <= sample < MAX_SAMPLES:
            raise UserError(f"must be an integer from 0 to {MAX_SAMPLES - 1} (at most {MAX_SAMPLES} samples per "
                            "instance)", file=name, line=number, field="sample")
        if (iid, sample) in seen:
            raise UserError(f"second answer for '{iid}' sample {sample}", file=name, line=number, field="id")
        seen.add((iid, sample))
        next_sample[iid] = max(next_sample.get(iid, 0), sample + 1)
        usage = obj.get("usage")
        entries.append((by_id[iid], sample, SolveResult(
            response=response or "", reasoning=obj.get("reasoning"), error=error,
            error_kind=obj.get("error_kind") or ("imported" if error is not None else None),
            elapsed_s=seconds(obj.get("elapsed_s")) or 0.0,
            usage=usage if isinstance(usage, dict) else {},
        )))
    if not entries:
        raise UserError("no answers in file", file=name)
    samples = max(sample for _, sample, _ in entries) + 1
    # Every answer is extracted and verified before anything is written, so a file that trips the
    # verifier (or an interruption) leaves no half-imported run behind.
    records = []
    for instance, sample, result in entries:
        checkpoint()
        records.append(record_from(family, instance, solver_name, result, prompt={}, snapshot=snapshot,
                                   sample=sample, source="import"))
    store = ws.log
    store.db.execute("pragma synchronous=normal")
    config = RunConfig(snapshot=snapshot, solver=solver_name, samples=samples)
    run_id = create_run(store, config, family, len(instances) * samples, extra_options={"imported_from": path.name})
    try:
        for record in records:
            record.run_id = run_id
            store.add_attempt(record.row())
        store.set_status(run_id, "finished")
    except BaseException:
        _discard(store, run_id)  # all or nothing: no orphan run that reads "stale" forever
        raise
    return run_id, len(entries), samples


def _discard(store: LogStore, run_id: str) -> None:
    with contextlib.suppress(sqlite3.Error), store.db.conn:
        store.db.conn.execute("delete from attempts where run_id = ?", [run_id])
        store.db.conn.execute("delete from runs where id = ?", [run_id])
