"""Human-baseline sessions in the workbench: a person answers a list of instances one after
another, each answer recorded as it is sent into the session's run (core.sessions: solver `human:NAME`).

`SessionScreen` is the instance view in human mode with the session's rules on top: the solver is fixed
to human, Step's ground truth, the Verdict and History stay hidden until the session ends (unless the
person chose "show the verdict after each"), the clock runs only while the Solve tab is on screen (and
not while paused), and the header says how far the session is ("3 of 5"). Answers are verified in a
thread with a connection of its own (a slow verifier never freezes the screen).

`resume_session(app, run_id)` opens any session where it stopped (the Runs screen may call it); at the
end `SessionSummaryScreen` shows accuracy with its Wilson interval, time per instance, the same by
feature, and each answer, which Enter opens with its verdict."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Header, Input, Select, Static, TabbedContent, TextArea

from core import sessions
from core.attempts import AttemptRecord, HumanTiming
from core.errors import UserError
from core.family import Family, get_family
from core.instance import Instance
from core.store import LogStore
from tui.data import AttemptView, fmt_seconds, fmt_value, parse_json
from tui.screens.base import SembenchScreen
from tui.screens.instance import InstanceScreen
from tui.widgets.footer import Footer
from tui.widgets.solve import HUMAN
from tui.widgets.table import RowTable

# The instance view's actions a session keeps; any other (moving to another instance of the browser,
# re-asking a model...) would leave the session's rules, so it is refused here.
# (An answer being checked is not cancelled: it is the person's, and it is recorded when the check ends.)
SESSION_ACTIONS = {"back", "leave_editor", "back_twice", "show_tab", "step", "toggle_trace", "send",
                   "edit_answer", "reveal", "reveal_hints", "scroll_problem", "pause", "skip", "next_instance"}


class SessionRecorded(Message):
    def __init__(self, record: AttemptRecord | None, error: str | None = None) -> None:
        self.record = record
        self.error = error
        super().__init__()


# -- opening -------------------------------------------------------------------------------------------
def load_instance(app: Any, snapshot: str, instance_id: str) -> tuple[Family, Instance]:
    store = app.workspace.store_for(snapshot)
    data = store.instance_data(snapshot, instance_id)
    if data is None:
        raise UserError(f"instance {instance_id} is not in snapshot {snapshot}")
    family = get_family(str(data.get("family")))
    return family, family.parse_instance(data)


def resume_session(app: Any, run_id: str) -> None:
    """Open a session where it stopped: its next instance, or its summary when it is finished."""
    try:
        state = sessions.load_session(app.workspace.log, run_id)
    except Exception as exc:
        app.notify(f"cannot resume {run_id}: {exc}", severity="error", markup=False)
        return
    open_next(app, state, replace=False)


def open_next(app: Any, state: sessions.SessionState, *, replace: bool) -> None:
    """The session's next instance (or its summary), on top of the stack or in place of the current one.
    While it is open (until its summary), the workbench hides the hint features everywhere."""
    if state.finished:
        if app.session_run == state.run_id:
            app.session_run = None
        screen: Any = SessionSummaryScreen(state)
    else:
        app.session_run = state.run_id
        try:
            family, instance = load_instance(app, state.snapshot, state.next_id or "")
        except Exception as exc:
            app.notify(f"cannot open {state.next_id}: {exc}", severity="error", markup=False)
            return
        screen = SessionScreen(family, instance, state)
    if replace:
        app.switch_screen(screen)
    else:
        app.push_screen(screen)


def unfinished_sessions(app: Any) -> list[dict[str, Any]]:
    return [run for run in reversed(sessions.sessions(app.workspace.log)) if run.get("status") != "finished"]


def start_from_browser(browser: Any) -> None:
    """The browser's `H`: ask (SessionDialog), then start the session or resume the one picked."""
    from tui.screens.session_dialog import SessionChoice, SessionDialog

    app, table = browser.app, browser.table
    if table is None:
        app.notify("Open a snapshot first: a session asks instances of one snapshot.", severity="warning")
        return
    marked = set(getattr(browser, "marked", set()) or set())
    marked_ids = [row.id for row in table.rows if row.id in marked]  # in the snapshot's order
    filtered = [row.id for row in browser.view]
    family = get_family(table.family)

    def chosen(choice: SessionChoice | None) -> None:
        if choice is None:
            return
        if choice.resume:
            resume_session(app, choice.resume)
            return
        try:
            person = sessions.clean_person(choice.person)
            sample = choice.chosen_by == "sample"
            if sample:  # drawn in a random order already
                ids = sessions.sample_ids([(row.id, row.features) for row in table.rows], choice.k, choice.seed,
                                          choice.stratify)
            else:
                ids = marked_ids if choice.chosen_by == "marked" else filtered
                if choice.shuffle:
                    ids = sessions.shuffle_ids(ids, choice.seed)
            shuffled = sample or choice.shuffle
            plan = sessions.SessionPlan(person=person, instance_ids=ids, chosen_by=choice.chosen_by,
                                        seed=choice.seed if shuffled else None, shuffled=shuffled,
                                        stratify=choice.stratify if choice.chosen_by == "sample" else None,
                                        show_after_each=choice.show_after_each)
            run_id = sessions.start_session(app.workspace.log, table.snapshot, family, plan)
        except Exception as exc:
            app.notify(f"cannot start the session: {exc}", severity="error", markup=False)
            return
        app.saved = app.saved.model_copy(update={"person": person})  # asked once, remembered
        app.notify(f"Session {run_id} started: {len(ids)} instance(s), recorded as human:{person}.", markup=False)
        resume_session(app, run_id)

    app.push_screen(SessionDialog(snapshot=table.snapshot, marked=len(marked_ids), filtered=len(filtered),
                                  total=len(table.rows), features=tuple(table.features), person=app.saved.person,
                                  unfinished=unfinished_sessions(app)), chosen)


# -- answering -----------------------------------------------------------------------------------------
class PauseScreen(ModalScreen[None]):
    """The session is paused: the problem is covered and the clock stands still (the instance screen is
    suspended underneath, which pauses it)."""

    DEFAULT_CSS = """
    PauseScreen { align: center middle; background: $background; }
    #pause-box { width: 60; height: auto; border: thick $warning; padding: 1 2; }
    """
    BINDINGS = [Binding("ctrl+t,escape,enter,space", "resume", "Resume", priority=True)]

    def compose(self) -> ComposeResult:
        with Vertical(id="pause-box"):
            yield Static(Text("Session paused: the clock stands still.\n\nctrl+t, enter or escape resumes.",
                              style="bold"))

    def action_resume(self) -> None:
        self.dismiss(None)


class SendAnywayScreen(ModalScreen[bool]):
    """The answer does not parse (the family's extractor cannot read it): enter sends it all the same
    (recorded as an extraction error, as a model's reply would be), escape goes back to the editor."""

    DEFAULT_CSS = """
    SendAnywayScreen { align: center middle; }
    #send-anyway-box { width: 72; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    """
    BINDINGS = [Binding("enter", "answer(True)", "Send anyway", priority=True),
                Binding("escape", "answer(False)", "Back to the editor", priority=True)]

    def __init__(self, why: str) -> None:
        super().__init__()
        self.why = why

    def compose(self) -> ComposeResult:
        with Vertical(id="send-anyway-box"):
            text = Text("Your answer does not parse.\n", style="bold")
            text.append(self.why[:400] + "\n\n")  # the extractor's words: text, never markup
            text.append("Send anyway? enter sends it (recorded as not read, like a model's unreadable reply); "
                        "escape returns to the editor.")
            yield Static(text, id="send-anyway-question")

    def action_answer(self, send: bool) -> None:
        self.dismiss(send)


class SessionScreen(InstanceScreen):
    WALKS_IN_PLACE = False
    BINDINGS: ClassVar = [
        Binding("ctrl+t", "pause", "Pause", priority=True),
        Binding("ctrl+g", "skip", "Skip", priority=True),
        Binding("ctrl+n", "next_instance", "Next", priority=True),
    ]

    def __init__(self, family: Family, instance: Instance, state: sessions.SessionState) -> None:
        super().__init__(family, instance, state.snapshot, tab="solve")
        self.state = state
        self.session_index = state.done + 1
        self._sent = False  # this instance's answer is recorded (show after each: its verdict is on screen)
        self._confirming = False  # "send anyway?" is asked (an answer the family's extractor cannot read)
        self.sub_title = self.progress

    @property
    def progress(self) -> str:
        return (f"session · human:{self.state.plan.person} · {self.session_index} of {self.state.total} · "
                f"{self.instance.id}")

    def compose(self) -> ComposeResult:
        # The Solve tab starts in human mode, without changing the solver the user picked outside sessions.
        saved = self.app.solve_prefs
        self.app.solve_prefs = {**saved, "choice": HUMAN}
        try:
            yield from super().compose()
        finally:
            self.app.solve_prefs = saved

    def _title(self, hide_hints: bool) -> Text:
        title = Text(f" {self.session_index} of {self.state.total} ", style="bold reverse")
        title.append(f"  {self.family.id} ", style="bold magenta")
        title.append(f"{self.instance.id}  ", style="bold")
        title.append_text(self._features_line(hide_hints))
        return title

    def on_mount(self) -> None:
        self.query_one("#solver", Select).disabled = True  # a session's solver is the person
        self._sync_history()
        # The person came to answer: typing goes straight to the editor (escape leaves it).
        self.call_after_refresh(self.panel.focus_entry)

    @property
    def answering(self) -> bool:
        if self.revealed:
            return False
        return not (self._sent and self.state.plan.show_after_each)

    def _sync_history(self) -> None:
        """History shows other solvers' verdicts on this instance: hidden while the session's rules hold."""
        tabs = self.query_one("#tabs", TabbedContent)
        if self.answering:
            tabs.hide_tab("history")
        else:
            tabs.show_tab("history")

    def _sync_answering(self) -> None:
        super()._sync_answering()
        try:
            self._sync_history()
        except Exception:  # before the tabs are composed
            pass

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in SESSION_ACTIONS:
            return False
        if action == "show_tab" and parameters == ("history",) and self.answering:
            return False
        if action in ("skip", "pause") and (self._sent or self.panel.running):
            return False
        if action == "next_instance" and not self._sent:
            return False
        if action in ("pause", "skip", "next_instance"):
            return True
        return super().check_action(action, parameters)

    # -- the session's keys ------------------------------------------------------------------------
    def action_pause(self) -> None:
        self.app.push_screen(PauseScreen())

    def action_skip(self) -> None:
        try:
            sessions.record_skip(self.app.workspace.log, self.state, self.family, self.instance,
                                 self.panel.human.timing(), revealed=self.revealed, hints=self.hints_revealed())
        except Exception as exc:
            self.notify(f"cannot skip: {exc}", severity="error", markup=False)
            return
        self.app.invalidate_summary()
        self.notify(f"{self.instance.id} skipped ({self.state.done} of {self.state.total}).", markup=False)
        self.app.drafts.pop(self.draft_key, None)
        open_next(self.app, self.state, replace=True)

    def action_next_instance(self) -> None:
        open_next(self.app, self.state, replace=True)

    def action_back(self) -> None:
        if not isinstance(self.focused, Input | TextArea):
            self.app.notify("Session left where it stands: H in the browser resumes it.", markup=False)
        super().action_back()

    # -- sending -----------------------------------------------------------------------------------
    def on_solve_request(self, message: Any) -> None:
        message.stop()
        message.prevent_default()  # not the instance view's own solve: the session records it
        if message.spec != HUMAN or self.panel.running or self._sent or self._confirming:
            return
        text = message.text or ""
        timing = message.timing or HumanTiming(active_s=float(message.human_time_s or 0.0))
        unparsed = self.unparsed(text)
        if unparsed is None:
            self.send(text, timing)
            return
        self._confirming = True  # the clock stands at the ctrl+s; the dialog's time is not the person's

        def answered(send: bool | None) -> None:
            self._confirming = False
            if send:
                self.send(text, timing)
            else:
                self.panel.status(Text("Not sent: correct the answer and send again (ctrl+s).", style="yellow"))
                self.call_after_refresh(self.panel.focus_entry)

        self.app.push_screen(SendAnywayScreen(unparsed), answered)

    def unparsed(self, text: str) -> str | None:
        """Why the family's extractor cannot read this answer (what a model's reply would be recorded
        with: an extraction error), or None when it reads it."""
        from core.extraction import extract

        try:
            answer = extract(self.family, text, self.instance)
        except Exception as exc:  # extraction never throws; if it did, the answer is not readable either
            return f"{type(exc).__name__}: {exc}"
        if answer.ok:
            return None
        return f"{answer.error}: {answer.message}" if answer.message else str(answer.error)

    def send(self, text: str, timing: HumanTiming) -> None:
        self.panel.started(HUMAN)
        self.record(text, timing, self.revealed, self.hints_revealed())

    @work(thread=True, group="session", exit_on_error=False)
    def record(self, text: str, timing: HumanTiming, revealed: bool, hints: list[str]) -> None:
        # A connection of this thread's own (SQLite's are per thread); the log is in WAL mode.
        store = LogStore(self.app.log_path)
        try:
            record = sessions.record_answer(store, self.state, self.family, self.instance, text, timing,
                                            revealed=revealed, hints=hints)
        except Exception as exc:  # a bug in extraction or verification: said, never a crash
            self.post_message(SessionRecorded(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            store.close()
        self.post_message(SessionRecorded(record))

    def on_session_recorded(self, message: SessionRecorded) -> None:
        message.stop()
        if message.record is None:
            self.panel.finished(Text(f"not recorded: {message.error}", style="bold red"), human=True, sent=False)
            self.notify(f"cannot record the answer: {message.error}", severity="error", markup=False)
            return
        self.app.invalidate_summary()
        self.app.drafts.pop(self.draft_key, None)
        self._sent = True
        record = message.record
        where = f"{self.state.done} of {self.state.total}"
        if not self.state.plan.show_after_each:
            self.notify(f"Answer recorded ({where}).", markup=False)
            open_next(self.app, self.state, replace=True)
            return
        verdict = "correct" if record.correct else "error" if record.error else f"incorrect ({record.status})"
        self.panel.finished(Text(f"recorded ({where}): {verdict} · ctrl+n next", style="bold"), human=True)
        self.query_one("#solver", Select).disabled = True
        self._sync_answering()
        self.show_attempt(AttemptView.from_record(record, None), None)
        self.refresh_history()
        self.refresh_bindings()
        self.action_show_tab("verdict")


# -- the end -----------------------------------------------------------------------------------------------
def by_feature(app: Any, state: sessions.SessionState) -> dict[str, dict[str, tuple[int, int, float]]]:
    """feature -> value -> (answered, correct, mean time in s), over the family's visible features."""
    run = app.workspace.log.get_run(state.run_id)
    family = get_family(run["family"])
    wanted = set(family.visible_features())
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0.0]))
    store = app.workspace.store_for(state.snapshot)
    for _, iid, features in store.feature_rows(state.snapshot):
        answer = state.answered.get(iid)
        if answer is None:
            continue
        for name, value in features.items():
            if name in wanted:
                cell = out[name][fmt_value(value)]  # the browser's wording (yes/no, —)
                cell[0] += 1
                cell[1] += bool(answer["correct"])
                cell[2] += answer["human_time_s"] or 0.0
    return {name: {value: (int(n), int(c), t / n) for value, (n, c, t) in sorted(values.items())}
            for name, values in out.items()}


def summary_text(state: sessions.SessionState, features: dict[str, dict[str, tuple[int, int, float]]]) -> Text:
    s = sessions.summary(state)
    text = Text(f"Session {s['run']} · human:{s['person']} · {s['answered']} of {s['total']} answered"
                f" ({s['skipped']} skipped)\n", style="bold")
    if s["accuracy"] is not None:
        text.append(f"accuracy {s['accuracy']:.1%} ({s['correct']}/{s['answered']}), 95% Wilson interval "
                    f"[{s['accuracy_lo']:.1%}, {s['accuracy_hi']:.1%}]\n")
    if s["median_time_s"] is not None:
        text.append(f"time per instance (shown to sent, pauses left out): median {fmt_seconds(s['median_time_s'])}")
        if s["median_time_s_lo"] is not None:
            text.append(f", 95% interval [{fmt_seconds(s['median_time_s_lo'])}, {fmt_seconds(s['median_time_s_hi'])}]")
        text.append(f"; mean {fmt_seconds(s['mean_time_s'])}, total {fmt_seconds(s['total_time_s'])}\n")
        if s["median_first_key_s"] is not None:
            text.append(f"first keystroke after a median {fmt_seconds(s['median_first_key_s'])}\n")
    for name, values in features.items():
        cells = " · ".join(f"{value}: {c}/{n} in {fmt_seconds(t)}" for value, (n, c, t) in values.items())
        text.append(f"by {name}: ", style="bold")
        text.append(cells + "\n")
    return text


class SessionSummaryScreen(SembenchScreen):
    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, state: sessions.SessionState) -> None:
        super().__init__()
        self.state = state
        self.rows: list[dict[str, Any]] = []
        self.sub_title = f"session {state.run_id} · summary"

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="session-summary-box"):
            yield Static("", id="session-summary")
            yield Static(Text("enter: review the answer with its verdict", style="dim"))
            yield RowTable(id="session-answers", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        app = self.app
        if app.session_run == self.state.run_id:
            app.session_run = None  # the session is over: nothing is hidden any more
        try:
            features = by_feature(app, self.state)
        except Exception:  # the snapshot is gone: the totals still stand
            features = {}
        self.query_one("#session-summary", Static).update(summary_text(self.state, features))
        table = self.query_one("#session-answers", DataTable)
        table.add_columns("#", "attempt", "instance", "verdict", "time", "first key", "note")
        by_id = {row["instance_id"]: row for row in app.workspace.log.attempts(run_id=self.state.run_id)}
        for k, iid in enumerate(self.state.plan.instance_ids, 1):
            row = by_id.get(iid)
            if row is None:
                continue
            self.rows.append(row)
            skipped = row.get("error_kind") == sessions.SKIPPED
            verdict = Text("skipped", style="yellow") if skipped else \
                Text("✓ correct", style="green") if row.get("correct") else Text("✗ incorrect", style="red")
            usage = parse_json(row.get("usage"))
            usage = usage if isinstance(usage, dict) else {}
            notes = ["revealed"] if usage.get("revealed") else []
            if usage.get("hints_revealed"):
                notes.append("hints shown")
            table.add_row(str(k), str(row["id"]), Text(iid), verdict, fmt_seconds(row.get("human_time_s")),
                          fmt_seconds(row.get("first_key_s")), " · ".join(notes), key=str(row["id"]))
        table.focus()

    @on(DataTable.RowSelected, "#session-answers")
    def _review(self, event: DataTable.RowSelected) -> None:
        row = next((r for r in self.rows if str(r["id"]) == event.row_key.value), None)
        if row is None:
            return
        try:
            family, instance = load_instance(self.app, self.state.snapshot, row["instance_id"])
        except Exception as exc:
            self.notify(f"cannot open {row['instance_id']}: {exc}", severity="error", markup=False)
            return
        self.app.push_screen(ReviewScreen(family, instance, self.state.snapshot, row))

    def action_back(self) -> None:
        self.app.pop_screen()


class ReviewScreen(InstanceScreen):
    """One answer of an ended session, opened in Verdict and Step: nothing is hidden any more."""

    WALKS_IN_PLACE = False

    def __init__(self, family: Family, instance: Instance, snapshot: str, row: dict[str, Any]) -> None:
        super().__init__(family, instance, snapshot, tab="verdict")
        self.row = row

    @property
    def answering(self) -> bool:
        return False

    def on_mount(self) -> None:
        self.open_attempt(self.row)
