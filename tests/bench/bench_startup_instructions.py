"""A model run's start-up in instructions (valgrind), which other work on the machine does not change; JSON.

    .venv/bin/python tests/bench/bench_startup_instructions.py [--old /tmp/old-tree] [--repeat 1]

bench_run_command.py times the whole command; its start-up figures move with the machine's load (a busy
2-core VM doubles them). Here `python -m core run` (the same command and local 200 ms server as there) runs
under `valgrind --tool=callgrind` and exits when it posts its first request: the instructions from spawn
to that moment are the start-up's cost, the same on a quiet or a loaded machine (PYTHONHASHSEED fixed).
A small wrapper (written to a temporary folder) starts the command with runpy and ends the process in the
HTTP client's `post`: nothing in the tree is changed for the measurement. Each contestant runs in its own
tree's directory with that tree on PYTHONPATH (see bench_run_command.py on why), warmed once (bytecode)
before it is counted. Needs valgrind (Debian's package); a plain `python -c pass` and `import asyncio` are
reported beside it as the floor any Python client pays. Not a pass/fail test.
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

WRAPPER = """
import os, runpy, sys
import core.models.plainhttp as plainhttp
def post(self, *args, **kwargs):
    os._exit(0)  # the first request: the start-up is over
plainhttp.PlainPool.post = post
sys.argv = ["core", *sys.argv[1:]]
runpy.run_module("core", run_name="__main__", alter_sys=True)
"""


def instructions(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Millions of instructions callgrind counted for the command."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          env=env, capture_output=True, text=True, cwd=cwd)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise RuntimeError(f"valgrind counted nothing: {proc.stderr[-1500:]}")
    return int(found.group(1)) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, default=None, help="another tree to count side by side (PYTHONPATH)")
    parser.add_argument("--repeat", type=int, default=1, help="counts barely vary; 1 is usually enough")
    parser.add_argument("--instances", type=int, default=320)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")

    from bench_run_command import bench_endpoint

    tmp = Path(tempfile.mkdtemp(prefix="sembench-bench-startup-"))
    server, env, family = bench_endpoint(tmp, args.instances, "[openai]\nmax_retries = 0\n", "fake")
    (tmp / "wrapper.py").write_text(WRAPPER)
    trees = {"new": REPO, **({"old": args.old.resolve()} if args.old else {})}
    counts: dict[str, list[float]] = {"python_pass": [], "import_asyncio": [], **{name: [] for name in trees}}
    try:
        for _ in range(args.repeat):
            for code, name in (("pass", "python_pass"), ("import asyncio", "import_asyncio")):
                counts[name].append(instructions([sys.executable, "-c", code], env, tmp))
            for name, tree in trees.items():
                db = tmp / "run.db"
                argv = [sys.executable, str(tmp / "wrapper.py"), "--db", str(db), "run", "--snapshot", "bench",
                        "--solver", "openai:bench", "--samples", "1", "--concurrency", "256", "--format", "json"]
                tree_env = {**env, "PYTHONPATH": str(tree)}
                for counted in (False, True):  # the first run writes the tree's bytecode
                    shutil.copy(tmp / "base.db", db)
                    for suffix in ("-wal", "-shm"):
                        Path(f"{db}{suffix}").unlink(missing_ok=True)
                    if counted:
                        counts[name].append(instructions(argv, tree_env, tree))
                    else:
                        subprocess.run(argv, env=tree_env, capture_output=True, cwd=tree)
                print(json.dumps({k: v[-1] for k, v in counts.items() if v}), file=sys.stderr)
    finally:
        server.close()
        shutil.rmtree(tmp, ignore_errors=True)
    result: dict[str, object] = {"family": family, "unit": "millions of instructions, spawn to first request",
                                 **{k: round(min(v), 1) for k, v in counts.items()}}
    if "old" in trees:
        result["new_vs_old"] = round(min(counts["new"]) / min(counts["old"]), 3)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
