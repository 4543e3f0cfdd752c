"""Per-snippet compile check: the long-lived compile service vs starting `javac` per snippet, side by side
in one run; prints one JSON object.

    .venv/bin/python tests/bench/bench_imports_compile.py [--snippets N] [--javac-snippets M]

The same generated snippets (thalia-like, with their imports) are compiled (1) one request per snippet
to the warm service (javax.tools, in-memory sources, one shared file manager; results not cached),
(2) all in one batch request (`together`), and (3) one `javac` process per snippet (private directory,
the same classpath, `-proc:none`). Reports seconds per snippet for each and the ratio javac / service.
The service is warmed up on other snippets first (the JVM start and JIT are paid once per session, and
that one-time cost is reported as well).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.families.imports import compiler  # noqa: E402
from core.families.imports.paths import classpath  # noqa: E402
from core.families.imports.snippet import with_imports  # noqa: E402
from core.families.imports.tools import JAVAC  # noqa: E402
from core.family import get_family  # noqa: E402
from core.tools import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snippets", type=int, default=60)
    parser.add_argument("--javac-snippets", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=40)
    args = parser.parse_args()
    family = get_family("imports")
    params = family.resolve_params("thalia-like")
    total = args.warmup + args.snippets
    instances = list(family.generate(params, 0, total))
    sources = [with_imports(i.code, i.expected()) for i in instances]
    warm, measured = sources[:args.warmup], sources[args.warmup:]

    start = time.perf_counter()
    compiler.ping()
    first_start = time.perf_counter() - start
    for source in warm:
        compiler.compile_sources([source], cache=False)
    warmup_s = time.perf_counter() - start

    per_request = []
    for source in measured:
        t = time.perf_counter()
        result = compiler.compile_sources([source], cache=False)[0]
        per_request.append(time.perf_counter() - t)
        assert result.ok, result.summary()

    t = time.perf_counter()
    batch = compiler.compile_sources(measured, together=True, cache=False)
    batch_s = (time.perf_counter() - t) / len(measured)
    assert all(r.ok for r in batch)

    cp = classpath()
    per_javac = []
    for source in measured[:args.javac_snippets]:
        t = time.perf_counter()
        result = run(JAVAC, ["-proc:none", "-nowarn", "-cp", cp, "-d", "out", "Main.java"], files={"Main.java": source},
                     cache=False, timeout_s=120, memory_mb=None)
        per_javac.append(time.perf_counter() - t)
        assert result.ok, result.stderr[:300]

    service_s = statistics.mean(per_request)
    javac_s = statistics.mean(per_javac)
    print(json.dumps({
        "snippets_service": len(per_request),
        "snippets_javac": len(per_javac),
        "service_first_start_s": round(first_start, 3),
        "service_warmup_s": round(warmup_s, 3),
        "service_per_snippet_s": round(service_s, 4),
        "service_per_snippet_median_s": round(statistics.median(per_request), 4),
        "service_batch_per_snippet_s": round(batch_s, 4),
        "javac_per_snippet_s": round(javac_s, 4),
        "speedup_service_vs_javac": round(javac_s / service_s, 1),
        "speedup_batch_vs_javac": round(javac_s / batch_s, 1),
        "target_speedup": 20,
    }, indent=2))
    compiler.shutdown()


if __name__ == "__main__":
    main()
