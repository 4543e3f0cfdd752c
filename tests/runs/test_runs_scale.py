"""What makes runs and reports hold at scale, checked for what they must not change: the writer's
acknowledgement (an acknowledged attempt is committed), reports computed in SQL equal to the verdicts'
own numbers, the report cache following the run, and the schema migration keeping old databases."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import sys
from itertools import product

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.report import collector_paused, load_run_data, pass_at_all_k, pass_at_k, report_run, selected_rows
from core.runner import RunConfig, run_sync
from core.store import LogStore, Workspace
from core.store.log import attempt_columns
from core.store.migrations import SCHEMA_VERSION, migrate
from core.store.writer import AttemptWriter


def _row(iid: str, sample: int = 0, run_id: str = "r") -> dict:
    return attempt_columns({"run_id": run_id, "instance_id": iid, "family": "toy", "solver": "oracle",
                            "sample": sample, "correct": True})


def _count(path, where: str = "1") -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"select count(*) from attempts where {where}").fetchone()[0]


# -- the writer ---------------------------------------------------------------------------------------
def test_an_acknowledged_attempt_is_committed(tmp_path) -> None:
    path = tmp_path / "log.db"
    LogStore(path).close()
    seen: list[int] = []

    async def main() -> None:
        writer = AttemptWriter(path)
        try:
            for i in range(50):
                await writer.write(_row(f"i{i}"))
                # Acknowledged: another connection (another process, after a kill -9) sees it.
                seen.append(_count(path, f"instance_id = 'i{i}'"))
        finally:
            writer.close()

    asyncio.run(main())
    assert seen == [1] * 50


def test_rows_queued_when_the_writer_closes_are_committed_in_batches(tmp_path) -> None:
    path = tmp_path / "log.db"
    LogStore(path).close()

    async def main() -> AttemptWriter:
        writer = AttemptWriter(path, max_batch=64)
        futures = [writer.write(_row(f"i{i}")) for i in range(300)]  # nobody waits for these
        writer.close()  # Ctrl-C: what was queued is committed before the process exits
        await asyncio.sleep(0)
        assert all(f.done() and f.exception() is None for f in futures)
        return writer

    writer = asyncio.run(main())
    assert _count(path) == 300 and writer.failed == 0
    assert writer.batches < 300, "batched transactions, not one per row"


def test_a_failed_commit_fails_its_attempts(tmp_path) -> None:
    path = tmp_path / "log.db"
    LogStore(path).close()

    async def main() -> None:
        writer = AttemptWriter(path)
        try:
            await writer.write({**_row("i"), "no_such_column": 1})
        finally:
            writer.close()

    with pytest.raises(sqlite3.OperationalError):
        asyncio.run(main())
    assert _count(path) == 0


def test_a_row_sqlite_cannot_take_fails_its_attempt_instead_of_hanging(tmp_path) -> None:
    """A value the driver rejects before SQL runs (a lone surrogate) fails the write; the waiter is never
    left waiting on a dead writer thread."""
    path = tmp_path / "log.db"
    LogStore(path).close()

    async def main() -> None:
        writer = AttemptWriter(path)
        try:
            await asyncio.wait_for(writer.write({**_row("i"), "response": "\ud800"}), timeout=30)
        finally:
            writer.close()

    with pytest.raises(sqlite3.DatabaseError, match="UnicodeEncodeError"):
        asyncio.run(main())
    assert _count(path) == 0


def test_a_worker_sends_its_next_request_before_its_last_attempt_is_committed(toy, log_db, server, model_env,
                                                                             monkeypatch) -> None:
    """One worker, commits held back: the requests do not wait for the commits (a commit per request
    would cost every request its time), and every attempt is still recorded once."""
    execute_module = sys.modules["core.runner.execute"]  # `core.runner.execute` is also a function's name

    events: list[str] = []
    instances = write_snapshot(log_db, toy, "s", 4)
    answer = oracle_replies(toy, instances)

    def reply(request):
        events.append("request")
        return answer(request)

    class SlowCommits(AttemptWriter):
        def __init__(self, path, **kwargs) -> None:
            super().__init__(path, window_s=0.5, on_commit=lambda rows: events.append(f"commit {rows}"), **kwargs)

    server.reply = reply
    monkeypatch.setattr(execute_module, "AttemptWriter", SlowCommits)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="openai:m", concurrency=1))
    assert outcome.stats.done == 4 and outcome.stats.correct == 4 and _count(log_db) == 4
    assert events.index("request", 1) < events.index(next(e for e in events if e.startswith("commit"))), events


def test_a_run_collects_young_garbage_less_often_and_gives_the_setting_back(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 3)
    seen: list[tuple[int, int, int]] = []

    class Watch:
        def start(self, stats) -> None: ...
        def attempt(self, record, stats) -> None:
            seen.append(gc.get_threshold())
        def finish(self, stats) -> None: ...

    before = gc.get_threshold()
    gc.set_threshold(700, 11, 12)
    try:
        run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline"), observer=Watch())
        assert gc.get_threshold() == (700, 11, 12)
    finally:
        gc.set_threshold(*before)
    assert len(seen) == 3 and all(t[0] >= 10_000 and t[1:] == (11, 12) for t in seen), seen


def test_a_run_writes_every_attempt_once_through_the_writer(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 12)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline", samples=3, concurrency=5))
    assert outcome.stats.done == 36 and _count(log_db) == 36
    with sqlite3.connect(log_db) as conn:
        prompts = {p for (p,) in conn.execute("select prompt from attempts")}
    assert len(prompts) == 12 and all('"messages"' in p for p in prompts), "one stored prompt per instance"


# -- reports -----------------------------------------------------------------------------------------
def test_pass_at_all_k_is_the_estimator() -> None:
    for n, c in product(range(1, 13), range(0, 13)):
        if c > n:
            continue
        values = pass_at_all_k(n, c, 20)
        assert len(values) == n
        assert values == pytest.approx([pass_at_k(n, c, k) for k in range(1, n + 1)], abs=1e-12)


def test_sql_selection_and_counts_match_the_verdicts(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 10)
    run_id = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline", samples=4)).run_id
    data = load_run_data(Workspace(log_db), run_id)
    by_rule = {}
    for iid, by in data.verdicts.items():  # every sample's verdict, the slow way
        verdicts = [by[k] for k in sorted(by)]
        by_rule[iid] = verdicts[toy.select(verdicts)]
    fast = load_run_data(Workspace(log_db), run_id)
    assert {inst.id: v for inst, v in selected_rows(fast)} == by_rule
    assert {iid: (len(by), sum(v.correct for v in by.values())) for iid, by in data.verdicts.items()} == \
        fast.per_instance


def test_the_report_cache_follows_the_run(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 6)
    ws = Workspace(log_db)
    run_id = run_sync(ws, RunConfig(snapshot="s", solver="baseline")).run_id
    first = report_run(load_run_data(ws, run_id))
    with sqlite3.connect(log_db) as conn:
        assert conn.execute("select count(*) from report_cache where run_id = ?", [run_id]).fetchone()[0] >= 1
        # Poison the cached value: a hit must return it, so the next assertions see what is recomputed.
        conn.execute("update report_cache set value = '{\"poisoned\": true}' where kind = 'report'")
    assert report_run(load_run_data(ws, run_id)) == {"poisoned": True}
    with sqlite3.connect(log_db) as conn:  # the run changes: one of its answers is now wrong
        conn.execute("update attempts set correct = 0 where id = (select min(id) from attempts where correct = 1)")
        conn.execute("insert into attempts (run_id, instance_id, family, solver, sample, correct) "
                     "select run_id, instance_id, family, solver, 1, 0 from attempts limit 1")
    again = report_run(load_run_data(ws, run_id))
    assert "poisoned" not in again and again["counts"]["attempts"] == first["counts"]["attempts"] + 1


def test_report_from_the_cli_twice_is_the_same(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 5)
    run_id = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline", samples=2)).run_id
    outs = [run_cli("--db", str(log_db), "report", run_id, "--format", "json").stdout for _ in range(2)]
    assert outs[0] == outs[1] and '"pass_at_k"' in outs[0]


def test_collector_paused_restores_the_collector() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the outer pause still holds"
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled(), "a collector someone else turned off stays off"
    finally:
        gc.enable()


# -- the schema --------------------------------------------------------------------------------------
def test_an_old_database_is_migrated_and_keeps_its_attempts(tmp_path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    from core.store.migrations import _v1, _v2

    _v1(conn)
    _v2(conn)
    conn.execute("pragma user_version = 2")
    conn.execute("insert into attempts (run_id, instance_id, family, solver, correct) values ('r', 'i', 'toy', 'o', 1)")
    conn.commit()
    assert migrate(conn, str(path)) == 2
    names = {name for (name,) in conn.execute("select name from sqlite_master")}
    assert {"report_cache", "attempts_run_facts", "attempts_instance_solver"} <= names
    assert "attempts_instance" not in names  # v4: its columns lead attempts_instance_solver
    assert conn.execute("pragma user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("select instance_id, correct from attempts").fetchall() == [("i", 1)]
    conn.close()


def test_the_report_index_does_not_change_other_queries_plans(tmp_path) -> None:
    """attempts_run_facts is keyed on an expression so that the TUI's error counts keep their index."""
    store = LogStore(tmp_path / "log.db")
    plan = store.db.execute("explain query plan select count(*) from attempts where run_id = ? and error is not null",
                            ["r"]).fetchall()
    assert "attempts_run_facts" not in str(plan)
    plan = store.db.execute("explain query plan select count(*) from attempts where ('' || run_id) = ? "
                            "and run_id is not null", ["r"]).fetchall()
    assert "attempts_run_facts" in str(plan)
    store.close()


def test_queries_by_instance_use_the_instance_solver_index(tmp_path) -> None:
    """With attempts_instance gone (schema v4), an instance's attempts and the summaries still find
    their rows through an index: no query by instance scans the table."""
    store = LogStore(tmp_path / "log.db")
    for sql, args in (("select * from attempts where instance_id = ? order by id", ["i"]),
                      ("select instance_id, count(*), max(coalesce(correct, 0)) from attempts group by instance_id", []),
                      ("select instance_id, solver, count(*), max(coalesce(correct, 0)) from attempts "
                       "group by instance_id, solver", [])):
        steps = [row[3] for row in store.db.execute("explain query plan " + sql, args).fetchall()]
        reads = [step for step in steps if "attempts" in step]
        assert reads and all("INDEX attempts_instance_solver" in step for step in reads), steps
    store.close()


async def test_an_interrupted_run_counts_exactly_what_is_recorded(toy, log_db, server, model_env) -> None:
    from runs_support import oracle_replies

    from core.runner import run_async

    instances = write_snapshot(log_db, toy, "s", 40)
    server.reply = oracle_replies(toy, instances)
    server.latency_s = 0.02
    finished: list = []

    class Watcher:
        def start(self, stats) -> None: ...
        def attempt(self, record, stats) -> None: ...
        def finish(self, stats) -> None:
            finished.append(stats)

    task = asyncio.create_task(run_async(Workspace(log_db), RunConfig(snapshot="s", solver="openai:m", samples=2,
                                                                      concurrency=8), observer=Watcher()))
    while _count(log_db) < 10:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    recorded = _count(log_db)
    assert 10 <= recorded < 80
    assert finished and finished[0].done == recorded, "what the run says it recorded is what is on disk"
