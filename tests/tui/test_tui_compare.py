"""Comparing: two attempts of one instance side by side (History: `space` marks, `c` compares)."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, SIZE, render_text, settle
from textual.widgets import DataTable

from core.attempts import AttemptRecord
from core.family import get_family
from core.store import LogStore
from tui.screens.compare import CompareScreen
from tui.screens.help import HelpScreen

MARKUP = "[bold red]boom[/bold red]"


def record(family, instance, solver: str, response: str) -> dict:
    answer, verdict = family.check(instance, response)
    return AttemptRecord(snapshot=CASCADE_SNAPSHOT, instance_id=instance.id, family=family.id, solver=solver,
                         source="run", response=response, answer=answer, verdict=verdict, correct=verdict.correct,
                         score=verdict.score, status=verdict.status).row()


def wrong_reply(family, instance) -> str:
    """The oracle's reply with its last rule's right-hand side replaced by text that looks like markup."""
    right = family.oracle_response(instance)
    last = right.rstrip().rstrip("`").rstrip().splitlines()[-1]
    rhs = last.split('", "')[1].split('")')[0]
    return right.replace(last, last.replace(f'"{rhs}")', f'"{MARKUP}")'))


def seed_attempts(workbench) -> tuple[object, list[int]]:
    family = get_family("cascade")
    instance = workbench.cascade[0]
    store = LogStore(workbench.log)
    try:
        ids = [store.add_attempt(record(family, instance, "oracle", family.oracle_response(instance))),
               store.add_attempt(record(family, instance, "human", wrong_reply(family, instance)))]
    finally:
        store.close()
    return instance, ids


async def test_space_marks_two_attempts_and_c_compares_them(make_app, workbench) -> None:
    instance, ids = seed_attempts(workbench)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#history-table", DataTable)
        table.focus()
        await pilot.press("space", "down", "space")
        await settle(pilot)
        assert sorted(screen.marked) == sorted(str(i) for i in ids)
        assert render_text(app).count("●") == 2  # both rows show the mark
        await pilot.press("c")
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        text = render_text(app)
        # the two verdicts
        assert "✓ correct" in text and "✗ incorrect" in text
        assert "(oracle)" in text and "(human)" in text
        # the answers' diff: the reply's text shown as text, never read as markup
        assert MARKUP in text
        assert any(line.lstrip().startswith(("-", "+")) and MARKUP in line for line in text.splitlines())
        # the two traces stepped together
        a, b = compare.steppers
        assert a.trace is not None and b.trace is not None and a.count > 1
        await pilot.press("n")
        await settle(pilot)
        assert a.index == 1 and b.index == 1
        await pilot.press("p")
        await settle(pilot)
        assert a.index == 0 and b.index == 0
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen


async def test_c_without_marks_compares_two_solvers(make_app, workbench) -> None:
    instance, ids = seed_attempts(workbench)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        app.screen.query_one("#history-table", DataTable).focus()
        await pilot.press("c")  # the cursor's attempt (the newest, human) against the other solver's
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        assert {compare.a.solver, compare.b.solver} == {"oracle", "human"}


async def test_help_lists_the_compare_keys(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        from tui.screens.help import HELP

        assert "`space` marks the attempt" in HELP and "`c` compares" in HELP
