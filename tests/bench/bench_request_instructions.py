"""A model run's cost per request in instructions (valgrind), which other work on the machine does not
change; JSON.

    .venv/bin/python tests/bench/bench_request_instructions.py [--old /tmp/old-tree] [--samples 2]

bench_run_command.py reads each contestant's CPU per request from /proc (`phase_cpu_ms`), which a loaded
machine blurs by 10-20%. Here `python -m core run` (the same command, local 200 ms server and snapshot of
320 instances as there) runs whole under `valgrind --tool=callgrind`, once with one sample per instance
and once with `--samples`: the difference of the two counts, divided by the extra requests, is what one
more request costs in user-space instructions (the start-up and the way out cancel out; the kernel's
share, the loopback TCP, is not counted). Under valgrind a command runs ~50x slower, so the config file
gives it minutes for connecting and reading (with the defaults, connections time out, and a failed
request imports aiohttp: the counts would measure that). Each contestant runs from its own tree's
directory with that tree on PYTHONPATH (see bench_run_command.py), warmed once (bytecode) before it is
counted; every count checks that all attempts were answered correctly. Needs valgrind (Debian's
package). Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runs"), str(REPO / "tests" / "bench")]

CONFIG = "[openai]\nmax_retries = 0\ntimeout_s = 3000\nrequest_deadline_s = 3000\nconnect_timeout_s = 3000\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, default=None, help="another tree to count side by side (PYTHONPATH)")
    parser.add_argument("--samples", type=int, default=2, help="samples of the longer run (the shorter has 1)")
    parser.add_argument("--instances", type=int, default=320)
    parser.add_argument("--server", choices=("lean", "fake"), default="lean")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    if args.samples < 2:
        raise SystemExit("--samples must be at least 2")

    from bench_run_command import bench_endpoint

    tmp = Path(tempfile.mkdtemp(prefix="sembench-bench-request-"))
    server, env, family = bench_endpoint(tmp, args.instances, CONFIG, args.server)
    trees = {"new": REPO, **({"old": args.old.resolve()} if args.old else {})}

    def count(tree: Path, samples: int, valgrind: bool = True) -> float:
        db = tmp / "run.db"
        shutil.copy(tmp / "base.db", db)
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        argv = [sys.executable, "-m", "core", "--db", str(db), "run", "--snapshot", "bench", "--solver",
                "openai:bench", "--samples", str(samples), "--concurrency", "256", "--format", "json"]
        pre = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] if valgrind else []
        proc = subprocess.run(pre + argv, env={**env, "PYTHONPATH": str(tree)}, capture_output=True, text=True,
                              cwd=tree)
        summary = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else {}
        if summary.get("correct") != samples * args.instances:
            raise RuntimeError(f"{tree}: not every attempt answered correctly: {proc.stdout[-300:]} "
                               f"{proc.stderr[-1500:]}")
        if not valgrind:
            return 0.0
        found = re.search(r"Collected : (\d+)", proc.stderr)
        if found is None:
            raise RuntimeError(f"valgrind counted nothing: {proc.stderr[-1500:]}")
        return int(found.group(1)) / 1e6

    result: dict[str, object] = {"family": family, "server": args.server,
                                 "unit": "thousands of user-space instructions per request"}
    try:
        for name, tree in trees.items():
            count(tree, 1, valgrind=False)  # the tree's bytecode
            one, more = count(tree, 1), count(tree, args.samples)
            per_request = (more - one) * 1000 / (args.instances * (args.samples - 1))
            result[name] = round(per_request, 1)
            result[f"{name}_runs_M"] = [round(one, 1), round(more, 1)]
            print(json.dumps({name: result[name]}), file=sys.stderr)
    finally:
        server.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if "old" in trees:
        result["new_vs_old"] = round(result["new"] / result["old"], 3)  # type: ignore[operator]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
