"""CLI start-up: `sembench families` and `sembench --help` against a bare interpreter; prints JSON.

    .venv/bin/python tests/bench/bench_startup.py [--repeat 15]

Each sample is a fresh process, as a user starts it (the console script in .venv/bin), with output to
/dev/null. The three commands are interleaved round by round so that a noisy neighbour hits all of
them alike; the minimum (the least disturbed run) and the median are reported, and the ratios to
`python -c pass` (the target: within 4x), of wall time and of CPU time (user + system, steadier when
the machine is loaded). `import_ms` is the same run's `-X importtime` total for
`sembench --help`, with the heaviest top-level imports. `sembench families` reads its presets from a
cache (core.family_summary) that the warm-up run fills, as any earlier run does. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run. CPU time is the steadier of the two on a
    loaded machine (waiting for a core is not counted)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_profile(env: dict[str, str]) -> dict[str, object]:
    code = "import sys; sys.argv = ['sembench', '--help']; from tui.entry import main; main()"
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         env=env).stderr
    rows = []
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4)))
    top = sorted((r for r in rows if r[2] <= 3), key=lambda r: -r[1])[:8]
    return {"import_ms": round(sum(r[0] for r in rows) / 1000, 1),
            "heaviest": {name: round(cum / 1000, 1) for _s, cum, _d, name in top}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="sembench-startup-")
    env = {**os.environ, "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home}
    # As a user runs it: .pyc files written (and then used). Without this a shell that sets
    # PYTHONDONTWRITEBYTECODE compiles every project module on every sample.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    commands = {
        "python": [sys.executable, "-c", "pass"],
        "help": [str(BIN / "sembench"), "--help"],
        "families": [str(BIN / "sembench"), "families"],
    }
    for argv in commands.values():  # warm the file cache and .pyc files
        timed(argv, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, argv in commands.items():
            samples[name].append(timed(argv, env))
    out: dict[str, object] = {"repeat": args.repeat}

    def stats(name: str, i: int) -> tuple[float, float]:
        values = [sample[i] for sample in samples[name]]
        return min(values), statistics.median(values)

    for name in samples:
        (wall_min, wall_med), (cpu_min, cpu_med) = stats(name, 0), stats(name, 1)
        (base_min, base_med), (base_cpu_min, base_cpu_med) = stats("python", 0), stats("python", 1)
        out[name] = {"min_s": round(wall_min, 4), "median_s": round(wall_med, 4),
                     "ratio_min": round(wall_min / base_min, 2), "ratio_median": round(wall_med / base_med, 2),
                     "cpu_min_s": round(cpu_min, 4), "cpu_ratio_min": round(cpu_min / base_cpu_min, 2),
                     "cpu_ratio_median": round(cpu_med / base_cpu_med, 2)}
    out.update(import_profile(env))
    out["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
