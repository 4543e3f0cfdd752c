"""Home/End go to the first/last row in every list: snapshots, instances, History,
Runs."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle
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


async def test_small_terminal_solve_tab_keeps_the_editor(make_app, workbench) -> None:
    """At 60x16 the Solve tab still shows the human editor (the problem folds away;
    the Problem tab has it); at 80x24 the problem stays above the editor."""
    from textual.widgets import Select, TextArea

    for size, folded in (((60, 16), True), ((80, 24), False)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="solve")
            await settle(pilot)
            screen = app.screen
            screen.query_one("#solver", Select).value = "human"
            await settle(pilot)
            editor = screen.query_one("#human-answer", TextArea)
            region = editor.region
            assert region.height >= 3 and region.bottom <= size[1], (size, region)
            assert "s = s.replace(" in render_text(app)
            assert screen.query_one("#human-problem").display is not folded
