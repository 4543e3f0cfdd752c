"""Human mode as a person uses it. Hints never type, nothing spoils the answer
before it is sent (on every instance), ctrl+s reads the editor's current text, and leaving while an
answer is checked keeps it and records its verdict."""

from __future__ import annotations

import asyncio
import json

from conftest import CASCADE_SNAPSHOT, SIZE, TOY_SNAPSHOT, render_text, settle
from textual import events
from textual.widgets import Select, TextArea
from textual.widgets._select import SelectOverlay

from core.family import get_family
from tui.screens.browser import BrowserScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.instance import GAVE_UP, InstanceScreen
from tui.widgets.solve import HUMAN


async def open_instance(app, pilot, snapshot: str, instance_id: str, tab: str = "problem") -> InstanceScreen:
    await settle(pilot)
    if not isinstance(app.screen, BrowserScreen):
        app.action_browser()
        await settle(pilot)
    app.open_instance(snapshot, instance_id, tab=tab)
    await settle(pilot)
    assert isinstance(app.screen, InstanceScreen)
    return app.screen


async def pick(pilot, screen: InstanceScreen, value: str) -> None:
    """Pick a solver from the picker's menu with the keyboard, as a person does (s, arrows, enter)."""
    select = screen.query_one("#solver", Select)
    await pilot.press("escape") if isinstance(screen.focused, TextArea) else None
    await pilot.press("s")
    overlay = select.query_one(SelectOverlay)
    values = [v for _, v in select._options]
    for _ in range(len(values) + 1):
        if overlay.highlighted is not None and values[overlay.highlighted] == value:
            break
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


def footer(app) -> str:
    return render_text(app).rstrip("\n").split("\n")[-1]


def status(screen: InstanceScreen) -> str:
    return str(screen.query_one("#solve-status").render())


async def test_hints_never_type(make_app, workbench) -> None:
    """Once the picker put the focus in the editor, the status says so and `e` is not offered;
    re-picking the selected solver focuses its entry again."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="solve")
        await pick(pilot, screen, HUMAN)
        editor = screen.query_one("#human-answer", TextArea)
        assert app.focused is editor
        assert "The editor has the focus" in status(screen) and "e goes" not in status(screen)
        assert "e Type" not in footer(app)
        await pilot.press("escape")  # out of the editor: now `e` is the way back, and says so
        assert app.focused is not editor and "e Type" in footer(app)
        await pick(pilot, screen, HUMAN)  # the solver already selected, picked again
        assert app.focused is editor
        assert editor.text == screen.panel.template  # nothing was typed by a hint


async def test_no_spoilers_on_any_instance_until_sent(make_app, workbench) -> None:
    """With human chosen, Step's ground truth and Verdict stay hidden on every instance (one opened
    later too, before its Solve tab is visited) until that instance's answer is sent; `v` reveals, and
    the attempt sent after it records that."""
    app = make_app()
    first, second = workbench.cascade[0], workbench.cascade[1]
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, first.id, tab="solve")
        await pick(pilot, screen, HUMAN)
        await pilot.press("escape", "2")
        assert "hidden while you answer" in render_text(app)
        await pilot.press("escape")  # back to the browser; the next instance opens on Problem
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, second.id)
        await pilot.press("2")
        text = render_text(app)
        assert "hidden while you answer" in text and "ground truth" not in text and "step 1/" not in text
        await pilot.press("4")
        assert "hidden while you answer" in render_text(app)
        assert "v Reveal" in footer(app)
        await pilot.press("v")  # give up
        await pilot.press("2")
        assert "step 1/" in render_text(app) and "hidden while you answer" not in render_text(app)
        await pilot.press("3")
        editor = screen.query_one("#human-answer", TextArea)
        editor.focus()
        await pilot.press(*'a", "b')
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=second.id)
        assert len(rows) == 1 and rows[0]["solver"] == HUMAN
        assert json.loads(rows[0]["usage"]).get(GAVE_UP) is True
        await pilot.press("5")
        assert "revealed" in render_text(app)


async def test_sending_right_after_an_edit_reads_the_editor(make_app, workbench) -> None:
    """ctrl+s straight after typing or pasting sends the editor's text, never 'sent already'."""
    app = make_app()
    instance = workbench.cascade[0]
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, instance.id, tab="solve")
        await pick(pilot, screen, HUMAN)
        await pilot.press(*"ab", "ctrl+s")
        await settle(pilot)
        editor = screen.query_one("#human-answer", TextArea)
        editor.focus()
        await pilot.pause()
        # pasted and sent in one burst, as a terminal delivers them: ctrl+s (a priority key, handled by
        # the app) arrives while the paste still waits in the editor's queue
        app.post_message(events.Paste("xy"))
        app.post_message(events.Key("ctrl+s", None))
        await settle(pilot)
        editor.focus()
        await pilot.pause()
        app.post_message(events.Key("c", "c"))  # typed and sent in one burst
        app.post_message(events.Key("ctrl+s", None))
        await settle(pilot)
        responses = [row["response"] for row in app.workspace.log.attempts(instance_id=instance.id)]
        assert len(responses) == 3 and len(set(responses)) == 3, responses
        assert editor.text in responses


async def test_leaving_while_a_human_answer_is_checked_records_it(make_toy_app, toy_bench) -> None:
    """The confirm dialog says the answer is kept; its verdict is recorded when the check ends."""
    slow = toy_bench.instances[0]  # its verifier takes SLOW_VERIFY_S
    family = get_family("toysum")
    app = make_toy_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_instance(app, pilot, TOY_SNAPSHOT, slow.id, tab="solve")
        await pick(pilot, screen, HUMAN)
        await pilot.press(*family.oracle_response(slow)[len(screen.panel.template):], "ctrl+s")
        for _ in range(200):
            if "checking" in status(screen):
                break
            await asyncio.sleep(0.05)
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#confirm-question").render())
        assert "kept" in question and "recorded" in question
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        rows: list = []
        for _ in range(1200):  # the check goes on after the screen is gone: wait for its record
            rows = app.workspace.log.attempts(instance_id=slow.id)
            if rows:
                break
            await asyncio.sleep(0.1)
        assert len(rows) == 1 and rows[0]["solver"] == HUMAN and rows[0]["correct"] == 1


async def test_hints_hidden_named_answers_and_attempts_opened_on_purpose(make_app, workbench) -> None:
    """With human chosen, the hint features (a cascade's length, its relations) leave the browser's
    columns and the instance's header; `h` shows them and the answer sent afterwards records which. A
    hand answer is recorded as human:NAME once the name is known. An attempt opened on purpose from
    History is shown in Verdict even while the person answers (and that counts as revealing)."""
    family = get_family("cascade")
    instance = workbench.cascade[0]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.saved = app.saved.model_copy(update={"person": "Ada"})  # asked once by a session, remembered
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, instance.id, tab="solve")
        header = lambda: str(screen.query_one("#instance-title").render())  # noqa: E731
        assert "cascade_length=" in header()  # not answering: the researcher sees every feature
        await pick(pilot, screen, HUMAN)
        assert all(f"{name}=" not in header() for name in family.hint_features)
        assert "7 hint(s) hidden (h)" in header()
        await pilot.press("escape", "escape", "escape")  # out of the editor, then back to the browser
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert not set(family.hint_features) & set(browser.table.columns)
        assert "7 hint feature(s) hidden (human is the solver)" in str(browser.query_one("#table-info").render())
        await pilot.press("slash", *"cascade_length=2")
        assert "no feature 'cascade_length'" in render_text(app)  # not searchable either
        await pilot.press("escape")
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, instance.id, tab="solve")
        assert not isinstance(app.focused, TextArea)  # the tab focuses the picker, never a text field
        await pilot.press("h")
        assert "cascade_length=" in header()
        await pilot.press("e", "space")
        screen.query_one("#human-answer", TextArea).text = family.oracle_response(instance)
        await pilot.press("ctrl+s")
        await settle(pilot)
        [row] = app.workspace.log.attempts(instance_id=instance.id)
        assert row["solver"] == "human:Ada" and row["correct"]
        assert json.loads(row["usage"])["hints_revealed"] == list(family.hint_features)
        # another instance, human still chosen: an attempt opened from History is shown all the same
        other = workbench.cascade[1]
        app.workspace.log.add_attempt({"instance_id": other.id, "family": "cascade", "solver": "baseline",
                                       "response": family.oracle_response(other), "correct": 1,
                                       "status": "correct", "source": "cli"})
        screen = await open_instance(app, pilot, CASCADE_SNAPSHOT, other.id, tab="history")
        assert screen.answering and screen.has_class("-answering")
        screen.query_one("#history-table").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "verdict" and not screen.has_class("-answering")
        assert "hidden while you answer" not in render_text(app)
        assert screen.revealed  # a hand answer sent now records that the answer was seen
