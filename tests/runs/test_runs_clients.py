"""A large model run's requests made by forked client processes (core.runner.clients), the run's
process the one writer. Real `sembench run` processes against the fake server on 127.0.0.1, with
SEMBENCH_CLIENT_PROCESSES forcing the clients on a small run: the same records as a run without them;
killed (the run's process, or one client) or interrupted, nothing is lost or recorded twice and no
client is left behind; a failing endpoint still stops the run early."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from runs_support import KEY_MARKER, cli_command, oracle_replies, write_snapshot

from core.runner import clients
from tests.models.fakeserver import Fault

SAMPLES = 2
COUNT = 24
ROW = "instance_id, sample, response, answer, verdict, correct, error, error_kind, prompt, solver, family"


def _env(log_db: Path, model_env: dict[str, str], processes: int) -> dict[str, str]:
    return {**os.environ, **model_env, "SEMBENCH_DB": str(log_db), "SEMBENCH_CLIENT_PROCESSES": str(processes)}


def _args(concurrency: int | None = 6) -> list[str]:
    limit = ["--concurrency", str(concurrency)] if concurrency else []
    return ["run", "--snapshot", "s", "--solver", "openai:m", "--samples", str(SAMPLES), *limit, "--seed", "100",
            "--no-cache", "--format", "json"]


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"select {ROW} from attempts order by instance_id, sample").fetchall()


def _pairs(db: Path) -> Counter:
    with sqlite3.connect(db) as conn:
        return Counter(conn.execute("select instance_id, sample from attempts").fetchall())


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("select count(*) from attempts").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def _children(pid: int) -> list[int]:
    """The live child processes of `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(predicate, what: str, proc: subprocess.Popen | None = None, deadline_s: float = 60.0) -> None:
    """Short polling with a deadline: the only way to know how far other processes got."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if predicate():
            return
        if proc is not None:
            assert proc.poll() is None, f"the run exited early: {proc.communicate()}"
        time.sleep(0.01)
    raise AssertionError(f"not within {deadline_s}s: {what}")


def _run(args: list[str], env: dict[str, str], toy: bool) -> subprocess.CompletedProcess:
    return subprocess.run(cli_command(*args, toy=toy), env=env, capture_output=True, text=True, timeout=180)


def _run_id(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        (row,) = conn.execute("select id from runs").fetchall()
    return row[0]


# -- what is decided -----------------------------------------------------------------------------------------
def test_shards_split_the_pairs_by_instance_and_shares_add_up() -> None:
    class Item:
        def __init__(self, n: int) -> None:
            self.id = f"i{n}"

    items = [(Item(n), s) for s in range(3) for n in range(7)]
    for parts in (1, 2, 3, 8):
        shards = clients.shards(items, parts)
        assert len(shards) == parts
        assert sorted((i.id, s) for shard in shards for i, s in shard) == sorted((i.id, s) for i, s in items)
        owners = {i.id: k for k, shard in enumerate(shards) for i, _s in shard}
        assert all(owners[i.id] == k for k, shard in enumerate(shards) for i, _s in shard), "an instance split"
        for total in (1, 5, 256, 257):
            parts_of = [clients.share(total, parts, k) for k in range(parts)]
            assert sum(parts_of) == total and max(parts_of) - min(parts_of) <= 1


def test_only_large_uncached_model_runs_without_tools_or_cluster_fork(monkeypatch, model_env) -> None:
    from core.family import get_family
    from core.models.base import SamplingParams
    from core.models.solver import ModelSolver
    from core.solvers import make_solver

    cascade, specs = get_family("cascade"), get_family("specs")
    uncached = ModelSolver("openai:m", use_cache=False)
    monkeypatch.delenv("SEMBENCH_CLIENT_PROCESSES", raising=False)
    monkeypatch.setattr(clients, "cores", lambda: 2)
    assert clients.client_count(uncached, cascade, 3840, 256) == 2
    assert clients.client_count(uncached, cascade, 3840, 32) == 0  # one loop keeps up with 32 in flight
    assert clients.client_count(uncached, cascade, 100, 256) == 0  # too short to matter
    assert clients.client_count(uncached, specs, 3840, 256) == 0  # checks run in Frama-C's processes
    assert clients.client_count(uncached, cascade, 3840, 256, cluster=object()) == 0
    assert clients.client_count(make_solver("baseline", cascade), cascade, 3840, 256) == 0
    monkeypatch.setattr(clients, "cores", lambda: 1)
    assert clients.client_count(uncached, cascade, 3840, 256) == 0  # nothing to share the work with
    monkeypatch.setattr(clients, "cores", lambda: 2)
    with monkeypatch.context() as macos:  # fork exists there, but a child may crash in a system framework
        macos.setattr(sys, "platform", "darwin")
        assert clients.client_count(uncached, cascade, 3840, 256) == 0
        macos.setenv("SEMBENCH_CLIENT_PROCESSES", "2")
        assert clients.client_count(uncached, cascade, 3840, 256) == 0  # nor when forced

    class Log:  # a response cache: replies of deterministic requests are stored in the log database
        pass

    cached = ModelSolver("openai:m", params=SamplingParams(temperature=0), cache=Log())  # type: ignore[arg-type]
    assert clients.client_count(cached, cascade, 3840, 256) == 0
    sampled = ModelSolver("openai:m", params=SamplingParams(temperature=0.7), cache=Log())  # type: ignore[arg-type]
    assert clients.client_count(sampled, cascade, 3840, 256) == 2  # nothing of it goes to the cache
    monkeypatch.setenv("SEMBENCH_CLIENT_PROCESSES", "3")
    assert clients.client_count(uncached, cascade, 10, 4) == 3
    assert clients.client_count(cached, cascade, 10, 4) == 0  # forcing never overrides a condition of safety
    monkeypatch.setenv("SEMBENCH_CLIENT_PROCESSES", "0")
    assert clients.client_count(uncached, cascade, 3840, 256) == 0


# -- real runs ---------------------------------------------------------------------------------------------
def test_client_processes_record_what_one_process_records(family, tmp_path, server, model_env) -> None:
    toy = family.id == "toy"
    dbs = {n: tmp_path / f"clients-{n}.db" for n in (0, 2)}
    for db in dbs.values():
        instances = write_snapshot(db, family, "s", COUNT)
    server.reply = oracle_replies(family, instances)
    summaries = {}
    for n, db in dbs.items():
        before = len(server.requests)
        done = _run(_args(), _env(db, model_env, n), toy)
        assert done.returncode == 0, done.stderr
        summaries[n] = json.loads(done.stdout.splitlines()[-1])
        said = "requests from 2 client processes" in done.stderr  # the progress's first line says so
        assert said == (n == 2), done.stderr
        asked = Counter((r.messages[-1]["content"], r.json["seed"]) for r in server.requests[before:])
        assert len(asked) == COUNT * SAMPLES and set(asked.values()) == {1}, "each request asked once"
    assert summaries[2]["client_processes"] == 2 and "client_processes" not in summaries[0]
    assert summaries[2]["done"] == summaries[0]["done"] == COUNT * SAMPLES
    assert summaries[2]["correct"] == summaries[0]["correct"] == COUNT * SAMPLES  # the oracle's answers
    assert _rows(dbs[2]) == _rows(dbs[0])  # the same attempts, field for field
    assert KEY_MARKER.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("clients-2.db*"))


def test_each_replica_keeps_its_limit_across_the_clients(family, log_db, model_env, tmp_path) -> None:
    from tests.models.fakeserver import FakeServer

    toy = family.id == "toy"
    instances = write_snapshot(log_db, family, "s", COUNT)
    config = tmp_path / "replicas.toml"
    config.write_text("[openai]\nmax_retries = 0\nmax_concurrency = 3\ntimeout_s = 20\n", encoding="utf-8")
    with FakeServer() as first, FakeServer() as second:
        for replica in (first, second):
            replica.reply = oracle_replies(family, instances)
            replica.latency_s = 0.05  # long enough for every worker's request to be in flight together
        urls = {first.base_url("openai"), second.base_url("openai")}
        env = {**_env(log_db, model_env, 2), "OPENAI_BASE_URL": ",".join(sorted(urls)),
               "SEMBENCH_CONFIG": str(config)}
        done = _run(_args(None), env, toy)  # 3 per replica x 2 replicas = 6 in flight, 3 in each client
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.splitlines()[-1])["client_processes"] == 2
        assert first.max_in_flight <= 3 and second.max_in_flight <= 3  # each replica's own limit, in all
        assert first.max_in_flight + second.max_in_flight > 3  # ...and both were used at once
    with sqlite3.connect(log_db) as conn:
        replicas = Counter(json.loads(u).get("replica") for (u,) in conn.execute("select usage from attempts"))
    assert set(replicas) == urls and sum(replicas.values()) == COUNT * SAMPLES


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_run_killed_or_interrupted_leaves_no_client_and_resumes_to_one_attempt_each(
        how, family, log_db, server, model_env) -> None:
    toy = family.id == "toy"
    instances = write_snapshot(log_db, family, "s", COUNT)
    server.reply = oracle_replies(family, instances)
    server.latency_s = 0.03  # slow enough to be caught in the middle
    env = _env(log_db, model_env, 2)
    proc = subprocess.Popen(cli_command(*_args(4), toy=toy), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: _count(log_db) >= COUNT // 2, "half the attempts recorded", proc)
        forked = _children(proc.pid)
        assert len(forked) == 2, f"two client processes, not {forked}"
    finally:
        proc.send_signal(getattr(signal, how))
        _out, err = proc.communicate(timeout=60)
    _wait(lambda: not any(_alive(pid) for pid in forked), "the clients gone")
    recorded = _count(log_db)
    assert COUNT // 2 <= recorded < COUNT * SAMPLES
    if how == "SIGINT":
        assert proc.returncode == 130 and "resume with: sembench run --resume" in err and "Traceback" not in err
    done_before = set(_pairs(log_db))

    run_id = _run_id(log_db)
    before = len(server.requests)
    resumed = _run(["run", "--resume", run_id, "--format", "json"], env, toy)
    assert resumed.returncode == 0, resumed.stderr
    pairs = _pairs(log_db)
    assert len(pairs) == COUNT * SAMPLES and set(pairs.values()) == {1}
    prompt_of = {i.id: family.prompt(i).messages[-1]["content"] for i in instances}
    asked = Counter((r.messages[-1]["content"], r.json["seed"]) for r in server.requests[before:])
    assert not any(asked[(prompt_of[iid], 100 + sample)] for iid, sample in done_before), "asked again"


def test_a_client_killed_stops_the_run_with_one_line_and_the_resume_command(family, log_db, server,
                                                                            model_env) -> None:
    toy = family.id == "toy"
    instances = write_snapshot(log_db, family, "s", COUNT)
    server.reply = oracle_replies(family, instances)
    server.latency_s = 0.03
    env = _env(log_db, model_env, 2)
    proc = subprocess.Popen(cli_command(*_args(4), toy=toy), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: _count(log_db) >= 4, "some attempts recorded", proc)
        victim, other = sorted(_children(proc.pid))
        os.kill(victim, signal.SIGKILL)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, err
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    run_id = _run_id(log_db)
    assert "client process" in line and "killed by signal 9" in line
    assert line.endswith(f"Fix it, then: sembench run --resume {run_id}")
    _wait(lambda: not _alive(other), "the other client gone")

    resumed = _run(["run", "--resume", run_id, "--format", "json"], env, toy)
    assert resumed.returncode == 0, resumed.stderr
    pairs = _pairs(log_db)
    assert len(pairs) == COUNT * SAMPLES and set(pairs.values()) == {1}


def test_an_endpoint_failing_every_request_still_stops_the_run_early(family, log_db, server, model_env) -> None:
    toy = family.id == "toy"
    instances = write_snapshot(log_db, family, "s", 100)
    server.reply = oracle_replies(family, instances)
    server.fail_next(100_000, Fault.http500())
    env = _env(log_db, model_env, 2)
    result = _run(["run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "4", "--no-cache"], env, toy)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    run_id = _run_id(log_db)
    assert "of the last" in line and line.endswith(f"Fix it, then: sembench run --resume {run_id} --retry-errors")
    recorded = _count(log_db)
    assert recorded < 30, f"stopped after {recorded} attempts, not 100"
    # 3 requests per attempt (max_retries 2), recorded or in flight in either client (4 in all)
    assert len(server.requests) <= 3 * (recorded + 4)


def test_a_fork_that_fails_leaves_the_run_to_make_its_requests_itself(monkeypatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    plan = clients.ClientPlan(2, lambda limit: None, 4)  # type: ignore[arg-type,return-value]
    assert clients.fork_clients(plan, [], 4, lambda *args: None) == []


def test_a_local_solvers_run_decides_without_importing_the_model_code() -> None:
    """Every CLI run asks `client_count`; a baseline run's start-up must not pay for the model solver's
    modules to be told "no" (they were imported for that, ~5 ms)."""
    code = ("import sys; from core.family import get_family; from core.solvers import make_solver; "
            "from core.runner.clients import client_count; f = get_family('cascade'); "
            "assert client_count(make_solver('baseline', f), f, 10**6, 256) == 0; "
            "print('core.models.solver' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SEMBENCH_CLIENT_PROCESSES": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
