"""The typeinf family's verification is linear in the answer: the time of `check` (extraction +
verdict) on hostile answers from 1K to 300K characters, measured so that load on the machine does not
decide the figures.

    .venv/bin/python tests/bench/bench_typeinf_verify_linear.py [--rounds 15] [--shapes vars,parens]

Shapes: `vars` (`not :: a0 -> a1 -> ... -> aN`), `parens` (N nested parentheses), `prose` (a signature
followed by N characters of words on its line), `lines` (a signature, then lines of prose), `fence`
(lines of prose, then the signature in a ```haskell fence), `sigs` (N characters of signatures for
other functions), `inline` (prose with many short `code` spans and no signature), `spaces` (a signature
with a run of N spaces inside it), `spaces_comma` (the same followed by a comma: prose is looked for),
`letters` (one word of N letters).

Robust to load: time is the thread's CPU time (time.thread_time_ns: time spent waiting for a core is not
counted), every (shape, size) is visited once per round in a shuffled order (the rounds interleave the
sizes, so a slow minute hits every size alike), each visit times a batch of checks lasting at least
MIN_BATCH_S of CPU time, and a size's figure is the median over the rounds.

Reported per shape: the median milliseconds and µs per character at each size; a fit time = a + b·n over
the sizes from 10K up (relative least squares: `fixed_ms` is a, the fixed cost of a check, `us_per_char`
is b); the residual per-character time (t − a)/n at each of those sizes, and `flatness`, the largest
residual over the smallest (1 = perfectly linear; `flatness_raw` is the same for t/n, where the fixed
cost weighs on 10K). At 1K and 3K some shapes are real answers within the bounds (parsed, checked and
diffed: a different regime, see `status`): shown, not fitted. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.typeinf.check import _equivalent_cached  # noqa: E402
from core.families.typeinf.hsparse import _parse_type_cached  # noqa: E402
from core.family import get_family  # noqa: E402

# Memos keyed by the answer's text or type: cleared before each check (the task's own memos stay warm)
ANSWER_CACHES = (_parse_type_cached.cache_clear, _equivalent_cached.cache_clear)

SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)
SHAPES = ("vars", "parens", "prose", "lines", "fence", "sigs", "inline", "spaces", "spaces_comma", "letters")
MIN_BATCH_S = 0.02  # a visit repeats a quick check until this much CPU time has passed (well above the clock's grain)
FIT_FROM = 10_000
FLAT_FROM = 10_000


def _repeat(unit: str, chars: int) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


def answer(shape: str, chars: int) -> str:
    if shape == "vars":
        parts, n, size = [], 0, 7
        while size < chars:
            parts.append(f"a{n}")
            size += len(parts[-1]) + 4
            n += 1
        return "not :: " + " -> ".join(parts)
    if shape == "parens":
        n = max(1, (chars - 8) // 2)
        return "not :: " + "(" * n + "a" + ")" * n
    if shape == "prose":
        return "not :: Bool -> Bool, " + _repeat("because the argument is negated and returned as it is ", chars)
    if shape == "lines":
        return "not :: Bool -> Bool\n\n" + _repeat("The function negates its argument, so the type is as given above.\n",
                                                   chars)
    if shape == "fence":
        prose = _repeat("The function negates its argument; its type is in the block below.\n", chars)
        return prose + "\n```haskell\nnot :: Bool -> Bool\n```\n"
    if shape == "sigs":
        return _repeat("f :: Int -> Int\n", chars)
    if shape == "inline":
        return _repeat("the value `x y` is used here ", chars)
    if shape == "spaces":
        return "not :: Bool" + " " * chars + "-> Bool"
    if shape == "spaces_comma":  # the same, with a comma after it: not a type, so prose is looked for
        return "not :: Bool" + " " * chars + "-> Bool ,"
    if shape == "letters":  # one word and nothing else: no signature, no code
        return "a" * chars
    raise ValueError(shape)


def _batch(fam, inst, text: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(CPU seconds, wall seconds) of one check, from a batch of them."""
    count = 0
    cpu, wall = time.thread_time_ns(), time.perf_counter_ns()
    while True:
        for forget in ANSWER_CACHES:  # every check reads its answer afresh, as a run's checks do
            forget()
        fam.check(inst, text)
        count += 1
        spent = time.thread_time_ns() - cpu
        if spent >= MIN_BATCH_S * 1e9:
            return spent / count / 1e9, (time.perf_counter_ns() - wall) / count / 1e9


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """a, b of time = a + b·n, least squares on relative errors (weights 1/t²: the sizes span 100x)."""
    sw = swx = swxx = swy = swxy = 0.0
    for n, t in points:
        w = 1.0 / (t * t)
        sw, swx, swxx, swy, swxy = sw + w, swx + w * n, swxx + w * n * n, swy + w * t, swxy + w * n * t
    det = sw * swxx - swx * swx
    b = (sw * swxy - swx * swy) / det
    a = (swy - b * swx) / sw
    return max(a, 0.0), b


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    fam = get_family("typeinf")
    inst = next(i for i in fam.generate(fam.resolve_params("tfbench-base"), 0, 250) if i.name == "not")
    texts = {(s, n): answer(s, n) for s in shapes for n in SIZES}
    statuses = {key: fam.check(inst, text)[1].status for key, text in texts.items()}  # also warms the caches
    cpu: dict[tuple[str, int], list[float]] = {key: [] for key in texts}
    wall: dict[tuple[str, int], list[float]] = {key: [] for key in texts}
    rng = random.Random(19)
    for _ in range(args.rounds):
        order = list(texts)
        rng.shuffle(order)
        for key in order:
            c, w = _batch(fam, inst, texts[key])
            cpu[key].append(c)
            wall[key].append(w)
    out: dict[str, object] = {"rounds": args.rounds, "clock": "thread CPU time, median over rounds"}
    for shape in shapes:
        med = {n: statistics.median(cpu[(shape, n)]) for n in SIZES}
        chars = {n: len(texts[(shape, n)]) for n in SIZES}
        a, b = fit([(chars[n], med[n]) for n in SIZES if n >= FIT_FROM])
        rows = {}
        for n in SIZES:
            rows[str(n)] = {
                "chars": chars[n], "status": statuses[(shape, n)], "ms": round(med[n] * 1e3, 3),
                "wall_ms": round(statistics.median(wall[(shape, n)]) * 1e3, 3),
                "us_per_char": round(med[n] * 1e6 / chars[n], 5),
                "residual_us_per_char": round((med[n] - a) * 1e6 / chars[n], 5) if n >= FIT_FROM else None,
            }
        residual = [(med[n] - a) / chars[n] for n in SIZES if n >= FLAT_FROM]
        raw = [med[n] / chars[n] for n in SIZES if n >= FLAT_FROM]
        out[shape] = {
            "fixed_ms": round(a * 1e3, 4), "us_per_char": round(b * 1e6, 5),
            "flatness": round(max(residual) / max(min(residual), 1e-12), 2),
            "flatness_raw": round(max(raw) / min(raw), 2), "sizes": rows,
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
