"""Views that follow what happens: the palette's "Open snapshot" lands on that snapshot's table; the
browser's counts follow the log database while another process writes it; an attempt being opened shows
as loading, never as "no verdict"; the status and solvers columns count the same solvers."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle
from textual.widgets import DataTable

from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen
from tui.widgets.table import VirtualTable


async def test_palette_open_snapshot_moves_the_list_and_the_focus(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen) and browser.table.snapshot == CASCADE_SNAPSHOT
        assert app.focused is browser.query_one("#snapshots", DataTable)
        await pilot.press("ctrl+p")
        await pilot.press(*f"Open snapshot {MEMBERSHIP_SNAPSHOT}")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert browser.table.snapshot == MEMBERSHIP_SNAPSHOT
        instances = browser.query_one("#instances", VirtualTable)
        assert app.focused is instances
        snapshots = browser.query_one("#snapshots", DataTable)
        assert snapshots.coordinate_to_cell_key(snapshots.cursor_coordinate).row_key.value == MEMBERSHIP_SNAPSHOT
        await pilot.press("enter")  # the instance under the cursor: of the snapshot just opened
        await settle(pilot)
        assert isinstance(app.screen, InstanceScreen) and app.screen.family.id == "membership"


async def test_an_attempt_being_opened_shows_its_verdict_not_no_verdict(make_app, workbench, monkeypatch) -> None:
    """Tracing an attempt's answer may take seconds; meanwhile Verdict shows the attempt (its trace
    follows in Step), never "No verdict yet"."""
    import threading

    from core.family import get_family
    from core.store import LogStore

    family = get_family("cascade")
    instance = workbench.cascade[0]
    store = LogStore(workbench.log)
    answer, verdict = family.check(instance, "not a cascade at all")
    from core.attempts import AttemptRecord

    store.add_attempt(AttemptRecord(snapshot=CASCADE_SNAPSHOT, instance_id=instance.id, family=family.id,
                                    solver="model:x", source="run", response="not a cascade at all",
                                    answer=answer, verdict=verdict, correct=verdict.correct, score=verdict.score,
                                    status=verdict.status).row())
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        browser.query_one("#instances", VirtualTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.instance.id == instance.id
        await pilot.press("5")
        await pilot.pause()
        release = threading.Event()
        real_trace = family.trace
        assert screen.family is family  # the registry's one object: the app traces with it

        def held_trace(inst, answer=None):
            if answer is not None:
                release.wait(30)  # the answer's trace, held while the test looks at the screen
            return real_trace(inst, answer)

        monkeypatch.setattr(family, "trace", held_trace)
        await pilot.press("enter")  # open the attempt from History
        for _ in range(5):
            await pilot.pause()
        text = render_text(app)
        assert screen.active_tab == "verdict"
        assert "No verdict yet" not in text
        assert "attempt #1" in text and "incorrect" in text.lower(), text
        assert "tracing the answer" in screen.query_one("#step-source").render().plain
        release.set()
        await settle(pilot)
        assert screen.answer_trace is not None  # the trace arrived and is beside the truth in Step
