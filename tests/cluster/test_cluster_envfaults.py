"""Errors of the environment on a cluster's worker: a worker whose TMPDIR cannot hold a tool's
files, or that lost Frama-C from its PATH after it was admitted, while the driver's machine is fine. The run
stops as a local run does: the attempt the fault stopped is not recorded as an answer but kept apart in
env_faults with the cause (naming the worker), the error line gives the cause and the resume command, the
report counts it as an environment error, and a resume on a healthy worker redoes it; `verify` stops with
the cause."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cluster_support import REPO, add_worker, cluster_env, start_cluster, worker_address

pytestmark = pytest.mark.framac

# What is checked here is how a tool that cannot run stops the run, not the contracts' verdicts: the
# completeness check (one WP run per mutant, 8 mutants per instance) is off on the driver and the workers.
# The Frama-C jobs left (WP and the run-time check) still run for real on the workers; with completeness,
# the resume alone spent ~75 s of Frama-C on the two instances, without it ~3 s. Completeness on a cluster
# is `tests/cluster/test_cluster_parts.py`'s.
NO_COMPLETENESS = {"SEMBENCH_SPECS_COMPLETENESS": "0"}


def _sembench(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", "--db", str(db), *args], env=cluster_env(**NO_COMPLETENESS), cwd=REPO,
                          capture_output=True, text=True, timeout=900)


def _path_with_removable(tmp_path: Path, name: str) -> tuple[str, Path]:
    """A PATH of symlinks to every executable of the current one; the link to `name` can be removed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(":"):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            if not (bin_dir / entry.name).exists():
                (bin_dir / entry.name).symlink_to(entry.path)
    return str(bin_dir), bin_dir / name


@pytest.mark.parametrize("fault", ["tmpdir", "tool"])
def test_a_workers_environment_fault_stops_the_run_apart_and_a_resume_redoes_it(tmp_path: Path, fault: str) -> None:
    from cluster_support import client

    from core.cluster import remote

    worker_env: dict[str, str] = dict(NO_COMPLETENESS)
    if fault == "tmpdir":
        not_a_dir = tmp_path / "tmpdir-is-a-file"
        not_a_dir.write_text("")
        worker_env["TMPDIR"] = str(not_a_dir)  # the worker's tools cannot have private directories there
    else:
        worker_env["PATH"], link = _path_with_removable(tmp_path, "frama-c")
    cluster = start_cluster(["sick"], tmp_path, {"sick": worker_env})
    try:
        if fault == "tool":
            # Admitted with Frama-C (a worker probes its tools once), then Frama-C goes away under it.
            with client(cluster.address) as connected:
                assert all(p["tools"]["frama-c"] for p in connected.run(remote.probe).values())
            link.unlink()
        db = tmp_path / "log.db"
        # `verify` on that worker stops with the cause too (no verdict written for the answer)
        _sembench(db, "snapshot", "export", "formalbench-c", "--out", str(tmp_path / "all.jsonl"))
        first = (tmp_path / "all.jsonl").read_text().splitlines()[0]
        (tmp_path / "one.jsonl").write_text(first + "\n")
        contract = json.loads(first)["ground_truth"]["contract"]
        (tmp_path / "answers.jsonl").write_text(json.dumps({"id": json.loads(first)["id"],
                                                            "response": f"```c\n{contract}\n```"}) + "\n")
        verified = _sembench(db, "verify", "specs", "--instances", str(tmp_path / "one.jsonl"), "--answers",
                             str(tmp_path / "answers.jsonl"), "--out", str(tmp_path / "v.jsonl"), *cluster.flags)
        assert verified.returncode == 2 and "Traceback" not in verified.stderr, verified.stderr
        assert "on worker" in verified.stderr.strip().splitlines()[-1] and not (tmp_path / "v.jsonl").exists()
        stopped = _sembench(db, "run", "--snapshot", "formalbench-c", "--limit", "2", "--solver", "oracle",
                            "--concurrency", "1", *cluster.flags)
        assert stopped.returncode == 2 and "Traceback" not in stopped.stderr, stopped.stderr
        line = stopped.stderr.strip().splitlines()[-1]
        assert "error of the environment" in line and "on worker" in line, line
        cause = "(TMPDIR)" if fault == "tmpdir" else "'frama-c' is not installed"
        assert cause in line and f"--db {db} run --resume run-" in line, line
        run_id = line.split("--resume ")[1].split()[0]
        with sqlite3.connect(db) as conn:
            attempts = conn.execute("select count(*) from attempts where run_id = ?", [run_id]).fetchone()[0]
            faults = conn.execute("select instance_id, sample, cause from env_faults where run_id = ?",
                                  [run_id]).fetchall()
        # nothing charged to the answers; the attempt the fault stopped kept apart, with its cause
        assert attempts == 0 and len(faults) == 1 and faults[0][1] == 0 and cause in faults[0][2]
        # the cause names the worker by its address, as the cluster knows it
        assert f"on worker {worker_address(cluster.address, 'sick')}, host " in faults[0][2], faults[0][2]
        listed = _sembench(db, "runs", "--format", "json")
        assert [r["env_errors"] for r in json.loads(listed.stdout) if r["id"] == run_id] == [1], listed.stdout
        table = _sembench(db, "runs").stdout
        assert "env errors" in table and run_id in table, table
        counts = json.loads(_sembench(db, "report", run_id, "--format", "json").stdout)["counts"]
        assert counts["env_errors"] == 1 and cause in counts["env_cause"] and counts["errors"] == 0

        # A healthy worker in place of the sick one: the resume redoes the stopped attempt and the rest.
        cluster.kill(cluster.workers.pop("sick"))  # its connection closes: the scheduler drops it
        add_worker(cluster, "well", tmp_path, **NO_COMPLETENESS)
        resumed = _sembench(db, "run", "--resume", run_id, *cluster.flags)
        assert resumed.returncode == 0, resumed.stderr
        with sqlite3.connect(db) as conn:
            rows = conn.execute("select instance_id, correct, error from attempts where run_id = ?", [run_id]).fetchall()
        assert len(rows) == 2 and all(correct and error is None for _, correct, error in rows)
        assert faults[0][0] in {r[0] for r in rows}
        after = json.loads(_sembench(db, "report", run_id, "--format", "json").stdout)["counts"]
        assert after["env_errors"] == 0 and after["correct"] == 2
    finally:
        cluster.close()
