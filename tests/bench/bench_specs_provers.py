"""specs: prover configurations for Frama-C WP on the corpus references, side by side in one run.

    .venv/bin/python tests/bench/bench_specs_provers.py [--limit N] [--workers N]

For each configuration (provers, per-goal timeout): how many references WP proves completely, the
goals left unproved, and the wall time of the whole corpus through a pool of `workers` Frama-C runs.
Each configuration uses an empty cache. Prints one JSON object; not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.families.specs.corpus import entries  # noqa: E402
from core.families.specs.wp import WpOptions, run_wp  # noqa: E402
from core.tools import configure  # noqa: E402

CONFIGS = [("cvc4,z3", 3), ("cvc4", 3), ("z3", 3), ("cvc4,z3", 10)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    refs = [(e["name"], e["reference"]) for e in entries()]
    if args.limit:
        refs = refs[:args.limit]
    tmp = Path(tempfile.mkdtemp(prefix="bench-provers-"))
    out = []
    for k, (provers, timeout) in enumerate(CONFIGS):
        configure(tmp / f"c{k}.db")
        options = WpOptions(provers=provers, timeout_s=timeout)
        start = time.perf_counter()
        with ThreadPoolExecutor(args.workers) as pool:
            results = list(pool.map(lambda r, o=options: run_wp(r[1], o), refs))
        wall = time.perf_counter() - start
        unproved = {name: [f"{g.kind}@{g.line}:{g.status}" for g in res.failing]
                    for (name, _), res in zip(refs, results, strict=True) if res.outcome != "proved"}
        out.append({"provers": provers, "timeout_s": timeout, "proved": len(refs) - len(unproved),
                    "programs": len(refs), "wall_s": round(wall, 1), "unproved": unproved})
    print(json.dumps({"workers": args.workers, "configs": out}, indent=1))


if __name__ == "__main__":
    main()
