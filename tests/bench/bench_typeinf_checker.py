"""Benchmark: the in-process type checker vs the GHC oracle, per answer, side by side in one run.

Answers: for every corpus task (base variant), the truth itself, an alpha-renaming, reordered
constraints, `forall`/String variants and the perturbed wrong answers (perturb.py). The checker
decides every answer (timed per answer); the GHC oracle decides every answer too, batched (for the
disagreement count), and a sample of answers one GHC run each with the cache off (the per-answer
cost a verifier without batching pays). Prints JSON: per-answer times, the ratio (target >= 1000x) and
the number of disagreements (target 0).

    .venv/bin/python tests/bench/bench_typeinf_checker.py [--sample 20]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.typeinf.corpus import binder  # noqa: E402
from core.families.typeinf.hsparse import parse_type, split_signature  # noqa: E402
from core.families.typeinf.oracle import modules_for, oracle_many  # noqa: E402
from core.families.typeinf.perturb import equivalents, perturbations  # noqa: E402
from core.family import get_family  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=20, help="answers decided by one GHC run each")
    args = ap.parse_args()
    fam = get_family("typeinf")
    params = fam.resolve_params("tfbench-base")
    instances = list(fam.generate(params, 0, fam.presets()["tfbench-base"].count))
    rng = random.Random(7)
    items = []
    for inst in instances:
        truth = split_signature(inst.ground_truth["signature"])[1].strip()
        scheme = parse_type(truth).scheme
        for label, answer in {**equivalents(truth, scheme, rng), **perturbations(scheme)}.items():
            items.append((inst, label, truth, answer))
    answers = [fam.extract(f"{binder(inst.name)} :: {answer}", inst) for inst, _, _, answer in items]

    start = time.perf_counter()
    checker = [fam.verify(inst, ans).correct for (inst, _, _, _), ans in zip(items, answers, strict=True)]
    checker_s = time.perf_counter() - start

    start = time.perf_counter()
    batched = oracle_many([(truth, answer, list(inst.dependencies)) for inst, _, truth, answer in items],
                          cache=False)
    batched_s = time.perf_counter() - start

    from core.families.typeinf.ghc import run_modules

    sample = rng.sample(range(len(items)), min(args.sample, len(items)))
    single_s = 0.0
    for k, i in enumerate(sample):
        inst, _, truth, answer = items[i]
        mods = modules_for(truth, answer, list(inst.dependencies), f"B{k}x{time.time_ns()}")  # fresh: no cache hit
        t0 = time.perf_counter()
        run_modules(mods, cache=False)
        single_s += time.perf_counter() - t0
    disagreements = [(items[i][0].id, items[i][1]) for i in range(len(items))
                     if checker[i] != batched[i].equivalent]
    per_checker = checker_s / len(items)
    per_single = single_s / len(sample)
    print(json.dumps({
        "answers": len(items),
        "equivalent_by_checker": sum(checker),
        "checker_s_per_answer": per_checker,
        "ghc_single_s_per_answer": per_single,
        "ghc_batched_s_per_answer": batched_s / len(items),
        "ratio_single": per_single / per_checker,
        "ratio_batched": (batched_s / len(items)) / per_checker,
        "disagreements": len(disagreements),
        "disagreement_examples": disagreements[:10],
    }, indent=2))


if __name__ == "__main__":
    main()
