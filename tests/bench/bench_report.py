"""`sembench report` on a 200,000-attempt run (1,600 instances x 125 samples); prints JSON.

    .venv/bin/python tests/bench/bench_report.py [--instances 1600] [--samples 125] [--keep] [--repeat 3]

The run is built by tests/bench/bigrun.py (real prompts, responses and verdict JSON as `sembench run`
writes them; ~800 MB). Each measurement is a fresh `sembench --db DB report RUN --format json` process
(start-up included), its wall time and peak RSS (the child's ru_maxrss):
  - report: the cache emptied first (targets: <= 5 s, <= 500 MB);
  - cached: the same report again (the run did not change);
  - anchor: what every report cost before, in the same run: parsing every stored verdict JSON of the
    run into Verdict models (the old path also parsed every instance and counted in Python; this is
    only its largest part), in a child process too.
Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "bench"))

ANCHOR = """
import sqlite3, sys
from core.verdict import Verdict
conn = sqlite3.connect(sys.argv[1])
n = 0
for (text,) in conn.execute("select verdict from attempts where run_id = ? and verdict is not null", [sys.argv[2]]):
    Verdict.model_validate_json(text)
    n += 1
print(n)
"""


def child(argv: list[str]) -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, stdout) of a child process."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: exec so that ru_maxrss is its own
        out = os.open(os.path.join(tempfile.gettempdir(), f"bench-report-{os.getpid()}.out"),
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.execv(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    path = Path(tempfile.gettempdir()) / f"bench-report-{pid}.out"
    text = path.read_text()
    path.unlink()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {text[-500:]}")
    return seconds, usage.ru_maxrss / 1024, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1600)
    parser.add_argument("--samples", type=int, default=125)
    parser.add_argument("--family", default="membership")
    parser.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "sembench-bench-report" / "log.db")
    parser.add_argument("--keep", action="store_true", help="reuse the database a previous run built")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from bigrun import make_big_run

    args.db.parent.mkdir(parents=True, exist_ok=True)
    built = time.perf_counter()
    run_id = make_big_run(args.db, args.family, args.instances, args.samples, keep=args.keep)
    built = time.perf_counter() - built
    sembench = str(Path(sys.executable).parent / "sembench")
    report_argv = [sembench, "--db", str(args.db), "report", run_id, "--format", "json"]
    child(report_argv)  # migrates the database if it is older, and warms the page cache
    fresh, cached, anchor = [], [], []
    for _ in range(args.repeat):
        with sqlite3.connect(args.db) as conn:
            conn.execute("delete from report_cache")
        fresh.append(child(report_argv))
        cached.append(child(report_argv))
        anchor.append(child([sys.executable, "-c", ANCHOR, str(args.db), run_id]))
    report = json.loads(fresh[-1][2])
    assert json.loads(cached[-1][2]) == report, "the cached report differs from the computed one"

    def med(rows: list[tuple[float, float, str]], i: int) -> float:
        return round(statistics.median(r[i] for r in rows), 3)

    attempts = report["counts"]["attempts"]
    print(json.dumps({
        "attempts": attempts, "instances": report["counts"]["instances"], "samples": args.samples,
        "family": args.family, "db_mb": round(args.db.stat().st_size / 2**20), "built_s": round(built, 1),
        "report_s": med(fresh, 0), "report_peak_mb": med(fresh, 1),
        "cached_s": med(cached, 0), "cached_peak_mb": med(cached, 1),
        "anchor_parse_every_verdict_s": med(anchor, 0), "anchor_peak_mb": med(anchor, 1),
        "report_vs_anchor": round(med(fresh, 0) / med(anchor, 0), 3),
        "report_each_s": [round(r[0], 3) for r in fresh],
        "load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "self_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }, indent=2))


if __name__ == "__main__":
    main()
