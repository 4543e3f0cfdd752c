"""`verify --workers 2` on cascade against in-process verification, side by side in one run; one JSON.

    PYTHONPATH=. .venv/bin/python tests/bench/bench_cluster_routed.py [--answers 100000] [--rounds 2]

What `sembench verify cascade ... --workers 2` does with the answers (core.cluster.run.verify_on_cluster:
the routing decision, then the checks where it sends them) against `family.check_many` in this process,
on `--answers` oracle answers cycling over 500 pbebench-lite instances, `--rounds` times interleaved.
`ratio` = routed / in-process per round, wall time, everything counted (a cluster started, were one
started); `identical`: every (answer, verdict) equal. Not a pass/fail test: the machine is shared, so
compare ratios from one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.cluster.run import verify_on_cluster  # noqa: E402
from core.cluster.target import ClusterTarget  # noqa: E402
from core.family import get_family  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from core.tools import configure

    configure(None)
    cascade = get_family("cascade")
    distinct = list(cascade.generate(cascade.resolve_params("pbebench-lite"), 7, 500))
    pairs = [(inst, cascade.oracle_response(inst)) for inst in distinct]
    pairs = [pairs[i % len(pairs)] for i in range(args.answers)]
    local_runs: list[float] = []
    routed_runs: list[float] = []
    identical = True
    for _ in range(args.rounds):  # the machine is shared: interleaved, round by round
        start = time.perf_counter()
        local = cascade.check_many(pairs)
        local_runs.append(time.perf_counter() - start)
        start = time.perf_counter()
        routed = verify_on_cluster(cascade, pairs, ClusterTarget(workers=2), None)
        routed_runs.append(time.perf_counter() - start)
        identical = identical and [(a.model_dump(), v.model_dump()) for a, v in local] == [
            (a.model_dump(), v.model_dump()) for a, v in routed]
    print(json.dumps({"answers": len(pairs), "load": os.getloadavg()[0],
                      "in_process_s": [round(x, 2) for x in local_runs],
                      "workers_2_s": [round(x, 2) for x in routed_runs],
                      "ratio": [round(r / p, 3) for r, p in zip(routed_runs, local_runs, strict=True)],
                      "ratio_of_sums": round(sum(routed_runs) / sum(local_runs), 3), "identical": identical}))


if __name__ == "__main__":
    main()
