"""The workbench reopens where it was left (snapshot, search, filter, sort, the Solve tab's choices), and
`--fresh` (or a damaged state file) starts from the defaults."""

from __future__ import annotations

from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text
from textual.widgets import Input

from tui.app import SembenchApp
from tui.entry import tui_db
from tui.screens.browser import BrowserScreen
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
