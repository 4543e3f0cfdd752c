"""Verification on a real Dask cluster (scheduler and workers started with the `dask` commands on
127.0.0.1): the driver without Frama-C verifies specs on workers that have it; a run survives a worker
killed mid-run (every verdict recorded once, equal to the in-process one) and names the answer that
kills every worker checking it; losing the scheduler stops the run with one line and the resume command."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_support import REPO, client, cluster_env, start_cluster, wait_for_workers, worker_busy

from core.family import get_family
from core.instance import Snapshot
from core.store import LogStore

SLOW_S = 0.5


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    made = start_cluster(["w1", "w2"], tmp_path_factory.mktemp("dask"))
    yield made
    made.close()


def _sembench(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "core", "--db", str(db), *args]


@pytest.mark.framac
def test_specs_verified_on_the_cluster_by_a_driver_without_frama_c(cluster, tmp_path: Path) -> None:
    from core.families.specs.extract import extract
    from core.families.specs.generator import generate_one
    from core.families.specs.verify import verify
    from core.tools import configure

    configure(None)  # the in-process verdicts below: a cache of this process's own, in memory

    def fenced(text: str) -> str:
        return f"Here is the annotated program.\n```c\n{text.rstrip()}\n```\n"

    good, other = (generate_one({"variants": "base", "programs": p}, 0, 0) for p in ("max_of_two", "abs_value"))
    wrong = good.reference().replace("if (a >= b)", "if (a > b)")
    pairs = [(good, fenced(good.reference())), (other, fenced(other.reference())), (good, fenced(wrong))]
    (tmp_path / "i.jsonl").write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in (good, other)))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"id": i.id, "response": r}) + "\n" for i, r in pairs))
    empty = tmp_path / "bin"
    empty.mkdir()
    env = cluster_env(PATH=str(empty))  # no frama-c, no why3, no shell tools at all on the driver
    db = tmp_path / "log.db"
    done = subprocess.run(_sembench(db, "verify", "specs", "--instances", str(tmp_path / "i.jsonl"), "--answers",
                                    str(tmp_path / "a.jsonl"), "--out", str(tmp_path / "v.jsonl"), "--format",
                                    "json", *cluster.flags),
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    expected = [verify(inst, extract(response, inst)) for inst, response in pairs]  # in-process, here
    assert [(g["status"], g["correct"], g["score"]) for g in got] == \
        [(v.status, v.correct, v.score) for v in expected]
    assert [g["correct"] for g in got] == [True, True, False]
    # the driver wrote what the workers computed: the checks and the Frama-C runs behind them
    with sqlite3.connect(db) as conn:
        tools = {row[0] for row in conn.execute("select tool from tool_cache")}
    assert "sembench-check:specs" in tools and len(tools) >= 2


def _toy_snapshot(db: Path, name: str, count: int, poison: bool) -> list:
    fam = get_family("toysum")
    made = list(fam.generate(fam.resolve_params("toy-small"), 11, count))
    instances = [m.model_copy(update={"id": "", "meta": {**m.meta, "slow_verify_s": SLOW_S}}).with_content_id()
                 for m in made]
    if poison:
        instances.append(made[0].model_copy(update={"id": "", "meta": {**made[0].meta, "kill_verifier": True}})
                         .with_content_id())
    store = LogStore(db)
    store.write_snapshot(Snapshot(name=name, family="toysum", preset="toy-small", seed=11, count=len(instances)),
                         instances, features=fam.feature_values)
    store.close()
    return instances


def test_workers_with_another_java_helper_are_refused_though_they_outnumber_the_drivers(tmp_path: Path) -> None:
    """Two workers (`sembench worker --nworkers 2`) run a copy of Sembench whose Java compile service has
    annotation processing turned back on (no Python file changed); one worker runs the driver's code.
    The two are refused by name before anything is sent, though they agree with each other and outnumber
    the honest one, which does all the work."""
    cluster = start_cluster(["honest"], tmp_path)
    odd = tmp_path / "odd"
    for tree in ("core", "assets"):
        shutil.copytree(REPO / tree, odd / tree, ignore=shutil.ignore_patterns("__pycache__"))
    java = odd / "core" / "families" / "imports" / "java" / "CompileService.java"
    java.write_text(java.read_text().replace('"-proc:none", ', ""))
    log = (tmp_path / "odd.log").open("wb")
    env = cluster_env(PYTHONPATH=f"{odd}{os.pathsep}{REPO}")
    worker = subprocess.Popen([sys.executable, "-m", "core", "worker", cluster.address, "--name", "odd",
                               "--nworkers", "2", *cluster.worker_flags()], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        wait_for_workers(cluster.address, 3)
        fam = get_family("toysum")
        # checks slower than a task's round trip, so that they go to the cluster (core.cluster.routing)
        instances = [i.model_copy(update={"id": "", "meta": {**i.meta, "slow_verify_s": 0.3}}).with_content_id()
                     for i in fam.generate(fam.resolve_params("toy-small"), 5, 8)]
        (tmp_path / "i.jsonl").write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in instances))
        (tmp_path / "a.jsonl").write_text("".join(
            json.dumps({"id": i.id, "response": fam.oracle_response(i)}) + "\n" for i in instances))
        done = subprocess.run(_sembench(tmp_path / "log.db", "verify", "toysum", "--instances",
                                        str(tmp_path / "i.jsonl"), "--answers", str(tmp_path / "a.jsonl"),
                                        "--format", "json", *cluster.flags),
                              env=cluster_env(), cwd=REPO, capture_output=True, text=True, timeout=300)
        odd_addresses = sorted(a for a, name in _worker_names(cluster.address).items() if name != "honest")
    finally:
        cluster.kill(worker)
        cluster.close()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n"] == len(instances)
    refused = sorted(line for line in done.stderr.splitlines() if line.startswith("refused worker"))
    assert len(odd_addresses) == 2, odd_addresses
    assert [line.split(": ")[0] for line in refused] == [f"refused worker {a}" for a in odd_addresses], done.stderr
    assert all(" Sembench code " in line and "(this machine's)" in line for line in refused), refused
    assert "sembench worker: code " in (tmp_path / "odd.log").read_text()


def _worker_names(address: str) -> dict[str, str]:
    with client(address) as connected:
        return {a: str(w.get("name")) for a, w in connected.scheduler_info(n_workers=-1)["workers"].items()}


def test_a_run_survives_a_killed_worker_and_names_the_answer_that_kills_workers(cluster, tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    instances = _toy_snapshot(db, "toy", 10, poison=True)
    run = subprocess.Popen(_sembench(db, "run", "--snapshot", "toy", "--solver", "oracle", "--concurrency", "2",
                                     "--format", "json", *cluster.flags),
                           env=cluster_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not worker_busy(cluster.address, "w1"):  # w1 is checking something: kill it (nanny and all)
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.1)
    cluster.kill(cluster.workers["w1"])
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert json.loads(out)["done"] == len(instances)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select instance_id, sample, correct, status, error from attempts").fetchall()
    assert sorted((r[0], r[1]) for r in rows) == sorted((i.id, 0) for i in instances)  # each once, none lost
    fam = get_family("toysum")
    by_id = {r[0]: r for r in rows}
    poison = instances[-1]
    assert poison.id in by_id[poison.id][4] and "killed the worker" in by_id[poison.id][4]
    for inst in instances[:-1]:
        _, verdict = fam.check(inst, fam.oracle_response(inst))  # in-process, here
        assert by_id[inst.id][2:] == (int(verdict.correct), verdict.status, None)


def test_losing_the_scheduler_stops_the_run_with_one_line_and_the_resume_command(tmp_path: Path) -> None:
    lonely = start_cluster(["w3"], tmp_path, secure=False)  # --insecure: a scheduler without TLS, said so
    try:
        db = tmp_path / "log.db"
        _toy_snapshot(db, "toy", 12, poison=False)
        run = subprocess.Popen(_sembench(db, "run", "--snapshot", "toy", "--solver", "oracle", "--concurrency",
                                         "1", *lonely.flags),
                               env=cluster_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not worker_busy(lonely.address, "w3"):
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.1)
        lonely.kill(lonely.scheduler)
        _, err = run.communicate(timeout=120)
    finally:
        lonely.close()
    assert run.returncode == 2, err
    # the progress lines (stderr is not a terminal), then the one-line error; no traceback, no Dask log
    lines = [line for line in err.strip().splitlines()
             if not line.startswith(("oracle on toy: ", "toysum: a check costs"))]  # progress, the route chosen
    assert len(lines) == 1 and lines[0].startswith("error: ") and "lost the Dask scheduler" in lines[0], err
    assert f"--db {db} run --resume run-" in lines[0] and "--cluster" in lines[0]


def test_sembench_worker_refuses_to_start_without_a_required_tool(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "core", "worker", "tcp://127.0.0.1:9", "--insecure", "--require", "specs"],
                          env=cluster_env(PATH=str(empty)), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "frama-c" in lines[0], done.stderr
