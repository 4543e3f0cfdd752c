"""The SnR-style baseline on real Stack Overflow snippets: micro precision, recall and F1 per library and
over all, plus the compile rate of the baseline's answers (javac, when installed). Prints one JSON
object; docs/imports-so.md quotes it.

    .venv/bin/python tests/bench/bench_imports_so.py [--set released|fqn] [--part dev|heldout|both|all]
                                                    [--misses] [--no-compile]

`--set released` (the default): StatType-SO as released, the snippets with their own import lines
(tests/families/imports/fixtures/stattype-so/, 113 worked on + 53 held out); its wildcards are read as
the packages they import, and the literal reading is printed beside (`*_literal`). `--set fqn`: the 84
snippets converted from iJTyper's fully qualified files (fixtures/so/stattype*/). `--part all` scores
both parts as one set. `--misses` lists, per snippet, the expected imports the baseline missed and the
extra ones it gave (do not use it on the held-out part while the baseline changes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.imports.extract import answer_imports  # noqa: E402
from core.families.imports.verify import score_wildcards  # noqa: E402
from core.family import get_family  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "families" / "imports" / "fixtures"
SETS = {
    "released": {"dev": [FIXTURES / "stattype-so" / "dev"], "heldout": [FIXTURES / "stattype-so" / "heldout"]},
    "fqn": {"dev": [FIXTURES / "so" / "stattype"], "heldout": [FIXTURES / "so" / "stattype-heldout"]},
}


def micro(rows: list[dict]) -> dict:
    out: dict = {"snippets": len(rows)}
    for suffix in ("", "_literal"):
        tp = sum(r[f"tp{suffix}"] for r in rows)
        fp = sum(r[f"fp{suffix}"] for r in rows)
        fn = sum(r[f"fn{suffix}"] for r in rows)
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        out.update({f"fqns{suffix}": tp + fn, f"right{suffix}": tp, f"extra{suffix}": fp, f"missing{suffix}": fn,
                    f"precision{suffix}": round(p, 4), f"recall{suffix}": round(r, 4), f"f1{suffix}": round(f, 4)})
    return out


def evaluate(folders: list[Path], misses: bool = False, compile_check: bool = True) -> dict:
    family = get_family("imports")
    instances = [inst for folder in folders for inst in family.import_files(folder) or []]
    pairs = [(i, family.baseline_response(i, 10)) for i in instances]
    by_lib: dict[str, list[dict]] = {}
    out: dict = {}
    missed: dict[str, dict] = {}
    for inst, reply in pairs:
        got = family.extract(reply)
        predicted = answer_imports(got) or []
        s = score_wildcards(inst.expected(), predicted)
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
    parser.add_argument("--set", dest="which", choices=tuple(SETS), default="released")
    parser.add_argument("--part", choices=("dev", "heldout", "both", "all"), default="dev")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    folders = SETS[args.which]
    parts = {"dev": ["dev"], "heldout": ["heldout"], "both": ["dev", "heldout"], "all": ["all"]}[args.part]
    folders = {**folders, "all": folders["dev"] + folders["heldout"]}
    report = {part: evaluate(folders[part], args.misses, not args.no_compile) for part in parts}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
