"""A model run's fixed costs: what `sembench run` pays besides its requests, checked without
timing (tests/bench/bench_run_command.py measures the whole command side by side with a plain client).

- start-up: opening the log database imports neither numpy nor pandas (sqlite_utils would, for types
  no store hands it) and scans no installed package for sqlite-utils plugins; opening one that exists
  does not import sqlite_utils at all (it only creates a new file's snapshot tables);
- the way out: the console entry freezes the garbage collector's objects before the interpreter's
  finalization (which would otherwise collect every object of the process again), and the command
  closes its workspace itself, so the log is one self-contained file afterwards (no -wal left).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from runs_support import REPO, cli_command, write_snapshot

from core.family import Family

PROBE = """
import json, sys
from core.store import Workspace
ws = Workspace(sys.argv[1], snapshots_path=sys.argv[2])
ws.log.snapshots()
import sqlite_utils.plugins
print(json.dumps({"numpy": "numpy" in sys.modules, "pandas": "pandas" in sys.modules,
                  "plugins_scanned": sqlite_utils.plugins._plugins_loaded}))
"""


def test_opening_a_log_imports_no_numpy_and_scans_no_plugins(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "log.db"), str(tmp_path / "absent.db")],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out) == {"numpy": False, "pandas": False, "plugins_scanned": False}


REOPEN_PROBE = """
import json, sys
from core.store import Workspace
ws = Workspace(sys.argv[1], snapshots_path=sys.argv[2])
names = [s.name for s in ws.log.snapshots()]
print(json.dumps({"snapshots": names, "sqlite_utils": "sqlite_utils" in sys.modules}))
"""


def test_reopening_a_log_does_not_import_sqlite_utils(tmp_path: Path, toy: Family) -> None:
    db = tmp_path / "log.db"
    write_snapshot(db, toy, "snap", 3)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", REOPEN_PROBE, str(db), str(tmp_path / "absent.db")],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out) == {"snapshots": ["snap"], "sqlite_utils": False}
    fresh = subprocess.run([sys.executable, "-c", REOPEN_PROBE, str(tmp_path / "new.db"),
                            str(tmp_path / "absent.db")], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(fresh) == {"snapshots": [], "sqlite_utils": True}  # a new file's tables: sqlite-utils


def test_a_process_that_already_has_numpy_keeps_it(tmp_path: Path) -> None:
    """The import guard only hides what is not loaded yet; it never takes a module away."""
    code = ("import sys\ntry:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
            "import core.store\nprint(sys.modules.get('numpy') is numpy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    assert out.strip() == "True"


# Runs the console entry as `sembench` does, and reports at exit (after main's SystemExit) whether the
# collector's objects were frozen for the interpreter's finalization.
EXIT_PROBE = """
import atexit, gc, sys
sys.path[:0] = [{repo!r}, {runs!r}]
atexit.register(lambda: print("FROZEN", gc.get_freeze_count() > 0, flush=True))
import runs_support
from core.family import _REGISTRY
_REGISTRY["toy"] = runs_support.ToyFamily()
from tui.entry import main
main(sys.argv[1:])
"""


# Reports, when the run starts its attempts, whether the heap it started with was frozen (the console
# entry's run) or not (the same command invoked in-process, as tests and host programs do).
FREEZE_PROBE = """
import gc, sys
sys.path[:0] = [{repo!r}, {runs!r}]
import runs_support
from core.family import _REGISTRY
_REGISTRY["toy"] = runs_support.ToyFamily()
import core.runner
execute_module = sys.modules["core.runner.execute"]  # core.runner's `execute` is the function
_execute = execute_module.execute
async def execute(*args, **kwargs):
    print("FROZEN-AT-START", gc.get_freeze_count() > 0, flush=True)
    return await _execute(*args, **kwargs)
execute_module.execute = execute
if sys.argv[1] == "console":
    from tui.entry import main
    main(sys.argv[2:])
else:
    from core.cli import cli
    cli.main(args=sys.argv[2:], prog_name="sembench", standalone_mode=False)
"""


def test_only_the_console_entrys_run_freezes_the_heap_it_starts_with(tmp_path: Path, toy: Family) -> None:
    code = FREEZE_PROBE.format(repo=str(REPO), runs=str(Path(__file__).parent))
    for how, frozen in (("console", True), ("in-process", False)):
        db = tmp_path / f"{how}.db"
        write_snapshot(db, toy, "snap", 3)
        proc = subprocess.run([sys.executable, "-c", code, how, "--db", str(db), "run", "--snapshot", "snap",
                               "--solver", "oracle", "--format", "json"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert f"FROZEN-AT-START {frozen}" in proc.stdout.splitlines()


def test_the_command_exits_frozen_with_its_log_closed(tmp_path: Path, toy: Family) -> None:
    db = tmp_path / "log.db"
    write_snapshot(db, toy, "snap", 6)
    code = EXIT_PROBE.format(repo=str(REPO), runs=str(Path(__file__).parent))
    proc = subprocess.run([sys.executable, "-c", code, "--db", str(db), "run", "--snapshot", "snap", "--solver",
                           "oracle", "--samples", "2", "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    summary, frozen = proc.stdout.strip().splitlines()[-2:]
    assert json.loads(summary)["done"] == 12
    assert frozen == "FROZEN True"
    # closed by the command, not by the collector: the WAL was checkpointed into the file
    assert not Path(f"{db}-wal").exists()
    again = subprocess.run(cli_command("--db", str(db), "runs", "--format", "json", toy=True),
                           capture_output=True, text=True, check=True)
    assert json.loads(again.stdout)[0]["done"] == 12


PLUGINS_PROBE = """
import atexit, sys
sys.path[:0] = [{repo!r}, {runs!r}]
def report():
    loader = sys.modules.get("pydantic.plugin._loader")
    print("SCANNED", getattr(loader, "_plugins", None) is not None, flush=True)
    print("METADATA", "importlib.metadata" in sys.modules, flush=True)
atexit.register(report)
from tui.entry import main
main(sys.argv[1:])
"""


def test_the_command_does_not_search_for_pydantic_plugins_unless_asked(tmp_path: Path, toy: Family) -> None:
    """pydantic's first model would scan every installed distribution's entry points for plugins (a run's
    start-up, docs/performance.md); the console entry turns that off, unless the user set
    PYDANTIC_DISABLE_PLUGINS themselves (empty: search)."""
    db = tmp_path / "log.db"
    write_snapshot(db, toy, "snap", 2)
    code = PLUGINS_PROBE.format(repo=str(REPO), runs=str(Path(__file__).parent))
    base = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    for env, scanned in ((base, "False"), ({**base, "PYDANTIC_DISABLE_PLUGINS": ""}, "True")):
        proc = subprocess.run([sys.executable, "-c", code, "--db", str(db), "snapshot", "list", "--format", "json"], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        # turned off, pydantic's loader is not even imported (nor importlib.metadata, its import)
        assert proc.stdout.strip().splitlines()[-2:] == [f"SCANNED {scanned}", f"METADATA {scanned}"]


def test_a_run_returns_with_its_attempts_in_the_database_file_itself(tmp_path: Path, toy: Family) -> None:
    """The way out: the WAL is checkpointed by the run (in a thread, while the solver's connections
    close), so closing the log afterwards has nothing left to copy. The database file alone, without
    its -wal, already holds every attempt and the final status while the workspace is still open."""
    import shutil

    from core.runner import RunConfig, run_sync
    from core.store import LogStore, Workspace

    db = tmp_path / "log.db"
    write_snapshot(db, toy, "snap", 5)
    ws = Workspace(db, snapshots_path=tmp_path / "absent.db")
    outcome = run_sync(ws, RunConfig(snapshot="snap", solver="oracle", samples=3))
    assert outcome.status == "finished" and outcome.stats.done == 15
    assert Path(f"{db}-wal").exists(), "the log is still open: its WAL is there"
    shutil.copy(db, tmp_path / "alone.db")  # the file alone, as a crash right now would leave it
    alone = LogStore(tmp_path / "alone.db")
    assert len(alone.attempts(run_id=outcome.run_id)) == 15
    assert alone.get_run(outcome.run_id)["status"] == "finished"
    alone.close()
    ws.close()
