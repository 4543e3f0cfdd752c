"""Issue 21 item 19: the workbench reaches its first paint without importing numpy (sqlite_utils imported it
for nothing Sembench uses: tests/bench/bench_app_first_paint.py measures the start-up; this guards it
without timing), and numpy still imports normally afterwards in the same process."""

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
