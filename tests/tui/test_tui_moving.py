"""Moving and marking: `]`/`[` through the browser's list, bookmarks (`m`), notes (`N`), marked
rows (`space`, `A`: tag, export, run), the disagreement filters, and the specs label column."""

from __future__ import annotations

import json

from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle, write_snapshot
from test_tui_human import pick
from textual.widgets import Input, TextArea

from core.attempts import AttemptRecord
from core.family import get_family
from core.store import LogStore, notes
from tui.screens.browser import BrowserScreen
from tui.screens.help import HELP
from tui.screens.instance import InstanceScreen
from tui.screens.notes import MarkedMenu, NoteEditor, PromptScreen
from tui.screens.runs import RunsScreen
from tui.widgets.solve import HUMAN
from tui.widgets.table import VirtualTable


async def open_browser(app, pilot, snapshot: str = MEMBERSHIP_SNAPSHOT) -> BrowserScreen:
    browser = app.screen
    assert isinstance(browser, BrowserScreen)
    browser.load_snapshot(snapshot)
    await settle(pilot)
    browser.query_one("#instances", VirtualTable).focus()
    await pilot.pause()
    return browser


async def test_next_and_previous_instance_keep_the_tab(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        browser.sort_by("id", reverse=True)  # the browser's order, not the snapshot's
        await pilot.pause()
        ids = [r.id for r in browser.view]
        await pilot.press("enter")
        await settle(pilot)
        first = app.screen
        assert isinstance(first, InstanceScreen) and first.instance.id == ids[0]
        assert f"1 of {len(ids)}" in render_text(app)
        await pilot.press("5")  # History
        await pilot.press("right_square_bracket")
        await settle(pilot)
        second = app.screen
        assert isinstance(second, InstanceScreen) and second is first  # kept: it shows the next instance
        assert second.instance.id == ids[1] and second.active_tab == "history"
        assert f"2 of {len(ids)}" in render_text(app)
        assert len(app.screen_stack) == 2  # the browser and one instance: no pile of screens
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.screen.instance.id == ids[0] and app.screen.active_tab == "history"
        await pilot.press("left_square_bracket")  # the first of the list: it stays
        await settle(pilot)
        assert app.screen.instance.id == ids[0]
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is browser and browser.query_one("#instances", VirtualTable).cursor_row == 0


async def test_moving_keeps_a_human_draft(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        ids = [r.id for r in browser.view]
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        await pilot.press("3")
        await pick(pilot, screen, HUMAN)
        assert isinstance(app.focused, TextArea)
        await pilot.press(*"yes")
        await pilot.press("escape")  # out of the editor: `]` is a key again
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.screen.instance.id == ids[1]
        assert any(ids[0] in key for key in app.drafts)  # the draft of the instance left is kept
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.screen.instance.id == ids[0] and app.screen.panel.draft is not None


async def test_bookmark_and_note_searches(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        first, second = browser.view[0].id, browser.view[1].id
        await pilot.press("m")
        await pilot.pause()
        conn = app.workspace.log.db.conn
        assert notes.get(conn, MEMBERSHIP_SNAPSHOT, first).bookmarked
        assert "★" in render_text(app)
        # the instance view: `m` and `N` on the second row
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.instance.id == second
        await pilot.press("m")
        await pilot.press("N")
        await settle(pilot)
        assert isinstance(app.screen, NoteEditor)
        await pilot.press(*"loops forever here")
        app.screen.query_one("#note-tags", Input).focus()
        await pilot.press(*"hard tricky")
        await pilot.press("ctrl+s")
        await settle(pilot)
        stored = notes.get(conn, MEMBERSHIP_SNAPSHOT, second)
        assert stored.bookmarked and stored.note == "loops forever here" and stored.tags == ["hard", "tricky"]
        assert stored.updated
        text = render_text(app)  # the Problem tab shows it
        assert "loops forever here" in text and "#hard" in text
        await pilot.press("escape")
        await settle(pilot)
        for query, expected in (("bookmarked", [first, second]), ("tag:tricky", [second]),
                                ("note:forever", [second]), ("tag:nope", [])):
            browser.query_one("#search", Input).value = query
            await pilot.pause()
            assert sorted(r.id for r in browser.view) == sorted(expected), query
            assert "no feature" not in render_text(app)
        browser.query_one("#search", Input).value = ""
        browser.set_status("bookmarked")
        await pilot.pause()
        assert sorted(r.id for r in browser.view) == sorted([first, second])


async def test_marked_rows_tag_export_and_run(make_app, workbench, tmp_path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        ids = [r.id for r in browser.view[:2]]
        await pilot.press("space", "space")
        await pilot.pause()
        assert browser.marked == set(ids)
        assert "●" in render_text(app)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, MarkedMenu)
        await pilot.press("enter")  # the first action: tag
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"batch", "enter")
        await settle(pilot)
        conn = app.workspace.log.db.conn
        assert all("batch" in notes.get(conn, MEMBERSHIP_SNAPSHOT, i).tags for i in ids)
        out = tmp_path / "marked.jsonl"
        browser.marked_action("export")
        await settle(pilot)
        app.screen.query_one("#prompt-input", Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        exported = [json.loads(line) for line in out.read_text().splitlines()]
        assert [e["id"] for e in exported] == ids and all(e["family"] == "membership" for e in exported)
        browser.marked_action("run")
        await settle(pilot)
        app.screen.query_one("#prompt-input", Input).value = "baseline"
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.1)
            if not [w for w in app.workers if w.group == "marked-run" and w.is_running]:
                break
        store = LogStore(workbench.log)
        runs = store.db.execute("select id, solver from runs").fetchall()
        assert len(runs) == 1 and runs[0][1] == "baseline"
        done = store.db.execute("select instance_id from attempts where run_id = ?", [runs[0][0]]).fetchall()
        assert sorted(i for (i,) in done) == sorted(ids)
        store.close()
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        await settle(pilot)
        assert runs[0][0] in render_text(app)


def write_attempts(log, instances, outcomes: dict[str, list[bool]]) -> None:
    """outcomes: solver -> correct per instance (None: no attempt)."""
    family = get_family("membership")
    store = LogStore(log)
    for solver, results in outcomes.items():
        for instance, correct in zip(instances, results, strict=False):
            if correct is None:
                continue
            record = AttemptRecord(snapshot=MEMBERSHIP_SNAPSHOT, instance_id=instance.id, family=family.id,
                                   solver=solver, source="tui", response="x", correct=correct,
                                   score=float(correct), status="ok" if correct else "wrong")
            store.add_attempt(record.row())
    store.close()


async def test_disagreement_filters_and_hardest_first(make_app, workbench) -> None:
    insts = workbench.membership[:4]
    write_attempts(workbench.log, insts, {
        "model:a": [False, True, False, False],
        "model:b": [True, True, False, None],
        "baseline": [False, True, True, False],
        "oracle": [True, True, True, True],  # never counts
    })
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        for _ in range(50):
            if app.summary is not None:
                break
            await pilot.pause(0.1)
        await settle(pilot)
        search = browser.query_one("#search", Input)
        search.value = "failed_by:model:a solved_by:model:b"
        await pilot.pause()
        assert [r.id for r in browser.view] == [insts[0].id]
        assert "no feature" not in render_text(app)
        search.value = ""
        browser.set_status("solved by none")
        await pilot.pause()
        # the default scope (models and people): the instance only the baseline solved is solved by none
        assert {insts[2].id, insts[3].id} <= {r.id for r in browser.view}
        # every solver but the oracle: the baseline counts too (status, filters and the column alike)
        from tui.data import ANY_BUT_ORACLE

        browser.set_solver(ANY_BUT_ORACLE)
        await settle(pilot)
        ids = {r.id for r in browser.view}
        assert insts[3].id in ids and not ids & {i.id for i in insts[:3]}
        browser.set_status("solved by exactly one")
        await pilot.pause()
        assert {r.id for r in browser.view} == {insts[0].id, insts[2].id}
        browser.set_status("all")
        browser.sort_by("solvers")
        await pilot.pause()
        order = [r.id for r in browser.view]
        assert order.index(insts[3].id) < order.index(insts[0].id) < order.index(insts[1].id)
        assert order[-1] == insts[1].id  # solved by all three
        cells = browser.table.cells(next(r for r in browser.table.rows if r.id == insts[1].id))
        assert cells[-1] == "3/3"


async def test_palette_offers_the_disagreement_filter(make_app, workbench) -> None:
    write_attempts(workbench.log, workbench.membership[:2], {"model:a": [False, True], "model:b": [True, False]})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot)
        for _ in range(50):
            if app.summary is not None:
                break
            await pilot.pause(0.1)
        await pilot.press("ctrl+p", *"failed by model:a and solved by model:b")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert [r.id for r in browser.view] == [workbench.membership[0].id]


def test_help_lists_the_new_keys() -> None:
    for key in ("`]`", "`[`", "`m`", "`N`", "`space`", "`A`", "solved_by", "failed_by", "tag:NAME", "note:WORD"):
        assert key in HELP, key


async def test_specs_function_name_is_a_searchable_column(make_app, workbench) -> None:
    from core.families.specs.model import SpecsInstance

    made = [SpecsInstance(code=f"int {name}(int x) {{ return x; }}\n", function=name,
                          ground_truth={"contract": ""}, meta={"program": name}).with_content_id()
            for name in ("clamp_max", "abs_value", "sum_to")]
    LogStore(workbench.log).close()
    write_snapshot(workbench.log, "specs-mini", "specs", "base", made)  # type: ignore[arg-type]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(app, pilot, "specs-mini")
        assert "function" in browser.table.columns
        assert "clamp_max" in render_text(app)
        browser.query_one("#search", Input).value = "abs_value"
        await pilot.pause()
        assert [r.features["function"] for r in browser.view] == ["abs_value"]
        browser.query_one("#search", Input).value = "function=sum_to"
        await pilot.pause()
        assert len(browser.view) == 1 and "no feature" not in render_text(app)
