"""An instance with no ground truth (real sound-law data) says "no reference" in the
workbench where a reference would be, and an answer's steps are shown alone, not beside an empty
"ground truth"."""

from __future__ import annotations

from pathlib import Path

from conftest import SEED, render_text, settle
from textual.widgets import Select, TextArea

from core.family import get_family
from core.instance import Snapshot
from core.store import SnapshotStore
from tui.screens.instance import InstanceScreen

REAL_SLI = Path(__file__).parents[1] / "families" / "cascade" / "fixtures" / "released" / "real_sli"
SIZE = (140, 44)


async def test_real_sound_law_data_says_no_reference(tmp_path: Path, monkeypatch) -> None:
    from tui.app import SembenchApp

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    family = get_family("cascade")
    [instance] = family.import_files(REAL_SLI)
    snapshots = tmp_path / "snapshots.db"
    store = SnapshotStore(snapshots, writable=True)
    try:
        store.write_snapshot(Snapshot(name="real", family="cascade", seed=SEED, count=1, description="real data"),
                             [instance], features=family.feature_values)
    finally:
        store.close()

    app = SembenchApp(db=tmp_path / "log.db", snapshots=snapshots)
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance("real", instance.id, tab="step")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        text = render_text(app)
        assert "no reference" in text and "the ground truth" not in text

        screen.action_show_tab("solve")
        await pilot.pause()
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        screen.query_one("#human-answer", TextArea).text = '```python\ns = s.replace("w", "v")\n```'
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "attempt #1 (human)" in render_text(app)
        screen.action_show_tab("step")
        await settle(pilot)
        assert screen.showing == "answer"
        text = render_text(app)
        assert "with no reference beside it" in text and "Reference —" not in text
