"""At 80x24 the browser's search box and snapshot list stay usable."""

from __future__ import annotations

from pathlib import Path

from conftest import render_text, settle, write_snapshot
from textual.widgets import DataTable, Input

from core.instance import Instance
from tui.app import SembenchApp
from tui.screens.browser import BrowserScreen, middle_cut

# Names as long as the bundled ones (formalbench-c-diverse-n, thalia-like-comments): two differ only at the end.
LONG_A = "membership-sweep-diverse"
LONG_B = "membership-sweep-diverse-n"
QUERY = "depth>=2 n_vars<=3 bookmarked"  # a query of 29 characters


def small_snapshots(path: Path, cascade: list[Instance], membership: list[Instance]) -> None:
    write_snapshot(path, "cascade-demo", "cascade", "cascade-demo", cascade)
    write_snapshot(path, LONG_A, "membership", "pag-demo", membership)
    write_snapshot(path, LONG_B, "membership", "pag-demo", membership[:4])


def pane_lines(app: SembenchApp) -> list[str]:
    """The snapshot list as drawn: each screen line cut to the list's own columns."""
    region = app.screen.query_one("#snapshots", DataTable).region
    lines = render_text(app).splitlines()
    return [line[region.x:region.right] for line in lines[region.y:region.bottom]]


async def test_browser_at_80x24_keeps_search_and_family_column(tmp_path: Path, cascade_instances,
                                                             membership_instances, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    snapshots = tmp_path / "snapshots.db"
    small_snapshots(snapshots, cascade_instances, membership_instances)
    app = SembenchApp(db=tmp_path / "log.db", snapshots=snapshots, fresh=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        table = browser.query_one("#snapshots", DataTable)

        # The snapshot list: every family whole on its row, the names told apart, nothing to scroll sideways.
        drawn = pane_lines(app)
        for name, family in (("cascade-demo", "cascade"), (LONG_A, "membership"), (LONG_B, "membership")):
            row = next((line for line in drawn if line.lstrip().startswith(middle_cut(name, 16))), None)
            assert row is not None, (name, drawn)
            assert family in row.split(), row
        assert middle_cut(LONG_A, 16) != middle_cut(LONG_B, 16)
        assert table.virtual_size.width <= table.scrollable_content_region.width

        # The search box: wide, and a typed query is seen whole.
        search = browser.query_one("#search", Input)
        assert search.content_region.width >= len(QUERY) + 10
        await pilot.press("slash")
        for key in QUERY:
            await pilot.press({" ": "space", ">": "greater_than_sign", "<": "less_than_sign",
                               "=": "equals_sign", "_": "underscore"}.get(key, key))
        await settle(pilot)
        assert search.value == QUERY
        lines = render_text(app).splitlines()
        box = [line[search.region.x:search.region.right] for line in lines[search.region.y:search.region.bottom]]
        assert any(QUERY in line for line in box), box
        # The menus beside it stay on screen, one row each.
        for menu in ("#status-filter", "#solver-filter"):
            region = browser.query_one(menu).region
            assert region.height == 1 and region.right <= 80 and region.width >= 16

        # Marks and the open snapshot survive going wide and back (the list is rebuilt for the width).
        await pilot.press("escape", "space")
        marked = set(browser.marked)
        opened = browser.table.snapshot
        await pilot.resize_terminal(140, 44)
        await settle(pilot)
        assert [str(c.label) for c in table.columns.values()] == ["name", "family", "n"]
        assert LONG_B in "\n".join(pane_lines(app))  # whole names when there is room
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert [str(c.label) for c in table.columns.values()] == ["name", "family"]
        assert browser.table.snapshot == opened and browser.marked == marked and marked
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == opened


def test_middle_cut_keeps_the_end() -> None:
    assert middle_cut("formalbench-c-diverse-n", 16) == "formalb…iverse-n"
    assert middle_cut("formalbench-c-diverse", 16) == "formalb…-diverse"
    assert middle_cut("short", 16) == "short"
    assert len(middle_cut("x" * 40, 16)) == 16


async def test_the_search_box_is_never_a_few_characters_wide(tmp_path: Path, cascade_instances,
                                                          membership_instances, monkeypatch) -> None:
    """At 100-115 columns the wide layout left the search box 5-10 characters ("searc" at 100): at
    every width from 80 to 140 it shows at least 20."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    snapshots = tmp_path / "snapshots.db"
    small_snapshots(snapshots, cascade_instances, membership_instances)
    app = SembenchApp(db=tmp_path / "log.db", snapshots=snapshots, fresh=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for width in (80, 99, 100, 104, 115, 116, 120, 140):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            search = app.screen.query_one("#search", Input)
            assert search.content_region.width >= 20, (width, search.content_region.width)
