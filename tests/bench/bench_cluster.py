"""The cluster path (core/cluster) against in-process verification, side by side in one run; one JSON.

    PYTHONPATH=. .venv/bin/python tests/bench/bench_cluster.py [--answers 100000] [--specs 12] [--tasks 200]

- `overhead`: per-task cost of the cluster path on a no-op (a 2-worker LocalCluster: submit, run,
  result), in µs, beside an in-process call; and `chunk_for_20pct`: the answers per task that keep that
  overhead under 20% of cascade's own check time (measured here, per answer).
- `cascade`: checking `--answers` oracle answers (cycling over `--distinct` instances of pbebench-lite)
  in-process (`family.check_many`) vs on a 2-worker LocalCluster (core.cluster.checks.check_all, the
  chunks the driver uses), `--rounds` times interleaved; wall times and `ratio` = cluster / in-process
  per round (the issue's target: <= 1.2 on a 2-core machine); `identical`: every (answer, verdict) equal.
  The cluster's start-up is not counted (it is measured apart).
- `specs`: the references of the first `--specs` formalbench-c programs verified in-process (the
  family's own pool) vs on LocalClusters of 1 and 2 workers, every tool cache empty, completeness on
  (each mutant a task of its own on the cluster); wall times, ratios, tasks sent, and whether the
  verdicts (completeness included) are identical.
Not a pass/fail test: the machine is shared, so compare ratios from one run only.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.cluster import remote  # noqa: E402
from core.cluster.checks import check_all  # noqa: E402
from core.cluster.session import ClusterSession  # noqa: E402
from core.family import get_family  # noqa: E402


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _cpu() -> float:
    """This process's CPU seconds, every thread (the LocalCluster's scheduler included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _verdicts(checked: list[Any]) -> list[tuple[str, bool, float]]:
    return [(v.status, v.correct, v.score) for _, v in checked]


def overhead(session: ClusterSession, tasks: int, per_answer_s: float) -> dict[str, Any]:
    client = session.client
    client.gather([client.submit(remote.noop_chunk, [], pure=False) for _ in range(20)])  # warm
    start = time.perf_counter()
    client.gather([client.submit(remote.noop_chunk, [i], pure=False) for i in range(tasks)])
    cluster_us = (time.perf_counter() - start) / tasks * 1e6
    start = time.perf_counter()
    for i in range(tasks):
        remote.noop_chunk([i])
    local_us = (time.perf_counter() - start) / tasks * 1e6
    # overhead <= 20% of the chunk's work: n * per_answer >= overhead / 0.2
    chunk = int(cluster_us / 1e6 / 0.2 / per_answer_s) + 1
    return {"tasks": tasks, "cluster_us_per_task": round(cluster_us, 1), "in_process_us_per_call": round(local_us, 2),
            "cascade_us_per_answer": round(per_answer_s * 1e6, 1), "chunk_for_20pct": chunk}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--specs", type=int, default=12)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--distinct", type=int, default=500, help="distinct cascade instances")
    parser.add_argument("--rounds", type=int, default=2, help="in-process and cluster runs, interleaved")
    args = parser.parse_args()
    from core.tools import configure

    configure(None)  # the driver's tool cache in memory: nothing is found from an earlier run
    out: dict[str, Any] = {}

    cascade = get_family("cascade")
    distinct = list(cascade.generate(cascade.resolve_params("pbebench-lite"), 7, args.distinct))
    _note(f"generated {len(distinct)} cascade instances")
    pairs = [(inst, cascade.oracle_response(inst)) for inst in distinct]
    pairs = [pairs[i % len(pairs)] for i in range(args.answers)]

    start = time.perf_counter()
    session = ClusterSession(workers=2)
    startup_s = time.perf_counter() - start
    local_runs: list[float] = []
    cluster_runs: list[float] = []
    local_cpu: list[float] = []
    driver_cpu: list[float] = []
    workers_cpu: list[float] = []
    identical = True
    try:
        # the machine is shared: in-process and cluster interleaved, round by round
        for round_ in range(args.rounds):
            start, cpu0 = time.perf_counter(), _cpu()
            local = cascade.check_many(pairs)
            local_runs.append(time.perf_counter() - start)
            local_cpu.append(_cpu() - cpu0)
            # kept as text (no objects for the GC to scan): the cluster's run must not pay for a heap of 10^7
            # objects the in-process run did not have
            local_text = [(a.model_dump_json(), v.model_dump_json()) for a, v in local]
            del local
            _note(f"round {round_}: in-process {local_runs[-1]:.2f} s")
            if round_ == 0:
                out["overhead"] = overhead(session, args.tasks, local_runs[0] / len(pairs))
                _note(json.dumps(out["overhead"]))
            workers0 = session.client.run(time.process_time)
            start, cpu0 = time.perf_counter(), _cpu()
            remote_checked = check_all(session, cascade, pairs, None)
            cluster_runs.append(time.perf_counter() - start)
            driver_cpu.append(_cpu() - cpu0)
            workers1 = session.client.run(time.process_time)
            workers_cpu.append(sum(workers1[w] - workers0.get(w, 0.0) for w in workers1))
            _note(f"round {round_}: cluster {cluster_runs[-1]:.2f} s")
            identical = identical and [(a.model_dump_json(), v.model_dump_json()) for a, v in remote_checked] == local_text
            del local_text, remote_checked
    finally:
        session.close()
    ratios = [c / p for c, p in zip(cluster_runs, local_runs, strict=True)]
    out["cascade"] = {"answers": len(pairs), "in_process_s": [round(x, 2) for x in local_runs],
                      "cluster_2_workers_s": [round(x, 2) for x in cluster_runs],
                      "ratio": [round(r, 2) for r in ratios], "ratio_of_sums": round(sum(cluster_runs) / sum(local_runs), 2),
                      "cluster_startup_s": round(startup_s, 2), "identical": identical,
                      # CPU seconds, which the other jobs on a shared machine do not inflate: in-process vs the
                      # driver (this process: sending, reading results, the LocalCluster's scheduler) and the
                      # workers; and the ratio this implies on an otherwise idle machine of 2 cores, where the
                      # driver and the workers run side by side: max(driver, (driver + workers) / 2) / in-process
                      "in_process_cpu_s": [round(x, 2) for x in local_cpu],
                      "driver_cpu_s": [round(x, 2) for x in driver_cpu],
                      "workers_cpu_s": [round(x, 2) for x in workers_cpu],
                      "idle_2_core_ratio": [round(max(d, (d + w) / 2) / p, 2)
                                            for d, w, p in zip(driver_cpu, workers_cpu, local_cpu, strict=True)]}

    specs = get_family("specs")
    if args.specs and all(t.available() for t in specs.requires):
        instances = list(specs.generate(specs.resolve_params("formalbench-c"), 0, args.specs))
        spairs = [(inst, specs.oracle_response(inst)) for inst in instances]
        configure(None)
        start = time.perf_counter()
        base = specs.check_many(spairs)
        row: dict[str, Any] = {"programs": len(spairs), "in_process_s": round(time.perf_counter() - start, 2)}
        for workers in (1, 2):
            configure(None)
            session = ClusterSession(workers=workers)
            try:
                start = time.perf_counter()
                got = check_all(session, specs, spairs, None)
                row[f"cluster_{workers}_s"] = round(time.perf_counter() - start, 2)
            finally:
                session.close()
            row[f"ratio_{workers}"] = round(row[f"cluster_{workers}_s"] / row["in_process_s"], 2)
            row[f"identical_{workers}"] = _verdicts(got) == _verdicts(base) and [
                v.details.get("completeness") for _, v in got] == [v.details.get("completeness") for _, v in base]
            row[f"tasks_{workers}"] = session.dispatcher.tasks_done
        out["specs"] = row
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
