"""Keys, focus and human mode: arrows step, tabs say their number key, a double Enter opens one instance,
typing a model name never quits, the human clock counts active time only and the answer stays hidden
while a person answers, `q` goes back on Runs, the footer keeps Help and Quit at 80 columns."""

from __future__ import annotations

import io

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, SIZE, FakeClock, render_text, settle
from rich.console import Console
from textual.command import CommandPalette
from textual.widgets import DataTable, Input, Select, TabbedContent, TextArea

from core.attempts import AttemptRecord, HumanTiming
from core.family import get_family
from core.runner import RunConfig, create_run
from core.store import LogStore
from tui.families.membership import LINE_STYLE, code_syntax
from tui.screens.browser import BrowserScreen
from tui.screens.help import HELP, HelpScreen
from tui.screens.instance import InstanceScreen
from tui.screens.runs import RunsScreen
from tui.widgets.solve import HumanClock, solver_options
from tui.widgets.table import VirtualTable


async def test_double_enter_opens_one_instance(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        browser.query_one("#instances", VirtualTable).focus()
        await pilot.press("enter", "enter")  # the second arrives before the first instance screen is up
        await settle(pilot)
        assert sum(isinstance(s, InstanceScreen) for s in app.screen_stack) == 1
        assert isinstance(app.screen, InstanceScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is browser
        await pilot.click(VirtualTable, offset=(5, 2), times=2)  # double click: one screen too
        await settle(pilot)
        assert sum(isinstance(s, InstanceScreen) for s in app.screen_stack) == 1


async def test_arrows_step_tabs_show_numbers_and_palette_steps_truth(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="step")
        await settle(pilot)
        screen = app.screen
        text = render_text(app)
        assert all(title in text for title in ("1 Problem", "2 Step", "3 Solve", "4 Verdict", "5 History"))
        stepper = screen.stepper
        await pilot.press("right", "right")
        assert stepper.index == 2
        await pilot.press("left")
        assert stepper.index == 1
        # Solve with the baseline: the stepper then steps its answer beside the truth.
        await pilot.press("3", "ctrl+s")
        await settle(pilot)
        await pilot.press("2", "right")
        assert screen.showing == "answer" and stepper.index == 1
        await pilot.press("ctrl+p", *"Step the ground truth")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and screen.active_tab == "step"
        assert screen.showing == "truth" and stepper.trace is screen.truth and stepper.index == 0


def test_help_lists_keys_the_app_binds() -> None:
    """Every key the help promises for the stepper is bound on the instance screen."""
    keys = {key for b in InstanceScreen.BINDINGS for key in b.key.split(",")}
    assert {"n", "p", "right", "left", "g", "G", "space", "a", "ctrl+s", "ctrl+x", "1", "5"} <= keys
    assert "→ ←" in HELP and "`q`" in HELP and "`b`" in HELP


async def test_typing_a_model_name_never_quits(make_app, workbench, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        select = screen.query_one("#solver", Select)
        assert app.focused is select
        values = [value for _, value in solver_options(sorted(screen.family.local_solvers()), [{"kind": "openai",
                                                                                              "base_url": "x"}])]
        assert values[-1] == "oracle"  # the answer-revealing solver comes last
        # As a person does it: open the list, move down to the model endpoint, enter.
        await pilot.press("enter", *["down"] * values.index("model:openai"), "enter")
        await settle(pilot)
        assert screen.panel.choice == "model:openai"
        name = screen.query_one("#model-name", Input)
        assert app.focused is name
        await pilot.press(*"qwen3")
        await settle(pilot)
        assert app.is_running and app.screen is screen and name.value == "qwen3"
        assert app.check_action("quit", ()) is False  # and `q` is not offered while typing


async def test_human_clock_counts_active_time_and_hides_the_answer(make_app, workbench) -> None:
    clock = FakeClock(1000.0)
    app = make_app(clock=clock)
    instance = workbench.membership[0]
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        # The stream box of an earlier attempt is cleared when a human attempt starts.
        await pilot.press("ctrl+s")  # baseline
        await settle(pilot)
        await pilot.press("3")
        assert screen.panel.stream_text
        screen.query_one("#solver", Select).value = "human"
        await settle(pilot)  # the change is a message; its handler moves the focus (a deferred call)
        editor = screen.query_one("#human-answer", TextArea)
        assert editor.text == "" and editor.placeholder == get_family("membership").answer_placeholder
        assert app.focused is editor, app.focused
        assert screen.panel.stream_text == "" and screen.has_class("-answering")
        # Step and Verdict show nothing of the answer while the attempt is in progress.
        await pilot.press("escape", "2")
        text = render_text(app)
        assert "hidden while you answer" in text and "step 1/" not in text and "call tree" not in text
        await pilot.press("n")
        assert screen.stepper.index == 0  # the step keys are off too
        await pilot.press("4")
        assert "hidden while you answer" in render_text(app) and "CORRECT" not in render_text(app)
        clock.now += 300.0  # looking around, away from Solve: a pause (the clock ran from human chosen on Solve)
        await pilot.press("3")
        editor.focus()
        await pilot.press("F")  # the first keystroke starts the clock
        clock.now += 10.0
        await pilot.press("escape", "1")  # away from Solve: paused
        clock.now += 100.0
        await pilot.press("3")
        clock.now += 5.0
        await pilot.press("f1")  # help on top (f1 works from the editor): paused
        assert isinstance(app.screen, HelpScreen)
        clock.now += 50.0
        await pilot.press("escape")
        clock.now += 2.0
        editor.focus()
        await pilot.press(*"alse", "ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        human = rows[-1]
        assert human["solver"] == "human" and human["response"] == "False"
        assert human["human_time_s"] == 17.0  # 10 + 5 + 2: only while Solve was on screen
        # the first key came as soon as Solve was back; three pauses: Step, Problem, the help (300 + 100 + 50)
        assert (human["first_key_s"], human["pauses"], human["paused_s"]) == (0.0, 3, 450.0)
        # Submitted: the verdict is shown again.
        assert not screen.has_class("-answering") and screen.active_tab == "verdict"
        assert "hidden while you answer" not in render_text(app) and "human time 17.0s" in render_text(app)


def test_human_clock_pauses_and_resumes() -> None:
    clock = FakeClock(0.0)
    timer = HumanClock(clock)
    timer.resume()  # not started: nothing runs
    clock.now = 5.0
    assert timer.elapsed() == 0.0
    timer.start()
    clock.now = 8.0
    timer.pause()
    clock.now = 20.0
    timer.resume()
    clock.now = 21.5
    assert timer.elapsed() == 4.5 and timer.running
    timer.key()
    clock.now = 23.0
    timer.key()  # only the first keystroke counts
    timer.stop()  # sent: not a pause
    clock.now = 30.0
    assert timer.timing() == HumanTiming(active_s=6.0, first_key_s=4.5, pauses=1, paused_s=12.0)


async def test_solve_choices_persist_for_the_session(make_app, workbench, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#solver", Select).value = "model:openai"
        await pilot.pause()
        for field, value in (("#model-name", "qwen3:8b"), ("#temperature", "0.2"), ("#top-p", "0.9")):
            screen.query_one(field, Input).value = value
        screen.query_one("#effort", Select).value = "high"
        await pilot.pause()
        assert screen.panel.model_options() == {"temperature": 0.2, "top_p": 0.9, "reasoning_effort": "high"}
        screen.set_focus(None)
        await pilot.press("escape")
        await settle(pilot)
        # Another family's instance: a new instance screen (one of the same family is shown in the kept one)
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[1].id, tab="solve")
        await settle(pilot)
        again = app.screen
        assert again is not screen and again.panel.choice == "model:openai"
        assert again.query_one("#model-name", Input).value == "qwen3:8b"
        assert again.panel.model_options() == {"temperature": 0.2, "top_p": 0.9, "reasoning_effort": "high"}


def test_active_code_line_has_a_background() -> None:
    code = "def f(x):\n    return x\n\n# longer comment line here"
    console = Console(width=80, file=io.StringIO(), color_system="truecolor")
    lines = console.render_lines(code_syntax(code, 2, [11, 12]), console.options, pad=False)
    active = lines[1]
    assert "return x" in "".join(s.text for s in active)
    background = console.get_style(LINE_STYLE).bgcolor
    painted = "".join(s.text for s in active if s.style and s.style.bgcolor == background)
    assert "return" in painted and len(painted.rstrip("x ")) >= len("    return")
    assert not any(s.style and s.style.bgcolor == background for s in lines[0])


async def test_membership_stepper_keeps_the_active_step_in_view(make_app, workbench) -> None:
    family = get_family("membership")
    n = max(range(len(workbench.membership)), key=lambda k: len(family.trace(workbench.membership[k]).steps))
    app = make_app()
    async with app.run_test(size=(90, 24)) as pilot:  # narrow: the call tree goes above the code
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[n].id, tab="step")
        await settle(pilot)
        screen = app.screen
        text = render_text(app)
        assert text.index("call tree") < text.index("code")
        scroll = screen.query_one("#step-scroll")
        await pilot.press("G")
        await pilot.pause()
        y = screen.stepper.active_line()
        assert y is not None and scroll.scroll_y > 0
        assert scroll.scroll_y <= y < scroll.scroll_y + scroll.size.height
        await pilot.press("g")
        await pilot.pause()
        assert scroll.scroll_y == 0
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:  # wide: code at its natural width beside the tree
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[n].id, tab="step")
        await settle(pilot)
        text = render_text(app)
        code = app.screen.stepper.trace.meta.get("rendered_code") or workbench.membership[n].code
        longest = max(code.splitlines(), key=len).strip()
        assert longest in text  # never wrapped
        row = next(line for line in text.splitlines() if "call tree" in line)
        assert "code" in row  # side by side


async def test_runs_state_cursor_and_hint(make_app, workbench) -> None:
    family = get_family("membership")
    store = LogStore(workbench.log)
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        text = "".join(render_text(app).split())  # the hint may wrap
        # Not the default database: --db goes before the verb.
        assert "".join(f"sembench --db {workbench.log} run --snapshot NAME --solver baseline".split()) in text
        config = RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1)
        stale = create_run(store, config, family, total=8)
        with store.db.conn:  # its process went away long ago
            store.db.conn.execute("update runs set heartbeat = '2000-01-01T00:00:00.000+00:00' where id = ?", [stale])
        live = create_run(store, config, family, total=8)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        screen._tick()
        await settle(pilot)
        assert screen.states == {stale: "stale", live: "running"}
        text = render_text(app)
        assert "stale" in text and "1 running" in text and "1 stale" in text
        table = screen.query_one("#runs-table", DataTable)
        await pilot.press("down")  # the older (stale) run
        await settle(pilot)
        assert screen.selected == stale
        newer = create_run(store, config, family, total=8)  # a new run appears at the top
        screen._tick()
        await settle(pilot)
        assert [r["id"] for r in screen.runs][0] == newer
        assert screen.selected == stale and table.coordinate_to_cell_key(table.cursor_coordinate).row_key == stale
        await pilot.press("q")  # q goes back here, it does not quit
        assert isinstance(app.screen, BrowserScreen) and app.is_running
    store.close()


async def test_footer_keeps_help_and_quit_at_80_columns(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = render_text(app).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer
        await pilot.press("b")  # the snapshot pane folds away for room
        assert app.screen.query_one("#snapshot-pane").has_class("collapsed")
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="step")
        await settle(pilot)
        footer = render_text(app).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer


async def test_solver_filter_history_run_and_family_column(make_app, workbench) -> None:
    family = get_family("membership")
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1), family,
                        total=1)
    solved, tried = workbench.membership[0], workbench.membership[1]
    for instance, solver, rid, response in ((solved, "baseline", run_id, family.oracle_response(solved)),
                                            (tried, "human", None, "no idea")):
        answer, verdict = family.check(instance, response)
        store.add_attempt(AttemptRecord(run_id=rid, snapshot=MEMBERSHIP_SNAPSHOT, instance_id=instance.id,
                                        family=family.id, solver=solver, source="run", response=response,
                                        answer=answer, verdict=verdict, correct=verdict.correct,
                                        score=verdict.score, status=verdict.status).row())
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        snapshots = browser.query_one("#snapshots", DataTable)
        assert [str(c.label) for c in snapshots.columns.values()][:2] == ["name", "family"]
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        browser.set_status("attempted")
        await pilot.pause()
        assert {r.id for r in browser.view} == {tried.id}  # by default, models and people only
        browser.set_solver("*")
        await pilot.pause()
        assert {r.id for r in browser.view} == {solved.id, tried.id}
        browser.set_solver("human")
        await pilot.pause()
        assert [r.id for r in browser.view] == [tried.id]
        browser.set_status("solved")
        await pilot.pause()
        assert browser.view == []
        browser.set_solver("baseline")
        await pilot.pause()
        assert [r.id for r in browser.view] == [solved.id]
        browser.query_one("#instances", VirtualTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("5")
        assert run_id in render_text(app)  # History names the run an attempt belongs to
        # History refreshes when the screen comes back (an attempt written meanwhile, e.g. by a run).
        writer = LogStore(workbench.log)
        answer, verdict = family.check(solved, "True")
        writer.add_attempt(AttemptRecord(snapshot=MEMBERSHIP_SNAPSHOT, instance_id=solved.id, family=family.id,
                                         solver="oracle", source="run", response="True", answer=answer,
                                         verdict=verdict, correct=verdict.correct, score=verdict.score,
                                         status=verdict.status).row())
        writer.close()
        await pilot.press("question_mark", "escape")
        await settle(pilot)
        assert app.screen.query_one("#history-table", DataTable).row_count == 2


async def test_title_and_table_show_booleans_alike(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id)
        await settle(pilot)
        title = str(app.screen.query_one("#instance-title").render())
        assert "feeding=no" in title and "False" not in title
        assert app.screen.query_one("#tabs", TabbedContent).active == "problem"
