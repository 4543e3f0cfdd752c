"""Local solvers' runs in chunks (core/runner/local.py): the same attempts and verdicts as the per-attempt
path, written in large transactions, and what was reported done survives a kill -9."""

from __future__ import annotations

import importlib
import os
import re
import signal
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from runs_support import cli_command, write_snapshot

from core.family import get_family
from core.runner import RunConfig, run_sync
from core.store import Workspace
from core.store.writer import AttemptWriter

# what must be equal between the two paths: everything but the clock (started, elapsed_s)
COLUMNS = ("instance_id", "sample", "family", "solver", "source", "snapshot", "prompt", "response", "reasoning",
           "answer", "verdict", "correct", "score", "status", "error", "error_kind", "cached", "usage")


def _recorded(db: Path, run_id: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return sorted(conn.execute(f"select {', '.join(COLUMNS)} from attempts where run_id = ?", [run_id]))


def _both_paths(db: Path, monkeypatch: pytest.MonkeyPatch, solver: str, samples: int) -> tuple[list, list]:
    ws = Workspace(db)
    monkeypatch.setenv("SEMBENCH_LOCAL_CHUNKS", "0")
    old = run_sync(ws, RunConfig(snapshot="s", solver=solver, samples=samples))
    monkeypatch.setenv("SEMBENCH_LOCAL_CHUNKS", "1")
    new = run_sync(ws, RunConfig(snapshot="s", solver=solver, samples=samples))
    assert old.status == new.status == "finished"
    assert (old.stats.done, old.stats.correct, old.stats.errors) == (new.stats.done, new.stats.correct,
                                                                     new.stats.errors)
    return _recorded(db, old.run_id), _recorded(db, new.run_id)


@pytest.mark.parametrize("solver", ["baseline", "random", "oracle"])
def test_membership_chunks_record_what_the_per_attempt_path_records(log_db, monkeypatch, solver: str) -> None:
    membership = get_family("membership")
    write_snapshot(log_db, membership, "s", 40)
    old, new = _both_paths(log_db, monkeypatch, solver, 3)
    assert len(new) == 120 and new == old
    if solver == "baseline":
        assert {r[COLUMNS.index("correct")] for r in new} == {1}


def test_worker_processes_record_the_same(log_db, monkeypatch) -> None:
    """SEMBENCH_LOCAL_PROCESSES forces the pool a long run of heavy pairs would get."""
    cascade = get_family("cascade")
    # 6 instances x 2 samples: a first chunk of 4 pairs, then (the baseline's ~0.3 s a pair against CHUNK_S)
    # chunks of one pair each for the two processes; 12 instances proved no more, at twice the solving
    write_snapshot(log_db, cascade, "s", 6)
    monkeypatch.setenv("SEMBENCH_LOCAL_PROCESSES", "2")
    old, new = _both_paths(log_db, monkeypatch, "baseline", 2)
    assert len(new) == 12 and new == old


def test_solver_and_verifier_failures_are_recorded_alike(toy, log_db, monkeypatch) -> None:
    instances = write_snapshot(log_db, toy, "s", 12)
    broken_solve, broken_check = instances[2].id, instances[5].id
    oracle, verify = toy.oracle_response, toy.verify

    def flaky_oracle(instance):
        if instance.id == broken_solve:
            raise RuntimeError("no   answer\there")
        return oracle(instance)

    def flaky_verify(instance, answer):
        if instance.id == broken_check:
            raise ValueError("verifier   bug")
        return verify(instance, answer)

    monkeypatch.setattr(toy, "oracle_response", flaky_oracle)
    monkeypatch.setattr(toy, "verify", flaky_verify)
    old, new = _both_paths(log_db, monkeypatch, "oracle", 2)
    assert new == old and len(new) == 24
    kinds = Counter(r[COLUMNS.index("error_kind")] for r in new)
    assert kinds == {None: 20, "solver": 2, "internal": 2}


def test_a_local_run_commits_many_attempts_per_transaction(log_db, monkeypatch) -> None:
    """The per-attempt path has at most two unacknowledged attempts per worker, so no transaction of
    its holds more than 2 x concurrency rows; chunks hand the writer far more at once."""
    write_snapshot(log_db, get_family("membership"), "s", 100)
    sizes: list[int] = []

    class Counting(AttemptWriter):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, on_commit=sizes.append, **kwargs)

    # the module, not the function core.runner re-exports under the same name
    monkeypatch.setattr(importlib.import_module("core.runner.execute"), "AttemptWriter", Counting)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline", samples=8, concurrency=4))
    assert outcome.stats.done == sum(sizes) == 800
    assert max(sizes) > 2 * 4 and len(sizes) < 800 / 8


@pytest.mark.parametrize("processes", ["0", "2"])
def test_what_a_killed_local_run_reported_is_recorded_and_resume_completes_it(log_db, processes: str) -> None:
    """With worker processes too: they leave once their parent is gone (else they would hold its
    stderr open, and live on)."""
    instances = write_snapshot(log_db, get_family("membership"), "s", 200)
    samples = 30
    env = {**os.environ, "SEMBENCH_DB": str(log_db), "SEMBENCH_LOCAL_PROCESSES": processes}
    proc = subprocess.Popen(cli_command("run", "--snapshot", "s", "--solver", "baseline", "--samples",
                                        str(samples)), env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True)
    reported = 0
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # plain progress lines: "baseline on s: 1800/6000 ..."
            match = re.search(r": (\d+)/6000 ", line)
            if match and int(match.group(1)) >= 600:
                reported = int(match.group(1))
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)  # EOF on stderr: no worker process outlived the run
    assert reported, "the run printed its progress"
    with sqlite3.connect(log_db) as conn:
        (run_id,) = conn.execute("select id from runs").fetchone()
        recorded = conn.execute("select count(*) from attempts").fetchone()[0]
    assert reported <= recorded < samples * len(instances), "everything reported done is committed"

    resumed = subprocess.run(cli_command("run", "--resume", run_id), env={**env, "SEMBENCH_LOCAL_PROCESSES": ""}, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(log_db) as conn:
        pairs = Counter(conn.execute("select instance_id, sample from attempts"))
        correct = conn.execute("select count(*) from attempts where correct = 1").fetchone()[0]
    assert len(pairs) == samples * len(instances) and set(pairs.values()) == {1} and correct == len(pairs)
