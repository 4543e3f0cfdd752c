"""Cluster progress where people look: `sembench run --workers 2` (a real LocalCluster on 127.0.0.1) adds
the cluster's counts to its progress lines, and the workbench's Runs screen, another process reading the
log database, shows the live run's tasks queued / running / done and workers alive."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_support import REPO, cluster_env

from core.family import get_family
from core.instance import Snapshot
from core.store import LogStore
from tests.kit.pilot import render_text

SLOW_S = 0.4


def _toy(db: Path, count: int) -> list:
    fam = get_family("toysum")
    made = list(fam.generate(fam.resolve_params("toy-small"), 13, count))
    instances = [m.model_copy(update={"id": "", "meta": {**m.meta, "slow_verify_s": SLOW_S}}).with_content_id()
                 for m in made]
    store = LogStore(db)
    store.write_snapshot(Snapshot(name="toy", family="toysum", preset="toy-small", seed=13, count=len(instances)),
                         instances, features=fam.feature_values)
    store.close()
    return instances


async def test_the_cli_and_the_runs_screen_show_a_live_cluster_runs_progress(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.app import SembenchApp

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    db = tmp_path / "log.db"
    instances = _toy(db, 40)
    run = subprocess.Popen([sys.executable, "-m", "core", "--db", str(db), "run", "--snapshot", "toy", "--solver",
                            "oracle", "--concurrency", "2", "--format", "json", "--workers", "2"],
                           env=cluster_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    try:
        app = SembenchApp(db=db, snapshots=REPO / "snapshots.db", fresh=True)
        async with app.run_test(size=(180, 50)) as pilot:
            await pilot.press("r")
            deadline = time.monotonic() + 240
            while "2 workers alive" not in seen or "running" not in seen:
                assert run.poll() is None, run.communicate()
                assert time.monotonic() < deadline, seen
                await pilot.pause(0.3)
                seen = next((line for line in render_text(app).splitlines() if "cluster: tasks" in line), "")
    finally:
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert json.loads(out)["done"] == len(instances)
    # "cluster: tasks Q queued, R running, D done; N answers checked; 2 workers alive"
    figures = seen.split("cluster: tasks ")[1]
    assert "queued" in figures and "done" in figures and "answers checked" in figures
    # stderr is not a terminal: periodic progress lines, with the cluster's counts
    lines = [line for line in err.splitlines() if "cluster: tasks" in line]
    assert lines and lines[-1].endswith("2 workers"), err
    store = LogStore(db)  # the progress row's last write: every task done
    row = store.db.execute("select progress from run_progress").fetchone()
    store.close()
    final = json.loads(row[0])
    # the family declares no check cost: its first checks are timed here (core.cluster.routing), and the
    # slow ones (0.4 s) then all go to the cluster
    assert "checked on the cluster" in err, err
    from core.cluster.routing import MEASURED

    assert len(instances) - MEASURED - 2 <= final["answers"] < len(instances)
    assert final["queued"] == final["running"] == 0
