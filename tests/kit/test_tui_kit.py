"""The TUI kit: every registered family (`core.family.all_families()`, the test-only toy family included)
opens in the real workbench, driven with Pilot as a person would.

For each family: a temporary log database holds a snapshot of a few instances generated with the family's
first preset (the user's own snapshot, as `sembench snapshot import` makes it; no bundled snapshots). The
kit opens the first instance from the browser, renders the Problem tab, steps the ground truth to its last
step and back, solves with the baseline, and renders the Verdict (and the answer's trace beside the
reference) and History. Nothing here names a family: a family that lands later is covered as it is, with
its own `tui/families/<id>.py` or the generic views. A family whose tools (`Family.requires`) are missing is
skipped locally and fails in CI, where `.ci/setup` installs them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Select

from core.errors import ToolMissing
from core.family import Family, all_families
from core.instance import Instance, Snapshot
from core.store import LogStore
from tests.kit.pilot import render_text, settle
from tui.families import view_for
from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen
from tui.widgets.steppers.source import SourceStepper, focus_at
from tui.widgets.table import VirtualTable

COUNT = 4
SIZE = (140, 44)
BROKEN = ("cannot render", "cannot draw", "cannot show", "cannot trace", "Traceback")


def require_tools(family: Family) -> None:
    for tool in family.requires:
        try:
            tool.require()
        except ToolMissing as exc:
            if os.environ.get("CI"):
                pytest.fail(f"CI must run the TUI kit for {family.id}: {exc}")
            pytest.skip(str(exc))


def kit_instances(family: Family) -> tuple[str, int, list[Instance]]:
    """(preset name, seed, the first COUNT instances of the family's first preset)."""
    presets = family.presets()
    preset = next(iter(presets.values()))
    params = family.resolve_params(preset.name)
    return preset.name, preset.seed, [family.generate_one(params, preset.seed, i) for i in range(COUNT)]


def kit_log(tmp_path: Path, family: Family) -> tuple[Path, str, list[Instance]]:
    preset, seed, instances = kit_instances(family)
    name = f"kit-{family.id}"
    log = tmp_path / "log.db"
    store = LogStore(log)  # the user's log database holds their snapshots too
    try:
        store.write_snapshot(Snapshot(name=name, family=family.id, preset=preset, seed=seed, count=len(instances),
                                      description=f"TUI kit: {family.id}"), instances,
                             features=family.feature_values)
    finally:
        store.close()
    return log, name, instances


def assert_not_broken(text: str, where: str) -> None:
    for word in BROKEN:
        assert word not in text, f"{where}: {word!r} on screen:\n{text}"


@pytest.fixture
def quiet_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config or model endpoint from the machine running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                "OLLAMA_HOST", "SEMBENCH_DB"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("family_id", sorted(all_families()))
async def test_family_opens_steps_solves_in_the_workbench(family_id: str, tmp_path: Path, quiet_env,
                                                          shared_tool_cache) -> None:
    from core.tools import configure
    from tui.app import SembenchApp

    family = all_families()[family_id]
    require_tools(family)
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = instances[0]
    app = SembenchApp(db=log, snapshots=tmp_path / "no-bundled-snapshots.db")
    # The app's workspace points the tool cache at its log; the kit reads verdicts only, so its WP runs
    # (the reference's trace, the baseline's answer) come from the session's cache (tests/conftest.py).
    configure(shared_tool_cache.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # The browser: the kit's snapshot, one row per instance, the visible features as columns.
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert browser.table is not None and browser.table.snapshot == snapshot
        table = browser.query_one("#instances", VirtualTable)
        assert table.row_count == COUNT
        assert set(family.visible_features()) <= set(table.columns)
        assert not set(family.spoiler_features) & set(table.columns)
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.instance.id == instance.id

        # Problem: the family's view (or the generic one) and the prompt, no spoiler in the header.
        text = render_text(app)
        assert_not_broken(text, "Problem")
        assert "prompt, as a model sees it" in text
        header = str(screen.query_one("#instance-title").render())
        for spoiler in family.spoiler_features:
            assert f"{spoiler}=" not in header

        # Step: the ground truth, to its last step and back.
        await pilot.press("2")
        await settle(pilot)
        stepper = screen.stepper
        assert isinstance(stepper, view_for(family.id).stepper)
        trace = stepper.trace
        assert trace is not None and trace is screen.truth and stepper.count >= 1
        text = render_text(app)
        assert_not_broken(text, "Step")
        assert f"step 1/{stepper.count}" in text
        if isinstance(stepper, SourceStepper):
            doc, _focus = focus_at(trace, 0)
            assert doc is None or doc.name in text  # the focused document is on screen
        await pilot.press("G")
        assert stepper.index == stepper.count - 1 and stepper.at_end
        assert f"step {stepper.count}/{stepper.count}" in render_text(app)
        await pilot.press("p", "g")
        assert stepper.index == 0
        await pilot.press("n")
        assert stepper.index == min(1, stepper.count - 1)
        assert_not_broken(render_text(app), "Step (moved)")

        # Solve with the baseline.
        await pilot.press("3")
        solver = screen.query_one("#solver", Select)
        assert app.focused is solver
        if solver.value != "baseline":
            solver.value = "baseline"
            await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1 and rows[0]["solver"] == "baseline" and rows[0]["source"] == "tui"
        attempt = rows[0]
        assert attempt["error_kind"] not in ("internal", "solver"), attempt["error"]
        if family.baseline_complete:
            assert attempt["correct"] == 1, (attempt["status"], attempt["response"][:300])

        # Verdict: the verdict explains itself.
        await pilot.press("4")
        text = render_text(app)
        assert_not_broken(text, "Verdict")
        assert "CORRECT" in text or "INCORRECT" in text or "ERROR" in text
        assert "extracted answer" in text

        # The answer's trace beside the reference.
        await pilot.press("2")
        if screen.answer_trace is not None:
            assert screen.showing == "answer" and stepper.trace is not None
            assert stepper.trace.reference is not None
            text = render_text(app)
            assert_not_broken(text, "Step (answer)")
            assert "beside the ground truth" in text
            await pilot.press("G")
            assert stepper.at_end
            await pilot.press("a")
            assert screen.showing == "truth" and stepper.trace is screen.truth

        # History: the attempt, re-opened.
        await pilot.press("5")
        history = screen.query_one("#history-table", DataTable)
        assert history.row_count == 1
        text = render_text(app)
        assert_not_broken(text, "History")
        assert "baseline" in text and "1 attempt(s) on this instance" in text
        history.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "verdict" and screen.current is not None
        assert screen.current.id == attempt["id"]

        # Back to the browser: nothing to ask (no request runs, no draft).
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
