"""A local solver's run, the per-attempt path against the chunked one, side by side; prints JSON.

    .venv/bin/python tests/bench/bench_local_run.py [--snapshot pag-sweep-depth] [--solver baseline]
                                                    [--samples 4] [--rounds 2] [--processes auto|0|N]

Each round runs `sembench run --snapshot S --solver X --samples K` twice as a subprocess, the two paths
alternating (so a noisy neighbour hits both alike), each into a fresh log database:
  - per_attempt: SEMBENCH_LOCAL_CHUNKS=0, the path every local run took before core/runner/local.py (a few
    workers, each attempt solved in a thread, checked through the verifier's batches and waiting for the
    commit of the worker's previous attempt);
  - chunked: today's default.
For each: attempts/s over the whole command (start-up included) and over the run itself (the first to
the last attempt's `started`), CPU% = the command's CPU time (user + system, its child processes
included, from wait4) / wall time, and CPU ms per attempt. `ratio` = chunked / per_attempt attempts/s
(medians over the rounds). `load_before`: the machine's 1-minute load average when the round started
(this is a 2-core machine shared with other work: CPU% cannot exceed the share the scheduler grants).
Also checks that both paths recorded the same (instance, sample, correct, status) rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_once(db: Path, args: argparse.Namespace, chunked: bool) -> dict[str, Any]:
    env = {**os.environ, "SEMBENCH_DB": str(db), "PYTHONPATH": str(REPO),
           "SEMBENCH_LOCAL_CHUNKS": "1" if chunked else "0"}
    if args.processes != "auto":
        env["SEMBENCH_LOCAL_PROCESSES"] = args.processes
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "core", "run", "--snapshot", args.snapshot, "--solver",
                             args.solver, "--samples", str(args.samples), "--format", "json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}): {out.decode()[-500:]}")
    summary = json.loads(out)
    cpu = usage.ru_utime + usage.ru_stime
    with sqlite3.connect(db) as conn:
        first, last = conn.execute("select min(started), max(started) from attempts").fetchone()
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    done = summary["done"]
    return {"attempts": done, "wall_s": round(wall, 2), "attempts_per_s": round(done / wall, 1),
            "run_attempts_per_s": round(done / span, 1) if span > 0 else None,
            "cpu_s": round(cpu, 2), "cpu_percent": round(100 * cpu / wall, 1),
            "cpu_ms_per_attempt": round(1000 * cpu / done, 3), "load_before": round(load, 2)}


def rows(db: Path) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute("select instance_id, sample, correct, status, error from attempts"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--snapshot", default="pag-sweep-depth")
    parser.add_argument("--solver", default="baseline")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", default="auto", help="SEMBENCH_LOCAL_PROCESSES for the chunked path")
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {"per_attempt": [], "chunked": []}
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.rounds):
            order = [False, True] if n % 2 == 0 else [True, False]
            dbs = {}
            for chunked in order:
                name = "chunked" if chunked else "per_attempt"
                db = dbs[name] = Path(tmp) / f"{name}-{n}.db"
                results[name].append(run_once(db, args, chunked))
            same = same and rows(dbs["chunked"]) == rows(dbs["per_attempt"])
            for db in dbs.values():
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    out = {
        "snapshot": args.snapshot, "solver": args.solver, "samples": args.samples, "rounds": args.rounds,
        "cpus": os.cpu_count(), "same_rows": same, "runs": results,
        "per_attempt": {k: median("per_attempt", k) for k in ("attempts_per_s", "cpu_percent", "cpu_ms_per_attempt")},
        "chunked": {k: median("chunked", k) for k in ("attempts_per_s", "cpu_percent", "cpu_ms_per_attempt")},
    }
    out["ratio"] = round(out["chunked"]["attempts_per_s"] / out["per_attempt"]["attempts_per_s"], 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
