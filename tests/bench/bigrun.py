"""A log database holding one big finished run, for the report and Runs-screen benchmarks.

    make_big_run(path) -> run id     # 1,600 membership instances x 125 samples = 200,000 attempts

The attempts look like a real run's: the stored prompt, the raw response, the extracted answer, the
verdict and usage JSON exactly as `sembench run` writes them (core.store.log.attempt_columns of real
AttemptRecords, verified by the family), ~2% errors of two kinds, and a per-instance success rate
that varies (so pass@k, the selection and every feature group have something to show). Building it
takes ~10-30 s; pass `keep` to reuse a file made earlier with the same arguments.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

RESPONSES = {"membership": ("True", "False"), "cascade": None}


def _unit(*parts: Any) -> float:
    digest = hashlib.sha256(json.dumps(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def make_big_run(path: Path, family_id: str = "membership", instances: int = 1600, samples: int = 125,
                 seed: int = 0, keep: bool = False) -> str:
    from core.attempts import record_from
    from core.canonical import canonical_json
    from core.family import get_family
    from core.instance import Snapshot
    from core.runner import RunConfig, create_run, set_status
    from core.solver_base import SolveResult
    from core.store import LogStore
    from core.store.log import attempt_columns, insert_sql

    stamp = path.with_suffix(".json")
    wanted = {"family": family_id, "instances": instances, "samples": samples, "seed": seed}
    if keep and path.exists() and stamp.exists() and json.loads(stamp.read_text()).get("args") == wanted:
        return json.loads(stamp.read_text())["run"]
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    family = get_family(family_id)
    preset = "pag-sweep-depth" if family_id == "membership" else sorted(family.presets())[0]
    params = family.resolve_params(preset)
    items = list(family.generate(params, seed, instances))
    store = LogStore(path)
    store.write_snapshot(Snapshot(name="big", family=family_id, params=params, seed=seed, count=len(items)),
                         items, features=family.feature_values)
    run_id = create_run(store, RunConfig(snapshot="big", solver="openai:big-model", samples=samples), family,
                        total=len(items) * samples, run_id="run-big")
    templates = []
    for inst in items:
        prompt = family.prompt(inst)
        right = family.oracle_response(inst)
        wrong = RESPONSES.get(family_id)
        wrong_text = (wrong[1] if right.strip() == wrong[0] else wrong[0]) if wrong else "I could not find it."
        usage = {"prompt_tokens": 420, "completion_tokens": 12, "reasoning_tokens": None, "finish_reason": "stop",
                 "model": "big-model", "retries": 0}
        rows = []
        for text in (right, wrong_text):
            record = record_from(family, inst, "openai:big-model", SolveResult(response=text, usage=usage,
                                 elapsed_s=0.2), prompt=prompt.model_dump(), run_id=run_id, snapshot="big",
                                 source="run", started="2026-01-01T00:00:00.000+00:00")
            rows.append(attempt_columns(record, canonical_json(prompt.model_dump())))
        error = dict(rows[1], response="", answer=None, verdict=None, correct=0, score=None, status="error",
                     error="http_5xx: HTTP 503 from http://127.0.0.1:8000/v1/chat/completions: overloaded",
                     error_kind="http_5xx", tokens_in=None, tokens_out=None)
        templates.append((inst.id, rows[0], rows[1], error))
    conn = store.db.conn
    batch: list[tuple[Any, ...]] = []
    columns = tuple(templates[0][1])
    sql = insert_sql(columns)
    conn.execute("begin")
    for i, (iid, right_row, wrong_row, error_row) in enumerate(templates):
        p_right = 0.15 + 0.8 * _unit(seed, iid)
        for k in range(samples):
            u = _unit(seed, iid, k)
            row = error_row if u < 0.02 else right_row if _unit(seed, iid, k, "r") < p_right else wrong_row
            batch.append(tuple({**row, "sample": k, "elapsed_s": 0.15 + u / 10}.values()))
        if len(batch) >= 20000 or i == len(templates) - 1:
            conn.executemany(sql, batch)
            batch = []
    conn.execute("commit")
    set_status(store, run_id, "finished")
    with sqlite3.connect(path) as check:
        assert check.execute("select count(*) from attempts").fetchone()[0] == len(items) * samples
    store.close()
    stamp.write_text(json.dumps({"args": wanted, "run": run_id}))
    return run_id
