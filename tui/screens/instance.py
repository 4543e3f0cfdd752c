"""One instance, in tabs: Problem, Step, Solve, Verdict, History.

The family's views come from `tui.families.view_for` (its own module, else the generic ones).

Solving runs in a thread worker with its own event loop (model requests, local solvers), and the answer is
checked (extracted, verified, traced) in a further thread, so the UI and the stream never wait for a
verifier, however slow, and ctrl+x cancels at any point; the worker posts deltas, the checking phase and
the finished record back, and the attempt is written to the log database here, on the UI thread that owns
the connection.

Leaving the instance while a request runs asks first; an unsent human answer is kept (with its clock) for
when the user comes back.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.widgets import DataTable, Header, Input, Static, TabbedContent, Tabs, TextArea

from core.attempts import HUMAN_PREFIX, AttemptRecord, HumanTiming, is_person, record_from
from core.family import Family
from core.instance import Instance
from core.solvers import FixedSolver, SolveResult, is_model_spec, make_solver
from core.store import now_iso
from core.trace import Trace
from tui.attempt_info import configured_endpoints, cost_cell, finish_cell, tokens_cell
from tui.data import AttemptView, fmt_seconds, short_time
from tui.families import view_for
from tui.messages import AttemptLoaded, SolveCancelled, SolveDelta, SolveDone, TraceReady
from tui.screens.base import SembenchScreen
from tui.widgets.containers import Pane, Scroll, Tabbed
from tui.widgets.diff import verdict_renderable
from tui.widgets.footer import Footer
from tui.widgets.lines import Lines, draw
from tui.widgets.problem import meta_line, prompt_renderable
from tui.widgets.rendered import Rendered
from tui.widgets.solve import (
    HUMAN,
    AnswerFormat,
    CancelRequest,
    Draft,
    HumanProgress,
    SolvePanel,
    SolvePhase,
    SolveRequest,
)
from tui.widgets.steppers import STEP_BINDINGS, StepperView
from tui.widgets.table import RowTable

TABS = ("problem", "step", "solve", "verdict", "history")
TITLES = {"problem": "1 Problem", "step": "2 Step", "solve": "3 Solve", "verdict": "4 Verdict", "history": "5 History"}
STEP_ACTIONS = {"step", "toggle_trace"}
SOLVE_ACTIONS = {"send", "pick_solver", "edit_answer"}
HISTORY_ACTIONS = {"mark_attempt", "compare"}
MARK = "● "  # the History `#` cell of a marked attempt
GAVE_UP = "revealed"  # the attempt's `usage` key: the person revealed the answer before sending this one
TABS_GROUP = Binding.Group("Tabs", compact=True)
HIDDEN = ("hidden while you answer — send your answer first (Solve tab, ctrl+s) or pick another solver; "
          "v reveals it (giving up: recorded on your attempt)")


def source_cell(row: dict[str, Any]) -> Text:
    """Where an attempt came from; a human one sent after revealing the answer says so."""
    text = Text(row.get("source") or "")
    usage = row.get("usage")
    try:
        usage = json.loads(usage) if isinstance(usage, str) else usage
    except ValueError:
        usage = None
    if isinstance(usage, dict) and usage.get(GAVE_UP):
        text.append(" · revealed", style="yellow")
    return text


def blocked_reason(family: Family) -> str | None:
    """Why this machine cannot check the family's answers (a tool missing, core.readiness), or None."""
    from core.readiness import not_ready_message, readiness

    state = readiness(family)
    return None if state.ready else not_ready_message(state)


def endpoint_list() -> tuple[list[dict[str, Any]], str | None]:
    """Configured model endpoints (safe descriptions), or the config error to show."""
    try:
        from core.models.config import describe_endpoints

        return describe_endpoints(), None
    except Exception as exc:  # a broken config file must not stop the instance view
        return [], str(exc)


PREPARED_KEPT = 4  # the two neighbours, with room for a draw that lands after the next move
# The neighbours are drawn this long after an instance is shown: drawing in a thread competes with the
# first frame for the interpreter, and keys pressed faster than this need no neighbour ready.
NEIGHBOURS_AFTER_S = 0.1


@dataclass
class Prepared:
    """A neighbour of the instance shown (`]`/`[`), loaded and its Problem tab drawn ahead (strips by width)."""

    snapshot: str
    instance: Instance
    structured: Any
    structured_strips: dict[int, list[Strip]]
    prompt: Any
    prompt_strips: dict[int, list[Strip]]


class InstanceScreen(SembenchScreen):
    # A short terminal (under 20 rows, e.g. 60x16) folds the problem above the human editor and keeps
    # the header to one line, so the editor stays on screen (the Problem tab still has it all).
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (20, "-tall")]
    # `]`/`[` show the browser's next instance in this screen (`swap`), drawn ahead; a session's and a
    # review's screens go their own way (a new screen per instance) and draw nothing ahead
    WALKS_IN_PLACE: ClassVar[bool] = True
    BINDINGS = [
        # escape leaves a text field first; straight after that, leaving the instance takes escape twice
        # more (a reflexive double escape stays here), which the footer says (check_action picks one)
        Binding("escape", "leave_editor", "Leave editor"),
        Binding("escape", "back_twice", "Back: esc again"),
        Binding("escape", "back", "Back"),
        # Digits switch tabs from every widget that does not take them as text (all but the text fields).
        Binding("1", "show_tab('problem')", "Problem", group=TABS_GROUP),
        Binding("2", "show_tab('step')", "Step", group=TABS_GROUP),
        Binding("3", "show_tab('solve')", "Solve", group=TABS_GROUP),
        Binding("4", "show_tab('verdict')", "Verdict", group=TABS_GROUP),
        Binding("5", "show_tab('history')", "History", group=TABS_GROUP),
        *STEP_BINDINGS,
        Binding("space", "step('play')", "Play/pause"),
        Binding("space", "mark_attempt", "Mark"),  # History tab (check_action picks one of the two)
        Binding("c", "compare", "Compare"),
        Binding("a", "toggle_trace", "Answer/truth"),
        Binding("s", "pick_solver", "Solver"),
        Binding("e", "edit_answer", "Type"),
        Binding("v", "reveal", "Reveal (give up)"),
        Binding("h", "reveal_hints", "Hints"),
        # in `?` help, not the footer (it is full already)
        Binding("y", "copy", "Copy", show=False),
        Binding("E", "export", "Export", show=False),
        Binding("R", "reask", "Re-ask"),
        # priority: they work from the model-name input and the answer editor too (ctrl+x only while a
        # request runs; otherwise it is the editor's cut)
        Binding("ctrl+s", "send", "Send", priority=True),
        # the problem above the editor (Solve) or the Problem tab, scrolled from anywhere, the editor too
        Binding("ctrl+down", "scroll_problem(1)", "Scroll the problem down", show=False, priority=True),
        Binding("ctrl+up", "scroll_problem(-1)", "Scroll the problem up", show=False, priority=True),
        Binding("ctrl+x", "cancel", "Cancel", priority=True),
        # the browser's list, without going back to it (the same leave path as escape: drafts are kept)
        Binding("right_square_bracket", "move(1)", "Next inst.", key_display="]"),
        Binding("left_square_bracket", "move(-1)", "Prev inst.", key_display="["),
        Binding("m", "bookmark", "Bookmark"),
        Binding("N", "edit_note", "Note"),
    ]

    def __init__(self, family: Family, instance: Instance, snapshot: str | None, tab: str = "problem",
                 attempt: dict[str, Any] | None = None, trail: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.initial_attempt = attempt  # opened in Verdict and Step once mounted (Runs › run › instance)
        self.trail = trail
        self.family = family
        self.instance = instance
        self.snapshot = snapshot
        self.view = view_for(family.id)
        self.initial_tab = tab if tab in TABS else "problem"
        self.truth: Trace | None = None
        self._prepared: dict[str, Prepared] = {}  # by instance id, see _prepare_neighbours
        self.answer_trace: tuple[Trace, str] | None = None
        self.showing = "truth"
        self.current: AttemptView | None = None
        self.history: list[dict[str, Any]] = []
        self.marked: list[str] = []  # History rows marked with space (attempt ids, in marking order)
        self._solve_cancel: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None
        self._solve_lock = threading.Lock()
        self._leaving = False
        self._human_sent = False  # a human answer to this instance was sent (now or before): nothing to hide
        self._detached = False  # left while a human answer is checked: its verdict is recorded on arrival
        self._styles_as_of: int | None = None  # the app's stylesheet version when this screen was last left
        self._from_editor = False  # escape just left a text field: the next escape only says how to leave
        self._opened_revealed = False  # an attempt opened on purpose revealed the answer (said once)
        self._hints_hidden: bool | None = None  # what the header shows of the hint features (None: not yet set)
        self.sub_title = f"{family.id} · {snapshot or 'file'} · {instance.id}"
        if trail:  # the breadcrumb: where this instance was opened from
            self.sub_title = " › ".join((*trail, instance.id))

    @property
    def draft_key(self) -> str:
        return f"{self.snapshot or ''}\x00{self.instance.id}"

    # -- layout ----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._title(hide_hints=self.app.hiding_hints), id="instance-title")
        with Tabbed(id="tabs", initial=self.initial_tab):
            with Pane(TITLES["problem"], id="problem"), Scroll(id="problem-scroll"):
                yield Static(self._note_text(), id="note-view")
                yield Lines(self._structured(), id="structured")
                yield Static(Text("prompt, as a model sees it", style="bold underline"))
                yield Lines(self._prompt(), id="prompt")
            with Pane(TITLES["step"], id="step"):
                yield Static(Text(HIDDEN, style="bold yellow"), id="step-hidden", classes="answer-hidden")
                yield Static("", id="step-source", classes="spoiler")
                with Scroll(id="step-scroll", classes="spoiler"):
                    assert self.view.stepper is not None
                    yield self.view.stepper(self.instance, family=self.family, id="stepper")
            with Pane(TITLES["solve"], id="solve"):
                endpoints, error = endpoint_list()
                self._endpoint_error = error
                draft: Draft | None = self.app.drafts.pop(self.draft_key, None)
                yield SolvePanel(sorted(self.family.local_solvers()), endpoints, self.app.clock,
                                 answer_format=AnswerFormat.of(self.family, self.instance), problem=self._solve_problem(),
                                 prefs=self.app.solve_prefs, draft=draft, id="solve-panel",
                                 blocked=blocked_reason(self.family))
            with Pane(TITLES["verdict"], id="verdict"):
                yield Static(Text(HIDDEN, style="bold yellow"), id="verdict-hidden", classes="answer-hidden")
                with Scroll(id="verdict-scroll", classes="spoiler"):
                    yield Lines(self._verdict_placeholder(), id="verdict-view")
            with Pane(TITLES["history"], id="history"):
                yield Static("enter: open the attempt in Verdict and Step", id="history-hint")
                yield RowTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def _verdict_placeholder(self) -> RenderableType:
        """What Verdict shows before an attempt is: the attempt being opened (Runs › run › instance),
        never "no verdict yet" while one is on its way."""
        if self.initial_attempt is not None:
            number = self.initial_attempt.get("id")
            return Text(f"loading attempt #{number}…" if number is not None else "loading the attempt…",
                        style="dim italic")
        return verdict_renderable(None)

    def _title(self, hide_hints: bool) -> Text:
        """The header line: the family, the instance, its place in the browser's list, its features (the
        hint features left out while a person answers and has not revealed them)."""
        title = Text.assemble((f"{self.family.id} ", "bold magenta"), (f"{self.instance.id}  ", "bold"))
        place = self.position()
        if place is not None:
            title.append(f"{place[0] + 1} of {place[1]}  ", style="bold cyan")
        title.append_text(self._features_line(hide_hints))
        return title

    def _features_line(self, hide_hints: bool) -> Text:
        features = self.family.answering_features() if hide_hints else self.family.visible_features()
        line = meta_line(self.instance, features, self.family.feature_values(self.instance))
        hidden = [f for f in self.family.visible_features() if f not in features]
        if hidden:
            line.append(f"{len(hidden)} hint(s) hidden (h)", style="dim")
        return line

    @property
    def hiding_hints(self) -> bool:
        """The hint features (what reveals the answer's shape) are hidden: a person is answering this
        instance and has not asked for them (`h`)."""
        return bool(self.family.hint_features) and self.answering and self.draft_key not in self.app.hints_shown

    def hints_revealed(self) -> list[str]:
        """The hint features this person was shown before answering (`h`), by name."""
        if self.draft_key not in self.app.hints_shown:
            return []
        return [f for f in self.family.visible_features() if f in self.family.hint_features]

    def _structured(self, instance: Instance | None = None) -> Any:
        """The family's view of the instance (of `instance`, another of this family, before its trace)."""
        try:
            assert self.view.problem is not None
            if instance is not None:
                return Rendered(self.view.problem(self.family, instance, None))
            return Rendered(self.view.problem(self.family, self.instance, self.truth))
        except Exception as exc:  # a view bug shows as text, not a crash
            return Text(f"cannot render the structured view: {type(exc).__name__}: {exc}", style="red")

    def _solve_problem(self, structured: Any = None) -> Any:
        """What the Solve tab shows above the answer editor: the family's view, then the prompt exactly as
        a model gets it, so that a person answering sees everything a model does without leaving the tab
        (ctrl+up/ctrl+down scroll it from the editor; the clock runs)."""
        from rich.console import Group

        return Group(structured if structured is not None else self._structured(),
                     Text("\nprompt, as a model sees it", style="bold underline"), self._prompt())

    def _prompt(self, instance: Instance | None = None) -> Any:
        instance = self.instance if instance is None else instance
        try:
            return Rendered(prompt_renderable(self.family.prompt(instance, self.family.prompt_styles[0])))
        except Exception as exc:
            return Text(f"cannot render the prompt: {exc}", style="red")

    def on_mount(self) -> None:
        table = self.query_one("#history-table", DataTable)
        # the verdict next to the attempt's number: on an 80-column terminal the right-hand columns are
        # off-screen, and the verdict is what a person scans History for
        self._id_column = table.add_columns("#", "verdict", "solver", "when", "run", "source", "status", "score",
                                            "time", "tokens in/out", "finish", "cost", "error")
        self.refresh_history()
        self._sync_answering()
        self.compute_truth()
        if self._endpoint_error:
            self.notify(f"model endpoints: {self._endpoint_error}", severity="error", timeout=8, markup=False)
        if self.panel.draft is not None:
            self.notify(f"Your unsent answer to {self.instance.id} is back in Solve (3), with its clock.", markup=False)
        self.panel.set_shown(self.initial_tab == "solve")
        self._focus_tab(self.initial_tab)
        if self.initial_attempt is not None:
            self.open_attempt(self.initial_attempt)
        self.set_timer(NEIGHBOURS_AFTER_S, self._prepare_neighbours)
        # the screen lives as long as the workbench (kept for the next Enter): out of the collector's way
        from tui import heap

        self.call_after_refresh(heap.settle)

    def on_screen_suspend(self) -> None:
        self.panel.set_shown(False)  # help, runs or a question on top: the human clock pauses
        self._from_editor = False
        self._styles_as_of = self.app._css_update_count

    def on_screen_resume(self, event: events.ScreenResume | None = None) -> None:
        # Pushed again (a kept screen, tui.app.open_instance): Textual restyles every node of a pushed
        # screen (its own handler runs after this one), which cost Enter as much as composing it. Nothing
        # changes a kept screen's styles while it is away but a new stylesheet (a theme): then it does.
        if event is not None and self._styles_as_of == self.app._css_update_count:
            event.refresh_styles = False
        self.panel.set_shown(self.active_tab == "solve")
        self.refresh_history()  # attempts may have been written meanwhile (a run, another screen)

    def on_unmount(self) -> None:
        # A request still in flight would keep its thread (and so the process, at exit) alive until it ends;
        # a human answer being checked when the user left goes on (its verdict is recorded on arrival).
        if not self._detached:
            self.action_cancel()

    # -- helpers ---------------------------------------------------------------------------------
    @property
    def stepper(self) -> StepperView:
        return self.query_one("#stepper", StepperView)

    @property
    def panel(self) -> SolvePanel:
        return self.query_one("#solve-panel", SolvePanel)

    @property
    def active_tab(self) -> str:
        return self.query_one("#tabs", TabbedContent).active

    @property
    def busy(self) -> bool:
        """A request is in flight (quitting and leaving ask first)."""
        return self.panel.running

    @property
    def answering(self) -> bool:
        """What would give the answer away is hidden: a human attempt is in progress, or human is the
        chosen solver and no answer to this instance was sent yet; until the person reveals it."""
        if self.revealed:
            return False
        return self.panel.answering or (self.panel.choice == HUMAN and not self._human_sent)

    @property
    def revealed(self) -> bool:
        return self.draft_key in self.app.revealed

    def _focus_tab(self, tab: str) -> None:
        """Focus the tab's main widget; never a text field (the Solve tab focuses the solver picker: `e`
        goes to the entry), so digits and the global keys keep working."""
        target = {
            "step": "#stepper", "solve": "#solver", "history": "#history-table", "verdict": "#verdict-scroll",
            "problem": "#problem-scroll",
        }.get(tab)
        if tab in ("step", "verdict") and self.answering:
            target = None
            self.query_one("#tabs", TabbedContent).query_one(Tabs).focus()
        if target:
            try:
                self.query_one(target).focus()
            except Exception:
                pass
        # queued behind the focus (Widget.focus defers it with call_later): late focus messages from the
        # pane left cannot switch back to it (tui.widgets.containers.Tabbed)
        self.app.call_later(self.query_one("#tabs", Tabbed).release)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in STEP_ACTIONS and (self.active_tab != "step" or self.answering):
            return False
        if action in SOLVE_ACTIONS and self.active_tab != "solve":
            return False
        if action in HISTORY_ACTIONS and self.active_tab != "history":
            return False
        if action == "edit_answer" and isinstance(self.focused, Input | TextArea):
            return False  # the focus is in the entry already: `e` is an e there, never suggested
        if action == "reveal" and (not self.answering or isinstance(self.focused, Input | TextArea)):
            return False
        if action == "scroll_problem" and self.active_tab not in ("solve", "problem"):
            return False
        if action == "reveal_hints" and (not self.hiding_hints or isinstance(self.focused, Input | TextArea)):
            return False
        if action == "reask" and self.active_tab != "history":
            return False
        if action in ("copy", "export", "reask") and isinstance(self.focused, Input | TextArea):
            return False
        if action == "cancel" and not self.panel.running:  # from any tab while a request runs
            return False
        if action in ("move", "bookmark", "edit_note") and isinstance(self.focused, Input | TextArea):
            return False  # typed into the field, never suggested
        in_field = isinstance(self.focused, Input | TextArea)
        if action == "leave_editor":
            return in_field
        if action == "back_twice":
            return not in_field and self._from_editor
        if action == "back":
            return not in_field and not self._from_editor
        return True

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self._from_editor = False  # another tab chosen: escape is Back again
        self.refresh_bindings()
        self.panel.set_shown((event.pane.id or "") == "solve")

    def on_human_progress(self, message: HumanProgress) -> None:
        message.stop()
        self._sync_answering()

    def _sync_answering(self) -> None:
        """While a human attempt is in progress the Step and Verdict tabs show nothing of the answer, and
        the header no hint feature."""
        answering = self.answering
        if answering != self.has_class("-answering"):
            self.set_class(answering, "-answering")
            if answering:
                self.stepper.playing = False
            self.refresh_bindings()
        hiding = self.hiding_hints
        if hiding != self._hints_hidden:
            self._hints_hidden = hiding
            self.query_one("#instance-title", Static).update(self._title(hide_hints=hiding))
            self.refresh_bindings()

    # -- leaving -----------------------------------------------------------------------------------
    def keep_draft(self) -> None:
        """An unsent human answer (and its clock) waits in the app for the user's return."""
        try:
            draft = self.panel.current_draft()
        except Exception:  # already torn down
            return
        if draft is not None:
            self.app.drafts[self.draft_key] = draft
        else:
            self.app.drafts.pop(self.draft_key, None)

    def leave(self, then: Callable[[], object]) -> None:
        """Leave the instance: a running request asks first (leaving cancels it); a human draft is kept."""
        from tui.screens.confirm import ConfirmScreen

        human = self.panel.running and self.panel._spec == HUMAN

        def go() -> None:
            self.keep_draft()
            if human:  # the person's answer is kept: its check goes on and its verdict is recorded
                self._detached = True
            else:
                self.action_cancel()
            then()

        if not self.panel.running:
            go()
            return
        if self._leaving:
            return
        self._leaving = True

        def answered(yes: bool | None) -> None:
            self._leaving = False
            if yes:
                go()

        if human:
            question = ("Your answer is still being checked. Leave this instance anyway? Your answer is kept: "
                        "its verdict is recorded when the check ends (it shows in History).")
        else:
            question = (f"A request to {self.panel._spec or 'a solver'} is still running. Leave this instance "
                        "anyway (the request is cancelled and nothing is recorded)?")
        self.app.push_screen(ConfirmScreen(question), answered)

    # -- actions ---------------------------------------------------------------------------------
    def action_leave_editor(self) -> None:
        """Out of the text field (escape never loses typing); leaving the instance now takes escape twice."""
        self.query_one("#tabs", TabbedContent).query_one(Tabs).focus()
        self._from_editor = True
        self.refresh_bindings()

    def action_back_twice(self) -> None:
        self._from_editor = False
        self.refresh_bindings()
        self.notify("Out of the editor. escape again goes back to the browser.", timeout=3)

    def on_key(self, event: events.Key) -> None:
        if self._from_editor and event.key != "escape":
            self._from_editor = False  # something else done since leaving the editor: escape is Back again
            self.refresh_bindings()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self._from_editor and isinstance(event.widget, Input | TextArea):
            self._from_editor = False  # back in a field: its escape leaves it again
            self.refresh_bindings()

    def action_back(self) -> None:
        if isinstance(self.focused, Input | TextArea):  # leave the editor first: escape never loses typing
            self.action_leave_editor()
            return
        self.leave(self.app.pop_screen)

    # -- moving and marking ----------------------------------------------------------------------
    def position(self) -> tuple[int, int] | None:
        """(index of this instance, how many) in the browser's current (filtered, sorted) list, or None
        when it is not there (another snapshot, filtered out, opened from elsewhere)."""
        listing = self.app.listing
        at = listing.index(self.snapshot, self.instance.id)
        return None if at is None else (at, len(listing))

    def action_move(self, step: int) -> None:
        """Open the next (previous) instance of the browser's list on the same tab, through the same leave
        path as going back (a running request asks first; a human draft is kept)."""
        if self.position() is None:
            self.notify("This instance is not in the browser's current list.", severity="warning")
            return
        target = self.app.listing.neighbour(self.snapshot, self.instance.id, step)
        if target is None:
            self.notify("The last instance of the list." if step > 0 else "The first instance of the list.")
            return
        tab, snapshot, app = self.active_tab, self.snapshot or "", self.app

        def go() -> None:
            app.listing.current = target  # back in the browser: on that row
            if self.swappable(snapshot, target):
                prepared = self.prepared(snapshot, target)
                if prepared is not None:
                    self.swap(self.family, prepared.instance, snapshot, prepared)
                    return
                try:
                    family, instance = app.load_instance(snapshot, target)
                except Exception as exc:
                    self.notify(f"cannot open {target}: {exc}", severity="error", timeout=8, markup=False)
                    return
                self.swap(family, instance, snapshot)
                return
            app.pop_screen()
            app.open_instance(snapshot, target, tab=tab)

        self.leave(go)

    def swappable(self, snapshot: str | None, target: str) -> bool:
        """Whether this screen can show `target` in place (`swap`): nothing in flight or typed here,
        nothing kept for it (a session's screens, a request or a human answer go through a new screen)."""
        return (self.WALKS_IN_PLACE and self.is_attached and not self.panel.running
                and not self._detached and self.panel.current_draft() is None
                and f"{snapshot or ''}\x00{target}" not in self.app.drafts)

    def swap(self, family: Family, instance: Instance, snapshot: str | None,
             prepared: Prepared | None = None) -> None:
        """Show another instance of the same family here (`]`/`[`, and Enter in the browser once an
        instance was open): building a new screen (some ninety widgets composed, styled and laid out) cost
        every such key several frames. The trace comes from a worker as on opening; the Problem tab's
        views come drawn when `prepared` (a neighbour drawn ahead, see `_prepare_neighbours`)."""
        self.workers.cancel_group(self, "trace")
        self.family, self.instance, self.snapshot = family, instance, snapshot
        self.view = view_for(family.id)
        self.initial_attempt = None
        self.truth = None
        self.answer_trace = None
        self.showing = "truth"
        self.current = None
        self.history = []
        self.marked = []
        self._human_sent = False
        self._leaving = False
        self._from_editor = False
        self.sub_title = f"{family.id} · {self.snapshot or 'file'} · {instance.id}"
        self._opened_revealed = False
        self._hints_hidden = None  # the header is drawn again for this instance (_sync_answering, below)
        self.query_one("#note-view", Static).update(self._note_text())
        if prepared is not None and prepared.instance is instance:
            structured = prepared.structured
            self.query_one("#structured", Lines).update(structured, prepared.structured_strips)
            self.query_one("#prompt", Lines).update(prepared.prompt, prepared.prompt_strips)
        else:
            structured = self._structured()
            self.query_one("#structured", Lines).update(structured)
            self.query_one("#prompt", Lines).update(self._prompt())
        self.query_one("#problem-scroll", VerticalScroll).scroll_home(animate=False)
        self.stepper.rebind(instance)
        self.query_one("#step-source", Static).update(Text("tracing…", style="dim italic"))
        self.panel.rebind(AnswerFormat.of(family, instance), self._solve_problem(structured))
        self.query_one("#verdict-view", Lines).update(verdict_renderable(None))
        self.query_one("#verdict-scroll", VerticalScroll).scroll_home(animate=False)
        self.refresh_history()
        self._sync_answering()
        self.panel.set_shown(self.active_tab == "solve")
        self.compute_truth()
        self.set_timer(NEIGHBOURS_AFTER_S, self._prepare_neighbours)

    # -- the neighbours, drawn ahead ---------------------------------------------------------------
    def _prepare_neighbours(self) -> None:
        """Once this instance is on screen: load the instances `]` and `[` go to and draw their Problem tab
        in a thread, at the widths it has now, so that moving there shows them without drawing (a large
        view's drawing was most of what `]` cost). Loading (one row) stays here: the log database's
        connection belongs to this thread."""
        if self.snapshot is None or self.app.screen is not self or not self.WALKS_IN_PLACE:
            return  # left already (the browser says what to draw ahead), or a session's: it does not walk
        targets = [self.app.listing.neighbour(self.snapshot, self.instance.id, step) for step in (1, -1)]
        self.prepare(self.snapshot, [t for t in targets if t is not None])

    def prepare(self, snapshot: str, targets: list[str]) -> None:
        """Load `targets` of `snapshot` and draw their Problem tab ahead, in a thread; what was drawn ahead
        for other instances is dropped."""
        kept = {t: self._prepared[t] for t in targets if t in self._prepared and self._prepared[t].snapshot == snapshot}
        structured, prompt = self.query_one("#structured", Lines), self.query_one("#prompt", Lines)
        todo: list[Instance] = []
        for target in targets:
            if target in kept:
                continue
            if target == self.instance.id and snapshot == self.snapshot:  # left, then opened again: as drawn
                kept[target] = Prepared(snapshot, self.instance, structured.renderable, structured.drawn(),
                                        prompt.renderable, prompt.drawn())
                continue
            try:
                family, instance = self.app.load_instance(snapshot, target)
            except Exception:
                continue  # opening it says why, as it does without this
            if family.id == self.family.id:
                todo.append(instance)
        self._prepared = kept
        widths = (structured.content_size.width, prompt.content_size.width)
        if todo and all(widths):
            self._draw_ahead(snapshot, todo, widths, self.app.console, self.app.console_options)

    def prepared(self, snapshot: str, instance_id: str) -> Prepared | None:
        found = self._prepared.get(instance_id)
        return found if found is not None and found.snapshot == snapshot else None

    @work(thread=True, group="prepare", exclusive=True, exit_on_error=False)
    def _draw_ahead(self, snapshot: str, todo: list[Instance], widths: tuple[int, int], console: Any,
                    options: Any) -> None:
        for instance in todo:
            structured, prompt = self._structured(instance), self._prompt(instance)
            prepared = Prepared(snapshot, instance, structured, {widths[0]: draw(console, options, structured, widths[0])},
                                prompt, {widths[1]: draw(console, options, prompt, widths[1])})
            try:
                self.app.call_from_thread(self._keep_prepared, prepared)
            except RuntimeError:
                return  # the app is closing

    def _keep_prepared(self, prepared: Prepared) -> None:
        if len(self._prepared) >= PREPARED_KEPT:
            self._prepared.pop(next(iter(self._prepared)))
        self._prepared[prepared.instance.id] = prepared

    def _note_text(self) -> Text:
        if self.snapshot is None:
            return Text("")
        from core.store import notes

        note = notes.get(self.app.workspace.log.db.conn, self.snapshot, self.instance.id)
        if not (note.bookmarked or note.tags or note.note):
            return Text("")
        text = Text()
        if note.bookmarked:
            text.append("★ bookmarked  ", style="bold yellow")
        if note.tags:
            text.append(" ".join(f"#{t}" for t in note.tags) + "  ", style="bold cyan")
        text.append(f"(note written {short_time(note.updated)})", style="dim")
        if note.note:
            text.append("\n" + note.note)
        return text

    def _refresh_note(self) -> None:
        self.query_one("#note-view", Static).update(self._note_text())

    def action_bookmark(self) -> None:
        if self.snapshot is None:
            self.notify("Bookmarks are kept per snapshot: this instance was opened from a file.", severity="warning")
            return
        from core.store import notes

        note = notes.toggle_bookmark(self.app.workspace.log.db.conn, self.snapshot, self.instance.id)
        self._refresh_note()
        self.notify(f"{self.instance.id}: {'bookmarked' if note.bookmarked else 'bookmark removed'}", markup=False)

    def action_edit_note(self) -> None:
        if self.snapshot is None:
            self.notify("Notes are kept per snapshot: this instance was opened from a file.", severity="warning")
            return
        from tui.screens.notes import edit_note

        edit_note(self, self.snapshot, self.instance.id, self._refresh_note)

    def open_on(self, tab: str) -> None:
        """A kept screen opened again (tui.app.open_instance): on `tab`, as a new one would open."""
        tab = tab if tab in TABS else "problem"
        tabs = self.query_one("#tabs", Tabbed)
        if tabs.active != tab:
            tabs.choose(tab)
        self._focus_tab(tab)

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", Tabbed).choose(tab)
        # The pane's frame first, its widget's focus right after: a focus change restyles the widget left
        # and the one focused and repaints the screen, work the frame showing the tab need not wait for.
        self.call_after_refresh(self._focus_shown_tab, tab)

    def _focus_shown_tab(self, tab: str) -> None:
        if self.is_attached and self.active_tab == tab:  # not when another tab was chosen meanwhile
            self._focus_tab(tab)

    def action_pick_solver(self) -> None:
        self.panel.focus_picker(open_it=True)

    def action_edit_answer(self) -> None:
        self.panel.focus_entry()

    def action_reveal(self) -> None:
        """Give up: show the ground truth, the verdict and the reference now. The next human attempt on
        this instance records that the answer was seen before it was sent."""
        self.app.revealed.add(self.draft_key)
        self._sync_answering()
        self.notify("The answer is revealed; a human answer you send now is recorded as sent after revealing.",
                    severity="warning")

    def action_scroll_problem(self, direction: int) -> None:
        """A page of the problem (one row kept): the one above the editor on Solve, the Problem tab's on
        Problem."""
        target = "#human-problem" if self.active_tab == "solve" else "#problem-scroll"
        try:
            scroll = self.query_one(target, VerticalScroll)
        except Exception:
            return
        step = max(1, scroll.scrollable_content_region.height - 1)
        scroll.scroll_relative(y=direction * step, animate=False)

    def action_reveal_hints(self) -> None:
        """Show the hint features (the answer's shape, which a model is not told). A human answer sent
        afterwards on this instance records which were shown (`usage.hints_revealed`)."""
        self.app.hints_shown.add(self.draft_key)
        self._sync_answering()
        self.notify(f"Hint features shown ({', '.join(self.hints_revealed())}); your answer records it.",
                    severity="warning", markup=False)

    def step_truth_from_start(self) -> None:
        """The ground truth, from its first step (the command palette's "Step the ground truth")."""
        self.action_show_tab("step")
        self._show_truth()
        self.stepper.first()

    def action_step(self, how: str) -> None:
        stepper = self.stepper
        {"next": stepper.next, "previous": stepper.previous, "first": stepper.first, "last": stepper.last,
         "play": stepper.toggle_play}[how]()

    def action_toggle_trace(self) -> None:
        if self.answer_trace is None:
            self.notify("No attempt is open to step beside the ground truth: solve one (3) or open one from "
                        "History (5, enter).", severity="warning")
            return
        if self.showing == "truth":
            self._show_answer_trace()
        else:
            self._show_truth()

    def action_send(self) -> None:
        if self.panel.choice == HUMAN:
            # After what the editor has still to handle (keys, a paste that came in the same burst as
            # ctrl+s, a priority key the app handles at once): the send reads the editor's current text.
            self.query_one("#human-answer", TextArea).call_later(self.panel.request)
            return
        self.panel.request()

    def action_cancel(self) -> None:
        with self._solve_lock:
            handle = self._solve_cancel
        if handle is None:
            return
        loop, task = handle
        try:
            loop.call_soon_threadsafe(task.cancel)
        except RuntimeError:  # the loop already finished
            pass

    # -- the Step tab ----------------------------------------------------------------------------
    def _show_truth(self) -> None:
        self.showing = "truth"
        if self.truth is not None:
            self.stepper.show(self.truth, "ground truth")
        self._update_step_source()

    def _show_answer_trace(self) -> None:
        if self.answer_trace is None:
            return
        self.showing = "answer"
        trace, label = self.answer_trace
        if trace.reference is None and self.truth is not None and self._no_reference() is None:
            # A family whose answer trace does not carry the reference: the ground truth's goes beside it.
            trace = trace.model_copy(update={"reference": self.truth})
        self.stepper.show(trace, label)
        self._update_step_source()

    def _verdict_line(self) -> Text:
        view = self.current
        text = Text()
        if view is None:
            return text
        if view.error:
            text.append(f"  {view.title}: error ({view.error_kind})", style="bold red")
        elif view.correct:
            text.append(f"  {view.title}: ✓ correct", style="bold green")
        else:
            text.append(f"  {view.title}: ✗ incorrect", style="bold red")
        verdict = view.verdict
        if verdict is not None:
            text.append(f" · {verdict.status} · score {verdict.score:.3f}", style="dim")
            if verdict.explanation:
                why = verdict.explanation if len(verdict.explanation) <= 160 else verdict.explanation[:159] + "…"
                text.append(f"\n  {why}", style="italic")
        return text

    def _no_reference(self) -> str | None:
        """Why there is no reference to step or compare with (real data with no known answer), else None."""
        reason = self.truth.meta.get("no_reference") if self.truth is not None else None
        return str(reason) if reason else None

    def _update_step_source(self) -> None:
        text = Text()
        no_reference = self._no_reference()
        if self.showing == "answer" and self.answer_trace is not None:
            beside = "with no reference beside it" if no_reference else "beside the ground truth"
            text.append(f"{self.answer_trace[1]} {beside}", style="bold")
            text.append("  (a: the instance alone)" if no_reference else "  (a: the ground truth alone)",
                        style="dim")
        elif no_reference:
            text.append(no_reference, style="bold yellow")
            if self.answer_trace is not None:
                text.append(f"  (a: {self.answer_trace[1]})", style="dim")
        else:
            text.append("the ground truth", style="bold")
            if self.answer_trace is not None:
                text.append(f"  (a: {self.answer_trace[1]} beside it)", style="dim")
        text.append("   n/p next/prev · g/G first/last · space play", style="dim")
        if self.showing == "answer":
            text.append("\n")
            text.append_text(self._verdict_line())
        self.query_one("#step-source", Static).update(text)
        self.refresh_bindings()

    def compute_truth(self) -> None:
        self._trace_truth(self.family, self.instance)

    @work(thread=True, group="trace", exit_on_error=False)
    def _trace_truth(self, family: Family, instance: Instance) -> None:
        try:
            trace = family.trace(instance)
        except Exception as exc:
            self.post_message(TraceReady(None, "ground truth", error=f"{type(exc).__name__}: {exc}",
                                         instance_id=instance.id))
            return
        self.post_message(TraceReady(trace, "ground truth", instance_id=instance.id))

    def on_trace_ready(self, message: TraceReady) -> None:
        if message.instance_id not in (None, self.instance.id):
            return  # the instance this was traced for was left (`]`/`[` swap instances in place)
        if message.error:
            self.notify(f"cannot trace this instance: {message.error}", severity="error", markup=False)
            self.query_one("#step-source", Static).update(Text(f"no trace: {message.error}", style="red"))
            return
        self.truth = message.trace
        if self.view.problem_uses_trace:  # for what the view cannot compute cheaply (e.g. rendered code)
            structured = self._structured()
            self.query_one("#structured", Lines).update(structured)
            self.query_one("#human-problem-view", Lines).update(self._solve_problem(structured))
        if self.showing == "truth":
            self._show_truth()
        elif self.answer_trace is not None:
            self._show_answer_trace()

    # -- solving ---------------------------------------------------------------------------------
    def on_solve_request(self, message: SolveRequest) -> None:
        message.stop()
        if self.panel.running:
            self.notify("A request is already running; cancel it first (ctrl+x).", severity="warning")
            return
        if self.panel.blocked:  # a re-ask (History, R) or the palette: nothing to record but a missing tool
            self.notify(self.panel.blocked, severity="warning", markup=False)
            return
        self.panel.started(message.spec)
        self.solve(message.spec, message.text, message.human_time_s, message.options, message.timing)

    def on_cancel_request(self, message: CancelRequest) -> None:
        message.stop()
        self.action_cancel()

    @work(thread=True, group="solve", exit_on_error=False)
    def solve(self, spec: str, text: str | None, human_time_s: float | None, options: dict[str, Any],
              timing: HumanTiming | None = None) -> None:
        """Run one attempt on a private event loop in this thread: the solver, then the check (extraction,
        verification, the answer's trace) in a further thread, so ctrl+x cancels a slow verifier too.
        The same steps as `core.attempts.attempt`, with the check phase made visible and cancellable."""
        family, instance, app = self.family, self.instance, self.app
        person = self.person_spec
        loop = asyncio.new_event_loop()

        def on_delta(kind: str, chunk: str) -> None:
            self.post_message(SolveDelta(kind, chunk))

        def check(solver_spec: str, result: SolveResult, prompt: dict[str, Any],
                  started: str) -> tuple[AttemptRecord, Trace | None]:
            checked = None
            if result.error is None:  # a slow family's check on the cluster the settings name, if any
                from core.cluster.workbench import check_on_cluster
                from core.completeness import here

                with here(False):  # the verdict first: completeness comes after it, in the background
                    checked = check_on_cluster(family, instance, result.response)
            record = record_from(family, instance, solver_spec, result, prompt=prompt, snapshot=self.snapshot,
                                 source="tui", human_time_s=human_time_s, started=started, checked=checked,
                                 timing=timing)
            if options:  # kept with the attempt so a re-ask (History, R) asks with the same options
                record.usage = {**record.usage, "options": dict(options)}
            trace = None
            if record.answer is not None:
                try:
                    trace = family.trace(instance, record.answer)
                except Exception:
                    trace = None
            return record, trace

        async def run() -> tuple[AttemptRecord, Trace | None]:
            try:
                if spec == HUMAN:
                    solver: Any = FixedSolver(text or "", spec=person, elapsed_s=human_time_s or 0.0)
                elif is_model_spec(spec):
                    from core.models import SamplingParams

                    solver = make_solver(spec, family, params=SamplingParams(**options))
                else:
                    solver = make_solver(spec, family)
            except Exception as exc:  # bad spec, no endpoint, no key: recorded like any failed attempt
                return self._failed_record(spec, str(exc), "config"), None
            started = now_iso()
            try:
                prompt = family.prompt(instance, family.prompt_styles[0])
                t0 = time.perf_counter()
                result = await solver.solve(instance, prompt, on_delta=on_delta)
                if not result.elapsed_s:
                    result.elapsed_s = time.perf_counter() - t0
            finally:
                close = getattr(solver, "aclose", None)
                if close is not None:
                    await close()
            self.post_message(SolvePhase("checking"))
            return await asyncio.to_thread(check, solver.spec, result, prompt.model_dump(), started)

        task = loop.create_task(run())
        with self._solve_lock:
            self._solve_cancel = (loop, task)
        trace: Trace | None = None
        try:
            record, trace = loop.run_until_complete(task)
        except asyncio.CancelledError:
            self.post_message(SolveCancelled(spec))
            return
        except Exception as exc:  # a bug in extraction or verification is recorded, never a crash
            record = self._failed_record(spec, f"{type(exc).__name__}: {exc}", "internal")
        finally:
            with self._solve_lock:
                self._solve_cancel = None
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        if self._detached or not self.post_message(SolveDone(record, trace)):
            # the user left while this (human) answer was checked: it is recorded all the same
            app.call_from_thread(self._record_detached, record)

    def _record_detached(self, record: AttemptRecord) -> None:
        self._mark_revealed(record)
        try:
            attempt_id = self.app.workspace.log.add_attempt(record.row())
        except Exception as exc:
            self.app.notify(f"could not write the attempt: {exc}", severity="error", markup=False)
            return
        self._complete_later(attempt_id, record)
        self.app.invalidate_summary()
        verdict = "error" if record.error else "correct" if record.correct else f"incorrect ({record.status})"
        self.app.notify(f"Your answer to {record.instance_id} was checked: {verdict}. It is in its History.",
                        markup=False)

    @property
    def person_spec(self) -> str:
        """Who a hand answer is recorded as: `human:NAME` once the person's name is known (a session asks
        it once, the workbench remembers it), else `human`."""
        person = self.app.saved.person
        return f"{HUMAN_PREFIX}{person}" if person else HUMAN

    def _mark_revealed(self, record: AttemptRecord) -> None:
        if not is_person(record.solver):
            return
        if self.draft_key in self.app.revealed:
            record.usage = {**record.usage, GAVE_UP: True}
        hints = self.hints_revealed()
        if hints:
            record.usage = {**record.usage, "hints_revealed": hints}

    def _failed_record(self, spec: str, error: str, kind: str) -> AttemptRecord:
        try:
            prompt = self.family.prompt(self.instance, self.family.prompt_styles[0]).model_dump()
        except Exception:
            prompt = {}
        return record_from(self.family, self.instance, spec, SolveResult(error=error, error_kind=kind),
                           prompt=prompt, snapshot=self.snapshot, source="tui")

    def on_solve_delta(self, message: SolveDelta) -> None:
        self.panel.delta(message.kind, message.text)

    def on_solve_phase(self, message: SolvePhase) -> None:
        message.stop()
        if self.panel.running:
            self.panel.checking()

    def on_solve_cancelled(self, message: SolveCancelled) -> None:
        self.panel.finished(Text(f"cancelled {message.spec}: nothing recorded", style="yellow"),
                            human=message.spec == HUMAN, sent=False)
        self.notify(f"Request to {message.spec} cancelled.", severity="warning", markup=False)

    def on_solve_done(self, message: SolveDone) -> None:
        record: AttemptRecord = message.record
        self._mark_revealed(record)
        if is_person(record.solver) and not record.error:
            self._human_sent = True
        try:
            attempt_id: int | None = self.app.workspace.log.add_attempt(record.row())
        except Exception as exc:
            attempt_id = None
            self.notify(f"could not write the attempt: {exc}", severity="error", markup=False)
        self.app.invalidate_summary()
        view = AttemptView.from_record(record, attempt_id)
        if record.error:
            summary = Text(f"✗ {record.solver} failed ({record.error_kind}): {record.error}", style="bold red")
            self.notify(f"{record.solver}: {record.error}", title="solve failed", severity="error", timeout=8, markup=False)
        elif record.correct:
            summary = Text(f"✓ {record.solver}: correct (score {record.score:.3f})", style="bold green")
            self.notify(f"{record.solver}: correct", title=view.title, markup=False)
        else:
            summary = Text(f"✗ {record.solver}: incorrect (score {record.score or 0:.3f}, {record.status})",
                           style="bold red")
            self.notify(f"{record.solver}: incorrect ({record.status})", title=view.title, severity="warning", markup=False)
        if record.human_time_s is not None:
            summary.append(f"  human time {fmt_seconds(record.human_time_s)}", style="dim")
        self.panel.finished(summary, human=is_person(record.solver))
        self._sync_answering()
        later = self._complete_later(attempt_id, record)
        if later:
            view.pending = later
        self.show_attempt(view, message.trace)
        self.refresh_history()
        if not record.error:
            self.action_show_tab("verdict")

    # -- what the verdict was shown without, computed after it -----------------------------------------
    def _complete_later(self, attempt_id: int | None, record: AttemptRecord) -> str | None:
        """Start computing what batch checks add to this verdict (specs: a verified contract's completeness
        rate) in an app worker, so the verdict is shown at once; the result is stored with the attempt and
        shown when ready. Returns the note to show meanwhile, or None when there is nothing to compute."""
        from core.completing import completes

        verdict = record.verdict
        if (attempt_id is None or record.error or verdict is None or not verdict.correct
                or not completes(self.family) or isinstance(verdict.details.get("completeness"), dict)):
            return None
        family, instance, app = self.family, self.instance, self.app

        def compute() -> None:
            try:
                completed, error = family.complete_verdict(instance, record.answer, verdict), None
            except Exception as exc:  # a tool's fault is reported, never a crash
                completed, error = None, f"{type(exc).__name__}: {exc}"
            app.call_from_thread(self._completed, attempt_id, completed, error)

        # an app worker: it finishes (and is stored) even when this screen is left meanwhile
        app.run_worker(compute, thread=True, group="complete-verdict", exit_on_error=False)
        return "completeness: computing in the background; shown here when ready"

    def _completed(self, attempt_id: int, verdict: Any, error: str | None) -> None:
        from core.attempts import verdict_column

        if verdict is not None:
            try:
                self.app.workspace.log.complete_verdict(attempt_id, verdict_column(verdict))
            except Exception as exc:
                error = f"could not store it: {exc}"
        view = self.current
        if not self.is_attached or view is None or view.id != attempt_id:
            if error:
                self.app.notify(f"completeness of attempt #{attempt_id}: {error}", severity="warning", markup=False)
            return
        if verdict is not None:
            view.verdict = verdict
        view.pending = f"completeness could not be computed: {error}" if error else None
        self.query_one("#verdict-view", Lines).update(verdict_renderable(view, self.family, self.view))
        self.refresh_history()

    # -- verdict and history ---------------------------------------------------------------------
    def show_attempt(self, view: AttemptView, trace: Trace | None) -> None:
        self.current = view
        try:
            shown = Rendered(verdict_renderable(view, self.family, self.view))
        except Exception as exc:  # a verdict written by another version: say so, do not crash
            shown = Text(f"cannot show {view.title}: {type(exc).__name__}: {exc}", style="red")
        self.query_one("#verdict-view", Lines).update(shown)
        if trace is not None:
            self.answer_trace = (trace, view.title)
            self._show_answer_trace()
        else:
            self.answer_trace = None
            self._show_truth()

    def refresh_history(self) -> None:
        self.history = self.app.workspace.log.attempts(instance_id=self.instance.id)
        mine = (HUMAN, self.person_spec)  # this person's answers (not another person's session)
        if any(row.get("solver") in mine and not row.get("error") for row in self.history):
            self._human_sent = True
        table = self.query_one("#history-table", DataTable)
        table.clear()
        self.marked = [key for key in self.marked if any(str(r["id"]) == key for r in self.history)]
        endpoints = configured_endpoints()  # read each time: a price set meanwhile applies at once
        for row in reversed(self.history):
            if row.get("error"):
                verdict = Text("error", style="bold red")
            elif row.get("correct"):
                verdict = Text("✓ correct", style="green")
            else:
                verdict = Text("✗ incorrect", style="red")
            score = row.get("score")
            time_s = row.get("human_time_s") if row.get("human_time_s") is not None else row.get("elapsed_s")
            table.add_row(
                # Text cells, never str: a DataTable reads a str as markup
                self._id_cell(str(row["id"])), verdict, Text(row.get("solver") or ""), short_time(row.get("started")),
                Text(row.get("run_id") or ""), source_cell(row), Text(row.get("status") or "", style="dim"),
                "" if score is None else f"{score:.3f}", fmt_seconds(time_s), tokens_cell(row),
                Text(finish_cell(row)), cost_cell(row, endpoints), Text((row.get("error") or "")[:40]),
                key=str(row["id"]),
            )
        self.query_one("#history-hint", Static).update(
            Text(f"{len(self.history)} attempt(s) on this instance · enter: open in Verdict and Step · "
                 "space: mark · c: compare the two marked (or the one under the cursor with another solver's)",
                 style="dim")
        )

    def _id_cell(self, key: str) -> Text:
        return Text((MARK if key in self.marked else "") + key, style="bold yellow" if key in self.marked else "")

    def _cursor_key(self) -> str | None:
        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return row_key.value

    def action_mark_attempt(self) -> None:
        key = self._cursor_key()
        if key is None:
            return
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked.append(key)
            if len(self.marked) > 2:  # a comparison takes two: the oldest mark gives way
                dropped = self.marked.pop(0)
                self._update_mark(dropped)
        self._update_mark(key)

    def _update_mark(self, key: str) -> None:
        table = self.query_one("#history-table", DataTable)
        try:
            table.update_cell(key, self._id_column[0], self._id_cell(key))
        except Exception:  # the row is gone (history refreshed): nothing to redraw
            pass

    def compare_pair(self) -> tuple[dict[str, Any], dict[str, Any]] | str:
        """The two attempts `c` compares, or why there are not two."""
        by_key = {str(r["id"]): r for r in self.history}
        if len(self.marked) == 2:
            return by_key[self.marked[0]], by_key[self.marked[1]]
        key = self.marked[0] if self.marked else self._cursor_key()
        first = by_key.get(key or "")
        if first is None:
            return "No attempt to compare: History is empty."
        # Two solvers on this instance: the latest attempt of another solver than the first's.
        other = next((r for r in reversed(self.history) if r.get("solver") != first.get("solver")), None)
        if other is None:
            return "Mark two attempts with space to compare them (no other solver has tried this instance)."
        return first, other

    def action_compare(self) -> None:
        from tui.screens.compare import CompareScreen

        pair = self.compare_pair()
        if isinstance(pair, str):
            self.notify(pair, severity="warning", markup=False)
            return
        a, b = (AttemptView.from_row(row) for row in pair)
        self.app.push_screen(CompareScreen(self.family, self.instance, a, b))

    @on(DataTable.RowSelected, "#history-table")
    def _history_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        row = next((r for r in self.history if str(r["id"]) == key), None)
        if row is not None:
            self.open_attempt(row)

    def open_attempt(self, row: dict[str, Any]) -> None:
        """The attempt's verdict at once; its answer's trace (which may take seconds) follows in Step. An
        attempt opened on purpose (History's enter, the Runs screen's) is shown even while a person answers
        this instance; that reveals the answer, as `v` does, and a hand answer sent afterwards records it."""
        if self.answering:
            self.app.revealed.add(self.draft_key)
            self._sync_answering()
            self._opened_revealed = True
        view = AttemptView.from_row(row)
        self.show_attempt(view, None)
        if view.answer is not None:
            self.query_one("#step-source", Static).update(
                Text(f"tracing the answer of {view.title}…", style="dim italic"))
        self.action_show_tab("verdict")
        self.load_attempt(view)

    def load_attempt(self, view: AttemptView) -> None:
        self._trace_attempt(self.family, self.instance, view)

    @work(thread=True, group="trace", exit_on_error=False)
    def _trace_attempt(self, family: Family, instance: Instance, view: AttemptView) -> None:
        trace = None
        if view.answer is not None:
            try:
                trace = family.trace(instance, view.answer)
            except Exception:
                trace = None
        self.post_message(AttemptLoaded(view, trace, instance_id=instance.id))

    def on_attempt_loaded(self, message: AttemptLoaded) -> None:
        if message.instance_id not in (None, self.instance.id) or self.current is not message.attempt:
            return  # another instance or attempt was opened meanwhile
        if message.trace is not None:
            self.answer_trace = (message.trace, message.attempt.title)
            self._show_answer_trace()
        else:
            self._update_step_source()
        said = f"{message.attempt.title} opened in Verdict and Step"
        if self._opened_revealed:
            self._opened_revealed = False
            said += " (the answer is revealed: a hand answer sent now on this instance records it)"
        self.notify(said, markup=False)

    # -- debugging a rejection: copy, export, re-ask ---------------------------------------------------
    def _current_row(self) -> dict[str, Any] | None:
        view = self.current
        if view is None or view.id is None:
            return None
        return next((r for r in self.history if r.get("id") == view.id), None)

    def copy_text(self, what: str) -> str | None:
        """The text `y` copies: the prompt (the open attempt's own, else the instance's), the raw reply,
        the extracted answer or the verdict of the open attempt."""
        from tui.data import parse_json

        view = self.current
        if what == "prompt":
            row = self._current_row()
            prompt = parse_json(row.get("prompt")) if row else None
            if not isinstance(prompt, dict) or not (prompt.get("messages") or prompt.get("completion")):
                prompt = self.family.prompt(self.instance, self.family.prompt_styles[0]).model_dump()
            return prompt_text(prompt)
        if view is None:
            return None
        if what == "reply":
            return view.response
        if what == "answer":
            answer = view.answer
            if answer is None:
                return None
            if not answer.ok:
                return f"{answer.error}: {answer.message}"
            value = answer.value
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
        if what == "verdict":
            return None if view.verdict is None else view.verdict.model_dump_json(indent=2)
        return None

    def action_copy(self) -> None:
        from tui.screens.debugging import CopyMenu

        available = {"prompt"} | ({"reply", "answer", "verdict"} if self.current is not None else set())
        if self.answering:
            available = {"prompt"}  # nothing that gives the answer away while a person answers

        def picked(what: str | None) -> None:
            if what is None:
                return
            text = self.copy_text(what)
            if text is None:
                self.notify(f"The open attempt has no {what} to copy.", severity="warning", markup=False)
                return
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied the {what} ({len(text):,} characters).", markup=False)

        self.app.push_screen(CopyMenu(available), picked)

    def action_export(self) -> None:
        from tui.screens.debugging import ExportPrompt

        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.instance.id)
        self.app.push_screen(ExportPrompt(f"{safe}.jsonl"), self.export_to)

    def export_to(self, path: str | None) -> None:
        from core.instance_export import export_instance

        if not path:
            return
        try:
            lines = export_instance(self.app.workspace.log, self.snapshot, self.instance, path)
        except Exception as exc:  # a UserError (cannot write) or a database error: said, never a crash
            self.notify(f"cannot export: {exc}", severity="error", timeout=8, markup=False)
            return
        self.notify(f"Wrote {lines} line(s) to {path}.", markup=False)

    def action_reask(self) -> None:
        """Send this instance again to the highlighted attempt's solver with its options: a new attempt."""
        from tui.data import parse_json

        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            self.notify("No attempt to re-ask: solve one first (3).", severity="warning")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        row = next((r for r in self.history if str(r["id"]) == key), None)
        if row is None:
            return
        spec = str(row.get("solver") or "")
        if spec == HUMAN or spec.startswith("human:"):
            self.notify("A person's attempt cannot be re-asked: answer again in Solve (3).", severity="warning")
            return
        if self.panel.running:
            self.notify("A request is already running; cancel it first (ctrl+x).", severity="warning")
            return
        options = reask_options(self.app.workspace.log, row, parse_json)
        self.notify(f"Re-asking {spec} (attempt {row['id']} is kept).", markup=False)
        self.post_message(SolveRequest(spec, None, None, options))


def prompt_text(prompt: dict[str, Any]) -> str:
    """A stored prompt as plain text: its messages (role headed when there are several)."""
    messages = [m for m in prompt.get("messages") or [] if isinstance(m, dict)]
    if len(messages) == 1:
        return str(messages[0].get("content") or "")
    if messages:
        return "\n\n".join(f"[{m.get('role') or ''}]\n{m.get('content') or ''}" for m in messages)
    return str(prompt.get("completion") or "")


def reask_options(log: Any, row: dict[str, Any], parse_json: Callable[[Any], Any]) -> dict[str, Any]:
    """The sampling options an attempt was asked with: its run's, or those the workbench kept with it."""
    if row.get("run_id"):
        try:
            run = log.get_run(row["run_id"])
            options = parse_json(run.get("options")) if isinstance(run.get("options"), str) else run.get("options")
            params = (options or {}).get("params") or {}
            return dict(params) if isinstance(params, dict) else {}
        except Exception:  # the run is gone or unreadable: the solver's defaults
            return {}
    usage = parse_json(row.get("usage"))
    options = usage.get("options") if isinstance(usage, dict) else None
    return dict(options) if isinstance(options, dict) else {}
