"""Which checks go to a cluster: only those that cost at least a task's round trip. A cheap family's
checks (cascade: ~0.1 ms) stay in-process, and no cluster is started or reached for them; tool-backed
families (specs, typeinf, imports) go; a family that declares nothing is measured on its first checks."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

from cluster_support import REPO, cluster_env

from core.cluster.routing import MEASURED, declared_cost, route
from core.family import get_family


def test_the_routing_decision_follows_the_declared_or_measured_cost() -> None:
    cascade, membership, specs, toy = (get_family(f) for f in ("cascade", "membership", "specs", "toysum"))
    assert declared_cost(cascade) == 0.0 and declared_cost(membership) == 0.0001
    assert declared_cost(specs) == math.inf and declared_cost(get_family("typeinf")) == math.inf
    assert declared_cost(toy) is None
    assert not route(cascade, 0.003).on_cluster and not route(membership, 0.003).on_cluster
    assert route(specs, 0.003).on_cluster and route(get_family("imports"), 0.5).on_cluster
    assert route(toy, 0.003, [0.2] * (MEASURED - 1)) is None  # still measuring
    assert route(toy, 0.003, [0.2] * MEASURED).on_cluster
    assert not route(toy, 0.003, [0.0001] * MEASURED).on_cluster
    assert not route(toy, 0.5, [0.2] * MEASURED).on_cluster  # a slow cluster: its round trip decides


def test_cheap_checks_never_start_a_cluster(tmp_path: Path) -> None:
    """`--workers 2` on cascade: one line says the checks stay here, no LocalCluster is started (its start
    alone took 3-18 s), the run is recorded as in-process, and no cluster progress is written for it."""
    db = tmp_path / "log.db"
    done = subprocess.run([sys.executable, "-m", "core", "--db", str(db), "run", "--snapshot", "pbebench-lite",
                           "--solver", "oracle", "--limit", "40", "--format", "json", "--workers", "2"],
                          env=cluster_env(), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["correct"] == 40
    assert "cascade: a check costs" in done.stderr and "checked in this process" in done.stderr, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from run_progress").fetchone()[0] == 0
    fam = get_family("cascade")
    instances = list(fam.generate(fam.resolve_params("pbebench-lite"), 1, 5))
    (tmp_path / "i.jsonl").write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in instances))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"id": i.id, "response": fam.oracle_response(i)}) + "\n"
                                              for i in instances))
    verified = subprocess.run([sys.executable, "-m", "core", "--db", str(db), "verify", "cascade", "--instances",
                               str(tmp_path / "i.jsonl"), "--answers", str(tmp_path / "a.jsonl"), "--format", "json",
                               "--workers", "2"], env=cluster_env(), cwd=REPO, capture_output=True, text=True,
                              timeout=300)
    assert verified.returncode == 0 and "checked in this process" in verified.stderr, verified.stderr
    assert json.loads(verified.stdout)["n"] == 5
