"""The workbench checks an answer and shows its verdict first; a verified contract's completeness rate is
computed after it, in the background, stored with the attempt and shown in the Verdict tab when ready.

The completeness is held back (the family's `complete_verdict` waits on an event) until the test has
seen the verdict without it, then let go: the order is the test's, not the machine's."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Select, TextArea

from core.families.specs import SpecsFamily
from core.families.specs.generator import generate_one
from core.family import get_family
from core.instance import Snapshot
from core.store import LogStore
from tests.kit.pilot import render_text, settle
from tests.tui.test_tui_display import open_on

pytestmark = pytest.mark.framac
SIZE = (160, 60)


@pytest.fixture
def held_back(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    from core.families.specs.verify import complete_verdict

    go = threading.Event()

    def later(self, instance, answer, verdict):  # noqa: ANN001 - the family's own signature
        assert go.wait(120), "the test never let the completeness go"
        return complete_verdict(instance, answer, verdict)

    monkeypatch.setattr(SpecsFamily, "complete_verdict", later)
    yield go
    go.set()  # a failed test does not leave the worker waiting


async def test_the_verdict_comes_first_and_completeness_when_ready(tmp_path: Path, monkeypatch, held_back,
                                                                   session_tool_cache_everywhere) -> None:
    from tui.app import SembenchApp

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "SEMBENCH_DB", "SEMBENCH_CLUSTER"):
        monkeypatch.delenv(var, raising=False)
    inst = generate_one({"variants": "base", "programs": "max_of_three"}, 0, 0)
    log = tmp_path / "log.db"
    store = LogStore(log)
    try:
        store.write_snapshot(Snapshot(name="s", family="specs", params={}, seed=0, count=1), [inst])
    finally:
        store.close()
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_on(app, "s", inst.id, pilot)
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        screen.query_one("#human-answer", TextArea).text = get_family("specs").oracle_response(inst)
        await pilot.pause()
        await pilot.press("ctrl+s")
        # the check (WP) runs in a worker, then the completeness worker starts and waits: not `settle`
        for _ in range(3000):
            if screen.current is not None and screen.current.pending:
                break
            await pilot.pause(0.1)
        rows = app.workspace.log.attempts(instance_id=inst.id)
        assert len(rows) == 1 and rows[0]["correct"] == 1
        assert "completeness" not in json.loads(rows[0]["verdict"])["details"], "recorded before completeness"
        shown = render_text(app)
        assert "✓ CORRECT" in shown and "completeness: computing in the background" in shown
        held_back.set()
        await settle(pilot)
        stored = json.loads(app.workspace.log.attempts(instance_id=inst.id)[0]["verdict"])["details"]
        assert stored["completeness"]["cr"] == 1.0 and stored["completeness"]["killed_by_test"] >= 1
        shown = render_text(app)
        assert "Completeness 1.00" in shown and "computing in the background" not in shown
