"""Verification throughput and memory for `cascade` and `membership`, beside a minimal anchor; one JSON.

    .venv/bin/python tests/bench/bench_verify.py [--checks N] [--distinct N] [--family cascade|membership]

For each family, `--distinct` instances of a bundled preset are generated and answered by the oracle;
the answers are then checked `--checks` times in total (cycling over the instances) by:

- `family`: the family's own `check` (extraction + verification, the verdict with its diff and
  explanation: what a run stores per attempt);
- `anchor`: a minimal verifier written for this benchmark only: one regular expression pulls the
  answer out of the reply and the check is `str.replace` over the inputs (cascade) or the exact
  evaluator on the probe (membership), with no diff, no explanation and no validity rules.

Both run side by side in the same process, alternating, best of three runs in CPU time; `ratio` = family
time / anchor time (the issue's table measured 15x for cascade and 9x for membership before the rewrite;
this benchmark measured 79.9x / 23.3x (cascade, 5 / 50 examples) and 11.7x (membership) on the code
before it). `cold_ratio` is the same with a fresh copy of the instance for every check, so nothing the
family caches per instance object (membership's evaluation and rendering, cascade's limits) is reused:
the worst case, every answer to a different instance. `kb_per_verdict` is the memory held by the
(answer, verdict) pairs kept for all checks (tracemalloc), divided by their number.
Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.family import get_family  # noqa: E402

PRESETS = {"cascade": ("pbebench-lite", "pbebench"), "membership": ("pag-default",)}
_CASCADE_ANCHOR = re.compile(r"""replace\(\s*["']([^"']*)["']\s*,\s*["']([^"']*)["']\s*\)""")
_MEMBERSHIP_ANCHOR = re.compile(r"\b(True|False)\b")


def _cascade_anchor(instance: Any, response: str) -> bool:
    rules = _CASCADE_ANCHOR.findall(response)
    outputs = []
    for text in instance.inputs:
        for lhs, rhs in rules:
            if lhs:
                text = text.replace(lhs, rhs)
        outputs.append(text)
    return outputs == instance.outputs


def _membership_anchor(instance: Any, response: str) -> bool:
    from core.families.membership.evaluate import evaluate

    found = _MEMBERSHIP_ANCHOR.findall(response)
    said = found[-1] == "True" if found else None
    return said == evaluate(instance.condition, instance.probe, instance.entry_index())


ANCHORS = {"cascade": _cascade_anchor, "membership": _membership_anchor}


def _timed(fn: Any, pairs: list[tuple[Any, str]], checks: int) -> float:
    """CPU seconds of this process (less sensitive than wall time to other work on the machine)."""
    start = time.process_time()
    n = len(pairs)
    for i in range(checks):
        instance, response = pairs[i % n]
        fn(instance, response)
    return time.process_time() - start


def bench(family_id: str, preset_name: str, distinct: int, checks: int) -> dict[str, Any]:
    family = get_family(family_id)
    preset = family.presets()[preset_name]
    params = family.resolve_params(preset_name)
    instances = [family.generate_one(params, preset.seed, i) for i in range(min(distinct, preset.count))]
    pairs = [(inst, family.oracle_response(inst)) for inst in instances]
    anchor = ANCHORS[family_id]
    assert all(anchor(i, r) for i, r in pairs), "the anchor must accept the oracle's answers"
    assert all(family.check(i, r)[1].correct for i, r in pairs), "the family must accept the oracle's answers"
    # warm-up (lazy imports, caches of the first call), then both side by side, alternating, best of three
    _timed(family.check, pairs, len(pairs))
    _timed(anchor, pairs, len(pairs))
    family_runs, anchor_runs = [], []
    for _ in range(3):
        family_runs.append(_timed(family.check, pairs, checks))
        anchor_runs.append(_timed(anchor, pairs, checks))
    family_s, anchor_s = min(family_runs), min(anchor_runs)
    cold_n = min(checks, 2000)
    cold_pairs = [(type(i).model_validate(i.model_dump()), r) for i, r in (pairs[k % len(pairs)] for k in range(cold_n))]
    cold_runs = []
    for _ in range(3):
        fresh = [(type(i).model_validate(i.model_dump()), r) for i, r in cold_pairs]
        cold_runs.append(_timed(family.check, fresh, cold_n))
    cold_anchor = min(_timed(anchor, cold_pairs, cold_n) for _ in range(3))
    gc.collect()
    tracemalloc.start()
    kept = [family.check(*pairs[i % len(pairs)]) for i in range(min(checks, 2000))]
    held, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "preset": preset_name,
        "examples_per_instance": _examples(instances[0]),
        "checks": checks,
        "family_checks_per_s": round(checks / family_s),
        "anchor_checks_per_s": round(checks / anchor_s),
        "ratio_family_over_anchor": round(family_s / anchor_s, 2),
        "cold_ratio_family_over_anchor": round(min(cold_runs) / cold_anchor, 2),
        "kb_per_verdict": round(held / len(kept) / 1024, 2),
    }


def _examples(instance: Any) -> int | None:
    inputs = getattr(instance, "inputs", None)
    return len(inputs) if isinstance(inputs, list) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=200)
    parser.add_argument("--family", choices=sorted(PRESETS), action="append")
    args = parser.parse_args()
    results = {f: [bench(f, p, args.distinct, args.checks) for p in PRESETS[f]] for f in (args.family or PRESETS)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
