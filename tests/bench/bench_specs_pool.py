"""specs: one contract evaluated with completeness (WP on the program and on every non-equivalent
mutant), sequentially vs in the pool, side by side in one run; then the same evaluation again (cache).

    .venv/bin/python tests/bench/bench_specs_pool.py [--program max_array] [--workers N]

Each mode starts from an empty tool cache of its own (a temporary database), so both pay for every
Frama-C run; the repeat uses the pool's cache and must be answered from it. Prints one JSON object.
Not a pass/fail test.
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

from core.families.specs.generator import generate_one  # noqa: E402
from core.families.specs.mutate import apply, transfer  # noqa: E402
from core.families.specs.verify import live_mutants  # noqa: E402
from core.families.specs.wp import run_wp  # noqa: E402
from core.tools import configure  # noqa: E402


def evaluate(texts: list[str], workers: int) -> tuple[float, list[str]]:
    start = time.perf_counter()
    if workers <= 1:
        outcomes = [run_wp(t).outcome for t in texts]
    else:
        with ThreadPoolExecutor(workers) as pool:
            outcomes = [r.outcome for r in pool.map(run_wp, texts)]
    return time.perf_counter() - start, outcomes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", default="max_array")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    inst = generate_one({"variants": "base", "programs": args.program}, 0, 0)
    tmp = Path(tempfile.mkdtemp(prefix="bench-specs-"))
    configure(tmp / "setup.db")
    found, live = live_mutants(inst)  # differential testing, not timed
    located = transfer(found, inst.reference(), inst.function)
    texts = [inst.reference()] + [apply(inst.reference(), located[o]) for o in live]

    seq_cache = configure(tmp / "sequential.db")
    seq_s, seq_out = evaluate(texts, 1)
    pool_cache = configure(tmp / "pool.db")
    pool_s, pool_out = evaluate(texts, args.workers)
    misses = pool_cache.misses
    again_s, again_out = evaluate(texts, args.workers)
    killed = sum(o != "proved" for o in pool_out[1:])
    print(json.dumps({
        "program": args.program, "wp_runs": len(texts), "mutants": len(found), "nonequivalent": len(live),
        "workers": args.workers, "sequential_s": round(seq_s, 2), "pool_s": round(pool_s, 2),
        "speedup_pool_vs_sequential": round(seq_s / pool_s, 2) if pool_s else None,
        "repeat_s": round(again_s, 3), "repeat_cache_hits": pool_cache.hits,
        "repeat_all_hits": pool_cache.hits >= len(texts) and pool_cache.misses == misses,
        "speedup_cache_vs_pool": round(pool_s / again_s, 1) if again_s else None,
        "same_outcomes": seq_out == pool_out == again_out, "reference": pool_out[0],
        "cr": round(killed / (len(texts) - 1), 3) if len(texts) > 1 else None,
        "sequential_cache_misses": seq_cache.misses,
    }, indent=1))


if __name__ == "__main__":
    main()
