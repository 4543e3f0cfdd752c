"""The SnR-style baseline on real Stack Overflow snippets (StatType-SO, from iJTyper's ground truth; see
tests/families/imports/fixtures/so/README.md): micro precision, recall and F1 per library and over all,
plus the compile rate of the ground truth and of the baseline's answers (javac, when installed). Prints
one JSON object; docs/imports-so.md quotes it.

    .venv/bin/python tests/bench/bench_imports_so.py [--part dev|heldout|both] [--misses]

`--misses` lists, per snippet, the expected imports the baseline missed and the extra ones it gave.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.imports.extract import answer_imports  # noqa: E402
from core.families.imports.verify import score  # noqa: E402
from core.family import get_family  # noqa: E402

SO = Path(__file__).resolve().parents[1] / "families" / "imports" / "fixtures" / "so"
PARTS = {"dev": SO / "stattype", "heldout": SO / "stattype-heldout"}


def micro(rows: list[dict]) -> dict:
    tp = sum(r["tp"] for r in rows)
    fp = sum(r["fp"] for r in rows)
    fn = sum(r["fn"] for r in rows)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"snippets": len(rows), "fqns": tp + fn, "precision": round(p, 4), "recall": round(r, 4),
            "f1": round(f, 4)}


def evaluate(folder: Path, misses: bool = False, compile_check: bool = True) -> dict:
    family = get_family("imports")
    instances = family.import_files(folder) or []
    pairs = [(i, family.baseline_response(i, 10)) for i in instances]
    by_lib: dict[str, list[dict]] = {}
    out: dict = {}
    missed: dict[str, dict] = {}
    for inst, reply in pairs:
        got = family.extract(reply)
        predicted = answer_imports(got) or []
        s = score(inst.expected(), predicted)
        by_lib.setdefault(inst.library, []).append(s)
        if misses and (s["fn"] or s["fp"]):
            missed[inst.id] = {"missing": sorted(set(inst.expected()) - set(predicted)),
                               "extra": sorted(set(predicted) - set(inst.expected()))}
    out["by_library"] = {lib: micro(rows) for lib, rows in sorted(by_lib.items())}
    out["all"] = micro([r for rows in by_lib.values() for r in rows])
    if compile_check:
        verdicts = family.check_many(pairs)
        checked = [v for _a, v in verdicts if (v.details or {}).get("compile", {}).get("checked")]
        out["baseline_compile_rate"] = (round(sum(1 for v in checked if v.details["compile"]["ok"]) / len(checked), 4)
                                        if checked else None)
    if misses:
        out["misses"] = missed
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=("dev", "heldout", "both"), default="dev")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    parts = ("dev", "heldout") if args.part == "both" else (args.part,)
    report = {part: evaluate(PARTS[part], args.misses, not args.no_compile) for part in parts}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
