"""Human-baseline sessions in the workbench: started from the browser (H), answered one
instance after another without spoilers, timed on the injected clock (paused away from the Solve tab
and while paused), recorded into one run as each answer is sent, resumable, summarised at the end, and
reported by `sembench report` like any run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import MEMBERSHIP_SNAPSHOT, SIZE, FakeClock, render_text, settle, until, write_snapshot
from textual.widgets import TabbedContent, TextArea

from core import sessions
from core.family import get_family
from core.store import LogStore
from tui.screens.browser import BrowserScreen
from tui.screens.session import (
    ReviewScreen,
    SessionRecorded,
    SessionScreen,
    SessionSummaryScreen,
    resume_session,
)
from tui.screens.session_dialog import SessionDialog


@pytest.fixture(autouse=True)
def _own_state(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the person's name is remembered here


MINE = "membership-mine"


async def open_dialog(app, pilot, snapshot: str = MEMBERSHIP_SNAPSHOT) -> SessionDialog:
    await settle(pilot)
    assert isinstance(app.screen, BrowserScreen)
    app.screen.load_snapshot(snapshot)
    await settle(pilot)
    await pilot.press("H")
    await settle(pilot)
    assert isinstance(app.screen, SessionDialog)
    return app.screen


async def type_answer(pilot, clock: FakeClock, answer: str, seconds: float) -> None:
    """The first keystroke starts the clock; `seconds` pass before the answer is complete."""
    await pilot.press(answer[0])
    clock.now += seconds
    await pilot.press(*answer[1:])


def truth(family, instance_id: str, instances) -> str:
    return family.oracle_response(next(i for i in instances if i.id == instance_id))


async def test_a_timed_session_of_five_is_a_reported_run(make_app, workbench, tmp_path) -> None:
    """The issue's "done when": five instances sampled from the browser, answered with keystrokes on a
    fake clock (one wrong, one skipped, one paused midway, one left for the Problem tab midway); the run's
    report shows 5 attempts with their times; the summary shows accuracy with its interval."""
    family = get_family("membership")
    # The user's own snapshot (in the log database, as `snapshot import` makes it): the CLI reads it too.
    LogStore(workbench.log).close()
    write_snapshot(workbench.log, MINE, "membership", "pag-demo", workbench.membership)
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_dialog(app, pilot, MINE)
        await pilot.press(*"Ada")  # the name field has the focus: no name is remembered yet
        await pilot.click("#src-sample")
        app.screen.query_one("#session-k").focus()
        await pilot.press("end", "backspace", "backspace", "5")
        app.screen.query_one("#session-stratify").value = "depth"
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        run_id = screen.state.run_id
        plan = screen.state.plan
        assert plan.chosen_by == "sample" and len(plan.instance_ids) == 5 and plan.person == "Ada"
        rows = [(i.id, family.feature_values(i)) for i in workbench.membership]
        assert plan.instance_ids == sessions.sample_ids(rows, 5, 0, "depth")  # the seeded, stratified sample
        expected = []
        for k, iid in enumerate(plan.instance_ids):
            screen = app.screen
            assert isinstance(screen, SessionScreen) and screen.instance.id == iid
            assert f"{k + 1} of 5" in screen.sub_title and f"{k + 1} of 5" in render_text(app)
            # spoiler-free: Step and Verdict hidden, History not even a tab, the solver fixed to the person
            assert screen.has_class("-answering")
            assert screen.query_one("#tabs", TabbedContent).get_tab("history").display is False
            right = truth(family, iid, workbench.membership)
            answer = right if k != 1 else ("False" if right == "True" else "True")
            if k == 4:
                await pilot.press("T")
                clock.now += 6
                await pilot.press("ctrl+g")  # skip: recorded as not solved, with its time
                expected.append(6.0)
            else:
                await type_answer(pilot, clock, answer, 10.0 + k)
                if k == 2:  # paused: the problem is covered and the clock stands still
                    await pilot.press("ctrl+t")
                    clock.now += 500
                    await pilot.press("ctrl+t")
                if k == 3:  # away from the Solve tab: not counted
                    await pilot.press("escape", "1")
                    clock.now += 300
                    await pilot.press("3", "e")
                await pilot.press("ctrl+s")
                expected.append(10.0 + k)
            await settle(pilot)
        assert isinstance(app.screen, SessionSummaryScreen)
        shown = render_text(app)
        assert "5 of 5 answered (1 skipped)" in shown
        assert "accuracy 60.0% (3/5), 95% Wilson interval" in shown, shown
        depth = {i.id: family.feature_values(i)["depth"] for i in workbench.membership}
        cells = {}
        for k, iid in enumerate(plan.instance_ids):  # answers 0, 2, 3 right; 1 wrong; 4 skipped
            n, c, t = cells.get(str(depth[iid]), (0, 0, 0.0))
            cells[str(depth[iid])] = (n + 1, c + (k in (0, 2, 3)), t + expected[k])
        line = " · ".join(f"{v}: {c}/{n} in {t / n:.1f}s" for v, (n, c, t) in sorted(cells.items()))
        assert f"by depth: {line}" in shown
        assert app.saved.person == "Ada"  # asked once, remembered
    store = LogStore(workbench.log)
    try:
        rows = {r["instance_id"]: r for r in store.attempts(run_id=run_id)}
        assert store.get_run(run_id)["status"] == "finished"
    finally:
        store.close()
    assert [rows[iid]["human_time_s"] for iid in plan.instance_ids] == pytest.approx(expected)
    assert all(r["solver"] == "human:Ada" and r["source"] == "session" for r in rows.values())
    env = {**os.environ, "SEMBENCH_DB": str(workbench.log), "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-m", "core", "report", run_id, "--format", "json"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["run"]["solver"] == "human:Ada"
    assert report["counts"]["attempts"] == 5 and report["counts"]["timed"] == 5
    assert report["counts"]["mean_human_time_s"] == pytest.approx(sum(expected) / 5)


async def test_marked_rows_show_after_each_resume_and_review(make_app, workbench) -> None:
    """The marked rows, with "show the verdict after each": the verdict shows after sending and ctrl+n
    goes on; leaving and resuming goes on where it stopped; the name is not asked again; the summary's
    answers open with their verdicts."""
    family = get_family("membership")
    marked = [i.id for i in workbench.membership[:2]]
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.saved = app.saved.model_copy(update={"person": "Bo"})
        app.screen.load_snapshot(MEMBERSHIP_SNAPSHOT)  # marks belong to the open snapshot
        await settle(pilot)
        app.screen.marked = set(marked)  # the browser's marks (space), set as its marking does
        dialog = await open_dialog(app, pilot)
        assert dialog.source == "marked"  # marked rows are the default when there are some
        await pilot.click("#session-show")
        await pilot.click("#session-shuffle")  # off: the marked rows in the snapshot's order
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.instance.id == marked[0]
        await type_answer(pilot, clock, truth(family, marked[0], workbench.membership), 4.0)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.active_tab == "verdict")
        assert app.screen is screen and not screen.has_class("-answering")  # the verdict, after each
        assert screen.active_tab == "verdict" and "✓ CORRECT" in render_text(app)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, SessionScreen) and app.screen.instance.id == marked[1]
        run_id = app.screen.state.run_id
        # out of the editor; then out of the session takes escape twice (a reflexive second one stays)
        await pilot.press("escape", "escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        await pilot.press("H")
        await settle(pilot)
        assert app.screen.query_one("#session-person").value == "Bo"
        assert run_id in render_text(app)  # listed as unfinished
        app.screen.dismiss(None)
        await settle(pilot)
        resume_session(app, run_id)  # what the Runs screen calls
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.instance.id == marked[1]
        assert "2 of 2" in screen.sub_title
        await type_answer(pilot, clock, "True" if truth(family, marked[1], workbench.membership) == "False"
                          else "False", 2.0)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, SessionSummaryScreen)
        assert "accuracy 50.0% (1/2)" in render_text(app)
        await pilot.press("down", "enter")  # review the second answer
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.instance.id == marked[1]
        shown = render_text(app)
        assert review.active_tab == "verdict" and "✗ INCORRECT" in shown and "(human:Bo)" in shown
    state = sessions.load_session(LogStore(workbench.log), run_id)
    assert state.finished and state.plan.show_after_each and state.plan.chosen_by == "marked"
    assert not state.plan.shuffled and state.plan.seed is None


async def test_the_verdict_stays_when_hiding_solve_blurs_the_editor_first(make_app, workbench, monkeypatch) -> None:
    """The verdict after each stays on screen when the Solve tab's Hide reaches the editor before the focus
    the switch to Verdict asked for is set (the order a loaded machine gave in CI). Textual's blur then
    moves the focus to a sibling in the hidden Solve tab, and that tab's TabPane.Focused, arriving after
    Verdict's, made the Solve tab active again (tui.widgets.containers.Tabbed)."""
    family = get_family("membership")
    marked = [workbench.membership[0].id]
    recorded = SessionScreen.on_session_recorded

    def hide_first(self: SessionScreen, message: SessionRecorded) -> None:
        recorded(self, message)
        editor = self.query_one("#human-answer", TextArea)
        if editor.has_focus:  # what Widget._on_hide does, before the app has run anything queued
            editor.blur()

    monkeypatch.setattr(SessionScreen, "on_session_recorded", hide_first)
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.saved = app.saved.model_copy(update={"person": "Bo"})
        app.screen.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await settle(pilot)
        app.screen.marked = set(marked)
        await open_dialog(app, pilot)
        await pilot.click("#session-show")
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.instance.id == marked[0]
        await type_answer(pilot, clock, truth(family, marked[0], workbench.membership), 4.0)
        assert isinstance(screen.focused, TextArea)  # the editor has the focus when the answer is sent
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not screen.has_class("-answering"))
        await settle(pilot)  # the focus messages in flight arrive
        assert screen.active_tab == "verdict", (screen.active_tab, screen.focused)
        assert screen.focused is screen.query_one("#verdict-scroll")
        assert "✓ CORRECT" in render_text(app)


async def test_session_keys_are_in_help_and_the_palette(make_app, workbench) -> None:
    """`?` lists the session's keys; the command palette starts a session like H does."""
    from tui.commands import SembenchCommands
    from tui.screens.help import HELP, HelpScreen
    from tui.screens.session import PauseScreen

    assert PauseScreen.BINDINGS[0].key.startswith("ctrl+t")  # the same key pauses and resumes
    for binding in SessionScreen.BINDINGS:
        assert f"`{binding.key}`" in HELP, binding.key
    assert "`H`" in HELP and "Human-baseline sessions" in HELP
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.load_snapshot(MEMBERSHIP_SNAPSHOT)
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        commands = {name: call for name, call, _ in SembenchCommands(app.screen)._commands()}
        commands["Start a human-baseline session"]()
        await settle(pilot)
        assert isinstance(app.screen, SessionDialog)
        assert app.screen.query_one("#src-marked").disabled  # nothing marked: that option is off


async def test_a_session_resumes_after_quitting(make_app, workbench) -> None:
    """Quit in the middle; a new workbench lists the unfinished session in H's dialog and Enter on it goes
    on at the next unanswered instance, the name remembered across the restart."""
    family = get_family("membership")
    filtered: list[str] = []
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_dialog(app, pilot)
        shown = [row.id for row in app.screen_stack[0].view]
        filtered = sessions.shuffle_ids(shown, 0)  # by default in a seeded random order, not the browser's
        await pilot.press(*"Cy", "enter")  # the current filter (nothing marked), started from the name field
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.state.plan.chosen_by == "filter"
        assert screen.state.plan.instance_ids == filtered != shown and sorted(filtered) == sorted(shown)
        assert screen.state.plan.shuffled and screen.state.plan.seed == 0
        run_id = screen.state.run_id
        await type_answer(pilot, clock, truth(family, filtered[0], workbench.membership), 3.0)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert f"2 of {len(filtered)}" in app.screen.sub_title
    app = make_app(clock=clock)  # a new workbench: the state file brings the name back
    async with app.run_test(size=SIZE) as pilot:
        await open_dialog(app, pilot)
        assert app.screen.query_one("#session-person").value == "Cy"
        app.screen.query_one("#session-unfinished").focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.state.run_id == run_id
        assert screen.instance.id == filtered[1] and f"2 of {len(filtered)}" in screen.sub_title
        assert screen.state.answered[filtered[0]]["human_time_s"] == 3.0
