"""The workbench reopens where it was left (snapshot, search, filter, sort, the Solve tab's choices), and
`--fresh` (or a damaged state file) starts from the defaults."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle, write_snapshot
from textual.widgets import Input

from core.store import LogStore
from tests.kit.terminal import Terminal
from tui.app import SembenchApp
from tui.entry import tui_db
from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen
from tui.state import WorkbenchState, save_state, state_path


async def test_reopens_where_it_was_left(workbench) -> None:
    app = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen) and browser.table.snapshot != MEMBERSHIP_SNAPSHOT
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await pilot.press("slash", *"depth>=2", "enter", "s", "s", "s", "s", "S", "f")
        app.solve_prefs["model-name"] = "qwen3:8b"
        await pilot.pause()
        before = browser.state_fields()
    assert state_path().exists(), "no state saved"
    again = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        browser = again.screen
        assert browser.table.snapshot == MEMBERSHIP_SNAPSHOT
        assert browser.query_one("#search", Input).value == "depth>=2"
        assert browser.state_fields() == before and browser.sort_column == "depth" and browser.sort_reverse
        assert browser.view and all(r.features["depth"] >= 2 for r in browser.view)
        assert again.solve_prefs["model-name"] == "qwen3:8b"
    fresh = SembenchApp(db=workbench.log, snapshots=workbench.snapshots, fresh=True)
    async with fresh.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert fresh.screen.table.snapshot != MEMBERSHIP_SNAPSHOT
        assert fresh.screen.query_one("#search", Input).value == ""


async def test_a_damaged_state_file_is_ignored(workbench) -> None:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff{not json")
    app = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen) and app.screen.table is not None


def test_fresh_is_a_workbench_flag() -> None:
    assert tui_db(["--fresh"]) == (True, None)
    assert tui_db(["--db", "x.db", "--fresh"]) == (True, "x.db")


async def test_a_saved_snapshot_that_is_gone_reopens_on_the_first_and_says_so(workbench) -> None:
    save_state(WorkbenchState(snapshot="deleted-since", search="depth>=2"))
    app = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        browser = app.screen
        first = browser.snapshots[0][0].name
        assert browser.table is not None and browser.table.snapshot == first
        info = " ".join(render_text(app).split())
        assert "snapshot deleted-since (where the workbench was left) no longer exists" in info
        browser.load_snapshot(browser.snapshots[1][0].name)
        await pilot.pause()
        assert "no longer exists" not in render_text(app)


def saved_on_disk() -> dict:
    try:
        return json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


async def test_state_is_written_as_it_changes_and_reopens_the_instance(workbench) -> None:
    instance = workbench.membership[1]
    app = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await pilot.press("f", "b")  # a filter, the snapshot pane folded
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="step")
        await settle(pilot)
        for _ in range(100):  # written within a second of the change, while the workbench runs
            if saved_on_disk().get("instance") == instance.id:
                break
            await pilot.pause(0.1)
        on_disk = saved_on_disk()
        assert on_disk.get("instance") == instance.id, on_disk
        assert on_disk["instance_snapshot"] == MEMBERSHIP_SNAPSHOT and on_disk["tab"] == "step"
        assert on_disk["snapshot"] == MEMBERSHIP_SNAPSHOT and on_disk["status"] != "all" and on_disk["pane_folded"]
    again = SembenchApp(db=workbench.log, snapshots=workbench.snapshots)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = again.screen
        assert isinstance(screen, InstanceScreen) and screen.instance.id == instance.id
        assert screen.active_tab == "step"
        browser = again.screen_stack[-2]
        assert isinstance(browser, BrowserScreen) and browser.query_one("#snapshot-pane").has_class("collapsed")
        assert browser.status_filter == on_disk["status"]
        await pilot.press("escape")  # back to the browser: closed instances are not reopened
        await settle(pilot)
        assert isinstance(again.screen, BrowserScreen)
    assert saved_on_disk()["instance"] is None


def test_a_closed_terminal_loses_at_most_the_last_second(tmp_path, cascade_instances) -> None:
    """The workbench in a real terminal, closed (SIGHUP) after a few keys: what they did was written."""
    log = tmp_path / "log.db"
    LogStore(log).close()
    write_snapshot(log, "0-cascade", "cascade", "cascade-demo", cascade_instances)
    env = {**os.environ, "TERM": "xterm-256color", "XDG_STATE_HOME": str(tmp_path / "state"), "LANG": "C.UTF-8"}
    for var in ("COLUMNS", "LINES", "TMUX"):
        env.pop(var, None)
    term = Terminal([sys.executable, "-m", "tui", "--db", str(log)], size=SIZE, env=env)
    path = Path(env["XDG_STATE_HOME"]) / "sembench" / "workbench.json"

    def state() -> dict:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    try:
        term.wait_for(b"0-cascade", 120)  # the workbench started
        deadline = time.monotonic() + 120
        for key in (b"s", b"b", b"\r"):  # sort, fold the pane, open the first instance
            term.write(key)
            time.sleep(0.5)
        while state().get("instance") is None and time.monotonic() < deadline:
            time.sleep(0.2)
        term.write(b"2")  # the Step tab, then the terminal is closed
        while state().get("tab") != "step" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        term.close(signal.SIGHUP)
    saved = state()
    assert saved.get("instance") in {i.id for i in cascade_instances}, saved
    assert saved["instance_snapshot"] == "0-cascade" and saved["tab"] == "step"
    assert saved["sort_column"] and saved["pane_folded"], saved
