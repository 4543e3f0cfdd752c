"""Issue 21 item 17: Home/End go to the first/last row in every list: snapshots, instances, History,
Runs."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, SIZE, settle
from textual.widgets import DataTable

from core.family import get_family
from core.runner import RunConfig, create_run
from core.store import LogStore
from tui.screens.instance import InstanceScreen
from tui.screens.runs import RunsScreen
from tui.widgets.table import VirtualTable


async def home_end(pilot, table) -> None:
    table.focus()
    await pilot.pause()
    last = table.row_count - 1
    assert last >= 1
    await pilot.press("end")
    row = table.cursor_row
    assert row == last, f"{table.id}: End went to {row}, not {last}"
    await pilot.press("home")
    row = table.cursor_row
    assert row == 0, f"{table.id}: Home went to {row}"


async def test_home_end_in_every_list(make_app, workbench) -> None:
    family = get_family("membership")
    store = LogStore(workbench.log)
    config = RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1)
    for _ in range(3):
        create_run(store, config, family, total=8)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await home_end(pilot, app.screen.query_one("#snapshots", DataTable))
        await home_end(pilot, app.screen.query_one("#instances", VirtualTable))
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        for _ in range(3):
            app.solve_with("baseline")
            await settle(pilot)
        await pilot.press("5")
        await home_end(pilot, screen.query_one("#history-table", DataTable))
        await pilot.press("escape", "r")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        await home_end(pilot, app.screen.query_one("#runs-table", DataTable))
