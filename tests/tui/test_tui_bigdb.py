"""A big log database never blocks the UI: the browser's attempt summary, the runs poll and run reports
are read in workers (one at a time each, never piling up), and the keys keep working while they read.

The log holds 50,000 synthetic attempts. Rather than timing anything, the reads are held at a gate
inside the worker: while a read is provably in flight, `?` opens the help, `r` opens the runs, and
more refresh ticks start no second reader. Then the gate opens and the results arrive."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from conftest import MEMBERSHIP_SNAPSHOT, SIZE, FakeClock, render_text, settle
from textual.worker import WorkerState

import core.report
from core.family import get_family
from core.runner import RunConfig, create_run, list_runs, set_status
from core.store import LogStore
from tui.data import poll_runs
from tui.screens.browser import BrowserScreen
from tui.screens.help import HelpScreen
from tui.screens.runs import RunsScreen

ATTEMPTS = 50_000


class Gate:
    """Holds a worker inside a read until the test opens it; `entered` says the worker got there."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()
        self.calls = 0

    def wrap(self, real):
        def held(*args, **kwargs):
            self.calls += 1
            self.entered.set()
            assert self.open.wait(60), "the test never opened the gate"
            return real(*args, **kwargs)

        return held

    async def reached(self) -> bool:
        return await asyncio.to_thread(self.entered.wait, 60)


def busy(app, group: str) -> list:
    return [w for w in app.workers if w.group == group and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]


@pytest.fixture
def big_log(workbench) -> tuple[Path, str]:
    """A running run (this process, a fresh heartbeat) with 50,000 attempts, 8 of them on the snapshot's
    instances (correct), the rest on ids of another snapshot."""
    family = get_family("membership")
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1), family,
                        total=ATTEMPTS + 1000)
    real = [i.id for i in workbench.membership]
    ids = real + [f"synthetic-{n:06d}" for n in range(ATTEMPTS - len(real))]
    prompt = '{"messages": [{"role": "user", "content": "' + "x" * 400 + '"}]}'
    rows = [(run_id, MEMBERSHIP_SNAPSHOT, iid, "membership", 0, "baseline", "run", prompt, "True", 1 if n < 8 else n % 2,
             1.0, "ok", None, None, "2026-01-01T00:00:00.000+00:00", 0.01)
            for n, iid in enumerate(ids)]
    with store.db.conn:
        store.db.conn.executemany(
            "insert into attempts (run_id, snapshot, instance_id, family, sample, solver, source, prompt, response, "
            "correct, score, status, verdict, error, started, elapsed_s) values "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store.close()
    return workbench.log, run_id


async def test_browser_and_runs_answer_keys_while_a_big_log_is_read(make_app, workbench, big_log, monkeypatch):
    log, run_id = big_log
    summary_gate, poll_gate, report_gate = Gate(), Gate(), Gate()
    monkeypatch.setattr(LogStore, "solver_summary", summary_gate.wrap(LogStore.solver_summary))
    monkeypatch.setattr(LogStore, "run_counts", poll_gate.wrap(LogStore.run_counts))
    monkeypatch.setattr(core.report, "load_run_data", report_gate.wrap(core.report.load_run_data))
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        # The browser is up with its table while a worker is inside the summary's scan of the log.
        assert await summary_gate.reached()
        assert browser.summary_loading and app.summary is None and len(busy(app, "summary")) == 1
        assert browser.query_one("#instances").row_count == len(workbench.cascade)
        assert "reading attempts" in render_text(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)  # keys work while the scan is in flight
        await pilot.press("escape")
        assert app.screen is browser
        browser.refresh_summary()  # asking again while one is in flight starts no second reader
        assert len(busy(app, "summary")) == 1

        # Runs: the poll is a worker too, held inside its count query; ticks do not pile up readers.
        await pilot.press("r")
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        assert await poll_gate.reached()
        for _ in range(5):
            runs._tick()
        await pilot.pause()
        assert len(busy(app, "runs-poll")) == 1 and poll_gate.calls == 1
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is runs
        poll_gate.open.set()
        summary_gate.open.set()

        # The first poll brings the run; its report is computed by one worker, however many ticks pass.
        assert await report_gate.reached()
        await pilot.pause()
        assert runs.runs and runs.runs[0]["id"] == run_id and runs.runs[0]["done"] == ATTEMPTS
        assert runs.states[run_id] == "running"
        assert "computing the metrics" in render_text(app)
        for _ in range(5):
            clock.now += 10.0
            runs._tick()
            await pilot.pause()
        assert len(busy(app, "run-report")) == 1 and report_gate.calls == 1
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        report_gate.open.set()
        await settle(pilot)
        assert runs._shown_done[run_id] == ATTEMPTS
        assert f"{ATTEMPTS}/{ATTEMPTS + 1000}" in render_text(app)
        await pilot.press("escape")
        await settle(pilot)
        # The summary arrived: the snapshot's instances are marked solved by the baseline (which the default
        # "models & people" marks do not count).
        assert app.summary is not None and len(app.summary) == ATTEMPTS
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await pilot.pause()
        assert not any(row.solved for row in browser.table.rows)
        browser.set_solver("baseline")
        await pilot.pause()
        assert all(row.solved for row in browser.table.rows)


def test_poll_reads_little_when_nothing_runs(big_log) -> None:
    """The poll's change marker: with no run running and nothing written, it reads no runs and no counts;
    a write (or a new run) makes it read again, and only the counts of runs that can have moved."""
    log, run_id = big_log
    first = poll_runs(log, None, {}, {})
    assert first.runs is not None and first.counts[run_id][0] == ATTEMPTS
    states = {r["id"]: r["state"] for r in first.runs}
    assert states[run_id] == "running"
    store = LogStore(log)
    set_status(store, run_id, "finished")
    states = {r["id"]: r["state"] for r in list_runs(store)}
    after_finish = poll_runs(log, first.marker, first.counts, {run_id: "running"})
    assert after_finish.runs is not None and after_finish.counts[run_id][0] == ATTEMPTS  # state changed
    idle = poll_runs(log, after_finish.marker, after_finish.counts, states)
    assert idle.runs is None and idle.counts == {}  # nothing running, nothing written: nothing read
    other = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="oracle", samples=1),
                       get_family("membership"), total=3)
    moved = poll_runs(log, idle.marker, after_finish.counts, states)
    assert moved.runs is not None and set(moved.counts) == {other}  # only the new run is counted
    correct = sum(1 if n < 8 else n % 2 for n in range(ATTEMPTS))
    assert store.run_counts([run_id]) == {run_id: (ATTEMPTS, correct, 0)} == {run_id: first.counts[run_id]}
    store.close()
