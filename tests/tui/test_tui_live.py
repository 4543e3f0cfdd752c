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


async def test_status_and_solvers_columns_count_the_same_solvers(make_app, workbench) -> None:
    """The baseline solved it, a model failed it twice: under the default scope (models and people) the
    row reads "tried" and 0 of 1 solvers; widened to every solver but the oracle, solved and 1 of 2."""
    from test_tui_moving import write_attempts

    from tui.data import ANY_BUT_ORACLE

    instance = workbench.membership[0]
    write_attempts(workbench.log, [instance], {"baseline": [True], "model:a": [False]})
    write_attempts(workbench.log, [instance], {"model:a": [False]})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await settle(pilot)

        def cells() -> dict[str, str]:
            row = next(r for r in browser.table.rows if r.id == instance.id)
            return dict(zip(browser.table.columns, browser.table.cells(row), strict=True))

        shown = cells()
        assert shown["status"] == "✗ 2 tried" and shown["solvers"] == "0/1", shown
        browser.set_solver(ANY_BUT_ORACLE)
        await settle(pilot)
        shown = cells()
        assert shown["status"] == "✓ solved" and shown["solvers"] == "1/2", shown


async def test_browser_counts_follow_attempts_written_by_another_process(make_app, workbench) -> None:
    """A run in another terminal writes the log: the browser's counts and status column follow without a
    restart or a re-open (a poll every half second; waited for here, at most 5 s)."""
    from test_tui_moving import write_attempts

    first, second = workbench.membership[:2]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        browser.open_snapshot(MEMBERSHIP_SNAPSHOT)  # as the palette does: the list's cursor on it too
        await settle(pilot)
        assert "solved 0, attempted 0" in str(browser.query_one("#table-info").render())
        assert browser.table.snapshot == MEMBERSHIP_SNAPSHOT, browser.table.snapshot
        write_attempts(workbench.log, [first, second], {"model:a": [True, False]})  # another connection

        def row(iid: str):
            found = [r for r in browser.table.rows if r.id == iid]
            assert found, (browser.table.snapshot, iid, [r.id for r in browser.table.rows][:3])
            return found[0]

        for _ in range(50):
            if row(first.id).solved and row(second.id).attempts:
                break
            await pilot.pause(0.1)
        await settle(pilot)
        assert row(first.id).solved and row(second.id).attempts == 1 and not row(second.id).solved
        assert "solved 1, attempted 2" in str(browser.query_one("#table-info").render())
        write_attempts(workbench.log, [second], {"model:b": [True]})  # only the new attempt is read
        for _ in range(50):
            if row(second.id).solved:
                break
            await pilot.pause(0.1)
        await settle(pilot)
        assert row(second.id).solved and row(second.id).n_tried == 2 and row(first.id).attempts == 1
        assert "solved 2, attempted 2" in str(browser.query_one("#table-info").render())
