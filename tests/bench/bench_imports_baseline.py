"""The SnR-style baseline's precision/recall/F1 (micro, with 95% bootstrap intervals) on the generated
presets, their transformed variants and a snippet folder, and ddmin against the baseline on a few
snippets; prints one JSON object (the README's numbers come from here).

    .venv/bin/python tests/bench/bench_imports_baseline.py [--folder DIR] [--ddmin N] [--budget B]

The folder defaults to the test fixtures (tests/families/imports/fixtures/so); point it at a
StatType-SO checkout's snippet folders to score the released data.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.imports.ddmin import baseline_infer, ddmin  # noqa: E402
from core.families.imports.presets import PRESETS  # noqa: E402
from core.families.imports.prompt import prompt_code  # noqa: E402
from core.family import get_family  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("precision", "recall", "f1", "exact_match", "compile_rate")


def scored(family, instances) -> dict:
    start = time.perf_counter()
    pairs = [(i, family.baseline_response(i, 10)) for i in instances]
    solve_s = time.perf_counter() - start
    rows = [(i, v) for i, (_a, v) in zip(instances, family.check_many(pairs), strict=True)]
    summary = family.summarize(rows)
    out = {"n": len(rows), "baseline_s_per_snippet": round(solve_s / max(1, len(rows)), 4)}
    for key in KEYS:
        value = summary.get(key)
        out[key] = None if value is None else round(value, 4)
        if f"{key}_lo" in summary:
            out[f"{key}_ci"] = [round(summary[f"{key}_lo"], 4), round(summary[f"{key}_hi"], 4)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", default=str(ROOT / "tests/families/imports/fixtures/so"))
    parser.add_argument("--ddmin", type=int, default=8, help="snippets to minimise (first items of thalia-like)")
    parser.add_argument("--budget", type=int, default=1500)
    args = parser.parse_args()
    family = get_family("imports")
    report: dict = {"presets": {}}
    for name, preset in PRESETS.items():
        instances = list(family.generate(family.resolve_params(name), preset.seed, preset.count))
        report["presets"][name] = scored(family, instances)
    folder = family.import_files(Path(args.folder)) or []
    report["folder"] = {"path": args.folder, **scored(family, folder)} if folder else {"path": args.folder, "n": 0}
    if args.ddmin:
        base = list(family.generate(family.resolve_params("thalia-like"), 0, args.ddmin))
        totals = {"before": 0, "after": 0}
        cats: dict[str, list[int]] = {}
        decrease = []
        calls = []
        finished = 0
        for inst in base:
            result = ddmin(prompt_code(inst), baseline_infer(inst.library), budget=args.budget)
            rep = result.report()
            totals["before"] += rep["tokens_before"]
            totals["after"] += rep["tokens_after"]
            for cat, v in rep["by_category"].items():
                pair = cats.setdefault(cat, [0, 0])
                pair[0] += v["before"]
                pair[1] += v["after"]
            decrease.append(rep["simple_name_decrease"])
            calls.append(rep["calls"])
            finished += rep["finished"]
        report["ddmin_vs_baseline"] = {
            "snippets": len(base), "budget": args.budget, "finished": finished,
            "retained_ratio": round(totals["after"] / totals["before"], 4),
            "by_category": {cat: {"before": b, "after": a, "ratio": round(a / b, 4) if b else None}
                            for cat, (b, a) in cats.items()},
            "mean_simple_name_decrease": round(sum(decrease) / len(decrease), 4),
            "mean_calls": round(sum(calls) / len(calls), 1),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
