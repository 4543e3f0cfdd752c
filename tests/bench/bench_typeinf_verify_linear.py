"""typeinf verification is linear in the answer (issue 19 item 10): time per character of `check` on
hostile answers from 1K to 300K characters, side by side in one run.

    .venv/bin/python tests/bench/bench_typeinf_verify_linear.py

Shapes: `vars` (`not :: a0 -> a1 -> ... -> aN`), `parens` (N nested parentheses), `prose` (a signature
followed by N words on its line), `lines` (a signature and N lines of prose after it). Each answer is
checked (extraction + verdict, best of 3) and reported as microseconds per character; `flatness` is the
largest per-character time over the smallest across sizes from 10K up (below that a fixed cost of a few
milliseconds, a real parse and diff at 1K, dominates the per-character figure; 1 = perfectly linear). Type texts above
extract.MAX_TYPE_TOKENS tokens or MAX_TYPE_DEPTH nested brackets are `too_long` after one linear scan.
Not a pass/fail test.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.family import get_family  # noqa: E402

SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)


def answer(shape: str, chars: int) -> str:
    if shape == "vars":
        parts, n = [], 0
        while sum(len(p) + 4 for p in parts) < chars:
            parts.append(f"a{n}")
            n += 1
        return "not :: " + " -> ".join(parts)
    if shape == "parens":
        n = max(1, (chars - 8) // 2)
        return "not :: " + "(" * n + "a" + ")" * n
    if shape == "prose":
        words = "because the argument is negated and returned as it is "
        return "not :: Bool -> Bool, " + (words * (chars // len(words) + 1))[:chars]
    line = "The function negates its argument, so the type is as given above.\n"
    return "not :: Bool -> Bool\n\n" + (line * (chars // len(line) + 1))[:chars]


def best_of(fam, inst, text: str, runs: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fam.check(inst, text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    fam = get_family("typeinf")
    inst = next(i for i in fam.generate(fam.resolve_params("tfbench-base"), 0, 250) if i.name == "not")
    fam.check(inst, "not :: Bool -> Bool")  # warm the parser and caches
    out: dict[str, object] = {}
    for shape in ("vars", "parens", "prose", "lines"):
        rows = {}
        for size in SIZES:
            text = answer(shape, size)
            seconds = best_of(fam, inst, text)
            verdict = fam.check(inst, text)[1]
            rows[str(size)] = {"chars": len(text), "seconds": round(seconds, 5),
                               "us_per_char": round(seconds * 1e6 / len(text), 4),
                               "status": verdict.status}
        per_char = [r["us_per_char"] for size, r in rows.items() if int(size) >= 10_000]
        out[shape] = {"sizes": rows, "flatness": round(max(per_char) / max(min(per_char), 1e-9), 2)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
