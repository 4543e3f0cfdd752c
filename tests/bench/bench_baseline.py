"""Solve rate and time of the cascade baseline per ground-truth cascade length; prints one JSON object.

    .venv/bin/python tests/bench/bench_baseline.py [--preset pbebench-lite] [--per-length 20]
        [--budget 5] [--lengths 2,3,4,5] [--seed 0]

Instances are the preset's items 0, 1, 2, ... taken in order until every cascade length has `--per-length`
of them (the items are what `sembench generate` gives for the preset and seed). Each one is solved twice,
side by side: with the instance's own bound K (the snapshot's longest cascade, what a model is held to)
and with K = its ground-truth length (the tightest bound that is sure to have an answer). Every answer is
re-verified here. `max_overrun_s` is how far the slowest unsolved instance ran past the budget.
`long_strings` runs the solver on long random strings (outputs: the inputs reversed) with a short
budget and reports how far past the budget each run returned: the per-call work caps bound that
overrun. The budget is an amount of work (baseline.WORK_PER_SECOND units per second of budget):
`units_per_cpu_s` is the rate measured here, the calibration of that constant (the budget normally takes
at most its seconds when the rate is above WORK_PER_SECOND), and `why` counts how runs ended ("found",
"budget", "exhausted", "impossible"). The instances' validity limits (side length, alphabet) apply.
Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.cascade import baseline  # noqa: E402
from core.families.cascade.baseline import solve, solve_with_status, verify  # noqa: E402
from core.families.cascade.model import CascadeInstance  # noqa: E402
from core.family import get_family  # noqa: E402

MODES = ("k_instance", "k_truth")


def sample(
    params: dict[str, Any], seed: int, lengths: list[int], per_length: int, max_scan: int
) -> tuple[list[CascadeInstance], str]:
    """The first `per_length` items of each wanted cascade length, in item order, and where they came from."""
    try:
        make = get_family("cascade").generate_one
        make(params, seed, 0)
        source = "generator"
    except ImportError as exc:  # the generator is another module's job; fall back rather than not measure
        make, source = local_instance, f"local maker (generator not importable: {exc})"
    picked: dict[int, list[CascadeInstance]] = {length: [] for length in lengths}
    for index in range(max_scan):
        if all(len(items) >= per_length for items in picked.values()):
            break
        instance = make(params, seed, index)
        assert isinstance(instance, CascadeInstance)
        bucket = picked.get(instance.meta["cascade_length"])
        if bucket is not None and len(bucket) < per_length:
            bucket.append(instance)
    return [instance for length in lengths for instance in picked[length]], source


def local_instance(params: dict[str, Any], seed: int, index: int) -> CascadeInstance:
    """The paper's sampling (§3.1.2) without the category balance: a stand-in for the generator."""
    rng = random.Random(f"{seed}:{index}")
    length = rng.randint(params["cascade_length_min"], params["cascade_length_max"])
    while True:
        inputs = [_letters(rng, params, "input") for _ in range(params["n_examples"])]
        current, cascade = list(inputs), []
        for _ in range(50 * length):
            if len(cascade) == length:
                break
            size = rng.randint(params["lhs_len_min"], params["lhs_len_max"])
            subs = sorted({s[i : i + size] for s in current for i in range(len(s) - size + 1)})
            if not subs:
                continue
            rule = (rng.choice(subs), _letters(rng, params, "rhs"))
            following = [s.replace(*rule) for s in current]
            if following != current:
                current, cascade = following, [*cascade, rule]
        if len(cascade) == length and current != inputs:
            return CascadeInstance(
                family="cascade", params=params, seed=seed, index=index, inputs=inputs, outputs=current,
                ground_truth={"cascade": [list(rule) for rule in cascade]},
                meta={"cascade_length": length, "max_programs": params["cascade_length_max"]},
            )


def _letters(rng: random.Random, params: dict[str, Any], what: str) -> str:
    size = rng.randint(params[f"{what}_len_min"], params[f"{what}_len_max"])
    return "".join(rng.choices(params["alphabet"], k=size))


_CLOCKS: list[Any] = []
_INIT = baseline._Clock.__init__


def _recording_init(self: Any, work: int, wall_s: float) -> None:
    _INIT(self, work, wall_s)
    _CLOCKS.append(self)


baseline._Clock.__init__ = _recording_init  # type: ignore[method-assign]  # to read the work each run spent


def run_one(instance: CascadeInstance, bound: int, budget: float) -> dict[str, Any]:
    _CLOCKS.clear()
    start, cpu = time.perf_counter(), time.process_time()
    found, why = solve_with_status(instance.inputs, instance.outputs, bound, budget, max_side=instance.max_side(),
                                   allowed=instance.allowed_chars())
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    solved = found is not None and verify(instance.inputs, instance.outputs, found, bound)
    if found is not None and not solved:
        raise SystemExit(f"baseline returned a wrong answer for {instance.id}: {found}")
    return {"solved": solved, "time_s": elapsed, "cpu_s": cpu, "why": why,
            "units": _CLOCKS[0].spent if _CLOCKS else 0, "rules": len(found) if found is not None else None}


def summarize(rows: list[dict[str, Any]], budget: float) -> dict[str, Any]:
    times = [row["time_s"] for row in rows]
    solved = [row for row in rows if row["solved"]]
    unsolved_times = [row["time_s"] for row in rows if not row["solved"]]
    return {
        "n": len(rows),
        "solved": len(solved),
        "solve_rate": round(len(solved) / len(rows), 4) if rows else None,
        "mean_time_s": round(statistics.fmean(times), 4) if times else None,
        "median_time_s": round(statistics.median(times), 4) if times else None,
        "max_time_s": round(max(times), 4) if times else None,
        "mean_rules": round(statistics.fmean(row["rules"] for row in solved), 3) if solved else None,
        "max_overrun_s": round(max(t - budget for t in unsolved_times), 4) if unsolved_times else None,
        "units_per_cpu_s": round(sum(r["units"] for r in rows) / max(1e-9, sum(r["cpu_s"] for r in rows))),
        "why": {w: sum(r["why"] == w for r in rows) for w in ("found", "budget", "exhausted", "impossible")},
    }


LONG_SHAPES = ((3, 6_000), (5, 10_000), (2, 100_000))  # (examples, characters each)


def long_strings(budget: float, seed: int) -> list[dict[str, Any]]:
    rows = []
    for count, size in LONG_SHAPES:
        rng = random.Random(f"{seed}:{count}:{size}")
        inputs = ["".join(rng.choices("abc", k=size)) for _ in range(count)]
        outputs = [text[::-1] for text in inputs]
        start = time.perf_counter()
        found = solve(inputs, outputs, 5, budget)
        elapsed = time.perf_counter() - start
        rows.append({"examples": count, "chars": size, "budget_s": budget, "time_s": round(elapsed, 4),
                     "overrun_s": round(elapsed - budget, 4),
                     "answer": None if found is None else verify(inputs, outputs, found, 5)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="pbebench-lite")
    parser.add_argument("--per-length", type=int, default=20, help="instances per cascade length")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per instance")
    parser.add_argument("--lengths", default=None, help="comma-separated cascade lengths (default: the preset's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-scan", type=int, default=20_000, help="give up sampling after this many items")
    args = parser.parse_args()

    family = get_family("cascade")
    params = family.resolve_params(args.preset)
    if args.lengths:
        lengths = [int(x) for x in args.lengths.split(",")]
    else:
        lengths = list(params.get("cascade_lengths") or range(params["cascade_length_min"],
                                                                params["cascade_length_max"] + 1))
    wall = time.perf_counter()
    instances, source = sample(params, args.seed, lengths, args.per_length, args.max_scan)
    generation_s = time.perf_counter() - wall

    rows: dict[str, dict[int, list[dict[str, Any]]]] = {mode: {n: [] for n in lengths} for mode in MODES}
    for instance in instances:
        length = instance.meta["cascade_length"]
        rows["k_instance"][length].append(run_one(instance, instance.max_programs(), args.budget))
        rows["k_truth"][length].append(run_one(instance, length, args.budget))

    report: dict[str, Any] = {
        "preset": args.preset,
        "source": source,
        "seed": args.seed,
        "budget_s": args.budget,
        "per_length": args.per_length,
        "k_instance": sorted({inst.max_programs() for inst in instances}),
    }
    for mode in MODES:
        report[mode + "_by_length"] = {str(n): summarize(rows[mode][n], args.budget) for n in lengths}
        report[mode + "_overall"] = summarize([r for n in lengths for r in rows[mode][n]], args.budget)
    report["long_strings"] = long_strings(0.3, args.seed)
    report["generation_s"] = round(generation_s, 2)
    report["wall_s"] = round(time.perf_counter() - wall, 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
