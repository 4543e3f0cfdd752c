"""Where a person looks while debugging: the streaming reply keeps reasoning and answer apart; escape out
of the editor never lands in the browser by reflex."""

from __future__ import annotations

from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle
from test_tui_human import pick
from textual.widgets import TextArea

from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen
from tui.widgets.solve import HUMAN


async def open_instance(app, pilot, workbench, tab: str = "problem") -> InstanceScreen:
    app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[0].id, tab=tab)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InstanceScreen)
    return screen


async def test_streaming_reply_separates_reasoning_from_answer(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, workbench, tab="solve")
        panel = screen.panel
        panel.delta("reasoning", "First the length: three items, so the second branch.")
        panel.delta("text", "FINAL-ANSWER True")
        panel.flush()
        await pilot.pause()
        lines = render_text(app).splitlines()
        label = next(i for i, line in enumerate(lines) if "model reasoning" in line)
        thought = next(i for i, line in enumerate(lines) if "three items" in line)
        answer_rule = next(i for i, line in enumerate(lines) if " answer " in line and "─" in line)
        final = next(i for i, line in enumerate(lines) if "FINAL-ANSWER True" in line)
        assert label < thought < answer_rule < final  # a labelled rule between them: never run together
        assert "three items" not in lines[final]


async def test_escape_from_the_editor_never_lands_in_the_browser_by_reflex(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, workbench, tab="solve")
        await pick(pilot, screen, HUMAN)
        assert isinstance(app.focused, TextArea)
        assert "esc Leave editor" in render_text(app).splitlines()[-1]  # the footer says what escape does
        await pilot.press(*"maybe")
        await pilot.press("escape", "escape")  # out of the editor, and a reflexive second press
        await settle(pilot)
        assert app.screen is screen and not isinstance(app.focused, TextArea)
        await pilot.press("escape")  # asked for: back to the browser
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)


async def test_after_leaving_the_editor_the_footer_says_escape_twice(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, workbench, tab="solve")
        await pick(pilot, screen, HUMAN)
        await pilot.press("escape")
        await pilot.pause()
        assert "esc Back: esc again" in render_text(app).splitlines()[-1]
        await pilot.press("1")  # another tab: escape is plain Back again
        await pilot.pause()
        footer = render_text(app).splitlines()[-1]
        assert "esc Back" in footer and "esc again" not in footer


def test_an_answer_of_several_lines_is_numbered_where_verdicts_cite_lines() -> None:
    """A specs verdict says "line 2" of the extracted program: the program is shown numbered (every
    family without its own answer view goes through the same renderer)."""
    import io

    from rich.console import Console

    from core.family import get_family
    from tui.widgets.diff import generic_answer

    program = "int f(int x) {\n  return x + 1;\n}"
    console = Console(width=80, file=io.StringIO(), color_system=None)
    for family_id in ("specs", "typeinf"):
        console.print(generic_answer(get_family(family_id), program))
    lines = [line.strip() for line in console.file.getvalue().splitlines() if line.strip()]
    assert lines[0].startswith("1 ") and lines[1].startswith("2 ") and "return x + 1;" in lines[1], lines
    console.file = io.StringIO()
    console.print(generic_answer(get_family("typeinf"), "f :: Int -> Int"))
    assert console.file.getvalue().strip() == "f :: Int -> Int"  # one line: nothing to number


async def test_sort_menu_reaches_the_solvers_column_in_one_step(make_app, workbench) -> None:
    """At 120 columns `solvers` is off-screen and `s` took a press per column to reach it; `O` lists them."""
    from tui.screens.sort_menu import SortMenu
    from tui.widgets.table import VirtualTable

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        browser = app.screen
        browser.open_snapshot(MEMBERSHIP_SNAPSHOT)
        await settle(pilot)
        await pilot.press("O")
        await pilot.pause()
        assert isinstance(app.screen, SortMenu)
        await pilot.press("end", "r")  # the last column, descending
        await settle(pilot)
        assert browser.sort_column == "solvers" and browser.sort_reverse
        assert isinstance(app.focused, VirtualTable)


async def test_history_at_80_columns_shows_the_verdict(make_app, workbench) -> None:
    from core.attempts import AttemptRecord
    from core.store import LogStore

    instance = workbench.membership[0]
    store = LogStore(workbench.log)
    store.add_attempt(AttemptRecord(run_id="run-20261128-185443-dabf", snapshot=MEMBERSHIP_SNAPSHOT,
                                    instance_id=instance.id, family="membership",
                                    solver="model:some-long-model-name", source="run", response="x",
                                    correct=False, score=0.0, status="wrong").row())
    store.close()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        text = render_text(app)
        assert "✗ incorrect" in text and "model:some-long-model-name" in text, text
