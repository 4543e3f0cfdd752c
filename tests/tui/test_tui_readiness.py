"""A machine without a family's tools: the browser marks that family and says what to install where its
snapshot is open; the Solve tab says so and sends nothing (no failed attempt is recorded); families that
need no tool work as ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, render_text, settle
from textual.widgets import Select, Static

from core.paths import BUNDLED_SNAPSHOTS
from core.store import SnapshotStore
from tui.app import SembenchApp
from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen

IMPORTS = "thalia-jdk"  # a bundled imports snapshot: javac and java check its answers
CASCADE = "cascade-demo"


def first_id(snapshot: str) -> str:
    store = SnapshotStore(BUNDLED_SNAPSHOTS)
    try:
        return next(iter(store.feature_rows(snapshot)))[1]
    finally:
        store.close()


@pytest.fixture
def no_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


async def send_baseline(app: SembenchApp, pilot, snapshot: str) -> InstanceScreen:
    app.open_instance(snapshot, first_id(snapshot), tab="solve")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InstanceScreen)
    screen.query_one("#solver", Select).value = "baseline"
    await pilot.pause()
    await pilot.press("ctrl+s")
    await settle(pilot)
    return screen


async def test_a_family_without_its_tools_says_what_to_install_and_records_nothing(tmp_path: Path, no_tools) -> None:
    app = SembenchApp(db=tmp_path / "log.db", snapshots=BUNDLED_SNAPSHOTS, fresh=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen) and set(browser.unready) == {"imports", "specs"}
        shown = " ".join(render_text(app).split())
        assert "! tools missing" in shown and "imports!" in shown
        browser.load_snapshot(IMPORTS)
        await pilot.pause()
        shown = " ".join(str(browser.query_one("#table-info", Static).content).split())  # it wraps on screen
        assert ("imports answers cannot be checked on this machine: javac (openjdk-17-jdk-headless), java "
                "(openjdk-17-jdk-headless) missing; install with:") in shown
        assert "apt-get install openjdk-17-jdk-headless" in shown
        screen = await send_baseline(app, pilot, IMPORTS)
        assert app.workspace.log.attempts(instance_id=screen.instance.id) == [], "a failed attempt was recorded"
        status = " ".join(render_text(app).split())
        assert "imports answers cannot be checked on this machine" in status
        await pilot.press("escape")
        await settle(pilot)
        screen = await send_baseline(app, pilot, CASCADE)  # a family that needs no tool works as ever
        rows = app.workspace.log.attempts(instance_id=screen.instance.id)
        assert len(rows) == 1 and rows[0]["correct"] == 1 and rows[0]["error"] is None
