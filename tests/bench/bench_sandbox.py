"""The cost of confinement (bubblewrap, core.tools.sandbox): each tool run unconfined and confined,
alternately, side by side in one run, uncached. Prints one JSON object: per tool the median wall time of
each mode, their ratio, and the added milliseconds. Not a pass/fail test.

    .venv/bin/python tests/bench/bench_sandbox.py [--repeat 7]

Tools measured where installed: gcc's preprocessor, gcc compiling and running a small program (the
"program" level), Frama-C WP on a small contract, GHC type-checking a module, javac on one class.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.tools import Tool, run  # noqa: E402
from core.tools.sandbox import problem  # noqa: E402

C_PROGRAM = "#include <stdio.h>\nint f(int n) { return n + 1; }\nint main(void) { printf(\"%d\\n\", f(41)); return 0; }\n"
CONTRACT = ("/*@ requires 0 <= n <= 1000;\n    ensures \\result == n + 1;\n    assigns \\nothing; */\n"
            "int f(int n) { return n + 1; }\n")
HASKELL = "module M where\nf :: Int -> Int\nf x = x + 1\n"
JAVA = "public class A { public static void main(String[] a) { System.out.println(1); } }\n"


def cases() -> list[tuple[str, Tool, list[str], dict[str, str], dict[str, str], str]]:
    """(name, tool, args, files, env, confined level)."""
    out = []
    sh = Tool("sh-gcc", "sh", "gcc", version_args=("-c", "gcc -dumpfullversion"))
    if shutil.which("gcc"):
        out.append(("gcc -E", sh, ["-c", "gcc -E p.c -o p.i"], {"p.c": C_PROGRAM}, {}, "tool"))
        out.append(("gcc + run program", sh, ["-c", "gcc -O0 -o p p.c && ./p"], {"p.c": C_PROGRAM}, {}, "program"))
    if shutil.which("frama-c"):
        from core.families.specs.tools import FRAMAC, why3_config

        conf = why3_config()
        out.append(("frama-c wp", FRAMAC, ["-wp", "-wp-rte", "-wp-prover", "cvc4,z3", "-wp-print", "p.c"],
                    {"p.c": CONTRACT, "why3.conf": conf}, {"WHY3CONFIG": "why3.conf"}, "tool"))
    if shutil.which("ghc"):
        from core.families.typeinf.tools import GHC

        out.append(("ghc -fno-code", GHC, ["-fno-code", "M.hs"], {"M.hs": HASKELL}, {}, "tool"))
    if shutil.which("javac"):
        from core.families.imports.tools import JAVAC

        out.append(("javac", JAVAC, ["-d", ".", "A.java"], {"A.java": JAVA}, {}, "tool"))
    return out


def once(tool: Tool, args: list[str], files: dict[str, str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = run(tool, args, files, env=env, cache=False, memory_mb=None, timeout_s=300)
    elapsed = time.perf_counter() - start
    if not result.ok:
        raise SystemExit(f"{tool.name} failed ({tool.confine}): {result.stderr[-400:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    ns = parser.parse_args()
    why = problem(True) or problem(False)
    if why:
        print(json.dumps({"error": why}))
        return
    report: dict[str, object] = {"repeat": ns.repeat}
    for name, tool, args, files, env, level in cases():
        plain = dataclasses.replace(tool, confine=None)
        boxed = dataclasses.replace(tool, confine=level)
        once(plain, args, files, env)  # warm the page cache and the version probe
        times: dict[str, list[float]] = {"unconfined": [], "confined": []}
        for _ in range(ns.repeat):  # alternately, so load on the machine hits both alike
            times["unconfined"].append(once(plain, args, files, env))
            times["confined"].append(once(boxed, args, files, env))
        a, b = statistics.median(times["unconfined"]), statistics.median(times["confined"])
        report[name] = {"level": level, "unconfined_s": round(a, 4), "confined_s": round(b, 4),
                        "ratio": round(b / a, 3), "added_ms": round((b - a) * 1000, 1)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
