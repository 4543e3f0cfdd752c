"""The workbench reaches its first paint without importing numpy (sqlite_utils imported it
for nothing Sembench uses: tests/bench/bench_app_first_paint.py measures the start-up; this guards it
without timing), and numpy still imports normally afterwards in the same process; once the families'
summary is cached, naming the machine solvers (the browser's first worker) imports no family's solver
modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# The real app, headless, on the bundled-like snapshots of the test: it quits at its first frame.
CHILD = """
import json, sys
from tui.app import SembenchApp

class FirstPaint(SembenchApp):
    def on_ready(self) -> None:
        self.rows = self.screen.query_one("#instances").row_count
        self.exit()

app = FirstPaint(db=sys.argv[1], snapshots=sys.argv[2], fresh=True)
app.run(headless=True, size=(80, 24))
loaded = sorted(name for name in ("numpy", "pandas") if name in sys.modules)
import numpy  # still importable afterwards
import sqlite_utils
print(json.dumps({"rows": app.rows, "loaded": loaded, "numpy": numpy.__name__, "np_none": sqlite_utils.db.np is None}))
"""


def test_first_paint_imports_no_numpy(workbench, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(workbench.log), str(workbench.snapshots)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["rows"] > 0  # the browser showed a snapshot's instances: the databases were read
    assert result["loaded"] == []
    assert result["numpy"] == "numpy" and result["np_none"]


SOLVERS = """
import json, sys
from tui.data import machine_solvers
names = sorted(machine_solvers())
heavy = sorted({name.split(".")[0] for name in sys.modules} & {"tree_sitter", "tree_sitter_c", "tree_sitter_java"})
solver_modules = sorted(name for name in sys.modules if name.startswith("core.families.") and name.endswith(
    ("baseline", "solvers", "solver")))
print(json.dumps({"names": names, "heavy": heavy, "modules": solver_modules}))
"""


def test_machine_solvers_come_from_the_families_cache(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("SEMBENCH_FAMILIES", None)
    looks = []
    for _ in range(2):  # the first start computes the summary (and imports the solvers); the second reads it
        proc = subprocess.run([sys.executable, "-c", SOLVERS], capture_output=True, text=True, env=env,
                              timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        looks.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    first, second = looks
    assert second["names"] == first["names"] and {"baseline", "oracle"} <= set(second["names"])
    assert first["heavy"]  # computing it did import the grammars: the cache is what spares them
    assert second["heavy"] == [] and second["modules"] == []
