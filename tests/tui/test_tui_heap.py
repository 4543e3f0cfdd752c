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
    assert heap.collect_when_idle(heap.IDLE_S)  # a pause: now
    assert gc.get_count()[2] == 0
