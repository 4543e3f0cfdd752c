"""What `bash .ci/app` spends in set-up checks on a second launch, side by side with
what the stamps skip (`sembench kb build` confirming the knowledge base, a `dpkg -s` per package).

Run from the repository root after one `bash .ci/setup`: `python tests/bench/bench_app_setup.py`.
Prints JSON: median seconds of each over ROUNDS runs, interleaved, and their ratio."""

from __future__ import annotations

import json
import shlex
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 5
PACKAGES = ("tmux ghc openjdk-17-jdk-headless libjoda-time-java libxstream-java libhibernate3-java frama-c-base "
            "why3 z3 cvc4 cvc5 gcc libgmp-dev")


def seconds(command: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["bash", "-c", command], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - t0


def main() -> None:
    cases = {
        "setup_second_launch": "bash .ci/setup",
        "kb_build_noop": ".venv/bin/sembench kb build",
        "dpkg_s_each": f"for p in {PACKAGES}; do dpkg -s $p; done",
        "dpkg_query_once": f"dpkg-query -W {shlex.quote('-f=${db:Status-Abbrev}${Package} ')} {PACKAGES}",
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(ROUNDS):
        for name, command in cases.items():
            times[name].append(seconds(command))
    median = {name: round(statistics.median(values), 3) for name, values in times.items()}
    print(json.dumps({"rounds": ROUNDS, "median_s": median,
                      "setup_vs_kb_build": round(median["setup_second_launch"] / median["kb_build_noop"], 3),
                      "dpkg_query_vs_dpkg_s": round(median["dpkg_query_once"] / median["dpkg_s_each"], 3)}))


if __name__ == "__main__":
    main()
