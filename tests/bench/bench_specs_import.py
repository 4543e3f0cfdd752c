"""specs folder import: Frama-C parse checks one after another (as the import did before it batched them) against the tools'
pool (`import_files` now), side by side in one run, on N distinct copies of a fixture (distinct, so no
check is answered from the tool cache). Prints JSON.

    PYTHONPATH=. .venv/bin/python tests/bench/bench_specs_import.py [N]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "families" / "specs" / "fixtures" / "binary_search.c"


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SEMBENCH_DB"] = str(Path(tmp) / "cache.db")  # a fresh tool cache
        from core.families.specs.importer import import_file, import_files
        from core.families.specs.verify import workers
        from core.folders import read_folder

        text = FIXTURE.read_text()
        timings = {}
        for mode in ("sequential", "pool"):
            folder = Path(tmp) / mode
            folder.mkdir()
            for i in range(n):
                (folder / f"p{i:04}.c").write_text(f"{text}\n// {mode} copy {i}\n")
            start = time.perf_counter()
            if mode == "sequential":
                out = [import_file(f.path, True, folder, f.data) for f in read_folder(folder, lambda r: True)]
            else:
                out = import_files(folder)
            timings[mode] = time.perf_counter() - start
            assert len(out) == n and all(i.meta["annotations_parse"] for i in out)
        print(json.dumps({"files": n, "workers": workers(), "cpus": os.cpu_count(),
                          "sequential_s": round(timings["sequential"], 2), "pool_s": round(timings["pool"], 2),
                          "speedup": round(timings["sequential"] / timings["pool"], 2)}))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 16)
