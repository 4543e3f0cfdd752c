"""The browser moves what it loads (a snapshot's table, the attempt summary) out of the garbage
collector's generations (tui/heap.py): a full collection then scans only what was made since, and the
workbench does not freeze while one runs. The Runs screen's freeze itself is measured by
tests/bench/bench_tui_runs.py."""

from __future__ import annotations

import gc

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, SIZE, settle


async def test_a_loaded_snapshot_table_is_kept_out_of_collections(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        browser.load_snapshot(CASCADE_SNAPSHOT)
        await settle(pilot)
        first = browser.table
        assert first is not None and first.snapshot == CASCADE_SNAPSHOT
        assert id(first) not in {id(o) for o in gc.get_objects()}  # frozen: no generation lists it
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await settle(pilot)
        second = browser.table
        assert second is not None and second.snapshot == MEMBERSHIP_SNAPSHOT
        tracked = {id(o) for o in gc.get_objects()}
        assert id(second) not in tracked and id(second.rows) not in tracked



def test_a_due_full_collection_runs_in_a_pause_of_the_keys() -> None:
    from tui import heap

    gc.collect()
    assert not heap.collect_when_idle(60.0)  # nothing due since the last full collection
    gc.collect(1)  # a collection of the middle generation: a full one is now due
    assert gc.get_count()[2] >= 1
    assert not heap.collect_when_idle(heap.IDLE_S / 10)  # a key just came: not now
    assert gc.get_count()[2] >= 1
    alive = [object()]  # made while keys came: tracked
    assert id(alive) in {id(o) for o in gc.get_objects()}
    try:
        assert heap.collect_when_idle(heap.IDLE_S)  # a pause: now
        assert gc.get_count()[2] == 0
        # what is alive after the pause's collection is frozen: the next collections do not scan it
        assert id(alive) not in {id(o) for o in gc.get_objects()}
    finally:
        gc.unfreeze()


async def test_the_kept_instance_screen_is_kept_out_of_collections(make_app) -> None:
    from test_tui_moving import open_browser

    from tui.screens.instance import InstanceScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(app, pilot, CASCADE_SNAPSHOT)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        tracked = {id(o) for o in gc.get_objects()}
        assert id(screen) not in tracked and id(screen.query_one("#structured")) not in tracked
