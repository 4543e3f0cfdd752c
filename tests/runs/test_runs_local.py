"""Batch runs with the in-process solvers (oracle, baseline): one attempt per (instance, sample), stored
as they complete, resumable, and the CLI verbs around them."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from runs_support import run_cli, write_snapshot

from core.errors import UserError
from core.runner import RunConfig, RunStats, get_run, plan, run_async, run_sync
from core.store import LogStore, Workspace


def _pairs(db, run_id: str) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select instance_id, sample from attempts where run_id = ?", [run_id]).fetchall()


def test_oracle_run_records_every_pair_once_and_verifies(family, log_db) -> None:
    instances = write_snapshot(log_db, family, "s", 8)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle", samples=2))
    assert outcome.status == "finished"
    pairs = _pairs(log_db, outcome.run_id)
    assert sorted(pairs) == sorted((i.id, k) for i in instances for k in range(2))
    store = LogStore(log_db)
    rows = store.attempts(run_id=outcome.run_id)
    assert all(r["correct"] == 1 and r["error"] is None and r["source"] == "run" for r in rows)
    assert all(json.loads(r["verdict"])["correct"] for r in rows)
    assert all(json.loads(r["prompt"])["messages"] for r in rows), "the prompt is recorded with the attempt"
    run = get_run(store, outcome.run_id)
    assert (run["status"], run["total"], run["family"], run["solver"]) == ("finished", 16, family.id, "oracle")
    assert run["finished"] is not None
    assert outcome.stats.correct == outcome.stats.done == 16


def test_baseline_goes_through_the_same_path(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 6)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="baseline", limit=4))
    rows = LogStore(log_db).attempts(run_id=outcome.run_id)
    assert len(rows) == 4 and outcome.stats.total == 4
    assert all(r["solver"] == "baseline" and r["verdict"] and r["status"] for r in rows)
    assert outcome.stats.correct == sum(r["correct"] for r in rows)


async def test_cancelled_run_is_interrupted_and_resume_finishes_only_the_rest(family, log_db) -> None:
    instances = write_snapshot(log_db, family, "s", 10)
    ws = Workspace(log_db)
    config = RunConfig(snapshot="s", solver="oracle", samples=2, concurrency=2)
    task: asyncio.Task | None = None
    seen: list[str] = []

    class CancelAfterFive:
        def start(self, stats: RunStats) -> None:
            seen.append(stats.run_id)

        def attempt(self, record, stats: RunStats) -> None:
            if stats.done == 5 and task is not None:
                task.cancel()  # what Ctrl-C does to the run's task

        def finish(self, stats: RunStats) -> None: ...

    task = asyncio.ensure_future(run_async(ws, config, observer=CancelAfterFive()))
    with pytest.raises(asyncio.CancelledError):
        await task
    run_id = seen[0]
    assert get_run(ws.log, run_id)["status"] == "interrupted"
    first = _pairs(log_db, run_id)
    assert 5 <= len(first) < 20, "attempts already finished are kept"

    todo, stats = plan(ws.log, run_id, instances, 2)
    assert stats.done == len(first) and len(todo) == 20 - len(first)
    assert not {(i.id, k) for i, k in todo} & set(first), "nothing recorded is planned again"

    outcome = await run_async(ws, config, resume=run_id)
    assert outcome.status == "finished" and outcome.stats.session == 20 - len(first)
    pairs = _pairs(log_db, run_id)
    assert len(pairs) == len(set(pairs)) == 20


def test_run_verb_prints_summary_and_resume_of_a_finished_run_does_nothing(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 5)
    result = run_cli("run", "--snapshot", "s", "--solver", "oracle", "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["done"] == 5 and summary["accuracy"] == 1.0
    assert "already done" in result.stderr and "acc 100.0%" in result.stderr  # plain progress lines off a TTY
    again = run_cli("run", "--resume", summary["run"], "--format", "json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["done"] == 5
    assert len(_pairs(log_db, summary["run"])) == 5
    listed = run_cli("runs", "--format", "json")
    assert [r["id"] for r in json.loads(listed.stdout)] == [summary["run"]]
    table = run_cli("run", "--snapshot", "s", "--solver", "baseline")
    assert table.exit_code == 0 and "finished, 5/5 attempts" in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--solver", "oracle"], "--snapshot and --solver are required"),
        (["run", "--snapshot", "nope", "--solver", "oracle"], "unknown snapshot 'nope'"),
        (["run", "--snapshot", "s", "--solver", "no-such-solver"], "has no solver 'no-such-solver'"),
        (["run", "--snapshot", "s", "--solver", "oracle", "--style", "weird"], "unknown style 'weird'"),
        (["run", "--resume", "run-missing"], "unknown run 'run-missing'"),
        (["run", "--snapshot", "s", "--solver", "oracle", "--retry-errors"], "only applies with --resume"),
        (["run", "--snapshot", "s", "--solver", "bogus:model"], "unknown provider 'bogus'"),
    ],
)
def test_run_user_errors_are_one_line_exit_2(family, log_db, args: list[str], message: str) -> None:
    write_snapshot(log_db, family, "s", 2)
    result = run_cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_resume_rejects_flags_that_change_the_run(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 2)
    run_id = json.loads(run_cli("run", "--snapshot", "s", "--solver", "oracle", "--format", "json").stdout)["run"]
    result = run_cli("run", "--resume", run_id, "--solver", "baseline")
    assert result.exit_code == 2 and "solver was 'oracle'" in result.stderr
    same = run_cli("run", "--resume", run_id, "--solver", "oracle", "--concurrency", "3")
    assert same.exit_code == 0


def test_a_family_bug_on_one_instance_is_recorded_not_fatal(toy, log_db, monkeypatch) -> None:
    instances = write_snapshot(log_db, toy, "s", 4)
    broken = instances[1].id
    original = toy.oracle_response

    def flaky(instance):
        if instance.id == broken:
            raise RuntimeError("boom")
        return original(instance)

    monkeypatch.setattr(toy, "oracle_response", flaky)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle"))
    rows = {r["instance_id"]: r for r in LogStore(log_db).attempts(run_id=outcome.run_id)}
    assert outcome.status == "finished" and len(rows) == 4
    assert rows[broken]["error_kind"] == "solver" and "boom" in rows[broken]["error"]
    assert rows[broken]["correct"] == 0 and rows[broken]["status"] == "error"
    assert sum(r["correct"] for r in rows.values()) == 3


def test_unreadable_snapshot_item_is_a_user_error(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 2)
    with sqlite3.connect(log_db) as conn:
        conn.execute("update instances set data = '{\"id\": \"x\"}' where idx = 1")
    with pytest.raises(UserError, match="item 1"):
        run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle"))


def test_rich_progress_shows_counts_errors_and_accuracy(capsys) -> None:
    from core.attempts import AttemptRecord
    from core.cli_runs import RunProgress

    progress = RunProgress("oracle on s", tty=True)
    stats = RunStats(run_id="r", total=4, done=1, correct=1)
    progress.start(stats)
    stats.add(AttemptRecord(instance_id="a", family="toy", solver="x", correct=True))
    stats.add(AttemptRecord(instance_id="b", family="toy", solver="x", correct=False, error="boom"))
    progress.attempt(None, stats)
    progress.finish(stats)
    err = capsys.readouterr().err
    assert "oracle on s" in err and "3/4" in err and "errors 1" in err and "acc 66.7%" in err


def test_a_truncated_log_database_is_a_user_error(tmp_path) -> None:
    bad = tmp_path / "log.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    result = run_cli("--db", str(bad), "run", "--snapshot", "s", "--solver", "oracle")
    assert result.exit_code == 2 and "log.db" in result.stderr and "Traceback" not in result.output
