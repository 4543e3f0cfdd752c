"""Keys, drafts, the editor, small things, the solved filter and footers, and "verification never blocks", each with a Pilot test
on the real app. No sleeps: waits are on workers, on the messages they post, or on a modal being up."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from conftest import (
    CASCADE_SNAPSHOT,
    MEMBERSHIP_SNAPSHOT,
    SIZE,
    TOY_SNAPSHOT,
    FakeClock,
    render_text,
    settle,
)
from textual.widgets import DataTable, Input, Select, Static, TextArea

from core.attempts import AttemptRecord
from core.family import get_family
from core.runner import RunConfig, create_run, set_status
from core.store import LogStore
from tui.screens.browser import BrowserScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.instance import TABS, InstanceScreen
from tui.screens.runs import RunsScreen
from tui.widgets.solve import SolvePanel
from tui.widgets.table import VirtualTable

HOLD_MAX_S = 300.0
DIGIT = {tab: str(n) for n, tab in enumerate(TABS, start=1)}


class HeldVerifier:
    """Stands in for the toy verifier's `time.sleep(meta.slow_verify_s)`: the verifier stays inside it until
    the test releases it (at the latest when the test ends), so "while it runs" never depends on how
    loaded the machine is."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def sleep(self, seconds: float) -> None:
        self.entered.set()
        self.release.wait(HOLD_MAX_S)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldVerifier]:
    import tests.kit.toyfamily.logic as toy_logic

    gate = HeldVerifier()
    monkeypatch.setattr(toy_logic, "time", SimpleNamespace(sleep=gate.sleep))
    yield gate
    gate.release.set()  # a verifier thread left behind by a cancelled check ends now


@pytest.fixture
def checking(monkeypatch: pytest.MonkeyPatch, held: HeldVerifier) -> asyncio.Event:
    """Set when a solve reaches its checking phase (the family's verifier is running, in a worker)."""
    event = asyncio.Event()
    real = SolvePanel.checking

    def checking(self: SolvePanel) -> None:
        real(self)
        event.set()

    monkeypatch.setattr(SolvePanel, "checking", checking)
    return event


def record(family, instance, snapshot: str, solver: str, response: str, run_id: str | None = None) -> dict:
    answer, verdict = family.check(instance, response)
    return AttemptRecord(run_id=run_id, snapshot=snapshot, instance_id=instance.id, family=family.id,
                         solver=solver, source="run", response=response, answer=answer, verdict=verdict,
                         correct=verdict.correct, score=verdict.score, status=verdict.status).row()


# ---- verification never blocks -----------------------------------------------------------------------------
async def test_a_slow_verifier_never_blocks_the_workbench(make_toy_app, toy_bench, checking, held) -> None:
    """The toy verifier sleeps meta.slow_verify_s (10 s) on this instance; here it is held inside that sleep
    until the test is done. While it runs (the solve is in its checking phase, nothing recorded yet) the
    keys switch tabs, the stepper steps, the help opens and the status says what is going on; released,
    the verdict arrives and the attempt is recorded."""
    slow = toy_bench.instances[0]
    assert slow.meta["slow_verify_s"] == 10.0
    app = make_toy_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(TOY_SNAPSHOT, slow.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.panel.choice == "baseline"
        await pilot.press("ctrl+s")
        await asyncio.wait_for(checking.wait(), timeout=30)
        assert await asyncio.to_thread(held.entered.wait, 30)  # the verifier is running, in another thread
        assert "checking the answer of baseline" in render_text(app)
        for tab in ("problem", "step", "history", "verdict", "solve"):
            await pilot.press(DIGIT[tab])
            assert screen.active_tab == tab
        await pilot.press("2", "G")
        assert screen.stepper.trace is not None and screen.stepper.at_end  # the stepper steps meanwhile
        await pilot.press("g")
        assert screen.stepper.index == 0
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert screen.panel.running and not held.release.is_set()
        assert app.workspace.log.attempts(instance_id=slow.id) == []
        held.release.set()
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=slow.id)
        assert [(r["solver"], r["correct"]) for r in rows] == [("baseline", 1)]
        assert screen.active_tab == "verdict" and "✓ CORRECT" in render_text(app)


async def test_ctrl_x_cancels_a_slow_check_from_any_tab(make_toy_app, toy_bench, checking) -> None:
    slow = toy_bench.instances[0]
    app = make_toy_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(TOY_SNAPSHOT, slow.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+s")
        await asyncio.wait_for(checking.wait(), timeout=30)
        await pilot.press("2", "ctrl+x")
        await settle(pilot)
        await pilot.press("3")
        assert not screen.panel.running and "cancelled" in render_text(app)
        assert app.workspace.log.attempts(instance_id=slow.id) == []


# ---- digits, tab keys and global keys; focus never in a field the user did not choose -----------
async def test_tab_and_global_keys_work_from_every_widget_but_text_fields(make_app, workbench, monkeypatch) -> None:
    """On every tab, from every focusable widget that does not take text, a digit switches the tab; `?`
    (a global key) opens the help from each kind of widget."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id)
        await settle(pilot)
        screen = app.screen
        await pilot.press("3", "ctrl+s")  # an attempt, so Verdict and History have something to focus
        await settle(pilot)
        chains: dict[str, list] = {}
        for tab in TABS:
            await pilot.press(DIGIT[tab])
            assert screen.active_tab == tab
            # Input and TextArea take digits and letters as text
            chains[tab] = [w for w in screen.focus_chain if not isinstance(w, Input | TextArea)]
        # The widgets tab by tab in turn, and each one's digit goes to the next one's tab: every tab switch
        # is tried from a widget and brings the next widget on screen (a switch there and back per widget
        # made the test twice as long: Textual lays the tab out again at each switch).
        order = [(tab, chain.pop(0)) for _ in range(max(map(len, chains.values())))
                 for tab, chain in chains.items() if chain]
        tried: set[str] = set()
        helped: set[type] = set()
        for n, (tab, widget) in enumerate(order):
            if screen.active_tab != tab:
                await pilot.press(DIGIT[tab])
                assert screen.active_tab == tab
            if type(widget) not in helped:
                helped.add(type(widget))
                widget.focus()
                await pilot.pause()
                await pilot.press("question_mark")
                assert isinstance(app.screen, HelpScreen), f"? from {widget!r}"
                await pilot.press("escape")
                assert app.screen is screen
            widget.focus()
            await pilot.pause()
            assert app.focused is widget, widget
            following = order[n + 1][0] if n + 1 < len(order) else tab
            target = following if following != tab else ("history" if tab != "history" else "problem")
            await pilot.press(DIGIT[target])
            assert screen.active_tab == target, f"{DIGIT[target]} from {widget!r} on {tab}"
            tried.add(f"{tab}:{widget.id or type(widget).__name__}")
        assert {"solve:solver", "solve:send", "step:stepper", "history:history-table"} <= tried
        assert len(helped) >= 5


async def test_solve_tab_puts_focus_on_the_picker_never_in_a_field(make_app, workbench, monkeypatch) -> None:
    """The model name is not overwritten by a digit meant for the tabs; `e` enters the field on purpose;
    `s` opens the picker directly; a remembered human solver does not grab the keys either."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    app = make_app()
    app.solve_prefs.update({"choice": "model:openai", "model-name": "qwen3"})
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[0].id)
        await settle(pilot)
        screen = app.screen
        name = screen.query_one("#model-name", Input)
        await pilot.press("3")
        assert isinstance(app.focused, Select) and app.focused.id == "solver"
        await pilot.press("4")
        assert screen.active_tab == "verdict" and name.value == "qwen3"
        await pilot.press("3", "e")
        assert app.focused is name
        await pilot.press("4")  # in the field the user chose, a digit is text
        assert name.value == "qwen34" and screen.active_tab == "solve"
        await pilot.press("escape", "4")
        assert screen.active_tab == "verdict"
        await pilot.press("3", "s")  # the picker, opened, in one key
        await pilot.pause()
        assert screen.query_one("#solver", Select).expanded
        await pilot.press("escape")
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        # out of the editor; then back to the browser takes escape twice (a reflexive second one stays)
        await pilot.press("escape", "escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[1].id)
        await settle(pilot)
        second = app.screen
        await pilot.press("3")
        assert second.panel.choice == "human" and not isinstance(app.focused, TextArea)
        await pilot.press("e", "q")  # typed into the answer, not quitting
        assert app.is_running and isinstance(app.focused, TextArea) and "q" in app.focused.text


async def test_q_while_a_request_runs_quits_not_types(make_toy_app, toy_bench, checking) -> None:
    """Sending moves the focus out of the editor: `q` mid-request asks to quit instead of landing in it."""
    app = make_toy_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(TOY_SNAPSHOT, toy_bench.instances[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        editor = screen.query_one("#human-answer", TextArea)
        assert app.focused is editor
        await pilot.press(*"5", "ctrl+s")
        await asyncio.wait_for(checking.wait(), timeout=20)
        assert not isinstance(app.focused, Input | TextArea)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen) and "q" not in editor.text
        await pilot.press("n")
        assert app.screen is screen and screen.panel.running
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert editor.text == "Answer: 5"  # cancelled: the answer is still there to send again


# ---- leaving an instance keeps the draft and its clock, and asks before cancelling a request ------
async def test_leaving_keeps_the_human_draft_and_its_clock(make_app, workbench) -> None:
    clock = FakeClock(1000.0)
    app = make_app(clock=clock)
    instance = workbench.membership[0]
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        await pilot.press("F")
        clock.now += 30.0
        await pilot.press(*"al")
        await pilot.press("escape", "q")  # out of the editor: quitting now would lose the draft, so it asks
        assert isinstance(app.screen, ConfirmScreen) and "unsent" in render_text(app)
        await pilot.press("n", "escape")  # leaving the instance asks nothing: the draft is kept
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen) and len(app.drafts) == 1
        await pilot.press("q")  # a kept draft is unsent too
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert isinstance(app.screen, BrowserScreen)
        clock.now += 500.0  # away: not on the clock
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        again = app.screen
        assert again is not screen
        editor = again.query_one("#human-answer", TextArea)
        assert editor.text == "Fal" and again.panel.choice == "human" and again.has_class("-answering")
        assert "unsent answer is back" in render_text(app)
        editor.focus()
        clock.now += 4.0
        await pilot.press("s", "e", "ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert [(r["solver"], r["response"], r["human_time_s"]) for r in rows] == [("human", "False", 34.0)]
        assert app.drafts == {}


async def test_leaving_while_a_request_runs_asks_first(make_toy_app, toy_bench, checking) -> None:
    slow = toy_bench.instances[0]
    app = make_toy_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(TOY_SNAPSHOT, slow.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+s")
        await asyncio.wait_for(checking.wait(), timeout=20)
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is screen and screen.panel.running
        app.action_browser()  # the palette's "Browser" asks too
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.workspace.log.attempts(instance_id=slow.id) == []


# ---- the editor keeps the sent answer and grows with it -------------------------------------------
async def test_sent_answer_stays_and_the_editor_grows(make_app, workbench) -> None:
    instance = workbench.cascade[0]
    rules = "\n".join(f's = s.replace("{chr(97 + i % 10)}", "{chr(97 + (i + 1) % 10)}")' for i in range(20))
    answer = f"```python\n{rules}\n```"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        editor = screen.query_one("#human-answer", TextArea)
        editor.text = answer
        await pilot.pause()
        await pilot.pause()
        assert editor.content_region.height >= answer.count("\n") + 1  # all 22 lines in view, no scrolling
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert editor.text == answer  # kept for a correction
        await pilot.press("3")
        assert "edit the answer to start a new attempt" in render_text(app)
        editor.focus()
        editor.move_cursor(editor.document.end)
        await pilot.press("backspace", "backspace", "backspace", *"```", "ctrl+s")
        await settle(pilot)
        assert len(app.workspace.log.attempts(instance_id=instance.id)) == 2


# ---- the small things ------------------------------------------------------------------------------
async def test_switching_solver_clears_the_last_status(make_app, workbench, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("3")
        assert "baseline: correct" in render_text(app) and screen.panel.stream_text
        screen.query_one("#solver", Select).value = "model:openai"
        await pilot.pause()
        text = render_text(app)
        assert "baseline: correct" not in text and "The model-name field has the focus: type the model name" in text and not screen.panel.stream_text


async def test_runs_state_column_and_metrics_title_follow_the_run(make_app, workbench, monkeypatch) -> None:
    import tui.screens.runs as runs_screen

    # a run whose report is costly (none is, here): its metrics are recomputed at most every REPORT_EVERY_S
    monkeypatch.setattr(runs_screen, "INLINE_REPORT_S", 0.0)
    monkeypatch.setattr(runs_screen, "INLINE_ATTEMPTS", 0)
    family = get_family("membership")
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="baseline", samples=1), family,
                        total=len(workbench.membership))
    for instance in workbench.membership[:3]:
        store.add_attempt(record(family, instance, MEMBERSHIP_SNAPSHOT, "baseline", family.oracle_response(instance),
                                 run_id))
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen) and f"3/{len(workbench.membership)}" in render_text(app)
        for instance in workbench.membership[3:]:
            store.add_attempt(record(family, instance, MEMBERSHIP_SNAPSHOT, "baseline",
                                     family.oracle_response(instance), run_id))
        set_status(store, run_id, "finished")
        screen._tick()  # the report is throttled: its metrics are not recomputed yet
        await settle(pilot)
        n = len(workbench.membership)
        text = render_text(app)
        assert "finished" in text and "finishe " not in text
        assert f"{n}/{n}" in text and "metrics over 3 attempt(s) · the run moved on: updating…" in text
        clock.now += 10.0
        screen._tick()
        await settle(pilot)
        assert f"metrics over {n} attempt(s)" in render_text(app) and "updating" not in render_text(app)
    store.close()


def test_plot_legend_never_hides_an_accuracy_of_one() -> None:
    """The runs screen plots one run without a legend (the head names it): the top row shows the data."""
    from core.plot import terminal_plot
    from tui.screens.runs import PLOT_HEIGHT, PLOT_WIDTH

    series = [("1", 1.0, 3), ("2", 1.0, 3), ("3", 1.0, 2)]
    plot = terminal_plot({"": series}, "depth", width=PLOT_WIDTH, height=PLOT_HEIGHT, color=False)
    top = next(line for line in plot.splitlines() if line.startswith("1.00"))
    assert sum(ch in "▄▀▖▗▘▝▚▞█" for ch in top) > PLOT_WIDTH // 2  # the 1.0 line runs across the plot


async def test_plot_in_the_runs_screen_shows_data_at_one(make_app, workbench) -> None:
    family = get_family("membership")
    store = LogStore(workbench.log)
    run_id = create_run(store, RunConfig(snapshot=MEMBERSHIP_SNAPSHOT, solver="oracle", samples=1), family,
                        total=len(workbench.membership))
    for instance in workbench.membership:
        store.add_attempt(record(family, instance, MEMBERSHIP_SNAPSHOT, "oracle", family.oracle_response(instance),
                                 run_id))
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot)
        text = render_text(app)
        top = next(line for line in text.splitlines() if "1.00┤" in line)
        assert run_id not in top and "┌" not in top.split("1.00┤", 1)[1]  # no legend box over the data


async def test_filter_select_shows_unattempted_whole(make_app, workbench) -> None:
    for size in (SIZE, (80, 24)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.screen.set_status("unattempted")
            await pilot.pause()
            text = render_text(app)
            assert "unattempted" in text and "models & people" in text, size


async def test_search_says_a_comparison_needs_a_number(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        browser.query_one("#search", Input).value = "cascade_length>=abc"
        await pilot.pause()
        info = browser.query_one("#table-info", Static)
        assert browser.view == []
        assert "cascade_length>=abc: not a number" in str(info.content)  # (the line may wrap on screen)
        browser.query_one("#search", Input).value = "cascade_length>=2"
        await pilot.pause()
        assert browser.view and "not a number" not in str(info.content)


async def test_a_without_an_attempt_says_so(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="step")
        await settle(pilot)
        await pilot.press("a")
        assert any("No attempt is open" in n.message for n in app._notifications)
        assert app.screen.showing == "truth"


async def test_membership_attempt_beside_the_truth_has_both_traces_and_a_verdict(make_app, workbench) -> None:
    family = get_family("membership")
    instance = workbench.membership[0]
    wrong = "False" if family.oracle_response(instance).strip().endswith("True") else "True"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        screen.query_one("#human-answer", TextArea).text = wrong
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("2")
        assert screen.showing == "answer"
        trace = screen.stepper.trace
        assert trace is not None and trace.reference is not None  # the answer's trace and the truth's
        text = render_text(app)
        # One call tree: the answer (a boolean) beside the same execution twice says nothing
        assert "submitted answer" in text and text.count("call tree (evaluation order)") == 1
        assert "✗ incorrect" in text and "wrong" in text  # the verdict, on the Step tab too


async def test_decisive_path_is_not_an_expected_got_pair(make_app, workbench) -> None:
    family = get_family("membership")
    instance = workbench.membership[0]
    store = LogStore(workbench.log)
    row = record(family, instance, MEMBERSHIP_SNAPSHOT, "human", "True")
    store.add_attempt(row)
    store.close()
    path = next(r for r in family.check(instance, "True")[1].diff if r.label == "decisive path")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#history-table", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        text = render_text(app)
        line = next(line for line in text.splitlines() if "decisive path" in line and "diff" not in line)
        assert path.expected.split(" -> ")[0].split(", decided by")[0] in line  # the path, labelled as a path
        decider = family.check(instance, "True")[1].details["decisive_path"][-1]["term_at"]
        assert "decided by" in text and decider in text.replace("\n", " ")
        # the answer row keeps its expected/got columns
        assert any("answer" in line and "True" in line for line in text.splitlines())


async def test_history_says_incorrect_not_valid(make_app, workbench) -> None:
    family = get_family("cascade")
    instance = workbench.cascade[0]
    store = LogStore(workbench.log)
    wrong = '```python\ns = s.replace("zz", "y")\n```'
    row = record(family, instance, CASCADE_SNAPSHOT, "human", wrong)
    assert row["status"] == "valid" and not row["correct"]
    store.add_attempt(row)
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(CASCADE_SNAPSHOT, instance.id, tab="history")
        await settle(pilot)
        text = render_text(app)
        assert "✗ incorrect" in text and "✗ valid" not in text


# ---- the solved filter counts models and people, never the oracle ---------------------------------
async def test_solved_counts_models_and_people_never_the_oracle(make_app, workbench) -> None:
    family = get_family("membership")
    by_oracle, by_baseline, by_model, by_person = workbench.membership[:4]
    store = LogStore(workbench.log)
    for instance, solver in ((by_oracle, "oracle"), (by_baseline, "baseline"), (by_model, "openai:gpt-x"),
                             (by_person, "human")):
        store.add_attempt(record(family, instance, MEMBERSHIP_SNAPSHOT, solver, family.oracle_response(instance)))
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        browser.load_snapshot(MEMBERSHIP_SNAPSHOT)
        browser.set_status("solved")
        await pilot.pause()
        assert {r.id for r in browser.view} == {by_model.id, by_person.id}
        text = render_text(app)
        assert "solved 2, attempted 2" in text and "models & people" in text
        browser.set_solver("*")  # every solver but the oracle
        await pilot.pause()
        assert {r.id for r in browser.view} == {by_model.id, by_person.id, by_baseline.id}
        options = [value for _, value in browser.query_one("#solver-filter", Select)._options]
        assert "oracle" not in options and "baseline" in options


# ---- the footers say the keys; the Solve tab has a key for the solver picker ----------------------
async def test_footers_show_tab_keys_pane_key_and_solver_key(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = render_text(app).splitlines()[-1]
        assert "b Pane" in footer
        app.screen.query_one("#instances", VirtualTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        footer = render_text(app).splitlines()[-1]
        assert "12345 Tabs" in footer
        await pilot.press("3")
        footer = render_text(app).splitlines()[-1]
        assert "s Solver" in footer and "e Type" in footer
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.query_one("#solver", Select).expanded  # one key, not nine Tabs


async def test_a_focus_on_its_way_never_undoes_the_chosen_tab(make_app, workbench) -> None:
    """A widget of the Solve pane focused, and in the same turn the Verdict tab chosen (as when an answer is
    sent, then checked at once): the focus's late messages leave Verdict on screen, its widget focused.
    Focusing a widget of a hidden pane later still shows that pane."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[0].id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen) and screen.active_tab == "solve"
        for _ in range(3):
            screen.query_one("#send").focus()  # deeper in its pane than Verdict's widget: its messages come last
            screen.action_show_tab("verdict")
            await settle(pilot)
            assert screen.active_tab == "verdict", "a late focus message switched back"
            assert app.focused is screen.query_one("#verdict-scroll")
            await pilot.press("3")
            assert screen.active_tab == "solve"
        await pilot.press("4")
        screen.query_one("#solver").focus()
        await settle(pilot)
        assert screen.active_tab == "solve" and app.focused is screen.query_one("#solver")
