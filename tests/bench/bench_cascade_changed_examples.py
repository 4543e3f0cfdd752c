"""How many of the 5 examples each rule of PBEBench-Lite changes (applied in cascade order), ours against
the release: the histogram per seed, the rules that change all five, and Fisher's exact test of that
count pooled over the seeds against the released file's. Prints one JSON object; docs/cascade.md quotes it.

    .venv/bin/python tests/bench/bench_cascade_changed_examples.py [--seeds 0 1 2] [--released FILE]

Seed 0 is the bundled `pbebench-lite` (read from snapshots.db); other seeds are generated (about 3.5
minutes each on the 2-core VM). `--released` counts the released Lite file itself
(`data/adaptive_balanced_1008_complete.jsonl` of GitHub cmu-llab/PBEBench); without it the whole file's
counts stated in docs/cascade.md are used, and the 112 released records transcribed in the tests'
fixtures are counted beside them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.family import get_family  # noqa: E402
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "families" / "cascade" / "fixtures" / "released" / "lite_sample.txt"
# The whole released Lite file (1,008 records, 3,543 rules): rules changing all five examples.
RELEASED_ALL_FIVE, RELEASED_RULES = 26, 3543


def changed_per_rule(inputs: list[str], cascade: list[tuple[str, str]]) -> list[int]:
    current, out = list(inputs), []
    for lhs, rhs in cascade:
        following = [s.replace(lhs, rhs) for s in current]
        out.append(sum(a != b for a, b in zip(current, following, strict=True)))
        current = following
    return out


def histogram(pairs: list[tuple[list[str], list[tuple[str, str]]]]) -> dict[str, object]:
    counts = [0] * 6
    for inputs, cascade in pairs:
        for n in changed_per_rule(inputs, cascade):
            counts[min(n, 5)] += 1
    rules = sum(counts)
    return {"records": len(pairs), "rules": rules, "changed_0_to_5": counts, "all_five": counts[5],
            "all_five_share": round(counts[5] / rules, 5) if rules else None}


def released_file(path: Path) -> list[tuple[list[str], list[tuple[str, str]]]]:
    family = get_family("cascade")
    return [(inst.inputs, inst.cascade()) for inst in family.import_files(path) or []]


def transcribed() -> list[tuple[list[str], list[tuple[str, str]]]]:
    pairs = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        inputs, _outputs, programs, *_ = line.split("|")
        pairs.append((inputs.split(" "), [tuple(p.split(">", 1)) for p in programs.split(" ")]))
    return pairs  # type: ignore[return-value]


def main() -> None:
    from scipy.stats import fisher_exact

    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--released", type=Path, default=None)
    args = parser.parse_args()
    family = get_family("cascade")
    params = family.resolve_params("pbebench-lite")
    ours: dict[str, object] = {}
    for seed in args.seeds:
        if seed == 0 and BUNDLED_SNAPSHOTS.exists():
            store = SnapshotStore(BUNDLED_SNAPSHOTS)
            instances = [family.parse_instance(data) for _i, _id, _f, data in store.instance_rows("pbebench-lite")]
        else:
            instances = list(family.generate(params, seed, 1008))
        ours[str(seed)] = histogram([(i.inputs, i.cascade()) for i in instances])
    report: dict[str, object] = {"ours": ours, "released_first_112": histogram(transcribed())}
    if args.released is not None:
        whole = histogram(released_file(args.released))
        all_five, rules = int(whole["all_five"]), int(whole["rules"])  # type: ignore[call-overload]
        report["released"] = whole
    else:
        all_five, rules = RELEASED_ALL_FIVE, RELEASED_RULES
        report["released"] = {"rules": rules, "all_five": all_five, "all_five_share": round(all_five / rules, 5)}
    ours_five = sum(int(h["all_five"]) for h in ours.values())  # type: ignore[index]
    ours_rules = sum(int(h["rules"]) for h in ours.values())  # type: ignore[index]
    test = fisher_exact([[ours_five, ours_rules - ours_five], [all_five, rules - all_five]])
    report["pooled"] = {"ours_all_five": ours_five, "ours_rules": ours_rules,
                        "ratio_released_to_ours": round((all_five / rules) / (ours_five / ours_rules), 2)
                        if ours_five else None,
                        "fisher_p": float(test.pvalue), "odds_ratio": float(test.statistic)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
