"""Answers produced elsewhere (another harness, a person, `sembench export`), verified and recorded as a run.

The run and all its attempts are written in one transaction, after every answer is verified: a killed
import (even `kill -9`) leaves either nothing or the whole run. The run keeps where its answers came from
(the file's absolute path and SHA-256), so that a run an import left partial (an earlier release wrote
attempts one transaction at a time) is completed by `sembench run --resume RUN` or the workbench's `R`:
the missing answers are read again from that file, if it is still the same."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.attempts import AttemptRecord, record_from, seconds
from core.errors import UserError
from core.family import Family
from core.instance import Instance
from core.limits import MAX_SAMPLES
from core.runner.config import RunConfig, new_run_id
from core.runner.plan import load_snapshot
from core.runner.stop import checkpoint
from core.solver_base import SolveResult
from core.store import LogStore, Workspace
from core.store.log import attempt_columns, insert_sql


@dataclass
class _Answers:
    family: Family
    instances: list[Instance]
    entries: list[tuple[Instance, int, SolveResult]]
    samples: int


def _read(ws: Workspace, snapshot: str, path: Path) -> _Answers:
    """Every line of the file checked (ids, samples, fields) before anything is verified or written."""
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
    return _Answers(family, instances, entries, max(sample for _, sample, _ in entries) + 1)


def _verified(answers: _Answers, entries: list[tuple[Instance, int, SolveResult]], snapshot: str,
              solver_name: str) -> list[AttemptRecord]:
    records = []
    for instance, sample, result in entries:
        checkpoint()
        records.append(record_from(answers.family, instance, solver_name, result, prompt={}, snapshot=snapshot,
                                   sample=sample, source="import"))
    return records


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise UserError(f"cannot read ({exc.strerror or exc})", file=str(path)) from None
    return digest.hexdigest()


def _write(store: LogStore, run_id: str, records: list[AttemptRecord], run_row: dict[str, Any] | None) -> None:
    """The run (when `run_row` is given) and its attempts in one transaction, then the run finished."""
    from core.store.runs import insert_run, now_iso

    conn = store.db.conn
    conn.execute("begin immediate")
    try:
        if run_row is not None:
            insert_run(conn, run_id, **run_row)
        for record in records:
            record.run_id = run_id
            row = attempt_columns(record.row())
            conn.execute(insert_sql(tuple(row)), list(row.values()))
        conn.execute("update runs set status = 'finished', finished = ? where id = ?", [now_iso(), run_id])
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.rollback()
        raise
    conn.commit()


def import_answers(ws: Workspace, snapshot: str, path: Path, solver_name: str) -> tuple[str, int, int]:
    """Verify `{"id", "response"}` lines (or `sembench export` rows) against a snapshot and record
    them as a finished run. The whole file is checked and verified before anything is written, and the
    run is written whole in one transaction."""
    answers = _read(ws, snapshot, path)  # bounded reads: a device or an endless file fails here, with one line
    # Where the answers came from, for a resume: a regular file only (a pipe cannot be read again).
    source = {"imported_path": str(path.resolve()), "imported_sha256": _digest(path)} if path.is_file() else {}
    # Every answer is extracted and verified before anything is written, so a file that trips the
    # verifier (or an interruption) leaves no half-imported run behind.
    records = _verified(answers, answers.entries, snapshot, solver_name)
    store = ws.log
    store.db.execute("pragma synchronous=normal")
    config = RunConfig(snapshot=snapshot, solver=solver_name, samples=answers.samples)
    run_id = new_run_id()
    options = {**config.options(), "imported_from": path.name, **source}
    _write(store, run_id, records, {"snapshot": snapshot, "family": answers.family.id, "solver": solver_name,
                                    "samples": answers.samples, "options": options,
                                    "total": len(answers.instances) * answers.samples})
    return run_id, len(answers.entries), answers.samples


def is_imported(run: dict[str, Any]) -> bool:
    return "imported_from" in (run.get("options") or {})


def resume_import(ws: Workspace, run_id: str) -> tuple[int, int]:
    """Complete a run an import left partial: the answers it lacks, read again from the file it was
    imported from (which must still be there, unchanged), verified and recorded in one transaction.
    Returns (answers recorded now, attempts of the run in all)."""
    store = ws.log
    run = store.claim_run(run_id)  # a clear error for an unknown run, or one another process is writing
    try:
        options = run["options"]
        where = options.get("imported_path")
        again = (f"import it again: sembench import-answers --snapshot {run['snapshot']} --answers FILE "
                 f"--solver-name {run['solver']}")
        if not where:
            raise UserError(f"run '{run_id}' was imported from '{options.get('imported_from')}', which cannot be "
                            f"read again (a pipe, or an earlier sembench did not record where it is); {again}")
        path = Path(where)
        if not path.is_file():
            raise UserError(f"run '{run_id}' was imported from {path}, which is not there any more; {again}")
        if options.get("imported_sha256") and _digest(path) != options["imported_sha256"]:
            raise UserError(f"run '{run_id}' was imported from {path}, which has changed since; {again}")
        answers = _read(ws, run["snapshot"], path)
        done = {(iid, int(sample)) for iid, sample in store.db.execute(
            "select instance_id, sample from attempts where run_id = ?", [run_id])}
        missing = [e for e in answers.entries if (e[0].id, e[1]) not in done]
        records = _verified(answers, missing, run["snapshot"], run["solver"])
        _write(store, run_id, records, None)
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            store.set_status(run_id, "interrupted")
        raise
    return len(records), len(done) + len(records)
