"""What keeps the instance view's keys within a frame (issue: quick and live): the Problem tab's views are
drawn once per width and kept when a tab is shown again; the instances `]`/`[` go to, and the browser row
the cursor rests on, are drawn ahead in a thread, so that moving or Enter draws nothing on the UI thread;
a view that does not read the trace is not drawn again when the trace comes."""

from __future__ import annotations

import threading

import pytest
from conftest import CASCADE_SNAPSHOT, SIZE, render_text, settle
from test_tui_moving import open_browser

import tui.screens.instance as instance_module
import tui.widgets.lines as lines_module
from tui.screens.browser import PREPARE_AFTER_S
from tui.screens.instance import NEIGHBOURS_AFTER_S, InstanceScreen
from tui.widgets.lines import Lines
from tui.widgets.table import VirtualTable


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every drawing of a renderable into lines: (thread name, renderable's type)."""
    seen: list[tuple[str, str]] = []
    real = lines_module.draw

    def counting(console, options, renderable, width):  # type: ignore[no-untyped-def]
        seen.append((threading.current_thread().name, type(renderable).__name__))
        return real(console, options, renderable, width)

    monkeypatch.setattr(lines_module, "draw", counting)
    monkeypatch.setattr(instance_module, "draw", counting)
    return seen


def on_ui_thread(draws: list[tuple[str, str]]) -> int:
    return sum(1 for thread, _ in draws if thread == threading.main_thread().name)


async def rest(pilot, seconds: float) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause(seconds + 0.1)
    await settle(pilot)


async def test_moving_shows_a_neighbour_drawn_ahead(make_app, workbench, draws) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot, CASCADE_SNAPSHOT)
        ids = [r.id for r in browser.view]
        await pilot.press("enter")
        await rest(pilot, NEIGHBOURS_AFTER_S)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.instance.id == ids[0]
        ahead = screen.prepared(CASCADE_SNAPSHOT, ids[1])
        assert ahead is not None, "the next instance is drawn ahead"
        assert any(thread != threading.main_thread().name for thread, _ in draws), draws  # in a thread
        before = on_ui_thread(draws)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.instance.id == ids[1] and f"2 of {len(ids)}" in render_text(app)
        assert screen.query_one("#structured", Lines).renderable is ahead.structured
        assert screen.query_one("#prompt", Lines).renderable is ahead.prompt
        # shown as drawn: no drawing on the UI thread for `]` (its trace does not redraw the Problem tab)
        assert on_ui_thread(draws) == before, draws


async def test_a_tab_shown_again_is_not_drawn_again(make_app, workbench, draws) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(app, pilot, CASCADE_SNAPSHOT)
        await pilot.press("enter")
        await settle(pilot)
        for key in ("2", "1", "4", "1", "2"):
            await pilot.press(key)
            await settle(pilot)
        before = len(draws)
        for key in ("1", "2", "4", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert len(draws) == before, draws[before:]
        assert "examples" in render_text(app)  # the Problem tab is there, from the lines kept


async def test_enter_on_a_resting_row_shows_it_drawn_ahead(make_app, workbench, draws) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot, CASCADE_SNAPSHOT)
        ids = [r.id for r in browser.view]
        await pilot.press("enter")  # the instance screen exists from here on (kept when left)
        await settle(pilot)
        kept = app.screen
        await pilot.press("escape")
        await settle(pilot)
        table = browser.query_one("#instances", VirtualTable)
        for _ in range(3):
            await pilot.press("j")
        assert kept.prepared(CASCADE_SNAPSHOT, ids[3]) is None  # moving through the list draws nothing
        await rest(pilot, PREPARE_AFTER_S)
        assert table.cursor_row == 3
        ahead = kept.prepared(CASCADE_SNAPSHOT, ids[3])
        assert ahead is not None, "the row the cursor rests on is drawn ahead"
        before = on_ui_thread(draws)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is kept and kept.instance.id == ids[3]
        assert kept.query_one("#structured", Lines).renderable is ahead.structured
        assert on_ui_thread(draws) == before, draws

