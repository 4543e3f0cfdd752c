"""The Solve tab: pick a solver (local, human, a configured model endpoint with sampling options), send,
watch the reply stream in, cancel. The screen runs the request in a worker; this panel only asks and shows.

Human mode: the editor starts with the family's answer *format* (`Family.answer_template`, highlighted
in `answer_language`; never anything derived from the instance), the problem is shown above it, and the
clock counts active time only: it starts when the problem is shown (the first keystroke is noted apart)
and pauses while the Solve tab is not on screen. While a human attempt is in progress the screen hides what would give the answer away (the Step
and Verdict tabs). After sending, the editor keeps the answer (a near miss is corrected and resent); a
draft left unsent is kept, with its clock, for when the user comes back to the instance.

Focus never lands in a text field the user did not choose: the tab puts it on the solver picker (`s`
opens the picker, `e` goes to the entry), and sending moves it out of the field, so digits and `q`
keep working while the request runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static, TextArea
from textual.widgets._select import SelectOverlay

from core.attempts import HumanTiming
from tui.data import fmt_seconds
from tui.widgets.lines import Lines

if TYPE_CHECKING:
    from core.family import Family
    from core.instance import Instance

HUMAN = "human"
ORACLE = "oracle"
STREAM_REFRESH_S = 0.05
MODEL_PREFIX = "model:"
EFFORTS = ("low", "medium", "high", "none")
DEFAULT_PLACEHOLDER = "your answer, written as a model would (the family's extractor reads it)"

# Sampling inputs: (widget id, SamplingParams field, type)
NUMBER_FIELDS = (("temperature", "temperature", float), ("top-p", "top_p", float),
                 ("max-tokens", "max_tokens", int), ("seed", "seed", int))


@dataclass(frozen=True)
class AnswerFormat:
    """How a person writes an answer: what the editor starts with, its placeholder and its language. The
    format only, the same for every instance (a hint derived from the instance would be the answer)."""

    template: str = ""
    placeholder: str = DEFAULT_PLACEHOLDER
    language: str = "text"
    cursor: tuple[int, int] | None = None  # where typing starts (the template's TEMPLATE_CURSOR)

    @classmethod
    def of(cls, family: Family | None, instance: Instance | None = None) -> AnswerFormat:
        if family is None:
            return cls()
        from core.family import TEMPLATE_CURSOR

        template = family.answer_template_for(instance)
        cursor = None
        if TEMPLATE_CURSOR in template:
            before = template[:template.index(TEMPLATE_CURSOR)].split("\n")
            cursor = (len(before) - 1, len(before[-1]))
            template = template.replace(TEMPLATE_CURSOR, "")
        return cls(template=template, placeholder=family.answer_placeholder, language=family.answer_language,
                   cursor=cursor)

    def start(self) -> tuple[int, int]:
        """Where the cursor starts: the template's mark, else inside the first empty quotes, else the end of
        the last line inside a closing fence (never after it), else the end."""
        if self.cursor is not None:
            return self.cursor
        lines = self.template.split("\n")
        for row, line in enumerate(lines):
            if '""' in line:
                return row, line.index('""') + 1
        if len(lines) >= 2 and lines[-1].strip() == "```":
            return len(lines) - 2, len(lines[-2])
        return len(lines) - 1, len(lines[-1])


@dataclass(frozen=True)
class Draft:
    """An unsent human answer and its clock, kept while the user is away from the instance (`left_at`:
    the clock's reading then, so that the time away counts as a pause)."""

    text: str
    active_s: float
    timing: HumanTiming | None = None
    left_at: float | None = None


@functools.cache
def editor_language(language: str) -> str | None:
    """The answer language if the editor can highlight it (a tree-sitter grammar is installed), else None."""
    if not language or language == "text":
        return None
    try:
        from textual._tree_sitter import get_language

        if language in TextArea().available_languages and get_language(language) is not None:
            return language
    except Exception:  # highlighting is a nicety; never let it stop the editor
        return None
    return None


class SolveRequest(Message):
    """The user asked for a solve. `options` are model sampling options (for model solvers); `timing` is
    a person's clock (a human answer)."""

    def __init__(self, spec: str, text: str | None, human_time_s: float | None, options: dict[str, Any],
                 timing: HumanTiming | None = None) -> None:
        self.spec = spec
        self.text = text
        self.human_time_s = human_time_s
        self.options = options
        self.timing = timing
        super().__init__()


class CancelRequest(Message):
    pass


class SolvePhase(Message):
    """The solver's answer is in and is being checked (extracted and verified, in the worker)."""

    def __init__(self, phase: str) -> None:
        self.phase = phase
        super().__init__()


class HumanProgress(Message):
    """A human attempt started (the answer must stay hidden) or ended (submitted or abandoned)."""

    def __init__(self, answering: bool) -> None:
        self.answering = answering
        super().__init__()


class HumanClock:
    """A person's clock on an injectable clock: started when the problem is shown, paused while it is not
    (`pause` counts a pause and its length), stopped when the answer is sent (`stop`: not a pause);
    `elapsed` sums the active spans, `key` notes the active time of the first keystroke."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.reset()

    def restore(self, draft: Draft) -> None:
        """Continue a kept draft's clock, paused since the person left the instance, until resumed."""
        self.reset()
        timing = draft.timing
        self.active_s = max(0.0, draft.active_s)
        self.first_key_s = timing.first_key_s if timing is not None else self.active_s
        self.pauses = (timing.pauses if timing is not None else 0) + 1
        self.paused_s = timing.paused_s if timing is not None else 0.0
        self._away_since = draft.left_at
        self.started = True

    def reset(self) -> None:
        self.active_s = 0.0
        self.since: float | None = None
        self.started = False
        self.first_key_s: float | None = None
        self.pauses = 0
        self.paused_s = 0.0
        self._away_since: float | None = None

    @property
    def running(self) -> bool:
        return self.since is not None

    def start(self) -> None:
        if self.since is None:
            now = self.clock()
            if self._away_since is not None:  # back from a pause: how long it lasted
                self.paused_s += max(0.0, now - self._away_since)
                self._away_since = None
            self.since = now
            self.started = True

    def pause(self) -> None:
        if self.since is not None:
            now = self.clock()
            self.active_s += max(0.0, now - self.since)
            self.since = None
            self.pauses += 1
            self._away_since = now

    def stop(self) -> None:
        """The answer is sent: the clock stands at this moment (not a pause)."""
        if self.since is not None:
            self.active_s += max(0.0, self.clock() - self.since)
            self.since = None

    def resume(self) -> None:
        if self.started:
            self.start()

    def key(self) -> None:
        if self.first_key_s is None:
            self.first_key_s = self.elapsed()

    def elapsed(self) -> float:
        running = max(0.0, self.clock() - self.since) if self.since is not None else 0.0
        return self.active_s + running

    def timing(self) -> HumanTiming:
        return HumanTiming(active_s=self.elapsed(), first_key_s=self.first_key_s, pauses=self.pauses,
                           paused_s=self.paused_s)


def solver_options(local: list[str], endpoints: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Local solvers, human, the model endpoints; the oracle last, labelled for what it is."""
    options = [(name, name) for name in local if name != ORACLE]
    options.append(("human (type the answer)", HUMAN))
    for ep in endpoints:
        # a local Ollama needs no key, so only the hosted-style kinds say whether theirs is set
        key = "" if ep["kind"] == "ollama" else f", key {ep.get('api_key', '?')}"
        label = f"model · {ep['kind']} ({ep['base_url']}{key})"
        options.append((label, MODEL_PREFIX + ep["kind"]))
    if ORACLE in local:
        options.append(("oracle (shows the answer)", ORACLE))
    return options


class ModelsListed(Message):
    """The configured endpoints' model lists (core.models.listing.ModelListing), or why there are none."""

    def __init__(self, listings: list[Any], error: str | None = None) -> None:
        self.listings = listings
        self.error = error
        super().__init__()


def listing_line(listings: list[Any], error: str | None) -> Text:
    """One line per endpoint: how many models it reports, or that it does not answer (not an error)."""
    if error:
        return Text(f"model lists: {error}", style="yellow")
    text = Text()
    for listing in listings:
        if text:
            text.append("\n")
        text.append(f"{listing.kind} ({listing.base_url}): ", style="dim")
        if listing.error:
            text.append(listing.error, style="yellow")
        else:
            text.append(f"{len(listing.models)} model(s) listed", style="dim")
    return text


def stream_renderable(reasoning: str, answer: str) -> RenderableType:
    """A reply as it streams: the model's reasoning under a labelled rule, then a rule and the answer, so
    the one never runs into the other (as Verdict shows them, in panels of their own)."""
    if not reasoning:
        return Text(answer)
    return Group(Rule(Text(" model reasoning ", style="bold magenta"), style="magenta", align="left"),
                 Text(reasoning, style="dim italic"),
                 Rule(Text(" answer ", style="bold green"), style="green", align="left"),
                 Text(answer if answer else "(not started yet)", style="" if answer else "dim"))


class SolverSelect(Select[str]):
    """The solver picker: says when an option is picked from its menu, even the one already selected
    (`Select.Changed` is only for a new value), so that re-picking behaves like picking fresh."""

    class Picked(Message):
        def __init__(self, value: str) -> None:
            self.value = value
            super().__init__()

    @on(SelectOverlay.UpdateSelection)
    def _picked(self, event: SelectOverlay.UpdateSelection) -> None:
        value = self._options[event.option_index][1]
        if isinstance(value, str):
            self.post_message(self.Picked(value))


def shown_on_screen(widget: Widget) -> bool:
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


class SolvePanel(Vertical):
    BLANK = True  # a container: its paint is its background (tui.widgets.containers)
    running: reactive[bool] = reactive(False, init=False)

    def __init__(self, local: list[str], endpoints: list[dict[str, Any]], clock: Callable[[], float],
                 *, answer_format: AnswerFormat | None = None, problem: RenderableType | None = None,
                 prefs: dict[str, Any] | None = None, draft: Draft | None = None, id: str | None = None,
                 blocked: str | None = None) -> None:
        super().__init__(id=id)
        # Why no answer can be checked on this machine (a tool missing, core.readiness), or None: then
        # nothing is sent (no failed attempt is recorded) and the status line says what to install.
        self.blocked = blocked
        self.local = local
        self.endpoints = endpoints
        self.clock = clock
        self.human = HumanClock(clock)
        self.human_state = "off"  # off | active | paused | done
        self.problem = problem
        self.prefs = prefs if prefs is not None else {}
        self.format = answer_format or AnswerFormat()
        self.template = self.format.template
        self.draft = draft
        self._options = solver_options(local, endpoints)
        values = [value for _, value in self._options]
        wanted = HUMAN if draft is not None else self.prefs.get("choice")
        self._choice = wanted if wanted in values else values[0]
        self._shown = False
        self._timer: Timer | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._flush_pending = False
        self._spec = ""
        self._pending_text: str | None = None  # the human answer in flight
        self._sent_text: str | None = None  # the human answer last sent (resending it unchanged is refused)
        self.listings: dict[str, Any] = {}  # endpoint kind -> ModelListing, once the worker brought them

    def compose(self) -> ComposeResult:
        prefs = self.prefs
        with Horizontal(id="solve-bar"):
            yield SolverSelect(self._options, value=self._choice, allow_blank=False, id="solver")
            yield Button("Send", id="send", variant="primary")
            yield Button("Cancel", id="cancel", variant="error", disabled=True)
        with Horizontal(id="model-options", classes="hidden"):
            # select_on_focus off: entering the field never makes the next key replace the name
            yield Input(prefs.get("model-name", ""), placeholder="model name, e.g. gpt-4o", id="model-name",
                        select_on_focus=False)
            # what the endpoint reports (asked in a worker); the name field above stays free text
            yield Select([], prompt="listed models", id="model-pick")
            yield Input(prefs.get("temperature", ""), placeholder="temp", id="temperature", type="number")
            yield Input(prefs.get("top-p", ""), placeholder="top_p", id="top-p", type="number")
            yield Input(prefs.get("max-tokens", ""), placeholder="max tok", id="max-tokens", type="integer")
            yield Input(prefs.get("seed", ""), placeholder="seed", id="seed", type="integer")
            effort = prefs.get("effort")
            yield Select([(e, e) for e in EFFORTS], prompt="effort", id="effort",
                         value=effort if effort in EFFORTS else Select.NULL)
        with Vertical(id="human-box", classes="hidden"):
            with VerticalScroll(id="human-problem"):
                yield Lines(self.problem if self.problem is not None else "", id="human-problem-view")
            yield Label("", id="human-timer")
            yield TextArea(self.draft.text if self.draft is not None else self.template, id="human-answer",
                           soft_wrap=True, show_line_numbers=False, placeholder=self.format.placeholder,
                           language=editor_language(self.format.language))
        yield Static(Text("asking the endpoints for their models…", style="dim"), id="model-list",
                     classes="hidden")
        yield Static(self.hint(self._choice), id="solve-status")
        with VerticalScroll(id="stream-box"):
            yield Static("", id="stream")

    def on_mount(self) -> None:
        self._layout_for(self._choice)
        if self.endpoints:
            self.list_models()
        if self.draft is not None:
            # A draft kept from the last visit: its text is in the editor, its clock paused until the tab shows.
            self.human.restore(self.draft)
            self.human_state = "paused"
            editor = self.query_one("#human-answer", TextArea)
            editor.move_cursor(editor.document.end)  # typing goes on where it stopped
            self.prefs["choice"] = HUMAN
            self.status(Text(f"Your unsent answer is back ({fmt_seconds(self.draft.active_s)} on the clock). "
                             "Send with ctrl+s.", style="yellow"))
            self._show_timer()
            self.post_message(HumanProgress(True))

    def rebind(self, answer_format: AnswerFormat, problem: RenderableType | None) -> None:
        """Another instance in this panel (the instance view swaps instances in place; only while nothing
        runs and nothing typed is unsent): its answer format and problem, a fresh status and an empty
        reply. The solver chosen and its options stay, as they do from screen to screen."""
        self.format = answer_format
        self.template = answer_format.template
        self.problem = problem
        self.draft = None
        self._text.clear()
        self._reasoning.clear()
        self._sent_text = None
        self._pending_text = None
        self.query_one("#human-problem-view", Lines).update(problem if problem is not None else "")
        self.query_one("#human-problem", VerticalScroll).scroll_home(animate=False)
        self.query_one("#stream", Static).update("")
        editor = self.query_one("#human-answer", TextArea)
        editor.placeholder = answer_format.placeholder
        language = editor_language(answer_format.language)
        if editor.language != language:
            editor.language = language
        self.end_human()
        self._reset_editor()
        choice = self.choice
        if choice == HUMAN and self._shown:
            self.begin_human()
        self.status(self.hint(choice))
        if choice == HUMAN:
            self._show_timer()

    # -- solver choice ---------------------------------------------------------------------------
    @property
    def choice(self) -> str:
        value = self.query_one("#solver", Select).value
        return value if isinstance(value, str) else ""

    @property
    def answering(self) -> bool:
        """A human attempt is in progress: from choosing `human` (or the first keystroke after a submit)
        until it is submitted or abandoned (another solver chosen)."""
        return self.human_state in ("active", "paused")

    def hint(self, choice: str, in_entry: bool = False) -> Text:
        """The status line for a freshly chosen solver (nothing of an earlier request). `in_entry`: the
        focus is in the editor or the model-name field already, where `e` would be typed: not suggested."""
        if self.blocked:
            return Text(self.blocked, style="bold yellow")
        if choice == HUMAN:
            where = "The editor has the focus: type your answer" if in_entry else \
                "Type your answer (e goes to the editor)"
            return Text(f"{where}; the clock runs while this tab shows the problem and pauses when you leave it. "
                        "Send with ctrl+s" + (" (escape leaves the editor)." if in_entry else "."), style="dim")
        if choice.startswith(MODEL_PREFIX):
            if in_entry:
                return Text("The model-name field has the focus: type the model name and send with ctrl+s.",
                            style="dim")
            return Text("Give the model name (e goes to it) and send with ctrl+s.", style="dim")
        if choice == ORACLE:
            return Text("The oracle answers with the ground truth (a pipeline check). Send with ctrl+s.", style="dim")
        return Text(f"Send to {choice} with ctrl+s (s picks another solver).", style="dim")

    def _layout_for(self, choice: str) -> None:
        self.query_one("#model-options").set_class(not choice.startswith(MODEL_PREFIX), "hidden")
        self.query_one("#model-list").set_class(not choice.startswith(MODEL_PREFIX), "hidden")
        self._offer_models(choice)
        self.query_one("#human-box").set_class(choice != HUMAN, "hidden")
        self.set_class(choice == HUMAN, "-human")

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "effort":
            self.prefs["effort"] = event.value if isinstance(event.value, str) else None
            return
        if event.select.id == "model-pick":
            if isinstance(event.value, str):  # a listed model: into the free-text field, still editable
                self.query_one("#model-name", Input).value = event.value
            return
        if event.select.id != "solver":
            return
        choice = self.choice
        if choice == self._choice:
            return
        self._chosen(choice)

    # -- the models the endpoints report ------------------------------------------------------------
    @work(thread=True, group="model-list", exit_on_error=False)
    def list_models(self) -> None:
        from core.models.config import load_endpoints
        from core.models.listing import list_all

        try:
            listings = list_all(load_endpoints())
        except Exception as exc:  # a broken config: said in the line, the free-text field still works
            self.post_message(ModelsListed([], f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(ModelsListed(listings))

    def on_models_listed(self, message: ModelsListed) -> None:
        message.stop()
        self.listings = {listing.kind: listing for listing in message.listings}
        self.query_one("#model-list", Static).update(listing_line(message.listings, message.error))
        self._offer_models(self.choice)

    def _offer_models(self, choice: str) -> None:
        """The chosen endpoint's listed models in the picker and as the name field's completions."""
        listing = self.listings.get(choice[len(MODEL_PREFIX):]) if choice.startswith(MODEL_PREFIX) else None
        models = list(listing.models) if listing is not None else []
        pick = self.query_one("#model-pick", Select)
        pick.set_options([(name, name) for name in models])
        pick.disabled = not models
        self.query_one("#model-name", Input).suggester = SuggestFromList(models) if models else None

    def on_solver_select_picked(self, event: SolverSelect.Picked) -> None:
        """The solver already selected, picked again: like picking it fresh (focus to its entry)."""
        event.stop()
        if event.value == self._choice:
            self.call_after_refresh(self._focus_chosen)

    def _focus_chosen(self) -> None:
        if shown_on_screen(self):
            self.focus_entry()
            choice = self.choice
            if not self.running and self.human_state not in ("active", "paused", "done") and (
                    choice == HUMAN or choice.startswith(MODEL_PREFIX)):
                self.status(self.hint(choice, in_entry=True))

    def _chosen(self, choice: str) -> None:
        self._choice = choice
        self.prefs["choice"] = choice
        self._layout_for(choice)
        if not self.running:  # the last request's status and reply belong to the solver that made them
            self._text.clear()
            self._reasoning.clear()
            self.query_one("#stream", Static).update("")
            self.status(self.hint(choice))
        if choice == HUMAN:
            if self._shown:
                self.begin_human()
        else:
            self.end_human()
        self.post_message(HumanProgress(self.answering))  # the screen hides or shows what would spoil
        # The user picked this solver: typing goes to its entry (never to the app's one-letter keys).
        if shown_on_screen(self):
            self.focus_entry()
            if not self.running and (choice == HUMAN or choice.startswith(MODEL_PREFIX)):
                self.status(self.hint(choice, in_entry=True))  # the focus goes to its entry

    def focus_picker(self, open_it: bool = False) -> None:
        select = self.query_one("#solver", Select)
        select.focus()
        if open_it:
            select.action_show_overlay()

    def focus_entry(self) -> None:
        """Focus where the user types next: the answer editor (human), the model name, else the menu."""
        choice = self.choice
        if choice == HUMAN:
            self.query_one("#human-answer", TextArea).focus()
        elif choice.startswith(MODEL_PREFIX):
            self.query_one("#model-name", Input).focus()
        else:
            self.query_one("#solver", Select).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self.prefs[event.input.id] = event.value

    # -- human mode ------------------------------------------------------------------------------
    def begin_human(self) -> None:
        """A new human attempt, the problem on screen: the clock starts now (reading is part of the
        person's time; the first keystroke is noted apart). The editor keeps an earlier answer (to
        correct and resend), else starts with the format."""
        self.human.reset()
        self.human.start()
        self.human_state = "active"
        self._start_ticking()
        editor = self.query_one("#human-answer", TextArea)
        if not editor.text.strip() or editor.text == self.template:
            self._reset_editor()
        self._text.clear()
        self._reasoning.clear()
        self.query_one("#stream", Static).update("")
        self.status(self.hint(HUMAN))
        self._show_timer()
        self.post_message(HumanProgress(True))

    def _reset_editor(self) -> None:
        """The format again, the cursor where the answer goes (`AnswerFormat.start`)."""
        editor = self.query_one("#human-answer", TextArea)
        if editor.text != self.template:
            editor.text = self.template
        editor.move_cursor(self.format.start())

    def end_human(self) -> None:
        was = self.answering
        self.human.reset()
        self.human_state = "off"
        self._stop_ticking()
        if was:
            self.post_message(HumanProgress(False))

    def current_draft(self) -> Draft | None:
        """The human answer in progress (typed, not sent), to keep while the user is away."""
        if self.choice != HUMAN or self.human_state not in ("active", "paused") or self.running:
            return None
        text = self.query_one("#human-answer", TextArea).text
        if not text.strip() or text == self.template:
            return None
        return Draft(text, self.human.elapsed(), self.human.timing(), self.clock())

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id != "human-answer" or self.choice != HUMAN:
            return
        text = event.text_area.text
        if self.human_state == "done" and text == self._sent_text:
            return
        if self.human_state in ("done", "off") and text != self.template:
            # a new attempt after a sent one (the problem was read already): its clock starts at this edit
            was = self.answering
            self.human.reset()
            self.human.start()
            self.human_state = "active"
            self._start_ticking()
            self._show_timer()
            if not was:
                self.post_message(HumanProgress(True))
        if self.human_state in ("active", "paused") and text != self.template:
            self.human.key()

    def set_shown(self, shown: bool) -> None:
        """The screen says whether this tab is on screen: the human clock runs only while it is."""
        self._shown = shown
        if shown:
            if self.choice == HUMAN and self.human_state == "off":
                self.begin_human()
            elif self.human_state == "paused":
                self.human.resume()
                self.human_state = "active"
                self._start_ticking()
        elif self.human_state == "active":
            self.human.pause()
            self.human_state = "paused"
            self._stop_ticking()
        if self.choice == HUMAN:
            self._show_timer()

    def _start_ticking(self) -> None:
        if self._timer is None:
            self._timer = self.set_interval(1.0, self._show_timer)

    def _stop_ticking(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _show_timer(self) -> None:
        label = self.query_one("#human-timer", Label)
        shown = fmt_seconds(self.human.elapsed())
        if self.human_state == "active":
            label.update(Text.assemble(("⏱ ", "bold"), (shown, "bold yellow"),
                                       ("  on the clock: the time is recorded with the attempt", "dim")))
        elif self.human_state == "paused":
            label.update(Text.assemble(("⏸ ", "bold"), (shown, "bold"), ("  paused while you are away", "dim")))
        elif self.human_state == "done":
            label.update(Text("⏱ sent; edit the answer to start a new attempt", style="dim"))
        else:
            label.update(Text("⏱ starts when the problem is shown", style="dim"))

    # -- requests --------------------------------------------------------------------------------
    def model_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for field, key, cast in NUMBER_FIELDS:
            raw = self.query_one(f"#{field}", Input).value.strip()
            if raw:
                try:
                    options[key] = cast(raw)
                except ValueError:
                    self.notify(f"{key}: '{raw}' is not a number; ignored", severity="warning", markup=False)
        effort = self.query_one("#effort", Select).value
        if isinstance(effort, str):
            options["reasoning_effort"] = effort
        return options

    def request(self) -> None:
        if self.running:
            self.notify("A request is already running; cancel it first.", severity="warning")
            return
        if self.blocked:  # an attempt would only record that a tool is missing: said instead, the answer kept
            self.status(self.hint(self.choice))
            self.notify(self.blocked, severity="warning", markup=False)
            return
        choice = self.choice
        if choice == HUMAN:
            text = self.query_one("#human-answer", TextArea).text
            if not text.strip() or text == self.template:
                self.notify("Type an answer first.", severity="warning")
                return
            # The editor's text decides, not the state: its Changed message may still be on its way
            # (ctrl+s straight after typing or pasting).
            if self.human_state == "done" and text == self._sent_text:
                self.notify("This answer was sent already: edit it to make a new attempt.", severity="warning")
                return
            if self.human_state in ("done", "off"):
                self.human.reset()
                self.human.start()
                self.human_state = "active"
            self.human.key()  # typed or pasted in the same burst as ctrl+s: its Changed is still on its way
            self._pending_text = text
            self.human.stop()
            self._stop_ticking()
            self.post_message(SolveRequest(HUMAN, text, self.human.elapsed(), {}, timing=self.human.timing()))
        elif choice.startswith(MODEL_PREFIX):
            name = self.query_one("#model-name", Input).value.strip()
            if not name:
                self.notify("Give a model name (e.g. gpt-4o): press e to type it.", severity="warning")
                return
            spec = f"{choice[len(MODEL_PREFIX):]}:{name}"
            self.post_message(SolveRequest(spec, None, None, self.model_options()))
        elif choice:
            self.post_message(SolveRequest(choice, None, None, {}))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "send":
            self.request()
        elif event.button.id == "cancel":
            self.post_message(CancelRequest())

    # -- what the screen tells us ----------------------------------------------------------------
    def started(self, spec: str) -> None:
        self.running = True
        self._spec = spec
        self._text.clear()
        self._reasoning.clear()
        self.query_one("#stream", Static).update("")
        self.status(Text.assemble(("● ", "bold yellow"), f"running {spec}… (ctrl+x cancels)"))
        # Out of the text field: while the request runs the keys are the workbench's (digits, q), not text.
        focused = self.screen.focused
        if isinstance(focused, Input | TextArea) and self in focused.ancestors:
            if shown_on_screen(self.query_one("#stream-box")):
                self.query_one("#stream-box", VerticalScroll).focus()
            else:
                self.focus_picker()

    def checking(self) -> None:
        """The answer is in; the family's verifier is checking it (in the worker: the UI stays live)."""
        self.flush()
        self.status(Text.assemble(("● ", "bold yellow"), f"checking the answer of {self._spec or 'the solver'}… "
                                  "(the verifier runs in the background; ctrl+x cancels)"))

    def delta(self, kind: str, chunk: str) -> None:
        if kind == "reset":
            self._text.clear()
            self._reasoning.clear()
        elif kind == "reasoning":
            self._reasoning.append(chunk)
        else:
            self._text.append(chunk)
        # Redraw at most every STREAM_REFRESH_S: a long reply is thousands of deltas.
        if not self._flush_pending:
            self._flush_pending = True
            self.set_timer(STREAM_REFRESH_S, self.flush)

    def flush(self) -> None:
        self._flush_pending = False
        self.query_one("#stream", Static).update(stream_renderable("".join(self._reasoning), "".join(self._text)))
        self.query_one("#stream-box", VerticalScroll).scroll_end(animate=False)

    def finished(self, message: Text | str, human: bool = False, sent: bool = True) -> None:
        """The request ended. A sent human answer stays in the editor (to correct and resend); editing it
        starts a new attempt. A cancelled one stays an attempt in progress, its clock paused."""
        self.flush()
        self.running = False
        self.status(message)
        if human and sent:
            self._sent_text = self._pending_text
            self.human.reset()
            self.human_state = "done"
            self._show_timer()
            self.post_message(HumanProgress(False))
        elif human and self.human_state in ("active", "paused"):
            self.human_state = "paused"
            self.set_shown(self._shown)
            self._show_timer()

    def status(self, message: Text | str) -> None:
        self.query_one("#solve-status", Static).update(message)

    def watch_running(self, running: bool) -> None:
        self.query_one("#send", Button).disabled = running
        self.query_one("#cancel", Button).disabled = not running
        self.screen.refresh_bindings()  # ctrl+x Cancel shows only while a request runs

    @property
    def stream_text(self) -> str:
        return "".join(self._text)
