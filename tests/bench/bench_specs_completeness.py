"""specs: `sembench verify specs` on the formalbench-c references (oracle answers) with completeness, its
mutants sent straight to WP (`SEMBENCH_SPECS_RUN_MUTANTS=0`, the way before) vs run first with the
contract checked at run time (the default), side by side in one run, rounds interleaved.

    .venv/bin/python tests/bench/bench_specs_completeness.py [--rounds 2] [--programs a,b,...]

Each verify is the CLI in a process of its own, with a log database of its own (so an empty tool cache:
every Frama-C run is paid for). Prints one JSON object: each mode's wall times, the speed-up (the ratio
of the medians), the WP runs made on mutants in each mode and the runs saved, the load average around
each verify (the machine may be shared), and whether every verdict and completeness rate came out the
same in both modes (any difference is listed). Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SEMBENCH = [sys.executable, "-m", "core"]
MODES = {"wp_only": "0", "run_first": "1"}


def _cli(args: list[str], env: dict[str, str], out: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*SEMBENCH, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"sembench {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    if out is not None:
        out.write_text(done.stdout)
    return done


def _inputs(tmp: Path, programs: list[str], env: dict[str, str]) -> tuple[Path, Path]:
    instances, answers = tmp / "instances.jsonl", tmp / "answers.jsonl"
    _cli(["snapshot", "export", "formalbench-c"], env, instances)
    if programs:
        kept = [line for line in instances.read_text().splitlines()
                if json.loads(line).get("meta", {}).get("program") in programs
                or json.loads(line).get("function") in programs]
        instances.write_text("\n".join(kept) + "\n")
    _cli(["solve", "specs", "--instances", str(instances), "--solver", "oracle"], env, answers)
    return instances, answers


def _summary(path: Path) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    wp_runs = saved = 0
    for line in path.read_text().splitlines():
        verdict = json.loads(line)
        comp = verdict.get("details", {}).get("completeness") or {}
        killed = sorted(r["ordinal"] for r in comp.get("rows", []) if r["killed"])
        rows[verdict["id"]] = {"status": verdict["status"], "cr": comp.get("cr"), "killed": killed}
        wp_runs += int(comp.get("wp_runs", comp.get("evaluated", 0)) or 0)
        saved += int(comp.get("killed_by_test", 0) or 0)
    return {"rows": rows, "mutant_wp_runs": wp_runs, "killed_by_test": saved}


def _verify(mode: str, tmp: Path, instances: Path, answers: Path, base_env: dict[str, str], tag: str) -> dict[str, Any]:
    env = {**base_env, "SEMBENCH_DB": str(tmp / f"{tag}.db"), "SEMBENCH_SPECS_RUN_MUTANTS": MODES[mode]}
    out = tmp / f"{tag}.jsonl"
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    _cli(["verify", "specs", "--instances", str(instances), "--answers", str(answers), "--out", str(out),
          "--format", "json"], env)
    wall = time.perf_counter() - start
    return {"wall_s": round(wall, 1), "load": [round(load_before, 1), round(os.getloadavg()[0], 1)], **_summary(out)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--programs", default="", help="comma-separated corpus programs (default: all 65)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-specs-cr-"))
    env = {**os.environ, "SEMBENCH_DB": str(tmp / "setup.db")}
    instances, answers = _inputs(tmp, [p for p in args.programs.split(",") if p], env)
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for r in range(args.rounds):
        order = list(MODES) if r % 2 == 0 else list(reversed(MODES))  # interleaved, each mode first in turn
        for mode in order:
            runs[mode].append(_verify(mode, tmp, instances, answers, env, f"{mode}-{r}"))
    reference = runs["wp_only"][0]["rows"]
    differences = [{"mode": m, "round": r, "id": iid, "wp_only": reference[iid], "got": row}
                   for m, rounds in runs.items() for r, done in enumerate(rounds)
                   for iid, row in done["rows"].items() if row != reference.get(iid)]
    medians = {m: statistics.median(d["wall_s"] for d in rounds) for m, rounds in runs.items()}
    verdicts = len(reference)
    print(json.dumps({
        "answers": verdicts, "rounds": args.rounds, "cpus": os.cpu_count(),
        "wall_s": {m: [d["wall_s"] for d in rounds] for m, rounds in runs.items()},
        "load": {m: [d["load"] for d in rounds] for m, rounds in runs.items()},
        "speedup": round(medians["wp_only"] / medians["run_first"], 2) if medians["run_first"] else None,
        "mutant_wp_runs": {m: rounds[0]["mutant_wp_runs"] for m, rounds in runs.items()},
        "wp_runs_saved": runs["wp_only"][0]["mutant_wp_runs"] - runs["run_first"][0]["mutant_wp_runs"],
        "killed_by_test": runs["run_first"][0]["killed_by_test"],
        "verified": sum(1 for row in reference.values() if row["status"] == "success"),
        "with_cr": sum(1 for row in reference.values() if row["cr"] is not None),
        "same_verdicts_and_cr": not differences, "differences": differences[:20],
    }, indent=1))


if __name__ == "__main__":
    main()
