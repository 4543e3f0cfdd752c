"""The issue's "done when", driven through the real app with Pilot: open a snapshot, step a cascade and a
membership call trace, solve with the baseline and by hand, see the verdict and diff, find both attempts
in History and re-open them. No sleeps: every wait is on workers and the messages they post."""

from __future__ import annotations

from conftest import CASCADE_N, MEMBERSHIP_N, MEMBERSHIP_SNAPSHOT, SIZE, FakeClock, render_text, settle
from textual.widgets import DataTable, Select, TabbedContent, TextArea

from core.family import get_family
from tui.families.cascade import CascadeStepper
from tui.families.membership import MembershipStepper
from tui.screens.browser import BrowserScreen
from tui.screens.instance import InstanceScreen
from tui.widgets.table import VirtualTable


async def open_first(app, pilot, snapshot: str | None = None) -> InstanceScreen:
    browser = app.screen
    assert isinstance(browser, BrowserScreen)
    if snapshot is not None:
        browser.load_snapshot(snapshot)
        browser.query_one("#instances", VirtualTable).focus()
    else:
        await pilot.press("enter")  # open the highlighted snapshot: focus moves to its instances
    await pilot.press("enter")  # open the first instance
    await settle(pilot)
    assert isinstance(app.screen, InstanceScreen)
    return app.screen


async def test_browse_step_solve_baseline_and_human(make_app, workbench) -> None:
    clock = FakeClock(1000.0)
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        # Browser: both snapshots listed, the first (cascade) shown with one column per difficulty feature.
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert browser.query_one("#snapshots", DataTable).row_count == 2
        table = browser.query_one("#instances", VirtualTable)
        assert table.row_count == CASCADE_N
        assert "cascade_length" in table.columns and "category" in table.columns
        text = render_text(app)
        assert "cascade-demo" in text and f"{CASCADE_N} of {CASCADE_N} instances" in text

        screen = await open_first(app, pilot)
        instance = screen.instance
        assert instance.id == workbench.cascade[0].id
        assert "examples" in render_text(app)  # Problem tab: the examples table and the prompt

        # Step: to the end and back.
        await pilot.press("2")
        stepper = screen.stepper
        assert isinstance(stepper, CascadeStepper)
        assert stepper.trace is not None and stepper.count == len(instance.ground_truth["cascade"]) + 1
        for _ in range(stepper.count - 1):
            await pilot.press("n")
        assert stepper.at_end
        assert "all outputs reached" in render_text(app)
        await pilot.press("n")
        assert stepper.at_end  # stays at the last step
        await pilot.press("p")
        assert stepper.index == stepper.count - 2
        await pilot.press("g")
        assert stepper.index == 0
        await pilot.press("G")
        assert stepper.at_end

        # Solve with the baseline: the verdict shows up, the attempt is in the log.
        await pilot.press("3")
        assert screen.panel.choice == "baseline"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.query_one("#tabs", TabbedContent).active == "verdict"
        assert "✓ CORRECT" in render_text(app)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert [(r["solver"], r["source"], r["correct"]) for r in rows] == [("baseline", "tui", 1)]
        assert rows[0]["snapshot"] == "cascade-demo"

        # The stepper now steps the baseline's cascade beside the ground truth.
        await pilot.press("2")
        assert stepper.trace is not None and stepper.trace.reference is not None
        assert "Reference" in render_text(app)
        await pilot.press("a")
        assert stepper.trace.reference is None  # back to the ground truth alone

        # By hand: a wrong answer, with the active time on the (fake) clock recorded.
        await pilot.press("3")
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        editor = screen.query_one("#human-answer", TextArea)
        assert app.focused is editor  # choosing human puts the cursor in the editor
        assert editor.text == get_family("cascade").answer_template  # the answer's format, nothing of the answer
        clock.now += 500.0  # reading the problem before the first keystroke: on the clock, noted apart
        editor.text = '```python\ns = s.replace("zz", "y")\n'  # the first edit
        await pilot.pause()
        editor.move_cursor(editor.document.end)
        clock.now += 40.0
        await pilot.press(*"```")  # the last keys typed by hand
        assert editor.text.endswith("\n```")
        await pilot.press("escape")  # leaves the editor, keeps the text, stays on the instance
        assert isinstance(app.screen, InstanceScreen) and editor.text.endswith("```") and app.focused is not editor
        clock.now += 2.5
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 2
        human = rows[1]
        assert human["solver"] == "human" and human["human_time_s"] == 542.5 and human["correct"] == 0
        assert human["first_key_s"] == 500.0 and human["pauses"] == 0 and human["paused_s"] == 0.0
        assert human["verdict"] and human["error"] is None and human["status"] != "extraction_error"
        text = render_text(app)
        assert "✗ INCORRECT" in text and "diff" in text and "human time 9m02s" in text
        assert editor.text.endswith('s = s.replace("zz", "y")\n```')  # the sent answer stays, to correct

        # History lists both; re-opening the baseline one shows it in Verdict and Step.
        await pilot.press("5")
        history = screen.query_one("#history-table", DataTable)
        assert history.row_count == 2
        history.focus()
        await pilot.press("down", "enter")  # newest first: the second row is the baseline attempt
        await settle(pilot)
        assert screen.current is not None and screen.current.solver == "baseline"
        assert screen.query_one("#tabs", TabbedContent).active == "verdict"
        assert "✓ CORRECT" in render_text(app)
        await pilot.press("2")
        assert stepper.trace is not None and stepper.trace.reference is not None

        # Back in the browser the instance is marked solved by the baseline (a worker re-reads the log), and
        # the filter finds it; by default (models and people) it is not solved: the human answer was wrong.
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        browser.set_status("solved")
        await pilot.pause()
        assert browser.view == []
        browser.set_status("attempted")
        await pilot.pause()
        assert [r.id for r in browser.view] == [instance.id]
        browser.set_solver("baseline")
        browser.set_status("solved")
        await pilot.pause()
        assert [r.id for r in browser.view] == [instance.id]
        browser.set_status("unsolved")
        await pilot.pause()
        assert len(browser.view) == CASCADE_N - 1


async def test_membership_call_tree(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(app, pilot, MEMBERSHIP_SNAPSHOT)
        assert screen.family.id == "membership"
        text = render_text(app)
        assert "def is_member_0(x):" in text and "list of" in text  # code and the probe tree
        await pilot.press("2")
        stepper = screen.stepper
        assert isinstance(stepper, MembershipStepper)
        trace = stepper.trace
        assert trace is not None and trace.steps[0].kind == "call"
        kinds = {step.kind for step in trace.steps}
        assert {"call", "branch", "return"} <= kinds
        # Walk the whole call tree; each step's line is the one highlighted.
        for i in range(1, stepper.count):
            await pilot.press("n")
            assert stepper.index == i
        assert "returns" in trace.steps[-1].label
        await pilot.press("g")
        assert "call tree (evaluation order)" in render_text(app)
        # Play/pause: space starts the timer; each tick is one step (ticked by hand here: no sleeps).
        await pilot.press("space")
        assert stepper.playing and "▶ playing" in render_text(app)
        stepper._tick()
        stepper._tick()
        assert stepper.index == 2
        await pilot.press("space")
        assert not stepper.playing and stepper.index == 2
        # Solve by the baseline: membership answers are verdicts too.
        await pilot.press("3", "ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=screen.instance.id)
        assert len(rows) == 1 and rows[0]["correct"] == 1
        assert MEMBERSHIP_N == len(workbench.membership)


async def test_short_circuit_is_visible(make_app, workbench) -> None:
    """A negative membership instance shows the failing term with the terms `and` skips."""
    from core.family import get_family

    family = get_family("membership")
    traces = [family.trace(i) for i in workbench.membership]
    target = next(((n, t) for n, t in enumerate(traces) if any(s.data.get("short_circuit") for s in t.steps)), None)
    assert target is not None, "the sample has a negative instance whose `and` short-circuits"
    n, trace = target
    step = next(s for s in trace.steps if s.data.get("short_circuit"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.screen.load_snapshot(MEMBERSHIP_SNAPSHOT)
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[n].id, tab="step")
        await settle(pilot)
        screen = app.screen
        screen.stepper.go(step.index)
        await pilot.pause()
        assert "short-circuit" in render_text(app)
